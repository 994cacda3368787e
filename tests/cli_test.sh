#!/usr/bin/env bash
# CliTest: the headless commands end to end through the real program, as a user runs them.
#   tests/cli_test.sh path/to/lidarsim SOURCE_DIR
set -uo pipefail
lidarsim=${1:?usage: cli_test.sh path/to/lidarsim SOURCE_DIR}
src=${2:?usage: cli_test.sh path/to/lidarsim SOURCE_DIR}
name=cli_test
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# check: a summary line for a good world, a located error and status 1 for a bad one, 2 for bad usage.
expect_status 0 "$lidarsim" check "$src/worlds/default.json"
grep -Eq '^.*default\.json: [0-9]+ walls, [0-9]+ targets, [0-9]+ boxes, [0-9]+ polygons, [0-9]+ paths?, [0-9]+ vehicles?, [0-9]+ movers?, [0-9]+ robots?, [0-9.]+ x [0-9.]+ m$' \
    "$work/out.txt" || fail "check summary: $(cat "$work/out.txt")"
expect_status 1 "$lidarsim" check "$src/tests/data/malformed/bad_kind.json"
grep -q 'bad_kind.json:[0-9]*:[0-9]*: targets\[' "$work/err.txt" || fail "check error: $(cat "$work/err.txt")"
[ -s "$work/out.txt" ] && fail "check error: unexpected stdout"
# No world at all: one line saying what is missing, as every other command says it (not the whole help).
expect_status 2 "$lidarsim" check
[ "$(cat "$work/err.txt")" = "lidarsim check: missing WORLD.json (see lidarsim check --help)" ] ||
    fail "check without a world: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" fmt
[ "$(wc -l <"$work/err.txt")" -eq 1 ] && grep -q 'missing WORLD.json' "$work/err.txt" ||
    fail "fmt without a world: $(cat "$work/err.txt")"

# Fleets: check counts the robots, scan --robot scans from that robot (the others show as hit kind robot),
# run reports each robot.
expect_status 0 "$lidarsim" check "$src/worlds/fleet.json"
grep -q ', 8 robots, ' "$work/out.txt" || fail "check fleet: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" scan "$src/worlds/fleet.json" --robot amr5 --format csv
grep -q ',robot,' "$work/out.txt" || fail "scan --robot amr5 sees no robot"
expect_status 2 "$lidarsim" scan "$src/worlds/fleet.json" --robot nobody
grep -q "no robot 'nobody'" "$work/err.txt" || fail "scan --robot nobody: $(cat "$work/err.txt")"
expect_status 0 "$lidarsim" run "$src/worlds/fleet.json" --steps 120 --record "$work/fleet.jsonl" --every 60
[ "$(grep -c '^robot ' "$work/out.txt")" -eq 8 ] || fail "run fleet: expected 8 robot lines: $(cat "$work/out.txt")"
grep -q '"robots": \[{"id": "forklift"' "$work/fleet.jsonl" || fail "run fleet: no robots in the recording"

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
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --threads 257

# scan --poses on the thread pool: the same bytes for 1 and 3 threads, with noise too (each scan gets the stream
# where the previous scan left it), 150 poses (several batches).
for i in $(seq 1 150); do echo "$((i % 23)).5 $((i % 11)).25 $((i * 37 % 360))"; done >"$work/poses.txt"
for noise in 0 0.05; do
    expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --poses "$work/poses.txt" --noise $noise --threads 1
    mv "$work/out.txt" "$work/one.txt"
    expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --poses "$work/poses.txt" --noise $noise --threads 3
    [ "$(wc -l <"$work/out.txt")" -eq 150 ] || fail "scan --poses: expected 150 scans"
    cmp -s "$work/one.txt" "$work/out.txt" || fail "scan --poses --noise $noise: 1 and 3 threads differ"
done
# CSV is written on the pool as well, into a buffer per scan.
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --poses "$work/poses.txt" --noise 0.05 --format csv --threads 1
mv "$work/out.txt" "$work/one.txt"
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --poses "$work/poses.txt" --noise 0.05 --format csv --threads 3
cmp -s "$work/one.txt" "$work/out.txt" || fail "scan --poses --format csv: 1 and 3 threads differ"

# Inputs that are not regular files are refused at once, never waited on or read forever.
mkfifo "$work/fifo"
for input in "$work/fifo" /dev/zero "$work"; do
    expect_status 1 timeout 20 "$lidarsim" check "$input"
    grep -q ': not a regular file$' "$work/err.txt" || fail "check $input: $(cat "$work/err.txt")"
    expect_status 1 timeout 20 "$lidarsim" scan "$src/worlds/default.json" --poses "$input"
    grep -q ': not a regular file$' "$work/err.txt" || fail "scan --poses $input: $(cat "$work/err.txt")"
done

# bench's rays files too: a FIFO named NAME.rays.txt is not a bench world (it hung the bench in fopen), and a ray
# from beyond the coordinate bound is refused with its line.
mkdir "$work/bw"
cp "$src/worlds/default.json" "$work/bw/x.json"
mkfifo "$work/bw/x.rays.txt"
expect_status 1 timeout 20 "$lidarsim" bench --worlds "$work/bw" --world x --reps 1
grep -q 'no x.json with x.rays.txt beside it' "$work/err.txt" || fail "bench, FIFO rays: $(cat "$work/err.txt")"
rm "$work/bw/x.rays.txt"
printf '5 7 1 0\n1e308 0 1 0\n' >"$work/bw/x.rays.txt"
expect_status 1 timeout 20 "$lidarsim" bench --worlds "$work/bw" --world x --reps 1
grep -q 'x.rays.txt:2: expected' "$work/err.txt" || fail "bench, ray from 1e308: $(cat "$work/err.txt")"

# run: a summary, and a recording with a header and one line per recorded step; two runs record the same bytes.
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 120 --autopilot --record "$work/a.jsonl" --every 10
grep -q '^score: ' "$work/out.txt" || fail "run summary: $(cat "$work/out.txt")"
[ "$(wc -l <"$work/a.jsonl")" -eq 14 ] || fail "run --every 10: expected 14 lines, got $(wc -l <"$work/a.jsonl")"
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 120 --autopilot --record "$work/b.jsonl" --every 10
cmp -s "$work/a.jsonl" "$work/b.jsonl" || fail "run: two runs recorded different bytes"
expect_status 2 "$lidarsim" run "$src/worlds/default.json"

# render: a PNG file.
expect_status 0 "$lidarsim" render "$src/worlds/default.json" -o "$work/frame.png" --steps 10 --size 320x200
[ "$(head -c 8 "$work/frame.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "render: not a PNG"

# getopt_long everywhere: `--opt=value` and `--opt value` alike, whole names only, clear refusals.
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams=8 --pose=5,7,0
cp "$work/out.txt" "$work/equals.json"
expect_status 0 "$lidarsim" scan --pose 5,7,0 "$src/worlds/default.json" --beams 8
cmp -s "$work/out.txt" "$work/equals.json" || fail "scan: --beams=8 and --beams 8 printed different scans"
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --beam 8
grep -q "unknown option '--beam' (did you mean '--beams'?)" "$work/err.txt" || fail "scan --beam: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --bea=8
grep -q "unknown option '--bea' (did you mean '--beams'?)" "$work/err.txt" || fail "scan --bea: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" run "$src/worlds/default.json" --steps=1 --autopilot=yes
grep -q "'--autopilot' takes no value" "$work/err.txt" || fail "run --autopilot=yes: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" run "$src/worlds/default.json" --steps
grep -q "missing value after '--steps'" "$work/err.txt" || fail "run --steps: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" check --strict "$src/worlds/default.json"
grep -q "unknown option '--strict'" "$work/err.txt" || fail "check --strict: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" bench --reps=0
grep -q -- "--reps: expected" "$work/err.txt" || fail "bench --reps=0: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" --beams=0
grep -q -- "--beams: expected" "$work/err.txt" || fail "window --beams=0: $(cat "$work/err.txt")"

# Commands: a mistyped one gets the nearest, `help` is help; neither talks about displays.
expect_status 2 env -u DISPLAY -u WAYLAND_DISPLAY "$lidarsim" scna "$src/worlds/default.json"
grep -q "unknown command 'scna'; did you mean 'scan'?" "$work/err.txt" || fail "scna: $(cat "$work/err.txt")"
! grep -q display "$work/err.txt" || fail "scna talks about displays: $(cat "$work/err.txt")"
expect_status 0 env -u DISPLAY -u WAYLAND_DISPLAY "$lidarsim" help
grep -q "lidarsim scan WORLD.json" "$work/out.txt" || fail "help: $(cat "$work/out.txt")"
! grep -q display "$work/err.txt" || fail "help talks about displays: $(cat "$work/err.txt")"
expect_status 0 "$lidarsim" help run
grep -q "usage: lidarsim run" "$work/out.txt" || fail "help run: $(cat "$work/out.txt")"

# LaserScan: a header, the pose in radians (and degrees, named so), CSV with the pose; always valid JSON.
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams 8 --pose 5,7,90
grep -q '"header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": "laser"}' "$work/out.txt" ||
    fail "scan header: $(cat "$work/out.txt")"
grep -q '"pose": {"x": 5.0, "y": 7.0, "theta": 1.5707963267948966, "theta_deg": 90.0}' "$work/out.txt" ||
    fail "scan pose: $(cat "$work/out.txt")"
# Degrees print as given, not as lsRadToDeg's 3.0000000000000004.
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams 8 --pose 1,2,3
grep -q '"theta": 0.05235987755982989, "theta_deg": 3.0}' "$work/out.txt" || fail "scan degrees: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --beams 8 --pose 5,7,90 --format csv
head -n 1 "$work/out.txt" | grep -qx 'scan,x,y,theta,beam,angle,range,intensity,hit,index' ||
    fail "scan CSV header: $(head -n 1 "$work/out.txt")"
sed -n 2p "$work/out.txt" | grep -q '^0,5.0,7.0,1.5707963267948966,0,' || fail "scan CSV pose: $(sed -n 2p "$work/out.txt")"
expect_status 2 "$lidarsim" scan "$src/worlds/default.json" --no-hit inf
grep -q "JSON has no infinity" "$work/err.txt" || fail "scan --no-hit inf in JSON: $(cat "$work/err.txt")"
expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --no-hit inf --format csv --range 0.5
grep -q ',inf,' "$work/out.txt" || fail "scan CSV --no-hit inf: $(head -n 3 "$work/out.txt")"
if [ -x /usr/bin/python3 ]; then
    # Strict JSON: Python's reader accepts Infinity and NaN unless told not to.
    strict='import json, sys
def refuse(token): raise ValueError("not JSON: " + token)
for line in open(sys.argv[1], encoding="utf-8"): json.loads(line, parse_constant=refuse)'
    expect_status 0 "$lidarsim" scan "$src/worlds/default.json" --range 0.5 --pose 5,7,0 --pose 6,7,0
    /usr/bin/python3 -c "$strict" "$work/out.txt" || fail "scan printed invalid JSON"
    /usr/bin/python3 -c "$strict" "$work/a.jsonl" || fail "run --record wrote invalid JSON"
    # A world file whose name is not UTF-8 (Latin-1) is named in the header with U+FFFD for each such byte.
    latin=$(printf '%s/w\351.json' "$work")
    printf '{"walls": []}\n' >"$latin"
    expect_status 0 "$lidarsim" run "$latin" --steps 2 --record "$work/latin.jsonl"
    /usr/bin/python3 -c "$strict" "$work/latin.jsonl" || fail "run --record of a Latin-1 file name: invalid JSON"
    grep -q '"world_name": "w?"' "$work/latin.jsonl" || fail "a Latin-1 file name's world name: $(head -c 300 "$work/latin.jsonl")"
fi

# render: JPEG by the name, unknown names refused before anything is drawn.
expect_status 0 "$lidarsim" render "$src/worlds/default.json" --output="$work/frame.jpg" --size=320x200
[ "$(head -c 3 "$work/frame.jpg" | od -An -tx1 | tr -d ' \n')" = "ffd8ff" ] || fail "render -o x.jpg: not a JPEG"
expect_status 2 "$lidarsim" render "$src/worlds/default.json" -o "$work/frame.bmp"
grep -q "unknown image type" "$work/err.txt" || fail "render -o x.bmp: $(cat "$work/err.txt")"
[ -e "$work/frame.bmp" ] && fail "render -o x.bmp wrote a file"

# run --record without --every: the header, then one line per lidar scan (10 Hz lidar, 60 Hz steps: every 6th
# step), 60 steps -> 1 + 11.
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 60 --record "$work/compact.jsonl"
[ "$(wc -l <"$work/compact.jsonl")" -eq 12 ] || fail "run --record: expected 12 lines, got $(wc -l <"$work/compact.jsonl")"
[ "$(grep -c '"scan": {' "$work/compact.jsonl")" -eq 11 ] || fail "run --record: every line should carry its scan"

# render -o x.gif: an animated GIF (GIF89a), one frame at step 0 and every K steps: 13 / 4 -> 4 frames, each with
# its graphic control block (the frame delay).
expect_status 0 "$lidarsim" render "$src/worlds/default.json" -o "$work/run.gif" --steps 13 --every 4 --size 160x100
[ "$(head -c 6 "$work/run.gif")" = "GIF89a" ] || fail "render -o x.gif: not a GIF89a"
grep -q "4 frames" "$work/out.txt" || fail "render -o x.gif: $(cat "$work/out.txt")"
[ "$(/usr/bin/python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"\x21\xf9\x04"))' "$work/run.gif")" = 4 ] ||
    fail "render -o x.gif: expected 4 frames"
expect_status 2 "$lidarsim" render "$src/worlds/default.json" -o "$work/run.gif" --every 0
grep -q -- "--every: expected an integer in 1..100000000, got '0'" "$work/err.txt" ||
    fail "render --every 0: $(cat "$work/err.txt")"
# The cap is stated (it said ">= 0" and refused 2147483647).
expect_status 2 "$lidarsim" render "$src/worlds/default.json" -o "$work/run.gif" --steps 2147483647
grep -q -- "--steps: expected an integer in 0..100000000, got '2147483647'" "$work/err.txt" ||
    fail "render --steps 2147483647: $(cat "$work/err.txt")"
# A GIF is built in memory: one of millions of frames is refused at once (it ran for hours, then out of memory).
rm -f "$work/big.gif"
expect_status 1 timeout 20 "$lidarsim" render "$src/worlds/default.json" -o "$work/big.gif" --steps 100000000
grep -q '25000001 frames (100000000 steps, one frame every 4): a GIF holds at most' "$work/err.txt" ||
    fail "render a huge GIF: $(cat "$work/err.txt")"
[ -e "$work/big.gif" ] && fail "render a huge GIF wrote a file"

# fmt: a hand-written world is not canonical (--check lists it, exit 1); fmt rewrites it to what loads the same (the
# same scan, digit for digit) and what --check then accepts; fmt of the canonical text changes nothing.
cat >"$work/fmt.json" <<'EOF'
{
  "name": "hand",
  "walls": [{"points": [[0, 0], [8.0, 0], [8.0, 6], [0, 6]], "closed": true}, {"to": [4, 3.5], "from": [4, 0]}],
  "targets": [{"center": [6.25, 4.1], "radius": 0.3}, {"kind": "poison", "center": [1.5, 5], "radius": 0.25}],
  "boxes": [{"center": [2, 1.5], "size": [1.2, 0.80], "angle": 30}],
  "robot": {"pose": [1.5, 3, 10], "radius": 0.25, "lidar": {"beams": 90, "fov": 270, "range": 1e1, "noise": 0.01}}
}
EOF
expect_status 0 "$lidarsim" scan "$work/fmt.json" --format csv --seed 3
cp "$work/out.txt" "$work/fmt-scan-before.csv"
expect_status 1 "$lidarsim" fmt --check "$work/fmt.json"
grep -q "fmt.json" "$work/out.txt" || fail "fmt --check: should list the file: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" fmt "$work/fmt.json"
expect_status 0 "$lidarsim" fmt --check "$work/fmt.json"
cp "$work/fmt.json" "$work/fmt-once.json"
expect_status 0 "$lidarsim" fmt "$work/fmt.json"
cmp -s "$work/fmt.json" "$work/fmt-once.json" || fail "fmt of a canonical world changed it"
expect_status 0 "$lidarsim" scan "$work/fmt.json" --format csv --seed 3
cmp -s "$work/out.txt" "$work/fmt-scan-before.csv" || fail "fmt changed the world's scan"
# Every world the project ships stays canonical, so that fmt on one is a no-op and a diff shows only what changed
# (after editing one by hand, or regenerating bench/swarm.json with scripts/gen_swarm.py, run lidarsim fmt on it).
"$lidarsim" fmt --check "$src"/worlds/*.json "$src/bench/swarm.json" >"$work/out.txt" 2>&1 ||
    fail "shipped worlds not canonical (run lidarsim fmt on them): $(cat "$work/out.txt")"
expect_status 1 "$lidarsim" fmt "$work/missing.json"
# A recording is said to be one, as every other command says it (fmt said "a.jsonl:2:1: syntax error"), and is left
# as it was.
cp "$work/a.jsonl" "$work/a-before.jsonl"
for flag in "" --check --stdout; do
    # shellcheck disable=SC2086 # no flag at all
    expect_status 1 "$lidarsim" fmt $flag "$work/a.jsonl"
    grep -q "a.jsonl: a recording, not a world (lidarsim replay .*a.jsonl plays it)" "$work/err.txt" ||
        fail "fmt $flag REC: $(cat "$work/err.txt")"
done
cmp -s "$work/a.jsonl" "$work/a-before.jsonl" || fail "fmt changed a recording"
# A world with an unknown key (a typo) or a key given twice loads with warnings; the canonical form would drop them,
# so fmt prints the warnings and leaves the file as it was.
printf '{"walls": [{"from": [0, 0], "to": [1, 0], "reflectanse": 0.3}], "comment": "keep"}\n' >"$work/typo.json"
cp "$work/typo.json" "$work/typo-before.json"
expect_status 1 "$lidarsim" fmt "$work/typo.json"
cmp -s "$work/typo.json" "$work/typo-before.json" || fail "fmt rewrote a world with unknown keys"
grep -q "unknown key 'reflectanse' (did you mean 'reflectance'?)" "$work/err.txt" &&
    grep -q "typo.json: not rewritten" "$work/err.txt" || fail "fmt of unknown keys: $(cat "$work/err.txt")"
# An empty file name (a script's unset variable) is said to be one, read or written, before any work.
expect_status 1 "$lidarsim" check ""
[ "$(cat "$work/err.txt")" = "no file name given (an empty name)" ] || fail "check '': $(cat "$work/err.txt")"
expect_status 1 "$lidarsim" run "$src/worlds/default.json" --steps 10 --record ""
grep -q 'no file name given to write to' "$work/err.txt" && [ ! -s "$work/out.txt" ] ||
    fail "run --record '': $(cat "$work/out.txt" "$work/err.txt")"
# A map YAML is not a world file: said so, not as a JSON syntax error at its first line; the worlds after it are
# still formatted.
printf 'image: m.pgm\nresolution: 0.5\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n' >"$work/fmt.yaml"
expect_status 1 "$lidarsim" fmt --check "$work/fmt.yaml" "$work/fmt.json"
grep -q 'fmt.yaml: a map YAML, not a world file' "$work/err.txt" || fail "fmt MAP.yaml: $(cat "$work/err.txt")"
grep -q 'syntax error' "$work/err.txt" && fail "fmt MAP.yaml: $(cat "$work/err.txt")"

# An output never replaces the world file the command reads, however spelt (review 28: run --record over its world
# wrote the recording in its place); the map a world stands on is MapCliTest's.
cp "$src/worlds/default.json" "$work/keep.json"
expect_status 1 "$lidarsim" run "$work/keep.json" --steps 5 --record "$work/./keep.json"
grep -q 'keep.json: not written: it would replace .*keep.json, the world file this command reads' "$work/err.txt" ||
    fail "run --record over its world: $(cat "$work/err.txt")"
cmp -s "$work/keep.json" "$src/worlds/default.json" || fail "run --record over its world changed it"
ln -s keep.json "$work/keep-link.json"
expect_status 1 "$lidarsim" run "$work/keep-link.json" --steps 5 --record "$work/keep.json"
cmp -s "$work/keep.json" "$src/worlds/default.json" || fail "run --record over its world's link changed it"
rm "$work/keep-link.json"

# Every write is checked: a full device, a file size limit, and the result never left truncated under its name.
expect_status 1 sh -c '"$0" check "$1" >/dev/full' "$lidarsim" "$src/worlds/default.json"
grep -q 'stdout: write failed: No space left on device' "$work/err.txt" || fail "check >/dev/full: $(cat "$work/err.txt")"
expect_status 1 sh -c '"$0" scan "$1" --beams 8 >/dev/full' "$lidarsim" "$src/worlds/default.json"
expect_status 1 "$lidarsim" run "$src/worlds/default.json" --steps 10 --record /dev/full
grep -q '/dev/full: not written (write failed: No space left on device)' "$work/err.txt" || fail "run --record /dev/full"
expect_status 1 sh -c 'ulimit -f 8; "$0" render "$1" -o "$2" --steps 2' "$lidarsim" "$src/worlds/default.json" "$work/small.png"
grep -q 'small.png: not written (write failed: File too large); the old file is untouched' "$work/err.txt" ||
    fail "render over ulimit -f: $(cat "$work/err.txt")"
expect_status 1 sh -c 'ulimit -f 8; "$0" run "$1" --steps 2000 --record "$2"' "$lidarsim" "$src/worlds/default.json" "$work/big.jsonl"
[ -e "$work/small.png" ] || [ -e "$work/big.jsonl" ] && fail "a failed write left a file under its name"
temporary_left() { ls -A "$work" | grep -q '^\.lidarsim-'; }
temporary_left && fail "a failed write left its temporary file"
# A long run or render ended by a signal (kill, a hang-up) leaves no temporary file beside its target, and still dies
# by that signal.
for sig in TERM HUP; do
    "$lidarsim" run "$src/worlds/default.json" --steps 100000000 --record "$work/killed.jsonl" >/dev/null 2>&1 &
    pid=$!
    wait_until temporary_left || fail "run --record: no temporary file to clean up"
    kill -$sig $pid
    { wait $pid; } 2>/dev/null
    status=$?
    [ $status -eq $((128 + $(kill -l $sig))) ] || fail "run --record killed by SIG$sig: exit status $status"
    temporary_left && fail "run --record killed by SIG$sig left its temporary file"
    [ -e "$work/killed.jsonl" ] && fail "run --record killed by SIG$sig left a recording"
done
# Ctrl+C stops a run and keeps its recording: the step it stopped at is the last line, the header's steps says it,
# and the recording is the one `--steps K` writes (byte for byte but the spaces before the header's steps); the
# summary says where it stopped, and the program ends by SIGINT (130). The runs below get SIGINT back: a shell starts
# background commands with it ignored, which lidarsim keeps (as nohup wants); `trap -` in the subshell undoes that.
interrupted_run() { # interrupted_run OUT ERR ARGS...: starts `lidarsim run ARGS` in the background, Ctrl+C-able
    local out=$1 err=$2
    shift 2
    (
        trap - INT
        exec "$lidarsim" run "$@" >"$out" 2>"$err"
    ) &
    pid=$!
}
give_up() { # give_up MESSAGE: the run in the background is not left running when the test fails
    kill -KILL "$pid" 2>/dev/null
    fail "$@"
}
lines_at_least() { [ "$(cat "$@" 2>/dev/null | wc -l)" -ge 4 ]; } # lines_at_least FILE...: 4 lines written
temporary_lines() { lines_at_least "$work"/.lidarsim-*; }                # ... in the temporary file
stopped_at() { sed -n 's/^stopped by Ctrl+C at step \([0-9]*\) of 100000000\(;.*\)\{0,1\}$/\1/p' "$1"; }
step_of() { sed -n 's/^{"step": \([0-9]*\),.*/\1/p' "$1"; }
interrupted_run "$work/int-out.txt" "$work/int-err.txt" "$src/worlds/default.json" --steps 100000000 --autopilot \
    --record "$work/stopped.jsonl"
wait_until temporary_lines || give_up "run --record: no lines recorded within 60 s"
kill -INT $pid
wait_until exited $pid || give_up "run --record did not stop on Ctrl+C: $(cat "$work/int-err.txt")"
wait $pid
status=$?
[ $status -eq 130 ] || fail "run --record stopped by Ctrl+C: exit status $status: $(cat "$work/int-err.txt")"
temporary_left && fail "run --record stopped by Ctrl+C left its temporary file"
[ -s "$work/stopped.jsonl" ] || fail "run --record stopped by Ctrl+C: no recording"
grep -q 'Ctrl+C: stopping after this step' "$work/int-err.txt" || fail "Ctrl+C not answered: $(cat "$work/int-err.txt")"
stopped=$(stopped_at "$work/int-out.txt")
[ -n "$stopped" ] && [ "$stopped" -gt 0 ] || fail "no 'stopped by Ctrl+C at step K of N': $(cat "$work/int-out.txt")"
grep -q "^steps: $stopped of " "$work/int-out.txt" || fail "the summary's steps: $(cat "$work/int-out.txt")"
head -n 1 "$work/stopped.jsonl" | grep -q "\"steps\": *$stopped, " ||
    fail "header steps, expected $stopped: $(head -c 300 "$work/stopped.jsonl")"
[ "$(tail -n 1 "$work/stopped.jsonl" | step_of /dev/stdin)" = "$stopped" ] ||
    fail "last line not step $stopped: $(tail -n 1 "$work/stopped.jsonl" | head -c 100)"
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps "$stopped" --autopilot --record "$work/whole.jsonl"
sed '1s/"steps": *\([0-9]\)/"steps": \1/' "$work/stopped.jsonl" | cmp -s - "$work/whole.jsonl" ||
    fail "the recording stopped at step $stopped is not what --steps $stopped records"
[ "$(grep '^hash: ' "$work/out.txt")" = "$(grep '^hash: ' "$work/int-out.txt")" ] || fail "stopped run's hash"
expect_status 0 "$lidarsim" render "$work/stopped.jsonl" -o "$work/stopped.png" --size 64x48
[ -s "$work/stopped.png" ] || fail "render of the stopped recording"
# To stdout: the line of the step it stopped at ends the recording (its header keeps the steps asked for), and the
# summary on stderr says so.
interrupted_run "$work/stopped-out.jsonl" "$work/int-err.txt" "$src/worlds/default.json" --steps 100000000 \
    --autopilot --record -
wait_until lines_at_least "$work/stopped-out.jsonl" || give_up "run --record -: no lines within 60 s"
kill -INT $pid
wait_until exited $pid || give_up "run --record - did not stop on Ctrl+C"
wait $pid
status=$?
[ $status -eq 130 ] || fail "run --record - stopped by Ctrl+C: exit status $status: $(cat "$work/int-err.txt")"
stopped=$(stopped_at "$work/int-err.txt")
[ -n "$stopped" ] && [ "$(tail -n 1 "$work/stopped-out.jsonl" | step_of /dev/stdin)" = "$stopped" ] ||
    fail "run --record - stopped: $(cat "$work/int-err.txt") $(tail -n 1 "$work/stopped-out.jsonl" | head -c 100)"
expect_status 0 "$lidarsim" render "$work/stopped-out.jsonl" -o "$work/stopped-out.png" --size 64x48
# Without a recording: the summary of the steps done. It prints nothing before: a second of CPU time says it runs
# its steps (loading the world takes milliseconds).
interrupted_run "$work/int-out.txt" "$work/int-err.txt" "$src/worlds/default.json" --steps 100000000 --autopilot
stepping() { [ "$(ps -o times= -p "$1")" -ge 1 ]; }
wait_until stepping $pid || give_up "run: not running its steps within 60 s"
kill -INT $pid
wait_until exited $pid || give_up "run did not stop on Ctrl+C"
wait $pid
status=$?
[ $status -eq 130 ] && [ -n "$(stopped_at "$work/int-out.txt")" ] ||
    fail "run stopped by Ctrl+C: exit status $status: $(cat "$work/int-out.txt")"
# A second Ctrl+C ends it at once, without a summary: a run recording to a FIFO nobody reads blocks on its full pipe
# (state S in ps), hears the first, and cannot finish the line of its last step.
mkfifo "$work/stalled.fifo"
exec 3<>"$work/stalled.fifo"
interrupted_run "$work/int-out.txt" "$work/int-err.txt" "$src/worlds/default.json" --steps 100000000 --autopilot \
    --record "$work/stalled.fifo"
blocked() { ps -o stat= -p "$1" | grep -q '^S'; }
wait_until blocked $pid || give_up "run --record FIFO: not blocked on the full pipe within 60 s"
kill -INT $pid
wait_until grep -q 'Ctrl+C again' "$work/int-err.txt" || give_up "run blocked on a FIFO did not answer Ctrl+C"
kill -0 $pid || give_up "the first Ctrl+C ended the run blocked on a FIFO"
kill -INT $pid
wait_until exited $pid || give_up "a second Ctrl+C did not end the run"
wait $pid
status=$?
exec 3<&-
[ $status -eq 130 ] || fail "run ended by a second Ctrl+C: exit status $status"
[ -s "$work/int-out.txt" ] && fail "run ended by a second Ctrl+C printed a summary: $(cat "$work/int-out.txt")"
# export-map writes both files or neither: a YAML name one byte over NAME_MAX (its PGM name fits) is refused first.
long=$(printf 'm%.0s' $(seq 1 251))
expect_status 1 "$lidarsim" export-map "$src/worlds/default.json" -o "$work/$long.yaml"
grep -q 'a file name longer than 255 bytes); nothing was written' "$work/err.txt" || fail "export-map long: $(cat "$work/err.txt")"
[ -e "$work/$long.pgm" ] && fail "export-map with a too-long YAML name wrote its PGM"
# A recording's dt is bounded as a world's sim.dt: 1e-300 s is refused.
sed 's/"dt": [0-9.e-]*/"dt": 1e-300/' "$work/compact.jsonl" >"$work/tiny-dt.jsonl"
expect_status 1 "$lidarsim" render "$work/tiny-dt.jsonl" "$src/worlds/default.json" -o "$work/tiny.gif"
grep -q 'dt: expected a time step in \[1e-06, 1\] s' "$work/err.txt" || fail "recording dt 1e-300: $(cat "$work/err.txt")"
# Through a symlink: the link is kept and its target written.
ln -s frame-target.png "$work/frame-link.png"
expect_status 0 "$lidarsim" render "$src/worlds/default.json" -o "$work/frame-link.png" --size 64x48
[ -L "$work/frame-link.png" ] && [ -s "$work/frame-target.png" ] || fail "render -o through a symlink"
# The command-line bounds are the world file's: a time step of 1e308 s is refused.
expect_status 2 "$lidarsim" run "$src/worlds/default.json" --steps 1 --dt 1e308
grep -q -- '--dt: expected a time step in \[1e-06, 1\] s' "$work/err.txt" || fail "run --dt 1e308: $(cat "$work/err.txt")"

# Seeds: scan and run take the whole range a world file's sim.seed takes, [0, 2^64), and nothing beyond.
expect_status 0 "$lidarsim" run "$src/worlds/default.json" --steps 1 --seed 18446744073709551615
expect_status 2 "$lidarsim" run "$src/worlds/default.json" --steps 1 --seed 18446744073709551616
grep -q -- '--seed: expected a non-negative integer below 2^64' "$work/err.txt" || fail "run --seed 2^64: $(cat "$work/err.txt")"

# Control characters in keys and paths are escaped in warnings, errors and summaries.
# The key's escape is written as JSON's \u001b (a raw one in a string is refused, as JSON does: below).
printf '{"walls": [], "na\\u001b[2Jme": 1}' >"$work/esc"$'\033'"[31m.json"
expect_status 0 "$lidarsim" check "$work/esc"$'\033'"[31m.json"
grep -q $'\033' "$work/out.txt" "$work/err.txt" && fail "check printed a raw escape: $(cat -v "$work/out.txt" "$work/err.txt")"
grep -q 'esc\\x1B\[31m.json' "$work/out.txt" || fail "check summary: $(cat -v "$work/out.txt")"
grep -q "unknown key 'na\\\\x1B\[2Jme'" "$work/err.txt" || fail "check warning: $(cat -v "$work/err.txt")"
printf '{"walls": [], "na\033[2Jme": 1}' >"$work/raw.json"
expect_status 1 "$lidarsim" check "$work/raw.json"
grep -q $'\033' "$work/err.txt" && fail "check printed a raw escape: $(cat -v "$work/err.txt")"
grep -q 'raw.json:1:18: a control character (0x1b) inside a string' "$work/err.txt" || fail "raw escape: $(cat -v "$work/err.txt")"
# ... and in what the other commands print about the files they wrote or were given.
esc="$work/esc"$'\033'"[31m"
cp "$src/worlds/default.json" "$esc-w.json"
printf 'P2\n4 4\n255\n0 0 0 0\n0 254 254 0\n0 254 254 0\n0 0 0 0\n' >"$work/m.pgm"
printf 'image: m.pgm\nresolution: 0.5\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n' >"$work/m.yaml"
for command in "render $esc-w.json -o $esc.gif --size 32x32 --steps 2" "import $work/m.yaml -o $esc-i.json" \
    "export-map $esc-w.json -o $esc-m.yaml" "fmt --check $esc-w.json" "scan $esc-w.json --robot $esc" "$esc" \
    "bench --worlds $esc"; do
    # shellcheck disable=SC2086 # the words of the command line
    "$lidarsim" $command >"$work/out.txt" 2>"$work/err.txt"
    grep -q $'\033' "$work/out.txt" "$work/err.txt" && fail "$command printed a raw escape: $(cat -v "$work/out.txt" "$work/err.txt")"
done
# run's per-robot summary escapes an id as the world's name (it printed the id's escape raw).
printf '{"walls": [], "robots": [{"id": "a\\u001b[2J", "pose": [0, 0, 0]}, {"id": "b", "pose": [2, 0, 0]}]}' \
    >"$work/ids.json"
expect_status 0 "$lidarsim" run "$work/ids.json" --steps 2
grep -q $'\033' "$work/out.txt" && fail "run printed a robot id's raw escape: $(cat -v "$work/out.txt")"
grep -q '^robot a\\x1B\[2J: score: ' "$work/out.txt" || fail "run's robot summary: $(cat -v "$work/out.txt")"

# --help and --version.
expect_status 0 "$lidarsim" --version
grep -q '^lidarsim ' "$work/out.txt" || fail "--version: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" --help
# The help's two columns line up: every command's summary starts where the window's does.
columns=$(grep -E '^(usage: |       )lidarsim ' "$work/out.txt" | sed -E 's/^(.{16}[^ ]+( [^ ]+)*  +).*/\1/' | awk '{ print length }' | sort -u)
[ "$(echo "$columns" | wc -l)" -eq 1 ] || fail "--help: the summaries do not line up: $(cat "$work/out.txt")"
# help window: the window's options (it is no command word).
expect_status 0 "$lidarsim" help window
grep -q -- '--screenshots DIR' "$work/out.txt" || fail "help window: $(cat "$work/out.txt")"
# scan sees the moving walls where the simulation has them at time 0, not at their file segment: a door half way
# through its cycle (phase 0.5) stands shifted by its whole offset, 3 m ahead of the robot instead of 2 m.
cat >"$work/door.json" <<'WORLD'
{"walls": [{"points": [[-10, -10], [10, -10], [10, 10], [-10, 10]], "closed": true}],
 "movers": [{"type": "door", "from": [2, -1], "to": [2, 1], "offset": [1, 0], "period": 4, "phase": 0.5}],
 "robot": {"pose": [0, 0, 0], "lidar": {"beams": 1, "fov": 1}}}
WORLD
expect_status 0 "$lidarsim" scan "$work/door.json" --format csv
[ "$(sed -n 2p "$work/out.txt" | cut -d, -f7,9)" = "3.0,mover" ] || fail "scan: door at time 0: $(cat "$work/out.txt")"
echo "cli_test: ok"
