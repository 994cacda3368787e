#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS [TARGET...]]: builds the libFuzzer targets with clang (ASan+UBSan) in build-fuzz and runs
# each one (default: all five) for SECONDS (default 15) on a corpus seeded from the shipped worlds, the malformed
# corpus, the worlds at every bound and every past regression input. A failure stops the script; copy the input it
# names into tests/data/fuzz/ (fuzz_world), tests/data/fuzz_pipeline/ (fuzz_pipeline), tests/data/fuzz_map/
# (fuzz_map), tests/data/fuzz_recording/ (fuzz_recording) or tests/data/fuzz_scan_args/ as a regression test. The
# long run: scripts/fuzz.sh 3600 fuzz_pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_world fuzz_scan_args fuzz_pipeline fuzz_map fuzz_recording)
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f build-fuzz/CMakeCache.txt ]; then
    # The front end is built too, so fuzz_pipeline draws what it simulates (SDL's software renderer, no display).
    CC=clang cmake -S . -B build-fuzz -DLS_FUZZ=ON -DLS_BUILD_APP=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}" -- --no-print-directory | { grep -v '^\[' || true; }

artifacts=build-fuzz/artifacts
mkdir -p "$artifacts"
run() { # run TARGET SEEDS...
    local target=$1
    shift
    local corpus=build-fuzz/corpus/$target
    mkdir -p "$corpus"
    local dict=()
    [ -f "fuzz/$target.dict" ] && dict=(-dict="fuzz/$target.dict")
    echo "fuzz: $target for ${seconds}s"
    if ! "build-fuzz/fuzz/$target" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$corpus" "$@" \
        >"build-fuzz/$target.log" 2>&1; then
        tail -n 40 "build-fuzz/$target.log"
        echo "fuzz: $target found a failing input in $artifacts; keep it under tests/data/fuzz/" >&2
        exit 1
    fi
    grep -E "stat::number_of_executed_units" "build-fuzz/$target.log" | sed "s/^/fuzz: $target /"
}
for target in "${targets[@]}"; do
    case $target in
    fuzz_world) run fuzz_world worlds tests/data/malformed tests/data/fuzz ;;
    fuzz_scan_args) run fuzz_scan_args fuzz/scan_args_corpus ;;
    fuzz_pipeline) run fuzz_pipeline worlds tests/data/limits tests/data/fuzz_pipeline tests/data/fuzz ;;
    fuzz_map) run fuzz_map fuzz/map_corpus tests/data/fuzz_map ;;
    fuzz_recording) run fuzz_recording tests/data/fuzz_recording ;;
    *)
        echo "fuzz: unknown target '$target' (fuzz_world, fuzz_scan_args, fuzz_pipeline, fuzz_map, fuzz_recording)" >&2
        exit 2
        ;;
    esac
done
