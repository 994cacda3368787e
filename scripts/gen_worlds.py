#!/usr/bin/env python3
"""Generates the worlds lidarsim ships (worlds/*.json). Deterministic: the same script writes the same files.

    python3 scripts/gen_worlds.py [OUT_DIR]     (default: worlds/ next to this script's folder)

Each world is built from a few plain shapes, then targets are scattered by rejection sampling with a seeded
generator so that none touches a wall, a shape, a path or the robot's start. Units: metres, degrees.
"""
import json
import math
import os
import random
import sys


# ----------------------------------------------------------------------------------------------------------------------
# Geometry helpers for placing targets clear of everything


def seg_dist(p, a, b):
    """Distance from point p to segment ab."""
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / ll))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def chain_segments(points, closed):
    n = len(points)
    segs = [(points[i], points[i + 1]) for i in range(n - 1)]
    if closed:
        segs.append((points[-1], points[0]))
    return segs


class World:
    def __init__(self, name):
        self.data = {"name": name, "walls": []}
        self.segments = []  # every wall, mover sweep and path segment, for clearance checks
        self.discs = []  # (center, radius) keep-out discs: boxes, polygons, robot, bars

    def wall(self, a, b):
        self.data["walls"].append({"from": list(a), "to": list(b)})
        self.segments.append((a, b, 0.0))

    def chain(self, points, closed=False):
        entry = {"points": [list(p) for p in points]}
        if closed:
            entry["closed"] = True
        self.data["walls"].append(entry)
        for a, b in chain_segments(points, closed):
            self.segments.append((a, b, 0.0))

    def box(self, center, size, angle=0):
        self.data.setdefault("boxes", []).append({"center": list(center), "size": list(size), "angle": angle})
        self.discs.append((center, 0.5 * math.hypot(*size)))

    def polygon(self, points):
        self.data.setdefault("polygons", []).append({"points": [list(p) for p in points]})
        cx = sum(p[0] for p in points) / len(points)
        cy = sum(p[1] for p in points) / len(points)
        self.discs.append(((cx, cy), max(math.hypot(p[0] - cx, p[1] - cy) for p in points)))

    def path(self, pid, points, closed, radius=0.5):
        entry = {"id": pid, "points": [list(p) for p in points], "radius": radius}
        if closed:
            entry["closed"] = True
        self.data.setdefault("paths", []).append(entry)
        for a, b in chain_segments(points, closed):
            self.segments.append((a, b, radius + 0.3))

    def vehicle(self, pid, position, **extra):
        entry = {"path": pid, "position": list(position)}
        entry.update(extra)
        self.data.setdefault("vehicles", []).append(entry)

    def door(self, a, b, offset, period, phase=0.0):
        self.data.setdefault("movers", []).append(
            {"type": "door", "from": list(a), "to": list(b), "offset": list(offset), "period": period, "phase": phase})
        self.segments.append((a, b, 0.5))
        self.segments.append(((a[0] + offset[0], a[1] + offset[1]), (b[0] + offset[0], b[1] + offset[1]), 0.5))

    def bar(self, a, b, speed):
        pivot = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        self.data.setdefault("movers", []).append({"type": "bar", "from": list(a), "to": list(b), "speed": speed})
        self.discs.append((pivot, 0.5 * math.hypot(b[0] - a[0], b[1] - a[1])))

    def robot(self, pose, **extra):
        entry = {"pose": list(pose)}
        entry.update(extra)
        self.data["robot"] = entry
        self.discs.append(((pose[0], pose[1]), 1.0))

    def clear(self, p, r, margin):
        for a, b, extra in self.segments:
            if seg_dist(p, a, b) < r + margin + extra:
                return False
        for c, cr in self.discs:
            if math.hypot(p[0] - c[0], p[1] - c[1]) < r + cr + margin:
                return False
        for t in self.data.get("targets", []):
            if math.hypot(p[0] - t["center"][0], p[1] - t["center"][1]) < r + t["radius"] + margin:
                return False
        return True

    def scatter(self, rng, count, kind, radius, lower, upper, margin=0.35):
        placed = 0
        for _ in range(20000):
            if placed == count:
                break
            p = (round(rng.uniform(lower[0], upper[0]), 2), round(rng.uniform(lower[1], upper[1]), 2))
            if self.clear(p, radius, margin):
                entry = {"center": list(p), "radius": radius}
                if kind != "food":
                    entry["kind"] = kind
                self.data.setdefault("targets", []).append(entry)
                placed += 1
        assert placed == count, f"{self.data['name']}: placed only {placed} of {count} {kind}"


# ----------------------------------------------------------------------------------------------------------------------
# default.json: rooms and corridors, a sliding door, a turning bar, a loop with vehicles


def make_default():
    w = World("default")
    w.chain([(0, 0), (30, 0), (30, 20), (0, 20)], closed=True)
    # West room (x 0..10), its doorway at y 7..10 closed by a sliding door that hides in a pocket beside it.
    w.chain([(10, 0), (10, 7)])
    w.chain([(10, 10), (10, 20)])
    w.door((10, 7), (10, 10), (0, 2.8), period=6.0)
    # North wing (y 13..20) behind a wall with a corridor gap at x 17..20, split by a half wall.
    w.chain([(10, 13), (17, 13)])
    w.chain([(20, 13), (30, 13)])
    w.chain([(22, 20), (22, 16.5)])
    # A bent wall in the west room and an L-shaped nook in the east.
    w.chain([(2.5, 14), (6, 14), (6, 17)])
    w.chain([(27, 5), (27, 3), (24.5, 3)])
    # Furniture: crates and pillars.
    w.box((3, 3.5), (1.6, 0.9), 20)
    w.box((7.5, 4.2), (1.0, 1.0), 45)
    w.box((13, 17), (2.0, 0.8), 0)
    w.box((28.5, 18.5), (1.2, 1.2), 10)
    w.polygon([(4.2, 9.2), (5.0, 9.7), (5.0, 10.6), (4.2, 11.1), (3.4, 10.6), (3.4, 9.7)])  # hexagonal pillar
    w.polygon([(15.5, 15.0), (16.7, 15.3), (15.9, 16.3)])  # triangular pillar
    # Turning bar in the north-east room.
    w.bar((24.4, 15.5), (27.6, 15.5), 40)
    # A closed loop around the east hall with four vehicles spread along it.
    loop = [(12.5, 2.0), (22.5, 2.0), (22.5, 8.0), (27.5, 8.0), (27.5, 10.5), (12.5, 10.5)]
    w.path("loop", loop, closed=True, radius=0.6)
    w.vehicle("loop", (12.5, 2.0), velocity=[1.0, 0])
    w.vehicle("loop", (22.5, 5.0), velocity=[0, 1.0])
    w.vehicle("loop", (25.0, 10.5), velocity=[-1.0, 0], max_speed=1.2)
    w.vehicle("loop", (12.5, 6.0), velocity=[0, -1.0], max_speed=1.8)
    w.robot((5, 7, 0), radius=0.25, lidar={"beams": 360, "fov": 360, "range": 12})
    rng = random.Random(2)
    w.scatter(rng, 14, "food", 0.25, (0.6, 0.6), (29.4, 19.4))
    w.scatter(rng, 7, "poison", 0.25, (0.6, 0.6), (29.4, 19.4))
    w.data["sim"] = {"dt": 1 / 60, "seed": 7, "respawn": True}
    return w


# ----------------------------------------------------------------------------------------------------------------------
# rldemo.json: the layout of ConvNetJS's reinforcement-learning demo (a 700 x 500 px canvas, 50 px per metre, y up):
# an outer box, two U-shaped inner walls open to the west, and apples and poison scattered around.


def make_rldemo():
    w = World("rldemo")
    scale = 50.0

    def px(x, y):
        return (round(x / scale, 4), round((500 - y) / scale, 4))

    pad = 10
    w.chain([px(pad, pad), px(700 - pad, pad), px(700 - pad, 500 - pad), px(pad, 500 - pad)], closed=True)
    for x0 in (100, 400):
        y0, width, height = 100, 200, 300
        w.chain([px(x0, y0 + height), px(x0 + width, y0 + height), px(x0 + width, y0), px(x0, y0)])
    w.robot((7.0, 1.0, 90), radius=0.2, max_speed=1.0,
            lidar={"beams": 9, "fov": 120, "range": 3.0})
    rng = random.Random(11)
    w.scatter(rng, 20, "food", 0.2, (0.5, 0.5), (13.5, 9.5), margin=0.25)
    w.scatter(rng, 20, "poison", 0.2, (0.5, 0.5), (13.5, 9.5), margin=0.25)
    w.data["sim"] = {"dt": 1 / 30, "seed": 1, "respawn": True, "food_reward": 1, "poison_reward": -1}
    return w


# ----------------------------------------------------------------------------------------------------------------------
# maze.json: a perfect maze on a grid (depth-first backtracker), its walls traced into polylines that meet only at
# their endpoints: every corner and every T-junction of the grid is an endpoint of each wall touching it.


def make_maze():
    cols, rows, cell = 12, 8, 2.0
    rng = random.Random(5)
    # Wall edges of the grid, keyed by their two grid vertices; removing an edge opens a passage.
    edges = set()
    for i in range(cols + 1):
        for j in range(rows):
            edges.add(((i, j), (i, j + 1)))
    for i in range(cols):
        for j in range(rows + 1):
            edges.add(((i, j), (i + 1, j)))
    seen = {(0, 0)}
    stack = [(0, 0)]
    while stack:
        cx, cy = stack[-1]
        options = [(cx + dx, cy + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                   if 0 <= cx + dx < cols and 0 <= cy + dy < rows and (cx + dx, cy + dy) not in seen]
        if not options:
            stack.pop()
            continue
        nx, ny = rng.choice(options)
        if nx != cx:  # the vertical edge between the two cells
            x = max(cx, nx)
            edges.discard(((x, cy), (x, cy + 1)))
        else:
            y = max(cy, ny)
            edges.discard(((cx, y), (cx + 1, y)))
        seen.add((nx, ny))
        stack.append((nx, ny))
    # Trace chains between junctions (vertices whose degree is not 2), through corners and straight runs.
    adjacency = {}
    for a, b in edges:
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)
    used = set()
    chains = []
    starts = sorted(v for v in adjacency if len(adjacency[v]) != 2) + sorted(adjacency)
    for start in starts:
        for nxt in sorted(adjacency[start]):
            if (start, nxt) in used:
                continue
            chain = [start]
            prev, cur = start, nxt
            used.add((prev, cur))
            used.add((cur, prev))
            while True:
                chain.append(cur)
                if len(adjacency[cur]) != 2 or cur == start:
                    break
                step = [v for v in adjacency[cur] if v != prev][0]
                used.add((cur, step))
                used.add((step, cur))
                prev, cur = cur, step
            chains.append(chain)
    w = World("maze")
    for chain in chains:
        closed = chain[0] == chain[-1]
        if closed:
            chain = chain[:-1]
        # Drop straight-through vertices (degree 2, collinear): nothing else touches them.
        kept = []
        n = len(chain)
        for k, v in enumerate(chain):
            if 0 < k < n - 1 or closed:
                a, b = chain[k - 1], chain[(k + 1) % n]
                if (a[0] == v[0] == b[0]) or (a[1] == v[1] == b[1]):
                    continue
            kept.append(v)
        points = [(x * cell, y * cell) for x, y in kept]
        if len(points) == 2 and not closed:
            w.wall(points[0], points[1])
        else:
            w.chain(points, closed=closed)
    w.robot((1.0, 1.0, 90), radius=0.25, lidar={"beams": 360, "fov": 360, "range": 10})
    # Food in dead ends (cells with three walls), poison in a few corridor cells.
    dead_ends = []
    for i in range(cols):
        for j in range(rows):
            around = [((i, j), (i + 1, j)), ((i, j + 1), (i + 1, j + 1)), ((i, j), (i, j + 1)),
                      ((i + 1, j), (i + 1, j + 1))]
            if sum(e in edges for e in around) == 3 and (i, j) != (0, 0):
                dead_ends.append((i, j))
    for i, j in dead_ends:
        w.data.setdefault("targets", []).append({"center": [i * cell + 1.0, j * cell + 1.0], "radius": 0.3})
    poison_cells = [c for c in sorted(seen) if c not in dead_ends and c != (0, 0)]
    for i, j in random.Random(9).sample(poison_cells, 6):
        w.data["targets"].append({"center": [i * cell + 1.0, j * cell + 1.0], "radius": 0.3, "kind": "poison"})
    w.data["sim"] = {"dt": 1 / 60, "seed": 3, "respawn": False}
    return w


# ----------------------------------------------------------------------------------------------------------------------
# warehouse.json: racks of shelving as boxes, aisles between them, a loop of forklifts around the racks and a shuttle
# running up and down the aisles; a loading dock with pallets and a roll-up door.


def make_warehouse():
    w = World("Warehouse")
    w.chain([(0, 0), (40, 0), (40, 30), (0, 30), (0, 16)])
    w.chain([(0, 13), (0, 0)])
    w.door((0, 13), (0, 16), (0, 2.9), period=8.0, phase=0.25)
    # Office in the north-east corner.
    w.chain([(33, 30), (33, 26), (36, 26)])
    w.chain([(38.5, 26), (40, 26)])
    racks = [6 + 4 * k for k in range(8)]  # x of each rack's centre line
    for x in racks:
        w.box((x, 15), (1.2, 12), 0)
    # Pallets on the loading dock (west) and a ramp.
    w.box((2.2, 4.0), (1.2, 1.0), 0)
    w.box((2.2, 6.0), (1.2, 1.0), 0)
    w.box((2.2, 24.0), (1.2, 1.0), 15)
    w.polygon([(37.5, 1.0), (39.5, 1.0), (39.5, 3.5)])
    # Forklifts circle the racks; a shuttle runs a serpentine through the aisles and turns back at each end.
    w.path("perimeter", [(3.8, 5.5), (37.0, 5.5), (37.0, 24.5), (3.8, 24.5)], closed=True, radius=0.7)
    serpentine = [(8, 22.5)]
    for k, x in enumerate(racks[:-1]):
        aisle = x + 2
        top, bottom = 22.5, 7.5
        if k % 2 == 0:
            serpentine += [(aisle, top), (aisle, bottom)]
        else:
            serpentine += [(aisle, bottom), (aisle, top)]
    serpentine = [p for i, p in enumerate(serpentine) if i == 0 or p != serpentine[i - 1]]
    w.path("aisles", serpentine, closed=False, radius=0.5)
    w.vehicle("perimeter", (10.0, 5.5), velocity=[1.0, 0], radius=0.45, max_speed=1.6)
    w.vehicle("perimeter", (37.0, 15.0), velocity=[0, 1.0], radius=0.45, max_speed=1.4)
    w.vehicle("perimeter", (20.0, 24.5), velocity=[-1.0, 0], radius=0.45, max_speed=1.5)
    w.vehicle("aisles", (8.0, 15.0), velocity=[0, -0.8], radius=0.35, max_speed=1.0, at_end="reverse")
    w.vehicle("aisles", (24.0, 15.0), velocity=[0, 0.8], radius=0.35, max_speed=1.0, at_end="reverse")
    w.robot((2.0, 14.5, 0), radius=0.4,
            footprint=[[-0.45, -0.3], [0.45, -0.3], [0.45, 0.3], [-0.45, 0.3]],
            max_speed=1.2, lidar={"beams": 720, "fov": 270, "range": 20, "noise": 0.01, "mount": [0.3, 0, 0]})
    rng = random.Random(4)
    w.scatter(rng, 10, "food", 0.2, (1.0, 1.0), (39.0, 29.0), margin=0.2)
    w.scatter(rng, 4, "poison", 0.2, (1.0, 1.0), (39.0, 29.0), margin=0.2)
    w.data["sim"] = {"dt": 1 / 60, "seed": 12, "respawn": True}
    return w


# ----------------------------------------------------------------------------------------------------------------------
# Output: one object per line inside each array, so the files read well and diff well.


def dump(data):
    order = ["name", "walls", "targets", "boxes", "polygons", "robot", "paths", "vehicles", "movers", "sim"]
    lines = ["{"]
    keys = [k for k in order if k in data]
    for i, key in enumerate(keys):
        value = data[key]
        comma = "," if i < len(keys) - 1 else ""
        if isinstance(value, list):
            lines.append(f'  "{key}": [')
            for j, item in enumerate(value):
                lines.append("    " + json.dumps(item) + ("," if j < len(value) - 1 else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f'  "{key}": ' + json.dumps(value) + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "worlds")
    for make, name in ((make_default, "default"), (make_rldemo, "rldemo"), (make_maze, "maze"),
                       (make_warehouse, "warehouse")):
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(dump(make().data))


if __name__ == "__main__":
    main()
