#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: builds the libFuzzer targets with clang (ASan+UBSan) in build-fuzz and runs each one
# for SECONDS (default 15) on a corpus seeded from the shipped worlds, the malformed corpus and every past
# regression input. A crash fails the script; copy the input it names into tests/data/fuzz/ as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f build-fuzz/CMakeCache.txt ]; then
    CC=clang cmake -S . -B build-fuzz -DLS_FUZZ=ON -DLS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j "$jobs" --target fuzz_targets -- --no-print-directory | { grep -v '^\[' || true; }

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
run fuzz_world worlds tests/data/malformed tests/data/fuzz
run fuzz_scan_args fuzz/scan_args_corpus
