#!/usr/bin/env bash
# CliTest: the headless commands end to end through the real program, as a user runs them.
#   tests/cli_test.sh path/to/lidarsim SOURCE_DIR
set -uo pipefail
lidarsim=${1:?usage: cli_test.sh path/to/lidarsim SOURCE_DIR}
src=${2:?usage: cli_test.sh path/to/lidarsim SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "cli_test: FAIL: $*" >&2
    exit 1
}
expect_status() { # expect_status STATUS COMMAND...
    local want=$1
    shift
    "$@" >"$work/out.txt" 2>"$work/err.txt"
    local got=$?
    [ "$got" -eq "$want" ] || fail "$*: exit status $got, expected $want: $(cat "$work/err.txt")"
}

# check: a summary line for a good world, a located error and status 1 for a bad one, 2 for bad usage.
expect_status 0 "$lidarsim" check "$src/worlds/default.json"
grep -Eq '^.*default\.json: [0-9]+ walls, [0-9]+ targets, [0-9]+ boxes, [0-9]+ polygons, [0-9]+ paths?, [0-9]+ vehicles?, [0-9]+ movers?, [0-9.]+ x [0-9.]+ m$' \
    "$work/out.txt" || fail "check summary: $(cat "$work/out.txt")"
expect_status 1 "$lidarsim" check "$src/tests/data/malformed/bad_kind.json"
grep -q 'bad_kind.json:[0-9]*:[0-9]*: targets\[' "$work/err.txt" || fail "check error: $(cat "$work/err.txt")"
[ -s "$work/out.txt" ] && fail "check error: unexpected stdout"
expect_status 2 "$lidarsim" check

# scan: LaserScan JSON with one range per beam, CSV, and clear refusals of bad arguments.
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams 8 --pose 5,7,0
for key in angle_min angle_max angle_increment range_min range_max time_increment scan_time ranges intensities hits; do
    grep -q "\"$key\": " "$work/out.txt" || fail "scan JSON lacks $key: $(cat "$work/out.txt")"
done
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams 8 --format csv
[ "$(wc -l <"$work/out.txt")" -eq 9 ] || fail "scan CSV: expected a header and 8 beams: $(cat "$work/out.txt")"
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --beams 0
grep -q -- '--beams' "$work/err.txt" || fail "scan --beams 0: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --pose 1,2
expect_status 1 "$lidarsim" scan "$work/missing.json"

# Inputs that are not regular files are refused at once, never waited on or read forever.
mkfifo "$work/fifo"
for input in "$work/fifo" /dev/zero "$work"; do
    expect_status 1 timeout 20 "$lidarsim" check "$input"
    grep -q ': not a regular file$' "$work/err.txt" || fail "check $input: $(cat "$work/err.txt")"
    expect_status 1 timeout 20 "$lidarsim" scan "$src/worlds/default.json" --poses "$input"
    grep -q ': not a regular file$' "$work/err.txt" || fail "scan --poses $input: $(cat "$work/err.txt")"
done

# run: a summary, and a recording with one line per recorded step; two runs record the same bytes.
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 120 --autopilot --record "$work/a.jsonl" --every 10
grep -q '^score: ' "$work/out.txt" || fail "run summary: $(cat "$work/out.txt")"
[ "$(wc -l <"$work/a.jsonl")" -eq 13 ] || fail "run --every 10: expected 13 lines, got $(wc -l <"$work/a.jsonl")"
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 120 --autopilot --record "$work/b.jsonl" --every 10
cmp -s "$work/a.jsonl" "$work/b.jsonl" || fail "run: two runs recorded different bytes"
expect_status 2 "$lidarsim" run "$src/worlds/default.json"

# render: a PNG file.
expect_status 0 "$lidarsim" render "$src/worlds/default.json" -o "$work/frame.png" --steps 10 --size 320x200
[ "$(head -c 8 "$work/frame.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "render: not a PNG"

# --help and --version.
expect_status 0 "$lidarsim" --version
grep -q '^lidarsim ' "$work/out.txt" || fail "--version: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" --help
echo "cli_test: ok"
