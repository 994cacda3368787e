#!/usr/bin/env bash
# ReplayTest: recordings played back through the real program (run by ctest).
#   tests/replay_test.sh path/to/lidarsim SOURCE_DIR
# 1. `run --record` writes a header and compact lines; --precise-scans keeps doubles and is larger.
# 2. `render REC.jsonl -o a.gif` writes one frame every K steps of the recording at the size asked; a still too.
# 3. A recording is refused for another world (both files named), and a truncated, garbled or header-less one is a
#    located error (file:line), exit 1, never a crash.
# 4. Under Xvfb: `replay --paused --start S --print-pose` shows the recorded pose of step S (a recorded line, and a
#    skipped step from the line's path), and keys (End, Left, Shift+Left, Q) move through the recording; two F12
#    presses handled in one frame save two screenshots; in a fleet's recording Tab, Shift+Tab and B answer as in the
#    live window.
set -uo pipefail

lidarsim=${1:?usage: replay_test.sh path/to/lidarsim SOURCE_DIR}
src=${2:?usage: replay_test.sh path/to/lidarsim SOURCE_DIR}
name=replay_test
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # see window_test.sh

world="$src/worlds/default.json"
rec="$work/run.jsonl"

# 1. The recording: 120 steps of the default world (10 Hz lidar, 60 Hz steps): a header and 21 lines.
expect_status 0 "$lidarsim" run "$world" --steps 120 --autopilot --record "$rec"
[ "$(wc -l <"$rec")" -eq 22 ] || fail "run --record: expected 22 lines, got $(wc -l <"$rec")"
head -n 1 "$rec" | grep -q '^{"lidarsim_recording": 1, "world": ".*default.json", "world_hash": "[0-9a-f]\{16\}"' ||
    fail "no header: $(head -c 200 "$rec")"
sed -n 3p "$rec" | grep -q '"ranges_mm": \[[0-9]' || fail "scans not in millimetres: $(sed -n 3p "$rec" | head -c 300)"
sed -n 3p "$rec" | grep -q '"path": \[\[' || fail "no path of the skipped steps: $(sed -n 3p "$rec" | head -c 300)"
expect_status 0 "$lidarsim" run "$world" --steps 120 --autopilot --record "$work/precise.jsonl" --precise-scans
sed -n 3p "$work/precise.jsonl" | grep -q '"ranges": \[[0-9.]*,' || fail "--precise-scans: no ranges in metres"
[ "$(wc -c <"$work/precise.jsonl")" -gt "$(($(wc -c <"$rec") * 2))" ] || fail "compact is not smaller than precise"
# A lidar on a mount of 999 999 m scans from beyond the coordinates' bound (1e6 m), where a sensor may be: its
# recording plays back (its scans' origins were refused).
sed 's/"mount": \[0, 0, 0\]/"mount": [999999, 0, 0]/' "$world" >"$work/far.json"
grep -q '"mount": \[999999' "$work/far.json" || fail "far.json: no mount written"
expect_status 0 "$lidarsim" run "$work/far.json" --steps 10 --record "$work/far.jsonl"
expect_status 0 "$lidarsim" render "$work/far.jsonl" -o "$work/far.png" --size 160x100

# 2. A GIF from the recording: a frame every 12 steps of 120 -> 11 frames (one graphic control block each), the
# logical screen 320x200; a PNG still; the same from the precise recording.
expect_status 0 "$lidarsim" render "$rec" -o "$work/rec.gif" --every 12 --size 320x200
grep -q ': 11 frames, ' "$work/out.txt" || fail "render REC -o gif: $(cat "$work/out.txt")"
[ "$(head -c 6 "$work/rec.gif")" = "GIF89a" ] || fail "render REC -o gif: not a GIF"
[ "$(od -An -tu2 -j6 -N4 "$work/rec.gif" | tr -s ' ')" = " 320 200" ] || fail "GIF size: $(od -An -tu2 -j6 -N4 "$work/rec.gif")"
frames=$(od -An -v -tx1 "$work/rec.gif" | tr -d '\n' | grep -o '21 f9 04' | wc -l)
[ "$frames" -eq 11 ] || fail "GIF from the recording: expected 11 frames, found $frames"
expect_status 0 "$lidarsim" render "$work/precise.jsonl" -o "$work/still.png" --steps 60 --size 320x200
[ "$(head -c 8 "$work/still.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "render REC -o png"
# A recording whose header a JSON tool rewrote (a space inside the brace, a byte order mark) is still one, and check
# says what it is instead of a syntax error on line 2.
sed '1s/^{"lidarsim_recording"/{ "lidarsim_recording"/' "$rec" >"$work/spaced.jsonl"
{ printf '\357\273\277'; cat "$rec"; } >"$work/bom.jsonl"
for copy in spaced bom; do
    expect_status 0 "$lidarsim" render "$work/$copy.jsonl" "$world" -o "$work/$copy.png" --steps 60 --size 320x200
    expect_status 1 "$lidarsim" check "$work/$copy.jsonl"
    grep -q "$copy.jsonl: a recording, not a world (lidarsim replay " "$work/err.txt" || fail "check REC: $(cat "$work/err.txt")"
done
# Every command that loads a world says so too (run and scan said "syntax error" on line 2).
for command in "run --steps 1" scan; do
    # shellcheck disable=SC2086 # the command's words
    expect_status 1 "$lidarsim" $command "$rec"
    grep -q "run.jsonl: a recording, not a world (lidarsim replay " "$work/err.txt" || fail "$command REC: $(cat "$work/err.txt")"
done
expect_status 2 "$lidarsim" render "$rec" -o "$work/x.gif" --autopilot
grep -q 'do not apply to a recording' "$work/err.txt" || fail "render REC --autopilot: $(cat "$work/err.txt")"
# A first file that is not a recording, with a world after it: the message is about that file (review 28: an empty
# .jsonl, not taken for a recording, gave "more than one world given ('w.json')").
: >"$work/empty.jsonl"
expect_status 1 "$lidarsim" render "$work/empty.jsonl" "$world" -o "$work/x.gif"
grep -q 'empty.jsonl: empty file, not a recording' "$work/err.txt" || fail "render EMPTY WORLD: $(cat "$work/err.txt")"
cp "$world" "$work/first.json"
expect_status 2 "$lidarsim" render "$work/first.json" "$world" -o "$work/x.gif"
grep -q "first.json: not a recording (its first line is not {\"lidarsim_recording\"...), so no world may follow it" \
    "$work/err.txt" || fail "render WORLD WORLD: $(cat "$work/err.txt")"
[ -e "$work/x.gif" ] && fail "render of a first file that is not a recording wrote a file"

# 3. Another world: refused by replay and render, naming both files; a world given that is the recorded one works.
for command in "replay" "render -o $work/other.gif"; do
    # shellcheck disable=SC2086 # the command's words
    expect_status 1 "$lidarsim" $command "$rec" "$src/worlds/maze.json"
    grep -q "run.jsonl: recorded in a world with hash [0-9a-f]* (.*default.json), but .*maze.json has hash" \
        "$work/err.txt" || fail "$command with another world: $(cat "$work/err.txt")"
done
[ -e "$work/other.gif" ] && fail "render with another world wrote a file"
# The world edited since the recording (one target moved): refused too.
sed 's/"center": \[19.89, 6.39\]/"center": [19.8, 6.39]/' "$world" >"$work/edited.json"
expect_status 1 "$lidarsim" render "$rec" "$work/edited.json" -o "$work/edited.gif"
grep -q "edited.json has hash" "$work/err.txt" || fail "edited world: $(cat "$work/err.txt")"
cp "$world" "$work/same.json"
expect_status 0 "$lidarsim" render "$rec" "$work/same.json" -o "$work/same.png" --size 160x100
# A still past a one-step recording's end: said so, in the singular.
expect_status 0 "$lidarsim" run "$world" --steps 1 --record "$work/one.jsonl"
expect_status 0 "$lidarsim" render "$work/one.jsonl" -o "$work/one.png" --steps 5 --size 160x100
grep -q "past the recording's end (1 step): its last step is drawn" "$work/err.txt" ||
    fail "render past the end: $(cat "$work/err.txt")"
# A world on a map whose image changed since: the world's text only names the map, the header's map_hash catches it.
mkdir -p "$work/onmap"
printf 'P2\n4 3\n255\n0 0 0 0\n0 255 255 0\n0 0 0 0\n' >"$work/onmap/m.pgm"
printf 'image: m.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.196\nnegate: 0\n' \
    >"$work/onmap/m.yaml"
echo '{"map": "m.yaml", "robot": {"pose": [1.5, 1.5, 0], "radius": 0.2}}' >"$work/onmap/w.json"
expect_status 0 "$lidarsim" run "$work/onmap/w.json" --steps 6 --record "$work/onmap.jsonl"
head -n 1 "$work/onmap.jsonl" | grep -q '"map_hash": "[0-9a-f]\{16\}"' || fail "no map_hash: $(head -c 300 "$work/onmap.jsonl")"
expect_status 0 "$lidarsim" render "$work/onmap.jsonl" -o "$work/onmap.png" --size 160x100
printf 'P2\n4 3\n255\n0 0 0 0\n0 255 255 255\n0 0 0 0\n' >"$work/onmap/m.pgm" # one wall cell freed
expect_status 1 "$lidarsim" render "$work/onmap.jsonl" -o "$work/onmap2.png"
grep -q 'onmap.jsonl: recorded on a map whose walls have hash [0-9a-f]*, but the map of .*w.json has hash' \
    "$work/err.txt" || fail "changed map: $(cat "$work/err.txt")"
# Malformed recordings: each a located error and exit 1.
head -c 3000 "$rec" >"$work/cut.jsonl"
expect_status 1 "$lidarsim" render "$work/cut.jsonl" -o "$work/cut.gif"
grep -q 'cut.jsonl:2: last line not complete' "$work/err.txt" || fail "truncated: $(cat "$work/err.txt")"
sed '5s/"hits": "/"hits": "?/' "$rec" >"$work/garbled.jsonl"
expect_status 1 "$lidarsim" replay "$work/garbled.jsonl"
grep -q 'garbled.jsonl:5: scan.hits: expected 360 letters' "$work/err.txt" || fail "garbled: $(cat "$work/err.txt")"
sed '7s/}$/,/' "$rec" >"$work/broken.jsonl"
expect_status 1 "$lidarsim" render "$work/broken.jsonl" -o "$work/broken.gif"
grep -q 'broken.jsonl:7: invalid JSON at column' "$work/err.txt" || fail "broken JSON: $(cat "$work/err.txt")"
tail -n +2 "$rec" >"$work/old.jsonl"
expect_status 1 "$lidarsim" render "$work/old.jsonl" -o "$work/old.gif"
grep -q 'old.jsonl:1: no recording header.*record it again' "$work/err.txt" || fail "old: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" replay
grep -q 'missing REC.jsonl' "$work/err.txt" || fail "replay without a file: $(cat "$work/err.txt")"
# A world file given as the recording: not a recording, said so (not "invalid JSON at column 2").
expect_status 1 "$lidarsim" replay "$world"
grep -q 'default.json:1: not a recording' "$work/err.txt" || fail "replay WORLD.json: $(cat "$work/err.txt")"
# A recording made with a relative world path, read from elsewhere: the path as recorded, where it was looked for,
# and how to name the world.
mkdir -p "$work/here/worlds" "$work/elsewhere"
cp "$world" "$work/here/worlds/w.json"
(cd "$work/here" && "$lidarsim" run worlds/w.json --steps 12 --record "$work/elsewhere/rel.jsonl" >/dev/null) ||
    fail "run with a relative world path"
(cd "$work" && expect_status 1 "$lidarsim" render "$work/elsewhere/rel.jsonl" -o "$work/rel.png")
grep -q 'rel.jsonl: its world worlds/w.json, looked for from here and beside the recording: .*render REC WORLD' \
    "$work/err.txt" || fail "recording's world not found: $(cat "$work/err.txt")"
# No display: one line naming render.
expect_status 1 env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$lidarsim" replay "$rec"
grep -q 'lidarsim render .* -o run.gif' "$work/err.txt" || fail "replay without a display: $(cat "$work/err.txt")"

# 4. The window, under Xvfb.
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "replay_test: Xvfb not installed, window part skipped"
    exit 0
fi
start_xvfb 1280x800x24
# The pose a recorded line holds, and a path entry (k-th skipped step before the line of step S), as "x y deg"
# rounded as --print-pose prints them.
pose_of() {
    /usr/bin/python3 -c '
import json, sys
step, k = int(sys.argv[2]), int(sys.argv[3])
for text in open(sys.argv[1]):
    line = json.loads(text)
    if line.get("step") == step:
        pose = line["pose"] if k < 0 else line["path"][k]
        print("pose %.6f %.6f %.6f" % tuple(pose))' "$@"
}
replay_pose() {
    "$lidarsim" replay "$rec" --paused --frames 2 --print-pose --size 640x400 "$@" >"$work/replay.txt" 2>&1 ||
        fail "replay $*: $(cat "$work/replay.txt") $(server_said)"
    ! grep -q 'still allocated' "$work/replay.txt" || fail "replay: leak: $(cat "$work/replay.txt")"
    grep '^pose ' "$work/replay.txt"
}
[ "$(replay_pose --start 60)" = "$(pose_of "$rec" 60 -1)" ] || fail "step 60: $(replay_pose --start 60) != $(pose_of "$rec" 60 -1)"
# Step 62 is the second skipped step before the line of step 66 (its path holds 4 decimals).
got=$(replay_pose --start 62)
want=$(pose_of "$rec" 66 1)
[ "$got" = "$want" ] || fail "step 62 (between lines): $got != $want"
# Playing: 30 frames at 60 frames per second of replay time and speed 2 from step 0 end at step 60.
"$lidarsim" replay "$rec" --frames 30 --speed 2 --print-pose --size 640x400 >"$work/play.txt" 2>&1 ||
    fail "replay --frames: $(cat "$work/play.txt") $(server_said)"
grep -q '^step 60$' "$work/play.txt" || fail "replay playing: $(cat "$work/play.txt")"
echo "replay_test: replayed poses match the recording"

if ! command -v xdotool >/dev/null 2>&1; then
    echo "replay_test: xdotool not installed, key part skipped"
    exit 0
fi
# Keys: End, Left, Left, Shift+Left (back to the previous recorded line), two F12 presses handled in one frame (the
# window stopped while they are typed), Q. Each waits only for the state it needs: the window on screen and focused
# (X delivers the keys after that in order), the screenshots' answers, the exit.
"$lidarsim" replay "$rec" --paused --print-pose --size 640x400 --screenshots "$work/shots" >"$work/keys.txt" 2>&1 &
pid=$!
keys_fail() { # keys_fail MESSAGE: stops the window, then fails
    kill "$pid" 2>/dev/null
    fail "replay keys: $1: $(cat "$work/keys.txt") $(server_said)"
}
wid=$(find_window "$pid")
[ -n "$wid" ] || keys_fail "no window appeared"
xdotool windowfocus --sync "$wid" || keys_fail "cannot focus the window"
for k in End Left Left shift+Left; do
    xdotool key "$k"
done
kill -STOP "$pid"
xdotool key F12 F12
kill -CONT "$pid"
two_saved() { [ "$(grep -c '^lidarsim: saved .*shots/run-' "$work/keys.txt")" -eq 2 ]; }
wait_until two_saved || keys_fail "two F12 presses, not two files saved"
xdotool key q
wait_until exited "$pid" || keys_fail "the window did not quit on Q"
wait "$pid" || fail "replay keys: exit status $?: $(cat "$work/keys.txt")"
! grep -q 'still allocated' "$work/keys.txt" || fail "replay keys: leak: $(cat "$work/keys.txt")"
# End -> 120, Left twice -> 118, Shift+Left -> the line before: 114.
grep -q '^step 114$' "$work/keys.txt" || fail "replay keys: expected step 114: $(cat "$work/keys.txt")"
[ "$(ls "$work"/shots/run-*.png | wc -l)" -eq 2 ] || fail "replay keys: two F12 presses: $(ls "$work/shots")"

# A fleet's recording: Tab / Shift+Tab select the robot shown (F follows it, the HUD, the scan plot and the trail
# show it, its scan drawn in full) and B shows or hides the other robots' beams, as in the live window; each key is
# answered in the status line.
expect_status 0 "$lidarsim" run "$src/worlds/fleet.json" --steps 60 --record "$work/fleet.jsonl"
# A fleet's line whose second robot's scan is cut short names that robot's scan, not the first robot's.
/usr/bin/python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
line = json.loads(lines[1])
line["robots"][1]["scan"]["hits"] = line["robots"][1]["scan"]["hits"][1:]
lines[1] = json.dumps(line)
open(sys.argv[2], "w").write("\n".join(lines) + "\n")' "$work/fleet.jsonl" "$work/fleet-cut.jsonl"
expect_status 1 "$lidarsim" render "$work/fleet-cut.jsonl" -o "$work/x.png"
grep -q "fleet-cut.jsonl:2: robots\[1\].scan.hits: expected " "$work/err.txt" || fail "fleet scan path: $(cat "$work/err.txt")"
"$lidarsim" replay "$work/fleet.jsonl" --paused --size 640x400 >"$work/fleet-keys.txt" 2>&1 &
pid=$!
fleet_fail() { # fleet_fail MESSAGE: stops the window, then fails
    kill "$pid" 2>/dev/null
    fail "replay fleet keys: $1: $(cat "$work/fleet-keys.txt") $(server_said)"
}
wid=$(find_window "$pid")
[ -n "$wid" ] || fleet_fail "no window appeared"
xdotool windowfocus --sync "$wid" || fleet_fail "cannot focus the window"
for k in Tab Tab shift+Tab shift+Tab shift+Tab b b; do
    xdotool key "$k"
done
said "$work/fleet-keys.txt" "beams of every robot" || fleet_fail "B twice not answered"
xdotool key q
wait_until exited "$pid" || fleet_fail "the window did not quit on Q"
wait "$pid" || fail "replay fleet keys: exit status $?: $(cat "$work/fleet-keys.txt")"
! grep -q 'still allocated' "$work/fleet-keys.txt" || fail "replay fleet keys: leak: $(cat "$work/fleet-keys.txt")"
want="lidarsim: showing robot 2 of 8: amr1 (autopilot in the file)
lidarsim: showing robot 3 of 8: amr2 (autopilot in the file)
lidarsim: showing robot 2 of 8: amr1 (autopilot in the file)
lidarsim: showing robot 1 of 8: forklift (manual in the file)
lidarsim: showing robot 8 of 8: sweeper (autopilot in the file)
lidarsim: beams of the selected robot only
lidarsim: beams of every robot"
[ "$(grep '^lidarsim: ' "$work/fleet-keys.txt")" = "$want" ] ||
    fail "replay fleet keys: expected the status lines
$want
got
$(cat "$work/fleet-keys.txt")"
echo "replay_test: ok"
