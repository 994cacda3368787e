#!/usr/bin/env bash
# MapCliTest: map_server maps through the real program, as a user runs them: every command that takes a world takes
# a map YAML, import and export-map round-trip, bad maps get a located message and a non-zero status.
#   tests/map_cli_test.sh path/to/lidarsim
set -uo pipefail
lidarsim=${1:?usage: map_cli_test.sh path/to/lidarsim}
name=map_cli_test
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# A 40 x 30 px room at 0.1 m (black border, a pillar, grey 205 unknown in one corner), as map_saver writes it.
mkdir -p "$work/maps"
/usr/bin/python3 - "$work/maps/room.pgm" <<'PY'
import sys
w, h = 40, 30
rows = []
for y in range(h):
    row = bytearray()
    for x in range(w):
        v = 254
        if x in (0, w - 1) or y in (0, h - 1): v = 0
        if 18 <= x <= 21 and 12 <= y <= 15: v = 0
        if x >= 34 and y >= 25: v = 205
        row.append(v)
    rows.append(bytes(row))
open(sys.argv[1], "wb").write(b"P5\n%d %d\n255\n" % (w, h) + b"".join(rows))
PY
cat >"$work/maps/room.yaml" <<'YAML'
image: room.pgm
mode: trinary
resolution: 0.1
origin: [-2.0, -1.5, 0.0]
negate: 0
occupied_thresh: 0.65
free_thresh: 0.196
YAML

# Every command that takes a world takes the map.
expect_status 0 "$lidarsim" check "$work/maps/room.yaml"
grep -q 'room.yaml: [0-9]* walls, .*4.0 x 3.0 m$' "$work/out.txt" || fail "check map: $(cat "$work/out.txt")"
# From (-1, 0), beams at -180, -90, 0 and 90 degrees: the left wall's inner face at x = -1.9, the bottom and top
# walls' at y = -1.4 and 1.4, the pillar (x in [-0.2, 0.2]) at 0.8 m: exact up to double rounding.
expect_status 0 "$lidarsim" scan "$work/maps/room.yaml" --beams 4 --pose -1,0,0 --format csv
/usr/bin/python3 - "$work/out.txt" <<'PY' || fail "scan ranges: $(cat "$work/out.txt")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = [float(row["range"]) for row in rows]
want = [0.9, 1.4, 0.8, 1.4]
assert all(abs(a - b) < 1e-12 for a, b in zip(r, want)), r
PY
expect_status 0 "$lidarsim" run "$work/maps/room.yaml" --steps 30 --autopilot
expect_status 0 "$lidarsim" render "$work/maps/room.yaml" -o "$work/room.png" --size 320x240
[ -s "$work/room.png" ] || fail "render map: no image"
# The window on the map (when there is an X server to run it on): it opens, draws, reuses its static layers.
if command -v Xvfb >/dev/null 2>&1; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # X11 and Mesa's own (see window_test.sh)
    start_xvfb 640x480x24
    expect_status 0 "$lidarsim" "$work/maps/room.yaml" --frames 20 --autopilot
    grep -q '^frames 20 .*static layers reused 1[0-9]' "$work/out.txt" || fail "window on a map: $(cat "$work/out.txt")"
    ! grep -q 'still allocated' "$work/err.txt" || fail "window on a map: leak: $(cat "$work/err.txt")"
fi

# The same map as map_saver's BMP (8-bit palette, rows bottom-up, padded to 4 bytes): the same scan, byte for byte;
# a BMP cut short is refused with the pixel row where its data ends.
/usr/bin/python3 - "$work/maps/room.pgm" "$work/maps/room.bmp" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
w, h = 40, 30
pixels = data[-w * h:]
stride = (w + 3) // 4 * 4
rows = b"".join(pixels[y * w:(y + 1) * w] + bytes(stride - w) for y in reversed(range(h)))
palette = b"".join(bytes([v, v, v, 0]) for v in range(256))
offset = 14 + 40 + len(palette)
header = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 8, 0, len(rows), 2835, 2835, 256, 0)
open(sys.argv[2], "wb").write(b"BM" + struct.pack("<IHHI", offset + len(rows), 0, 0, offset) + header + palette + rows)
PY
sed 's/room.pgm/room.bmp/' "$work/maps/room.yaml" >"$work/maps/room-bmp.yaml"
expect_status 0 "$lidarsim" scan "$work/maps/room.yaml" --beams 360 --pose -1,0,0.3
mv "$work/out.txt" "$work/scan-pgm.json"
expect_status 0 "$lidarsim" scan "$work/maps/room-bmp.yaml" --beams 360 --pose -1,0,0.3
cmp -s "$work/scan-pgm.json" "$work/out.txt" || fail "scan of the BMP map differs from the PGM's"
head -c 1500 "$work/maps/room.bmp" >"$work/maps/cut.bmp"
sed 's/room.pgm/cut.bmp/' "$work/maps/room.yaml" >"$work/maps/cut.yaml"
expect_status 1 "$lidarsim" check "$work/maps/cut.yaml"
grep -q 'cut.yaml:1:8: image: .*cut.bmp: the pixels end at pixel (0, 19), row 10 of 30 in the file' "$work/err.txt" ||
    fail "cut BMP: $(cat "$work/err.txt")"

# import: a world file with the walls and a robot; --unknown occupied closes the grey corner; --simplify.
expect_status 0 "$lidarsim" import "$work/maps/room.yaml" -o "$work/room.json"
grep -q 'segments in 2 closed chains' "$work/out.txt" || fail "import: $(cat "$work/out.txt")"
expect_status 0 "$lidarsim" check "$work/room.json"
expect_status 0 "$lidarsim" import "$work/maps/room.yaml" -o "$work/room2.json" --unknown occupied --simplify 0.1
grep -q 'after --simplify 0.1' "$work/out.txt" || fail "import --simplify: $(cat "$work/out.txt")"
# A map of more segments than a world file holds (a 1000 x 1000 checkerboard: 2 million) is refused before
# writing, with the way out, not with a line of a file that was never written.
/usr/bin/python3 - "$work/maps/checker.pgm" <<'PY'
import sys
w = 1000
row0 = bytes([0, 254] * (w // 2))
row1 = bytes([254, 0] * (w // 2))
open(sys.argv[1], "wb").write(b"P5\n%d %d\n255\n" % (w, w) + (row0 + row1) * (w // 2))
PY
printf 'image: checker.pgm\nresolution: 0.05\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.196\n' \
    >"$work/maps/checker.yaml"
expect_status 1 "$lidarsim" import "$work/maps/checker.yaml" -o "$work/checker.json"
grep -q 'checker.json: 2000000 wall segments, more than a world file holds (1000000): not written; import with --simplify' \
    "$work/err.txt" || fail "import over the limit: $(cat "$work/err.txt")"
[ -e "$work/checker.json" ] && fail "import over the limit wrote a file"
# Over a map's segment limit (4 million), the advice is what can help: check (and render) have no --simplify, import
# has; a tolerance too small is told to grow; a checkerboard keeps its corners at any tolerance (all three said "try
# --simplify"). Diagonal bands three cells wide: 6 million segments exact, a few thousand simplified.
/usr/bin/python3 - "$work/maps" <<'PY'
import sys
w = 3000
band = bytes(0 if k % 6 < 3 else 254 for k in range(w + 6))
rows = b"".join(band[y % 6:y % 6 + w] for y in range(w))
open(sys.argv[1] + "/bands.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, w) + rows)
w = 1500
row0 = bytes([0, 254] * (w // 2))
row1 = bytes([254, 0] * (w // 2))
open(sys.argv[1] + "/board.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, w) + (row0 + row1) * (w // 2))
PY
for name in bands board; do
    sed "s/checker.pgm/$name.pgm/" "$work/maps/checker.yaml" >"$work/maps/$name.yaml"
done
over='more than 4000000 wall segments (the limit)'
expect_status 1 "$lidarsim" check "$work/maps/bands.yaml"
grep -q "bands.yaml: $over; a world file of it simplified holds fewer: lidarsim import MAP.yaml -o WORLD.json --simplify METRES$" \
    "$work/err.txt" || fail "check over the segment limit: $(cat "$work/err.txt")"
expect_status 1 "$lidarsim" import "$work/maps/bands.yaml" -o "$work/bands.json" --simplify 0.005
grep -q "bands.yaml: $over after --simplify 0.005; try a larger --simplify$" \
    "$work/err.txt" || fail "import --simplify 0.005 over the segment limit: $(cat "$work/err.txt")"
expect_status 0 "$lidarsim" import "$work/maps/bands.yaml" -o "$work/bands.json" --simplify 0.1
grep -q 'bands.yaml: .* -> 6000000 segments in 1000 closed chains -> [0-9]* after --simplify 0.1' "$work/out.txt" ||
    fail "import --simplify 0.1 under the segment limit: $(cat "$work/out.txt")"
for command in check "import -o $work/board.json --simplify 1000"; do
    # shellcheck disable=SC2086 # the command's words
    expect_status 1 "$lidarsim" $command "$work/maps/board.yaml"
    grep -q "board.yaml: $over, even with import --simplify: corners where wall cells touch only diagonally" \
        "$work/err.txt" || fail "$command over the segment limit: $(cat "$work/err.txt")"
done
[ -e "$work/board.json" ] && fail "import over the segment limit wrote a file"
expect_status 2 "$lidarsim" import "$work/maps/room.yaml" -o "$work/x.json" --unknown maybe
expect_status 2 "$lidarsim" import "$work/maps/room.yaml"
[ -e "$work/x.json" ] && fail "import with bad options wrote a file"

# export-map: PGM + YAML that load back; round trip within a pixel is tested in MapTest.
expect_status 1 "$lidarsim" export-map "$work/room.json" -o "$work/out/back.yaml" --resolution 0.05
grep -q 'back.pgm: cannot create a temporary file' "$work/err.txt" || fail "export-map to a missing folder"
mkdir -p "$work/out"
expect_status 0 "$lidarsim" export-map "$work/room.json" -o "$work/out/back.yaml" --resolution 0.05
[ "$(head -c 2 "$work/out/back.pgm")" = "P5" ] || fail "export-map: no PGM"
grep -q "^image: 'back.pgm'$" "$work/out/back.yaml" || fail "export-map YAML: $(cat "$work/out/back.yaml")"
expect_status 0 "$lidarsim" check "$work/out/back.yaml"
expect_status 2 "$lidarsim" export-map "$work/room.json" -o "$work/out/back.yaml" --resolution -1
# A resolution so coarse that the map's margin leaves the coordinates' bound: refused before anything is written (it
# wrote a map that check and import refused).
expect_status 1 "$lidarsim" export-map "$work/room.json" -o "$work/out/coarse.yaml" --resolution 1e6
grep -q 'coarse.yaml: not written (use a finer --resolution): .* reach x from' "$work/err.txt" ||
    fail "export-map --resolution 1e6: $(cat "$work/err.txt")"
[ ! -e "$work/out/coarse.yaml" ] && [ ! -e "$work/out/coarse.pgm" ] || fail "export-map --resolution 1e6 wrote a file"
# A world at the bound has no room for the margin at any resolution: said so, without advice that cannot help.
printf '{"walls": [{"from": [999999, 0], "to": [1000000, 0]}], "robot": {"pose": [999999.5, 0.5, 0]}}' \
    >"$work/edge.json"
expect_status 1 "$lidarsim" export-map "$work/edge.json" -o "$work/out/edge.yaml" --resolution 0.0001
grep -q "edge.yaml: not written at any resolution: the world reaches x = 1000000 m, the coordinates' bound" \
    "$work/err.txt" || fail "export-map at the bound: $(cat "$work/err.txt")"
grep -q -- '--resolution' "$work/err.txt" && fail "export-map at the bound advises a resolution: $(cat "$work/err.txt")"
# The two directions mixed up: a world named as export-map's output is refused (it was overwritten with YAML, a PGM
# beside it), and so is a world given to import (it was read as a map YAML without an image).
cp "$work/room.json" "$work/keep.json"
expect_status 2 "$lidarsim" export-map "$work/room.json" -o "$work/keep.json"
grep -q -- '-o .*keep.json: a map.s file name ends in .yaml or .yml' "$work/err.txt" || fail "export-map -o x.json: $(cat "$work/err.txt")"
cmp -s "$work/room.json" "$work/keep.json" || fail "export-map -o x.json changed the world"
[ -e "$work/keep.pgm" ] && fail "export-map -o x.json wrote a PGM"
expect_status 2 "$lidarsim" import "$work/room.json" -o "$work/x.json"
grep -q 'room.json: not a map YAML' "$work/err.txt" || fail "import WORLD.json: $(cat "$work/err.txt")"

# A world standing on the map: the map's walls under its own box; a bad map reference is located in the world file.
printf '{"name": "on", "map": "maps/room.yaml", "boxes": [{"center": [-1, 1], "size": [0.4, 0.4]}]}' >"$work/on.json"
expect_status 0 "$lidarsim" check "$work/on.json"
grep -q 'on.json: [0-9]* walls, 0 targets, 1 box' "$work/out.txt" || fail "check on a map: $(cat "$work/out.txt")"
# export-map over the map a world stands on (its YAML, however spelt) is refused by the library and changes nothing.
cp "$work/maps/room.yaml" "$work/room-before.yaml"
cp "$work/maps/room.pgm" "$work/room-before.pgm"
expect_status 1 "$lidarsim" export-map "$work/on.json" -o "$work/maps/../maps/room.yaml"
grep -q 'room.yaml: not written: it would replace .*room.yaml, the map YAML this world stands on' "$work/err.txt" ||
    fail "export-map over the world's map: $(cat "$work/err.txt")"
expect_status 1 "$lidarsim" export-map "$work/maps/room.yaml" -o "$work/maps/room.yaml"
cmp -s "$work/maps/room.yaml" "$work/room-before.yaml" && cmp -s "$work/maps/room.pgm" "$work/room-before.pgm" ||
    fail "export-map over the world's map changed it"
# No other command's output replaces the world or map it reads either, however the name is spelt (review 28: run
# --record over the map's YAML, import -o over its image and render -o over an image named .png all replaced them).
cp "$work/maps/room.pgm" "$work/maps/room-image.png"
sed 's/room.pgm/room-image.png/' "$work/maps/room.yaml" >"$work/maps/png.yaml"
cp "$work/maps/png.yaml" "$work/png-before.yaml"
refused() { # refused WHAT EXPECTED COMMAND...: status 1, the message, nothing changed
    local what=$1 expected=$2
    shift 2
    expect_status 1 "$lidarsim" "$@"
    grep -q -- "$expected" "$work/err.txt" || fail "$what: $(cat "$work/err.txt"), expected $expected"
    cmp -s "$work/maps/room.yaml" "$work/room-before.yaml" && cmp -s "$work/maps/room.pgm" "$work/room-before.pgm" &&
        cmp -s "$work/maps/png.yaml" "$work/png-before.yaml" && cmp -s "$work/maps/room-image.png" "$work/room-before.pgm" ||
        fail "$what changed the map"
}
refused "run --record over the map YAML" 'room.yaml: not written: it would replace .*room.yaml, the map YAML this world stands on' \
    run "$work/maps/room.yaml" --steps 2 --record "$work/maps/./room.yaml"
refused "run --record over a world's map image" 'room.pgm: not written: it would replace .*room.pgm, the map image this world stands on' \
    run "$work/on.json" --steps 2 --record "$work/maps/room.pgm"
refused "import -o over the map image" 'room.pgm: not written: it would replace .*room.pgm, the map image' \
    import "$work/maps/room.yaml" -o "$work/maps/room.pgm"
refused "render -o over the map image" 'room-image.png: not written: it would replace .*room-image.png, the map image' \
    render "$work/maps/png.yaml" -o "$work/maps/../maps/room-image.png" --size 64x64
[ -z "$(ls -A "$work/maps" | grep '^\.lidarsim-')" ] || fail "a refused output left a temporary file"
printf '{"map": "maps/nothere.yaml"}' >"$work/off.json"
expect_status 1 "$lidarsim" check "$work/off.json"
grep -q 'off.json:1:9: map: .*nothere.yaml: cannot open' "$work/err.txt" || fail "bad map key: $(cat "$work/err.txt")"

# Bad maps: the file and the key or the reason, status 1.
bad() { # bad NAME YAML_TEXT EXPECTED
    printf '%s' "$2" >"$work/maps/$1.yaml"
    expect_status 1 "$lidarsim" check "$work/maps/$1.yaml"
    grep -q -- "$3" "$work/err.txt" || fail "$1: $(cat "$work/err.txt"), expected $3"
}
keys='resolution: 0.1
origin: [0, 0, 0]
occupied_thresh: 0.65
free_thresh: 0.2
'
bad syntax "image: room.pgm
origin: [0, 0
" 'syntax.yaml:3:1: YAML syntax error'
bad noimage "image: none.pgm
$keys" 'noimage.yaml:1:8: image: .*none.pgm: cannot open'
printf 'not an image' >"$work/maps/text.pgm"
bad notimage "image: text.pgm
$keys" 'text.pgm: not an image'
bad resolution "image: room.pgm
resolution: 0
origin: [0, 0, 0]
occupied_thresh: 0.65
free_thresh: 0.2
" 'resolution.yaml:2:13: resolution: expected a resolution in'
bad thresholds "image: room.pgm
resolution: 0.1
origin: [0, 0, 0]
occupied_thresh: 0.2
free_thresh: 0.65
" 'thresholds.yaml:5:14: free_thresh: 0.65 must be below occupied_thresh'
bad mode "image: room.pgm
mode: fancy
$keys" "mode.yaml:2:7: mode: unknown mode 'fancy'"
printf 'P5\n50000 50000\n255\n' >"$work/maps/huge.pgm"
bad huge "image: huge.pgm
$keys" 'huge.pgm: 50000 x 50000 pixels, over the limit'
printf 'P2\n2 2\n255\n254 254 254 254\n' >"$work/maps/blank.pgm"
bad blank "image: blank.pgm
$keys" 'blank.yaml: no wall cell'
# Bounded as a world file (limits.h): a resolution of 1e308 made every corner infinite (check printed "-nan x -nan
# m", import, run and render aborted); a map reaching past 1e6 m; nesting that took libyaml minutes. Every command
# refuses them with status 1.
bad res1e308 "image: room.pgm
resolution: 1e308
origin: [0, 0, 0]
occupied_thresh: 0.65
free_thresh: 0.2
" 'res1e308.yaml:2:13: resolution: expected a resolution in \[0.0001, 1e+06\] m per pixel'
bad far "image: room.pgm
resolution: 0.1
origin: [999998, 0, 0]
occupied_thresh: 0.65
free_thresh: 0.2
" 'reach x from 999998 to 1000002 m; every corner must be a coordinate in'
/usr/bin/python3 -c 'import sys; print("image: room.pgm\nresolution: 0.1\nx: " + "[" * 100000 + "]" * 100000)' >"$work/maps/deep.yaml"
for yaml in res1e308 far deep; do
    expect_status 1 timeout 20 "$lidarsim" run "$work/maps/$yaml.yaml" --steps 2
    expect_status 1 timeout 20 "$lidarsim" render "$work/maps/$yaml.yaml" -o "$work/out.png"
    expect_status 1 timeout 20 "$lidarsim" import "$work/maps/$yaml.yaml" -o "$work/out.json"
done
grep -q 'deep.yaml:3:.*nested deeper than 64 levels' "$work/err.txt" || fail "deep: $(cat "$work/err.txt")"
expect_status 2 "$lidarsim" export-map "$work/maps/room.yaml" -o "$work/out.yaml" --resolution 1e-300
grep -q -- '--resolution: expected a resolution in \[0.0001, 1e+06\] m per pixel' "$work/err.txt" ||
    fail "export-map --resolution 1e-300: $(cat "$work/err.txt")"
echo "map_cli_test: ok"
