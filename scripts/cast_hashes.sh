#!/usr/bin/env bash
# scripts/cast_hashes.sh BUILD [WORLDS_DIR] [MAP RAYS.txt]...: every answer hash of ls_bench_cast on the bench
# worlds (WORLDS_DIR, default ../shared/bench-worlds beside the source tree; each NAME.json with NAME.rays.txt) and on
# the depot map, then on each extra map with its rays: the rays, and scans noiseless, from the robot's pose, with
# jitter and with range noise. A change to the cast keeps every answer exactly when two builds print the same lines:
#   scripts/cast_hashes.sh build-old > old.txt; scripts/cast_hashes.sh build > new.txt; diff old.txt new.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
worlds=$root/../shared/bench-worlds
if [ $# -ge 2 ] && [ -d "$2" ]; then
    worlds=$2
    shift
fi
shift
cast=$build/bench/ls_bench_cast
run() # NAME WORLD RAYS SCANS
{
    for flags in "" "--pose" "--jitter" "--noise" "--pose --noise"; do
        # shellcheck disable=SC2086 # the flags are words
        echo "$1 ${flags:-plain}: $("$cast" "$2" "$3" --scans "$4" $flags | tr '\n' ' ')"
    done
}
for world in "$worlds"/*.json; do
    name=$(basename "$world" .json)
    [ -f "$worlds/$name.rays.txt" ] && run "$name" "$world" "$worlds/$name.rays.txt" 20
done
run depot "$root/bench/maps/depot.yaml" "$root/bench/maps/depot.rays.txt" 100
while [ $# -ge 2 ]; do
    run "$(basename "$1")" "$1" "$2" 50
    shift 2
done
