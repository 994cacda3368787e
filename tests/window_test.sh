#!/usr/bin/env bash
# WindowTest: the real window under Xvfb (run by ctest; exit 77 = skipped when Xvfb is missing).
#   tests/window_test.sh path/to/lidarsim
# 1. With no display, `lidarsim` prints one line naming `lidarsim render` and `lidarsim run` and exits 1 (a world
#    that does not load: its error).
# 2. `--frames N --autopilot --print-pose` draws N frames, prints the frame-time split and a pose that moved.
# 3. With xdotool: a broken save of the world is reported and its fix answered; key presses drive the robot (Up
#    held), F12 twice writes two screenshots into --screenshots DIR (never beside the world), Q quits; the pose
#    printed on exit must have moved forward along the robot's heading.
# 4. Editing (xwininfo): a dragged target saves as a one-line diff; the quit prompt's Cancel and Discard.
# 5. A fleet: Tab, I adds a robot, B, Ctrl+S writes the shorthand robot as a two-robot list (a one-line diff).
# 6. A map YAML: Ctrl+S writes a world beside it, never the YAML.
# 7. Undoing a robot's deletion puts it back where it was.
# Every step waits for the state it needs (the window shown, a key's answer on stdout, the title, the prompt on
# screen, the exit), polling up to 60 s: ctest runs this beside other tests on a busy machine, where a fixed pause
# is sometimes too short.
set -uo pipefail

lidarsim=${1:?usage: window_test.sh path/to/lidarsim}
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "window_test: Xvfb not installed, skipping"
    exit 77
fi
name=window_test
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# Under AddressSanitizer, LeakSanitizer would report what D-Bus, X11 and Mesa keep until exit (their stacks cannot
# be unwound cheaply enough to suppress by library). Our own memory is checked instead: the window counts every
# lsAlloc byte and reports any still allocated at exit, which fails this test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# A room 20 x 10 m with the robot at (5, 5) looking along +x: 15 m of free floor ahead.
cat >"$work/room.json" <<'EOF'
{
  "name": "window test room",
  "walls": [{"points": [[0, 0], [20, 0], [20, 10], [0, 10]], "closed": true}],
  "targets": [{"center": [15, 8], "radius": 0.3}, {"center": [15, 2], "radius": 0.3, "kind": "poison"}],
  "robot": {"pose": [5, 5, 0], "radius": 0.25, "lidar": {"beams": 180, "fov": 360, "range": 12}},
  "sim": {"dt": 0.016666666666666666, "seed": 3}
}
EOF

# 1. No display: exactly one line on stderr, nothing on stdout, status 1.
out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$lidarsim" "$work/room.json" 2>"$work/err.txt")
status=$?
[ "$status" -eq 1 ] || fail "no display: exit status $status, expected 1"
[ -z "$out" ] || fail "no display: unexpected stdout: $out"
[ "$(wc -l <"$work/err.txt")" -eq 1 ] || fail "no display: expected one line, got: $(cat "$work/err.txt")"
grep -q "lidarsim render" "$work/err.txt" && grep -q "lidarsim run" "$work/err.txt" ||
    fail "no display: the line must name lidarsim render and lidarsim run: $(cat "$work/err.txt")"
# ... unless the world would not load anyway: then its error, naming the file (a mistyped name is what to fix).
out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$lidarsim" "$work/no-such-room.json" 2>"$work/err.txt")
status=$?
[ "$status" -eq 1 ] && [ -z "$out" ] || fail "no display, missing world: exit status $status, stdout: $out"
[ "$(cat "$work/err.txt")" = "$work/no-such-room.json: cannot open: No such file or directory" ] ||
    fail "no display, missing world: $(cat "$work/err.txt")"

# One X server for the window parts (the scripts below drive it with xdotool and fail with what the server said too,
# if it went away).
start_xvfb 1280x800x24

# Parses "pose X Y DEG" from a file into the variables x, y.
read_pose() {
    local line
    line=$(grep '^pose ' "$1" | tail -n 1)
    [ -n "$line" ] || fail "no pose printed: $(cat "$1")"
    x=$(echo "$line" | awk '{print $2}')
    y=$(echo "$line" | awk '{print $3}')
}

# 2. Benchmark mode with the autopilot: it draws, reports the split and the robot moves.
"$lidarsim" "$work/room.json" --frames 120 --autopilot --print-pose >"$work/frames.txt" 2>&1 ||
    fail "--frames run failed: $(cat "$work/frames.txt") $(server_said)"
! grep -q 'still allocated' "$work/frames.txt" || fail "--frames: leak: $(cat "$work/frames.txt")"
grep -q '^frames 120 ' "$work/frames.txt" || fail "--frames: no frame-time report: $(cat "$work/frames.txt")"
grep -q 'sim .* ms' "$work/frames.txt" && grep -q 'draw .* ms' "$work/frames.txt" || fail "--frames: no split"
read_pose "$work/frames.txt"
moved=$(awk -v x="$x" -v y="$y" 'BEGIN { d = sqrt((x - 5) ^ 2 + (y - 5) ^ 2); print (d > 0.05) ? 1 : 0 }')
[ "$moved" -eq 1 ] || fail "--frames --autopilot: the robot did not move (pose $x $y)"
echo "window_test: --frames ok: $(grep '^frames' "$work/frames.txt")"

# 3. Key presses through the X server.
if ! command -v xdotool >/dev/null 2>&1; then
    echo "window_test: xdotool not installed, key-press part skipped (apt-get install xdotool)"
    exit 0
fi
# The scripts below source cli_lib.sh's waits from helpers.sh.
declare -f wait_until exited find_window said >"$work/helpers.sh"
cat >"$work/drive.sh" <<'EOF'
#!/usr/bin/env bash
# Start the window, hold Up for a second, take two screenshots, quit with Q.
lidarsim=$1
world=$2
out="$(dirname "$world")/drive.txt"
"$lidarsim" "$world" --print-pose --screenshots "$(dirname "$world")/shots" >"$out" 2>&1 &
pid=$!
source "$(dirname "$0")/helpers.sh"
wid=$(find_window "$pid")
if [ -z "$wid" ]; then
    echo "no window appeared" >&2
    kill "$pid" 2>/dev/null
    exit 1
fi
xdotool windowfocus --sync "$wid" || { echo "cannot focus the window" >&2; kill "$pid"; exit 1; }
# The title names the world from the first frame (not only once it is edited).
named() { [ "$(xdotool getwindowname "$wid" 2>/dev/null)" = "lidarsim - window test room" ]; }
if ! wait_until named; then
    echo "the title does not name the world: $(xdotool getwindowname "$wid")" >&2
    kill "$pid"
    exit 1
fi
# View keys, each answered in the status line (printed on stdout too); pressed twice, so the view ends as it began.
for k in l g v c o t h; do
    xdotool key $k
    xdotool key $k
done
for k in l l; do # L cycles through four modes: two more presses bring it back
    xdotool key $k
done
# A broken save keeps the world running and says why; saved back as it was, the window says the file loads again
# (the terminal's last line was the error).
cp "$world" "$world.good"
printf '{\n  "name": "window test room",\n' >"$world"
said "$out" "syntax error" || { echo "no error for the broken world" >&2; kill "$pid"; exit 1; }
cp "$world.good" "$world"
said "$out" "loads again" || { echo "no answer when the broken world was fixed" >&2; kill "$pid"; exit 1; }
# The autopilot on while paused, Up held, then run: the first step sees Up, which takes the wheel from the
# autopilot before it ever steers. Up stays held for 1.2 s from that first step.
step() { # step KEY TEXT: press KEY and wait for its answer
    xdotool key "$1"
    said "$out" "$2" || { echo "no '$2' for $1" >&2; kill "$pid"; exit 1; }
}
step space "lidarsim: paused"
step p "lidarsim: autopilot on"
xdotool keydown Up
step space "manual driving: autopilot off"
sleep 1.2
xdotool keyup Up
# Two screenshots, then quit: each press gets its file, also when all three keys arrive between two frames.
xdotool key F12
xdotool key F12
xdotool key q
if ! wait_until exited "$pid"; then
    echo "the window did not quit on Q" >&2
    kill "$pid"
    exit 1
fi
wait "$pid"
EOF
chmod +x "$work/drive.sh"
"$work/drive.sh" "$lidarsim" "$work/room.json" >"$work/xvfb.txt" 2>&1 ||
    fail "scripted run failed: $(cat "$work/xvfb.txt" "$work/drive.txt" 2>/dev/null) $(server_said)"
read_pose "$work/drive.txt"
! grep -q 'still allocated' "$work/drive.txt" || fail "scripted run: leak: $(cat "$work/drive.txt")"
# Held Up for 1.2 s at up to 1.5 m/s along +x from (5, 5): clearly forward, barely sideways (bounds loose enough
# for a busy machine, where frames and so simulated time can lag real time).
ok=$(awk -v x="$x" -v y="$y" 'BEGIN { print (x > 5.2 && x < 9.5 && y > 4.8 && y < 5.2) ? 1 : 0 }')
[ "$ok" -eq 1 ] ||
    fail "driving with Up: expected the robot ahead of (5, 5) along +x, got ($x, $y): $(cat "$work/drive.txt")"
ls "$work"/room-*.png >/dev/null 2>&1 && fail "F12 wrote a screenshot beside the world: $(ls "$work")"
[ "$(ls "$work"/shots/room-*.png 2>/dev/null | wc -l)" -eq 2 ] ||
    fail "two F12 presses: expected two screenshots in --screenshots DIR: $(ls "$work" "$work/shots" 2>&1)"
grep -q 'saved .*shots/room-' "$work/drive.txt" || fail "F12 said nothing: $(cat "$work/drive.txt")"
for said in "beams: lines to hits only" "beams: hit points only" "beams: off" "grid and scale bar off" \
    "grid and scale bar on" "steering overlay on" "beams coloured by intensity" "scan plot on" "trail off" \
    "HUD off" "HUD on" "paused" "running" "autopilot on" "manual driving: autopilot off"; do
    grep -q "$said" "$work/drive.txt" || fail "no feedback '$said' for a key: $(cat "$work/drive.txt")"
done
shots=$(cd "$work/shots" && echo room-*.png)
echo "window_test: key presses ok: robot drove from (5, 5) to ($x, $y); screenshots $shots"

# 4. Editing in the window: the title marks unsaved edits, Ctrl+S keeps the file as written (moving the food target
#    changes exactly its line), and quitting with unsaved edits asks (Cancel keeps the window, Discard quits).
if ! command -v xwininfo >/dev/null 2>&1; then
    echo "window_test: xwininfo not installed, editing part skipped (apt-get install x11-utils)"
    exit 0
fi
mkdir -p "$work/edit"
cp "$work/room.json" "$work/edit/room.json"
cp "$work/room.json" "$work/edit/room.orig.json"
cat >"$work/edit.sh" <<'EOF'
#!/usr/bin/env bash
# With the HUD hidden, the room (20 x 10 m) fits 1280 x 800 at 61.6 px/m around (640, 400): world (15, 8) is pixel
# (948, 215).
lidarsim=$1
dir=$2
say() { echo "edit.sh: $*"; }
"$lidarsim" "$dir/room.json" --paused >"$dir/edit.txt" 2>&1 &
pid=$!
source "$(dirname "$0")/helpers.sh"
wid=$(find_window "$pid")
[ -n "$wid" ] || { say "no window appeared"; kill "$pid"; exit 1; }
xdotool windowfocus --sync "$wid" || { say "cannot focus the window"; kill "$pid"; exit 1; }
title() { xdotool getwindowname "$wid" 2>/dev/null; }
unsaved() { [[ "$(title)" == *'*' ]]; }
saved() { local t; t=$(title) && [[ "$t" != *'*' ]]; }
# The message box is the top-level window titled "lidarsim: ..." (xwininfo lists it; xdotool's search does not see
# it); its buttons Save, Discard, Cancel sit centred on its bottom row, Discard in the middle.
box() { xwininfo -root -tree | grep '"lidarsim: ' | awk '{print $1}' | head -n 1; }
box_shown() { local id; id=$(box) && [ -n "$id" ] && xwininfo -id "$id" 2>/dev/null | grep -q 'Map State: IsViewable'; }
box_gone() { [ -z "$(box)" ]; }
click_answer() { # click_answer OFFSET: -90 Save, 0 Discard, +90 Cancel
    # Only once the box is on screen: it is listed a moment before it is mapped, and a click then would land on the
    # main window under it.
    wait_until box_shown || { say "no message box appeared"; return 1; }
    local info w h x y
    info=$(xwininfo -id "$(box)")
    x=$(awk '/Absolute upper-left X:/ {print $4}' <<<"$info")
    y=$(awk '/Absolute upper-left Y:/ {print $4}' <<<"$info")
    w=$(awk '/Width:/ {print $2}' <<<"$info")
    h=$(awk '/Height:/ {print $2}' <<<"$info")
    xdotool mousemove $((x + w / 2 + $1)) $((y + h - 27)) click 1
}
# H hides the HUD column and Home fits the room into the whole window again, so the pixels above hold.
xdotool key h
xdotool key Home
xdotool key e
xdotool mousemove 948 215 mousedown 1
for px in 930 900 860 825; do
    xdotool mousemove "$px" 215
    sleep 0.05
done
xdotool mouseup 1
wait_until unsaved || { say "no unsaved mark in the title: $(title)"; kill "$pid"; exit 1; }
xdotool key ctrl+s
wait_until saved || { say "still marked unsaved after Ctrl+S: $(title)"; kill "$pid"; exit 1; }
cp "$dir/room.json" "$dir/room.saved.json"
# An unsaved wall, then Q: the prompt. Cancel keeps the window open; Q again and Discard quits.
xdotool mousemove 300 600 mousedown 1 mousemove 400 620 sleep 0.1 mousemove 500 650 sleep 0.1 mouseup 1
wait_until unsaved || { say "no unsaved mark after drawing a wall: $(title)"; kill "$pid"; exit 1; }
xdotool key q
click_answer 90 || { kill "$pid"; exit 1; }
wait_until box_gone || { say "Cancel left the message box open"; kill "$pid"; exit 1; }
said "$dir/edit.txt" "quit cancelled" || { say "Cancel was not answered"; kill "$pid"; exit 1; }
kill -0 "$pid" 2>/dev/null || { say "Cancel quit the window"; exit 1; }
xdotool key q
click_answer 0 || { kill "$pid"; exit 1; }
wait_until exited "$pid" || { say "Discard did not quit"; kill "$pid"; exit 1; }
wait "$pid"
EOF
chmod +x "$work/edit.sh"
"$work/edit.sh" "$lidarsim" "$work/edit" >"$work/xvfb-edit.txt" 2>&1 ||
    fail "editing session failed: $(cat "$work/xvfb-edit.txt" "$work/edit/edit.txt" 2>/dev/null) $(server_said)"
! grep -q 'still allocated' "$work/edit/edit.txt" || fail "editing session: leak: $(cat "$work/edit/edit.txt")"
diffstat=$(git diff --no-index --numstat "$work/edit/room.orig.json" "$work/edit/room.saved.json" | cut -f1,2)
[ "$diffstat" = "$(printf '1\t1')" ] ||
    fail "moving a target must change one line: $(git diff --no-index "$work/edit/room.orig.json" "$work/edit/room.saved.json")"
grep -q '"targets": \[{"center": \[13, 8\], "radius": 0.3}, {"center": \[15, 2\]' "$work/edit/room.saved.json" ||
    fail "the moved target should be at [13, 8] on the grid: $(cat "$work/edit/room.saved.json")"
cmp -s "$work/edit/room.json" "$work/edit/room.saved.json" || fail "Discard wrote the file"
echo "window_test: editing ok: one-line diff on save, unsaved mark, quit prompt (cancel, discard)"

# 5. A fleet made in the window: in edit mode Tab selects the robot (in the editor too), I adds a copy of it beside
#    it (selected: the keys drive it), Tab cycles the two, B shows only the selected robot's scan, and Ctrl+S writes
#    the "robot" shorthand as "robots": the first robot's line keeps its text (with its implicit id), the copy
#    follows it, nothing else changes.
mkdir -p "$work/fleet"
cp "$work/room.json" "$work/fleet/room.json"
cp "$work/room.json" "$work/fleet/room.orig.json"
cat >"$work/fleet.sh" <<'EOF'
#!/usr/bin/env bash
lidarsim=$1
dir=$2
"$lidarsim" "$dir/room.json" --paused >"$dir/fleet.txt" 2>&1 &
pid=$!
source "$(dirname "$0")/helpers.sh"
wid=$(find_window "$pid")
[ -n "$wid" ] || { echo "fleet.sh: no window appeared"; kill "$pid"; exit 1; }
xdotool windowfocus --sync "$wid" || { echo "fleet.sh: cannot focus the window"; kill "$pid"; exit 1; }
for k in e Tab i Tab Tab b ctrl+s q; do
    xdotool key "$k"
done
wait_until exited "$pid" || { echo "fleet.sh: the window did not quit on Q after saving"; kill "$pid"; exit 1; }
wait "$pid"
EOF
chmod +x "$work/fleet.sh"
"$work/fleet.sh" "$lidarsim" "$work/fleet" >"$work/xvfb-fleet.txt" 2>&1 ||
    fail "fleet session failed: $(cat "$work/xvfb-fleet.txt" "$work/fleet/fleet.txt" 2>/dev/null) $(server_said)"
! grep -q 'still allocated' "$work/fleet/fleet.txt" || fail "fleet session: leak: $(cat "$work/fleet/fleet.txt")"
for said in 'added robot "robot2" (a copy of "robot") at (5.65, 5.00); 2 robots' \
    "driving robot 1 of 2: robot (manual" "driving robot 2 of 2: robot2" "beams of the selected robot only" "saved $work/fleet/room.json"; do
    grep -qF "$said" "$work/fleet/fleet.txt" || fail "fleet session: no '$said': $(cat "$work/fleet/fleet.txt")"
done
diffstat=$(git diff --no-index --numstat "$work/fleet/room.orig.json" "$work/fleet/room.json" | cut -f1,2)
[ "$diffstat" = "$(printf '1\t1')" ] ||
    fail "adding a robot must change the robot's line only: $(git diff --no-index "$work/fleet/room.orig.json" "$work/fleet/room.json")"
first='"robots": [{"id": "robot", "pose": [5, 5, 0], "radius": 0.25, "lidar": {"beams": 180, "fov": 360, "range": 12}}'
grep -qF "  $first, {\"id\": \"robot2\", \"pose\": [5.65, 5, 0], " "$work/fleet/room.json" ||
    fail "the shorthand robot should become a two-robot list: $(cat "$work/fleet/room.json")"
echo "window_test: fleet ok: Tab, I added robot2 at (5.65, 5), B, Ctrl+S wrote \"robots\" as a one-line diff"

# 6. A map YAML opened in the window: Ctrl+S never writes over the map (it once replaced the YAML with a world that
#    named itself as its map), but saves a world beside it standing on the map, which the window then edits: a
#    second Ctrl+S writes that world again.
mkdir -p "$work/map"
printf 'P2\n6 4\n255\n0 0 0 0 0 0\n0 254 254 254 254 0\n0 254 254 254 254 0\n0 0 0 0 0 0\n' >"$work/map/m.pgm"
printf 'image: m.pgm\nresolution: 1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.2\n' >"$work/map/m.yaml"
cp "$work/map/m.yaml" "$work/map/m.orig.yaml"
cat >"$work/map.sh" <<'EOF'
#!/usr/bin/env bash
lidarsim=$1
dir=$2
"$lidarsim" "$dir/m.yaml" --paused >"$dir/map.txt" 2>&1 &
pid=$!
source "$(dirname "$0")/helpers.sh"
wid=$(find_window "$pid")
[ -n "$wid" ] || { echo "map.sh: no window appeared"; kill "$pid"; exit 1; }
xdotool windowfocus --sync "$wid" || { echo "map.sh: cannot focus the window"; kill "$pid"; exit 1; }
for k in e i ctrl+s; do
    xdotool key "$k"
done
said "$dir/map.txt" "a world on the map" || { echo "map.sh: the first save was not answered"; kill "$pid"; exit 1; }
for k in i ctrl+s q; do
    xdotool key "$k"
done
wait_until exited "$pid" || { echo "map.sh: the window did not quit on Q after saving"; kill "$pid"; exit 1; }
wait "$pid"
EOF
chmod +x "$work/map.sh"
"$work/map.sh" "$lidarsim" "$work/map" >"$work/xvfb-map.txt" 2>&1 ||
    fail "map session failed: $(cat "$work/xvfb-map.txt" "$work/map/map.txt" 2>/dev/null) $(server_said)"
cmp -s "$work/map/m.yaml" "$work/map/m.orig.yaml" || fail "Ctrl+S on a map changed the map YAML: $(cat "$work/map/m.yaml")"
grep -qF "saved $work/map/m.json, a world on the map $work/map/m.yaml" "$work/map/map.txt" &&
    grep -qx "lidarsim: saved $work/map/m.json" "$work/map/map.txt" || fail "map session: $(cat "$work/map/map.txt")"
expect_status 0 "$lidarsim" check "$work/map/m.json"
grep -q ', 3 robots, ' "$work/out.txt" || fail "the world saved beside the map: $(cat "$work/out.txt")"
grep -q '"map": "m.yaml"' "$work/map/m.json" || fail "the world saved beside the map names it: $(cat "$work/map/m.json")"
echo "window_test: map ok: Ctrl+S wrote m.json on the map, the YAML untouched, the second save went to m.json"

# 7. Undoing a robot's deletion brings it back where it was, not at its start pose: the first robot driven forward
#    (Up held), paused, deleted in the editor (Tab twice selects it), Ctrl+Z; the pose printed on exit is ahead of its
#    start (5, 5), where it was put back before.
mkdir -p "$work/undo"
cat >"$work/undo/two.json" <<'EOF'
{"walls": [{"points": [[0, 0], [20, 0], [20, 10], [0, 10]], "closed": true}],
 "robots": [{"id": "a", "pose": [5, 5, 0], "radius": 0.25}, {"id": "b", "pose": [5, 2, 0], "radius": 0.25}]}
EOF
cat >"$work/undo.sh" <<'EOF'
#!/usr/bin/env bash
lidarsim=$1
dir=$2
"$lidarsim" "$dir/two.json" --paused --print-pose >"$dir/undo.txt" 2>&1 &
pid=$!
source "$(dirname "$0")/helpers.sh"
wid=$(find_window "$pid")
[ -n "$wid" ] || { echo "undo.sh: no window appeared"; kill "$pid"; exit 1; }
xdotool windowfocus --sync "$wid" || { echo "undo.sh: cannot focus the window"; kill "$pid"; exit 1; }
xdotool keydown Up
xdotool key space
said "$dir/undo.txt" "lidarsim: running" || { echo "undo.sh: Space was not answered"; kill "$pid"; exit 1; }
sleep 1
xdotool keyup Up
for k in space e Tab Tab Delete; do
    xdotool key "$k"
done
said "$dir/undo.txt" 'deleted robot "a"' || { echo "undo.sh: the robot was not deleted"; kill "$pid"; exit 1; }
xdotool key ctrl+z
said "$dir/undo.txt" "undo (0 more" || { echo "undo.sh: Ctrl+Z was not answered"; kill "$pid"; exit 1; }
xdotool key q
wait_until exited "$pid" || { echo "undo.sh: the window did not quit on Q"; kill "$pid"; exit 1; }
wait "$pid"
EOF
chmod +x "$work/undo.sh"
"$work/undo.sh" "$lidarsim" "$work/undo" >"$work/xvfb-undo.txt" 2>&1 ||
    fail "undo session failed: $(cat "$work/xvfb-undo.txt" "$work/undo/undo.txt" 2>/dev/null) $(server_said)"
! grep -q 'still allocated' "$work/undo/undo.txt" || fail "undo session: leak: $(cat "$work/undo/undo.txt")"
read_pose "$work/undo/undo.txt"
ok=$(awk -v x="$x" -v y="$y" 'BEGIN { print (x > 5.2 && y > 4.8 && y < 5.2) ? 1 : 0 }')
[ "$ok" -eq 1 ] ||
    fail "an undone deletion should put the robot back where it was, ahead of (5, 5), got ($x, $y): $(cat "$work/undo/undo.txt")"
echo "window_test: undo ok: the deleted robot came back at ($x, $y), where it had driven"
exit 0
