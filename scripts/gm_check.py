#!/usr/bin/python3
"""scripts/gm_check.py [--maps N] [--seed S] [--lidarsim PATH]: lidarsim's map images against GraphicsMagick, the
library map_server reads them with (Debian 12: `apt install graphicsmagick`, 1.3.40; not needed to build or test).

exact_check.py's random maps (every PGM, PBM, PPM, PNG and BMP kind it writes, every mode, negate and threshold) are
decoded by `gm convert` to 16-bit PPM (or PNG with alpha), which keeps GraphicsMagick's quanta; `lidarsim import`
then turns the map and its GraphicsMagick twin into walls, which must be the same. Known differences are counted
apart: binary PGM and PPM whose maxval is neither 255 nor 65535 (GraphicsMagick 1.3.40 scales their samples wrongly:
at maxval 100, 16 reads as 26724 of 65535 and 69 saturates), and what GraphicsMagick refuses to read."""
import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("exact_check", os.path.join(here, "exact_check.py"))
exact_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(exact_check)


def walls(lidarsim, yaml_path, out):
    run = subprocess.run([lidarsim, "import", yaml_path, "-o", out], capture_output=True, text=True)
    if run.returncode != 0:  # the message without the file's name, which differs
        return "refused: " + run.stderr.strip().split(": ", 1)[-1]
    with open(out) as f:
        return json.load(f).get("walls", [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lidarsim", default=os.path.join(here, "..", "build", "lidarsim"))
    ap.add_argument("--maps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    same = differ = known = unread = 0
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.maps):
            exact_check.make_map(rng, folder, i)
            yaml_path = os.path.join(folder, "map%d.yaml" % i)
            with open(yaml_path) as f:
                text = f.read()
            kind = text.split("(", 1)[1].split(",", 1)[0]
            image = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("image:"))
            source = os.path.join(folder, image)
            matte = subprocess.run(["gm", "identify", "-format", "%A", source], capture_output=True,
                                   text=True).stdout.strip().lower() == "true"
            twin = "gm%d.%s" % (i, "png" if matte else "ppm")
            if subprocess.run(["gm", "convert", source, "-depth", "16", ("PNG:" if matte else "PPM:") +
                               os.path.join(folder, twin)], capture_output=True).returncode != 0:
                unread += 1
                continue
            twin_yaml = os.path.join(folder, "gm%d.yaml" % i)
            with open(twin_yaml, "w") as f:
                f.write(text.replace("image: " + image, "image: " + twin))
            a = walls(args.lidarsim, yaml_path, os.path.join(folder, "a.json"))
            b = walls(args.lidarsim, twin_yaml, os.path.join(folder, "b.json"))
            if a == b:
                same += 1
            elif kind == "P5-odd":
                known += 1
            else:
                differ += 1
                print("gm_check: map %d (%s): lidarsim's walls differ from GraphicsMagick's decoding" % (i, kind))
    print("gm_check: seed %d: %d maps, %d the same, %d differ, %d differ by GraphicsMagick's odd-maxval scaling, "
          "%d GraphicsMagick does not read" % (args.seed, args.maps, same, differ, known, unread))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
