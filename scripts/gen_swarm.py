#!/usr/bin/env python3
"""Writes the swarm bench world: a 100 m x 100 m walled arena with obstacles and N robots (default 1 000), each a
circle with a 360-beam lidar scanning 10 times a second, all on autopilot. Deterministic: the same arguments write
the same file.

    /usr/bin/python3 scripts/gen_swarm.py [--robots N] [--seed S] [OUT]     (default OUT: bench/swarm.json)
    build/lidarsim fmt OUT

The shipped bench/swarm.json is this script's output in lidarsim's canonical form (CliTest checks that every shipped
world is canonical); `lidarsim fmt` changes only its layout, the world it loads to is the same.

Robots start on a jittered lattice, none touching an obstacle, a wall or another robot. Units: metres, degrees.
"""
import argparse
import json
import math
import os
import random

SIZE = 100.0
RADIUS = 0.2


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--range", type=float, default=8.0, help="lidar range in metres (default 8)")
    parser.add_argument("out", nargs="?", default=os.path.join(here, "..", "bench", "swarm.json"))
    args = parser.parse_args()
    rng = random.Random(args.seed)

    # Obstacles: boxes and triangles on a coarse lattice, each kept as a disc for the robots' clearance check.
    boxes, polygons, keep_out = [], [], []
    for i in range(8):
        for j in range(8):
            cx = 6.0 + i * 12.5 + rng.uniform(-2.0, 2.0)
            cy = 6.0 + j * 12.5 + rng.uniform(-2.0, 2.0)
            if (i + j) % 3 == 0:
                r = rng.uniform(0.8, 1.6)
                a0 = rng.uniform(0, 120)
                pts = [[round(cx + r * math.cos(math.radians(a0 + 120 * k)), 3),
                        round(cy + r * math.sin(math.radians(a0 + 120 * k)), 3)] for k in range(3)]
                polygons.append({"points": pts})
                keep_out.append((cx, cy, r))
            else:
                w, h = rng.uniform(0.8, 3.0), rng.uniform(0.8, 3.0)
                boxes.append({"center": [round(cx, 3), round(cy, 3)], "size": [round(w, 3), round(h, 3)],
                              "angle": round(rng.uniform(0, 90), 1)})
                keep_out.append((cx, cy, 0.5 * math.hypot(w, h)))

    # Robots: a lattice a little larger than needed, jittered, skipping cells near obstacles, then the first N.
    side = int(math.ceil(math.sqrt(args.robots * 1.4)))
    pitch = (SIZE - 2.0) / side
    robots = []
    cells = [(i, j) for i in range(side) for j in range(side)]
    rng.shuffle(cells)
    for i, j in cells:
        if len(robots) == args.robots:
            break
        x = 1.0 + (i + 0.5) * pitch + rng.uniform(-0.2, 0.2) * pitch
        y = 1.0 + (j + 0.5) * pitch + rng.uniform(-0.2, 0.2) * pitch
        if any(math.hypot(x - cx, y - cy) < r + RADIUS + 0.3 for cx, cy, r in keep_out):
            continue
        robots.append({
            "id": "r%d" % len(robots),
            "pose": [round(x, 3), round(y, 3), round(rng.uniform(-180, 180), 1)],
            "radius": RADIUS,
            "max_speed": 0.8,
            "controller": "autopilot",
            "lidar": {"beams": 360, "fov": 360, "range": args.range, "rate": 10, "seed": len(robots) + 1},
        })
    if len(robots) < args.robots:
        raise SystemExit("gen_swarm: only %d robots fit" % len(robots))

    world = {
        "name": "Swarm (%d robots)" % args.robots,
        "walls": [{"points": [[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], "closed": True}],
        "boxes": boxes,
        "polygons": polygons,
        "robots": robots,
        "sim": {"dt": 0.05, "seed": args.seed},
    }
    with open(args.out, "w") as f:
        f.write("{\n")
        keys = list(world)
        for n, key in enumerate(keys):
            value = world[key]
            if isinstance(value, list):
                f.write('  "%s": [\n' % key)
                f.write(",\n".join("    " + json.dumps(v) for v in value))
                f.write("\n  ]")
            else:
                f.write('  "%s": %s' % (key, json.dumps(value)))
            f.write(",\n" if n + 1 < len(keys) else "\n")
        f.write("}\n")


if __name__ == "__main__":
    main()
