#!/usr/bin/env bash
# scripts/soak_fleet.sh [STEPS] [EVERY] [WORLD.json]: the 1 000-robot soak. Builds tools/ls_soak (optimised, no
# sanitizers: a thousand robots under ASan crawl) in build-soak-fleet and runs STEPS (default 100 000) steps of the
# swarm world (default bench/swarm.json, 1 000 autopilot robots with 360-beam lidars; made by scripts/gen_swarm.py
# when missing), checking the invariants every EVERY steps (default 10): no NaN anywhere, no robot overlapping a
# wall, shape, moving wall or another robot, vehicles inside the world; plus a flat core heap. Not part of the test
# command: 100 000 steps (5 000 simulated s) take about an hour of CPU on one core (about 0.7 CPU s per simulated
# second of the swarm once the autopilots remember full trails; 11 steps/s wall on the loaded 2-core machine).
# Stopped early (Ctrl+C, kill -TERM), it prints how many steps ran, steps/s and whether the invariants held.
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100000}
every=${2:-10}
world=${3:-bench/swarm.json}
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f "$world" ]; then
    /usr/bin/python3 scripts/gen_swarm.py "$world"
fi
if [ ! -f build-soak-fleet/CMakeCache.txt ]; then
    cmake -S . -B build-soak-fleet -DLS_WERROR=ON -DLS_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-soak-fleet -j "$jobs" --target ls_soak -- --no-print-directory | { grep -v '^\[' || true; }
# Progress every 5 000 steps; exec, so a SIGINT or SIGTERM reaches ls_soak, which stops with its summary.
exec ./build-soak-fleet/tools/ls_soak "$world" --steps "$steps" --every "$every" --progress 5000
