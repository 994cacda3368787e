#!/usr/bin/env bash
# scripts/soak.sh [STEPS] [WORLD.json|FOLDER...]: builds tools/ls_soak with AddressSanitizer and UndefinedBehaviorSanitizer
# in build-soak and soaks each world for STEPS steps (default 1 000 000) with the autopilot, checking the invariants
# (src/core/invariants.h) after every step. With no world named it soaks every shipped world (worlds/) and every bench
# world: the folder in LIDARSIM_BENCH_WORLDS, else shared/bench-worlds beside the source tree when there is one
# (manifest.json skipped). Prints peak RSS, the core heap (which must stay flat) and steps/s per world; exits 1 when
# any world broke an invariant, leaked or made a sanitizer report (the others still run).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-1000000}
shift || true
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
    inputs=(worlds)
    bench=${LIDARSIM_BENCH_WORLDS:-../shared/bench-worlds}
    [ -d "$bench" ] && inputs+=("$bench")
fi
worlds=()
for input in "${inputs[@]}"; do
    if [ -d "$input" ]; then
        for file in "$input"/*.json; do
            [ -f "$file" ] && [ "$(basename "$file")" != manifest.json ] && worlds+=("$file")
        done
    else
        worlds+=("$input")
    fi
done
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f build-soak/CMakeCache.txt ]; then
    cmake -S . -B build-soak -DLS_SANITIZE=ON -DLS_WERROR=ON -DLS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        >/dev/null
fi
cmake --build build-soak -j "$jobs" --target ls_soak -- --no-print-directory | { grep -v '^\[' || true; }
failed=()
for world in "${worlds[@]}"; do
    echo "soak: $world, $steps steps"
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ./build-soak/tools/ls_soak "$world" --steps "$steps" --quiet; then
        failed+=("$world")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "soak: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "soak: ok, ${#worlds[@]} worlds"
