#!/usr/bin/env bash
# scripts/soak.sh [STEPS] [WORLD.json]: builds tools/ls_soak with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-soak and runs STEPS (default 1 000 000) steps of WORLD (default worlds/default.json) with the autopilot,
# checking the invariants (src/core/invariants.h) after every step. Prints peak RSS at step 10 000 and at the end,
# the core heap (which must stay flat) and steps/s; fails at the first broken invariant, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-1000000}
world=${2:-worlds/default.json}
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f build-soak/CMakeCache.txt ]; then
    cmake -S . -B build-soak -DLS_SANITIZE=ON -DLS_WERROR=ON -DLS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        >/dev/null
fi
cmake --build build-soak -j "$jobs" --target ls_soak -- --no-print-directory | { grep -v '^\[' || true; }
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./build-soak/tools/ls_soak "$world" --steps "$steps"
