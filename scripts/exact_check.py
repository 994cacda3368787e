#!/usr/bin/python3
"""Independent exactness audit of `lidarsim scan`: random worlds and ROS maps the project has never seen, every
beam's range compared with an exact reference computed here in rational arithmetic.

    scripts/exact_check.py [--lidarsim build/lidarsim] [--seed S] [--count N] [--maps M] [--first I] [--hostile]
                           [--doc-directions] [--keep DIR] [--verbose]

    quick regression (ctest ExactCheck, about 5 s):
        scripts/exact_check.py --lidarsim build/lidarsim --seed 1 --count 12 --hostile
    long mode (minutes; about 0.15 s per world or map on one core):
        scripts/exact_check.py --seed 7 --count 2000 --maps 1000 --hostile --doc-directions
    one case again (world and map I of seed S, files kept):
        scripts/exact_check.py --seed S --first I --count 1 --maps 0 --keep /tmp/case -v

Debian's /usr/bin/python3 and its standard library suffice (numpy, when installed, speeds the prefilter up).
--count N worlds and --maps M maps (default M = N) are generated from --seed; each is scanned through the real
program (`lidarsim scan FILE --pose ... --format json`, one to four poses, random beams, fov and range) and every
range is compared with the reference. --hostile also feeds broken and hostile maps, worlds and arguments and checks
that each is refused with a clear message naming the file, a non-zero status and no crash. Exit status 0 when
nothing was found, 1 otherwise; the report lists each discrepancy with the files kept under --keep (default: a
temporary folder, kept only when something failed).

The reference (written from the docs, not from the project's code):
- Beam i of a scan from robot pose (x, y, theta) with lidar mount (mx, my, mtheta) starts at the sensor position
  (x, y) + R(theta) (mx, my) and points along the sensor-frame unit vector (cos a_i, sin a_i), a_i = angle_min +
  i * angle_increment in double, rotated by R(theta + mtheta) (include/lidarsim/lidar.h, lsScan_BeamDirection):
  every product and sum is the double one, cos and sin are the C library's (Python's math calls it).
  The scan's layout is world-format.md's: a 360-degree fov spaces n beams 2 pi / n apart from -pi, otherwise
  fov / (n - 1) apart from -fov / 2 (one beam: straight ahead). The doubles of the direction are then taken as
  exact rationals.
- The range is the exact ray parameter t of the first point of a wall (closed two-sided segment), target or vehicle
  (solid disc), box (solid: rot = (cos, sin) of the angle in double, the exact set |R^T (p - c)| <= size / 2 with
  that R, as geometry.h defines it), polygon (solid) or map wall cell (the closed square between its corners, below)
  with 0 <= t <= range, t = 0 when the origin lies in or on a solid.
  The direction's length differs from 1 by an ulp or so, so t, not |t d|, is what the lidar reports as its range
  (geometry.h: the fraction is the distance). A reported range below range_min becomes null.
- Discs: t = (-b - sqrt(b^2 - a c)) / a with the square root to 80 extra bits; hit or miss is decided exactly.
- Maps: nav2 map_server's map_io arithmetic on GraphicsMagick's 16-bit quanta (maps.md): shade = mean of the
  channels (alpha in trinary mode) / 65535, occ = negate ? shade : 1 - shade; trinary: wall when
  occupied_thresh < occ; scale: opaque and (occupied_thresh < occ or rint(scaled) == 100); raw: round(shade * 255)
  == 100. Unknown cells are free unless the world says "unknown": "occupied". Cell corners are
  origin + (u * res, v * res) with one rounding per operation, rotated by (cos yaw, sin yaw) when yaw != 0; a
  rotated map's walls are the maximal runs of cell edges between the corners where the boundary turns, as maps.md
  says (their rounded inner corners are not exactly on one line).
A range must equal the exact t within a relative 1e-13 (the routines keep within about 128 ulp, 3e-14, at any
incidence), and the hit kind must be one of those at t. A
robot strictly inside a map's wall cell sees the far side of the cell (the map's walls are segments, where maps.md's
"distance to the first wall cell" would say 0); such beams are counted, not failed. --doc-directions also casts each
beam whose direction differs from (cos, sin)(theta + mtheta + a_i) (scan -h's words) along the latter and counts the
beams whose range would then differ (grazing beams and vertices placed on the program's beams), without failing.
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from fractions import Fraction

try:
    import numpy as np
except ImportError:  # the prefilter then runs in plain Python
    np = None

S = 1074  # every double is an integer multiple of 2^-1074: x * 2^S is an exact integer
ONE = 1 << S
REL = 1e-13
KINDS = ("wall", "mover", "target", "box", "polygon", "vehicle", "robot")


def I(x):
    """Exact integer x * 2^S of a double."""
    n, d = float(x).as_integer_ratio()
    return n * (ONE // d)


def sgn(v):
    return (v > 0) - (v < 0)


# ----------------------------------------------------------------------------------------------------------------------
# Exact casts. A ray is (O, D, LI): origin and direction as exact integers (scale 2^S), range LI (scale 2^S).
# Each returns an exact Fraction t, or None for a miss. Circles return a close rational (flagged inexact).


def cast_segment(O, D, LI, A, B):
    ox, oy = O
    dx, dy = D
    sa = sgn(dx * (A[1] - oy) - dy * (A[0] - ox))
    sb = sgn(dx * (B[1] - oy) - dy * (B[0] - ox))
    if sa == sb and sa != 0:
        return None
    if sa == 0 and sb == 0:  # on the ray's line
        dd = dx * dx + dy * dy
        ta = dx * (A[0] - ox) + dy * (A[1] - oy)
        tb = dx * (B[0] - ox) + dy * (B[1] - oy)
        lo, hi = min(ta, tb), max(ta, tb)
        if lo <= 0 <= hi:
            return Fraction(0)
        if hi < 0:
            return None
        # t = lo / dd (both scale 2^2S); t <= L  <=>  lo 2^S <= LI dd
        if lo * ONE > LI * dd:
            return None
        return Fraction(lo, dd)
    ex, ey = B[0] - A[0], B[1] - A[1]
    den = dx * ey - dy * ex
    num = (A[0] - ox) * ey - (A[1] - oy) * ex
    if den < 0:
        den, num = -den, -num
    if den == 0:  # cannot happen with sa != sb
        return None
    if num < 0:
        return None
    if num * ONE > LI * den:
        return None
    return Fraction(num, den)


def isqrt_frac(n, extra=80):
    """A rational within 2^-extra of sqrt(n) for an integer n >= 0."""
    return Fraction(math.isqrt(n << (2 * extra)), 1 << extra)


def cast_circle(O, D, LI, C, R):
    fx, fy = O[0] - C[0], O[1] - C[1]
    a = D[0] * D[0] + D[1] * D[1]
    b = D[0] * fx + D[1] * fy
    cc = fx * fx + fy * fy - R * R
    if cc <= 0:
        return Fraction(0)
    if b >= 0:
        return None
    disc = b * b - a * cc
    if disc < 0:
        return None
    # t <= L  <=>  -b - sqrt(disc) <= L a  <=>  X <= sqrt(disc) 2^S with X = -b 2^S - LI a
    X = -b * ONE - LI * a
    if X > 0 and X * X > disc * ONE * ONE:
        return None
    return (Fraction(-b) - isqrt_frac(disc)) / a


def cast_box(O, D, LI, box):
    """box = (C, H0, H1, c, s) exact ints (H at scale 2^2S, c s at 2^S)."""
    C, H0, H1, c, s = box
    fx, fy = O[0] - C[0], O[1] - C[1]
    oc = (c * fx + s * fy, -s * fx + c * fy)
    dc = (c * D[0] + s * D[1], -s * D[0] + c * D[1])
    hs = (H0, H1)
    entry = Fraction(0)
    exit_ = Fraction(LI, ONE)
    for k in range(2):
        h, o, d = hs[k], oc[k], dc[k]
        if d == 0:
            if o < -h or o > h:
                return None
            continue
        t1 = Fraction(-h - o, d)
        t2 = Fraction(h - o, d)
        if t1 > t2:
            t1, t2 = t2, t1
        if t1 > entry:
            entry = t1
        if t2 < exit_:
            exit_ = t2
        if entry > exit_:
            return None
    return entry


def cast_polygon(O, D, LI, P, orient):
    n = len(P)
    inside = True
    for i in range(n):
        a, b = P[i], P[(i + 1) % n]
        cr = (b[0] - a[0]) * (O[1] - a[1]) - (b[1] - a[1]) * (O[0] - a[0])
        if cr * orient < 0:
            inside = False
            break
    if inside:
        return Fraction(0)
    best = None
    for i in range(n):
        t = cast_segment(O, D, LI, P[i], P[(i + 1) % n])
        if t is not None and (best is None or t < best):
            best = t
    return best


def orient_exact(a, b, c):
    return sgn((I(b[0]) - I(a[0])) * (I(c[1]) - I(a[1])) - (I(b[1]) - I(a[1])) * (I(c[0]) - I(a[0])))


# ----------------------------------------------------------------------------------------------------------------------
# A scene for the reference: segments and "blobs" (discs, boxes, polygons) with float prefilter data.


class Scene:
    def __init__(self):
        self.segs = []  # (a, b, kind, index)
        self.blobs = []  # (kind, index, shape tag, exact data, centre float, bounding radius float)

    def add_segment(self, a, b, kind, index):
        self.segs.append((a, b, kind, index))

    def add_circle(self, c, r, kind, index):
        self.blobs.append((kind, index, "circle", ((I(c[0]), I(c[1])), I(r)), c, r))

    def add_box(self, c, size, angle_deg, index):
        ang = angle_deg * (math.pi / 180.0)
        cs, sn = math.cos(ang), math.sin(ang)
        hx, hy = 0.5 * size[0], 0.5 * size[1]
        data = ((I(c[0]), I(c[1])), I(hx) * ONE, I(hy) * ONE, I(cs), I(sn))
        self.blobs.append(("box", index, "box", data, c, math.hypot(hx, hy) * 1.001))

    def add_polygon(self, pts, kind, index):
        P = [(I(x), I(y)) for x, y in pts]
        area = 0
        for i in range(len(P)):
            a, b = P[i], P[(i + 1) % len(P)]
            area += a[0] * b[1] - a[1] * b[0]
        cx = sum(p[0] for p in pts) / len(pts)
        cy = sum(p[1] for p in pts) / len(pts)
        r = max(math.hypot(p[0] - cx, p[1] - cy) for p in pts) * 1.001
        self.blobs.append((kind, index, "polygon", (P, sgn(area)), (cx, cy), r))

    def finish(self):
        self.has_boxes = any(b[2] == "box" for b in self.blobs)
        self.segI = [((I(a[0]), I(a[1])), (I(b[0]), I(b[1]))) for a, b, _, _ in self.segs]
        if np is not None:
            self.ax = np.array([s[0][0] for s in self.segs], dtype=float)
            self.ay = np.array([s[0][1] for s in self.segs], dtype=float)
            self.bx = np.array([s[1][0] for s in self.segs], dtype=float)
            self.by = np.array([s[1][1] for s in self.segs], dtype=float)
            self.cx = np.array([b[4][0] for b in self.blobs], dtype=float)
            self.cy = np.array([b[4][1] for b in self.blobs], dtype=float)
            self.cr = np.array([b[5] for b in self.blobs], dtype=float)

    def candidates(self, o, d, L):
        """Segments and blobs the ray may reach, each with a lower bound of its t, nearest first."""
        ox, oy = o
        dx, dy = d
        out = []
        tiny = 1e-300
        if self.segs:
            if np is not None:
                rax, ray, rbx, rby = self.ax - ox, self.ay - oy, self.bx - ox, self.by - oy
                p1, p2, p3, p4 = dx * ray, dy * rax, dx * rby, dy * rbx
                ca, cb = p1 - p2, p3 - p4
                ea = 1e-9 * (np.abs(p1) + np.abs(p2)) + tiny
                eb = 1e-9 * (np.abs(p3) + np.abs(p4)) + tiny
                same = ((ca > ea) & (cb > eb)) | ((ca < -ea) & (cb < -eb))
                pa, pb = dx * rax + dy * ray, dx * rbx + dy * rby
                lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
                e2 = 1e-9 * (np.abs(pa) + np.abs(pb)) + tiny
                keep = (~same) & (hi >= -e2) & (lo <= L * (1 + 1e-9) + e2)
                for k in np.nonzero(keep)[0]:
                    out.append((float(lo[k] - e2[k]), 0, int(k)))
            else:
                for k, (a, b, _, _) in enumerate(self.segs):
                    rax, ray, rbx, rby = a[0] - ox, a[1] - oy, b[0] - ox, b[1] - oy
                    p1, p2, p3, p4 = dx * ray, dy * rax, dx * rby, dy * rbx
                    ca, cb = p1 - p2, p3 - p4
                    ea = 1e-9 * (abs(p1) + abs(p2)) + tiny
                    eb = 1e-9 * (abs(p3) + abs(p4)) + tiny
                    if (ca > ea and cb > eb) or (ca < -ea and cb < -eb):
                        continue
                    pa, pb = dx * rax + dy * ray, dx * rbx + dy * rby
                    lo, hi = min(pa, pb), max(pa, pb)
                    e2 = 1e-9 * (abs(pa) + abs(pb)) + tiny
                    if hi >= -e2 and lo <= L * (1 + 1e-9) + e2:
                        out.append((lo - e2, 0, k))
        if self.blobs:
            if np is not None:
                rcx, rcy = self.cx - ox, self.cy - oy
                dist = dx * rcy - dy * rcx
                proj = dx * rcx + dy * rcy
                e = 1e-9 * (np.abs(rcx) + np.abs(rcy) + self.cr) + tiny
                keep = (np.abs(dist) <= self.cr + e) & (proj + self.cr >= -e) & (proj - self.cr <= L * (1 + 1e-9) + e)
                for k in np.nonzero(keep)[0]:
                    out.append((float(proj[k] - self.cr[k] - e[k]), 1, int(k)))
            else:
                for k, b in enumerate(self.blobs):
                    rcx, rcy = b[4][0] - ox, b[4][1] - oy
                    r = b[5]
                    dist = dx * rcy - dy * rcx
                    proj = dx * rcx + dy * rcy
                    e = 1e-9 * (abs(rcx) + abs(rcy) + r) + tiny
                    if abs(dist) <= r + e and proj + r >= -e and proj - r <= L * (1 + 1e-9) + e:
                        out.append((proj - r - e, 1, k))
        out.sort()
        return out

    def cast(self, o, d, L):
        """Exact first hit: (t Fraction or None, [(kind, index, exact?)] of the hits at t)."""
        O = (I(o[0]), I(o[1]))
        D = (I(d[0]), I(d[1]))
        LI = I(L)
        best = None
        found = []
        for lo, tag, k in self.candidates(o, d, L):
            if best is not None and lo > float(best) * (1 + 1e-9) + 1e-300:
                break
            exact = True
            if tag == 0:
                A, B = self.segI[k]
                t = cast_segment(O, D, LI, A, B)
                kind, index = self.segs[k][2], self.segs[k][3]
            else:
                kind, index, shape, data = self.blobs[k][:4]
                if shape == "circle":
                    t = cast_circle(O, D, LI, data[0], data[1])
                    exact = t == 0
                elif shape == "box":
                    t = cast_box(O, D, LI, data)
                else:
                    t = cast_polygon(O, D, LI, data[0], data[1])
            if t is None:
                continue
            found.append((t, kind, index, exact))
            if best is None or t < best:
                best = t
        who = []
        for t, kind, index, exact in found:
            # ties: equal exact parameters, or within rounding of a disc's (rounded) root
            if t == best or (not exact or any(not f[3] and f[0] == best for f in found)) and \
                    abs(t - best) <= best * Fraction(1, 10**14):
                who.append((kind, index, exact))
        return best, who


# ----------------------------------------------------------------------------------------------------------------------
# The scan's beams, as documented


def deg2rad(deg):
    return deg * (math.pi / 180.0)


def layout(beams, fov):
    if beams == 1:
        inc, amin = 0.0, 0.0
    elif fov >= 2.0 * math.pi - 1e-12:
        inc = 2.0 * math.pi / float(beams)
        amin = -math.pi
    else:
        inc = fov / float(beams - 1)
        amin = -0.5 * fov
    return amin, inc


def beams_of(pose_deg, mount, beams, fov):
    """Origin and the directions of each beam: (o, [(angle, d_impl, d_doc)])."""
    x, y, tdeg = pose_deg
    th = deg2rad(tdeg)
    mx, my, mdeg = mount
    c, s = math.cos(th), math.sin(th)
    o = ((c * mx - s * my) + x, (s * mx + c * my) + y)
    heading = th + deg2rad(mdeg)
    hc, hs = math.cos(heading), math.sin(heading)
    amin, inc = layout(beams, fov)
    out = []
    for i in range(beams):
        a = amin + float(i) * inc
        ca, sa = math.cos(a), math.sin(a)
        d = (hc * ca - hs * sa, hs * ca + hc * sa)
        w = (heading + amin) + float(i) * inc
        out.append((a, d, (math.cos(w), math.sin(w))))
    return o, out, th, amin, inc


# ----------------------------------------------------------------------------------------------------------------------
# Running the program


class Checker:
    def __init__(self, args):
        self.args = args
        self.lidarsim = args.lidarsim
        self.problems = []  # (category, text)
        self.stats = {"worlds": 0, "maps": 0, "scans": 0, "beams": 0, "hits": 0, 
                      "doc_direction": 0, "inside_wall_cell": 0, "hostile": 0,
                      "dir_differs": 0, "max_rel": 0.0}
        self.keep = args.keep or tempfile.mkdtemp(prefix="exact_check.")
        self.case = 0

    def problem(self, category, text):
        self.problems.append((category, text))
        if self.args.verbose or len(self.problems) <= 40:
            print("PROBLEM [%s] %s" % (category, text), flush=True)

    def run(self, argv, timeout=120):
        t0 = time.time()
        try:
            p = subprocess.run(argv, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, b"", b"timeout", time.time() - t0
        except OSError as e:
            sys.exit("exact_check: cannot run %s: %s" % (argv[0], e))
        return p.returncode, p.stdout, p.stderr, time.time() - t0

    def scan(self, path, poses, beams, fov_deg, rng_, threads, world_pose=False):
        argv = [self.lidarsim, "scan", path, "--format", "json"]
        if not world_pose:
            for p in poses:
                argv.append("--pose=%r,%r,%r" % p)
        if beams is not None:
            argv += ["--beams", str(beams)]
        if fov_deg is not None:
            argv += ["--fov", repr(fov_deg)]
        if rng_ is not None:
            argv += ["--range", repr(rng_)]
        argv += ["--threads", str(threads)]
        rc, out, err, secs = self.run(argv)
        if rc == 0 and (b"Sanitizer" in err or b"runtime error:" in err):
            rc = 134
        if rc != 0:
            self.problem("crash" if rc is None or rc < 0 or rc > 2 else "error",
                         "%s: exit %s: %s (%s)" % (path, rc, err.decode(errors="replace").strip()[:300],
                                                   " ".join(argv[1:])))
            return None
        lines = out.decode().splitlines()
        try:
            return [json.loads(line) for line in lines]
        except ValueError as e:
            self.problem("output", "%s: not JSON: %s" % (path, e))
            return None

    def compare(self, label, scene, scans, poses, mount, beams, fov, L, range_min, map_inside=None):
        if len(scans) != len(poses):
            self.problem("output", "%s: %d scans for %d poses" % (label, len(scans), len(poses)))
            return
        for k, (msg, pose) in enumerate(zip(scans, poses)):
            self.stats["scans"] += 1
            o, dirs, th, amin, inc = beams_of(pose, mount, beams, fov)
            if msg["angle_min"] != amin or msg["angle_increment"] != inc:
                self.problem("layout", "%s: pose %d: angle_min %r increment %r, expected %r %r" % (
                    label, k, msg["angle_min"], msg["angle_increment"], amin, inc))
            if msg["pose"]["theta"] != th:
                self.problem("layout", "%s: pose %d: theta %r, expected %r" % (label, k, msg["pose"]["theta"], th))
            if msg["range_max"] != L or msg["range_min"] != range_min:
                self.problem("layout", "%s: range_min/max %r %r expected %r %r" % (
                    label, msg["range_min"], msg["range_max"], range_min, L))
            ranges, hits = msg["ranges"], msg["hits"]
            if len(ranges) != beams:
                self.problem("output", "%s: %d ranges for %d beams" % (label, len(ranges), beams))
                continue
            inside = map_inside(o) if map_inside is not None else False
            for i, (a, d, ddoc) in enumerate(dirs):
                self.stats["beams"] += 1
                r = ranges[i]
                if r is not None and (not isinstance(r, float) or math.isnan(r) or math.isinf(r) or
                                      math.copysign(1.0, r) < 0):
                    self.problem("nan", "%s: pose %d beam %d: range %r" % (label, k, i, r))
                    continue
                t, who = scene.cast(o, d, L)
                ok, why = self.judge(r, hits[i], t, who, range_min)
                if inside:
                    self.stats["inside_wall_cell"] += 1  # maps.md's rule would say 0: counted, the walls decide
                if ok and d != ddoc:
                    self.stats["dir_differs"] += 1
                    if self.args.doc_directions:
                        # What a reader of `scan -h` would expect: the beam along (cos, sin)(heading + angle).
                        t2, who2 = scene.cast(o, ddoc, L)
                        ok2, why2 = self.judge(r, hits[i], t2, who2, range_min, False)
                        if not ok2:
                            self.stats["doc_direction"] += 1
                            if self.stats["doc_direction"] <= 10 or self.args.verbose:
                                print("note: %s pose %r beam %d: along cos/sin(heading + angle) %r %r: %s" % (
                                    label, pose, i, ddoc[0], ddoc[1], why2))
                if not ok:
                    self.problem("range", "%s: pose %r beam %d (angle %r, dir %r %r, origin %r %r, range %r): %s" % (
                        label, pose, i, a, d[0], d[1], o[0], o[1], L, why))
                if r is not None:
                    self.stats["hits"] += 1

    def judge(self, r, hit, t, who, range_min, record=True):
        if t is None:
            if r is None:
                return True, ""
            return False, "program %r (%s), exact: no hit" % (r, hit)
        tf = float(t)
        if tf < range_min:
            if r is None:
                return True, ""
            if abs(tf - range_min) <= REL * range_min:
                return True, ""
            return False, "program %r, exact %r is below range_min %r" % (r, tf, range_min)
        if r is None:
            if abs(tf - range_min) <= REL * range_min:
                return True, ""
            return False, "program: no hit, exact %r (%s)" % (tf, who)
        err = abs(Fraction(r) - t)
        rel = float(err / t) if t != 0 else (0.0 if r == 0 else math.inf)
        if record and rel > self.stats["max_rel"]:
            self.stats["max_rel"] = rel
        if rel > REL:
            return False, "program %r (%s), exact %r (%s), relative error %.3g" % (r, hit, tf, who, rel)
        kinds = {w[0] for w in who}
        if hit not in kinds:
            return False, "program hit %s at %r, exact hit %s" % (hit, r, who)
        return True, ""


# ----------------------------------------------------------------------------------------------------------------------
# Random worlds


class WorldGen:
    def __init__(self, rng):
        self.rng = rng

    def scale(self):
        r = self.rng
        s = r.choice([2.0 ** -8, 2.0 ** -3, 0.37, 1.0, 1.0, 3.0, 64.0, 1000.0, 2.0 ** 14 + 0.1, 25000.0, 1e-3])
        lim = 1e6 - 30 * s
        off = r.choice([(0.0, 0.0), (0.0, 0.0), (r.uniform(-lim, lim), r.uniform(-lim, lim)),
                        (float(r.choice([-1, 1]) * 2 ** 19), 0.0), (r.uniform(-10, 10) * s, r.uniform(-10, 10) * s),
                        (lim * r.choice([-1, 1]), lim * r.choice([-1, 1]))])
        return s, off

    def lattice(self, s, off, n=12):
        return (off[0] + self.rng.randint(-n, n) * s, off[1] + self.rng.randint(-n, n) * s)

    def point(self, s, off, n=12):
        return (off[0] + self.rng.uniform(-n, n) * s, off[1] + self.rng.uniform(-n, n) * s)

    def pt(self, s, off):
        return self.lattice(s, off) if self.rng.random() < 0.6 else self.point(s, off)


def valid_coord(p):
    return all(math.isfinite(v) and abs(v) <= 1e6 for v in p)


def strictly_convex(pts):
    n = len(pts)
    if n < 3:
        return False
    signs = set()
    for i in range(n):
        o = orient_exact(pts[i], pts[(i + 1) % n], pts[(i + 2) % n])
        if o == 0:
            return False
        signs.add(o)
    if len(signs) != 1:
        return False
    # simple: total turning of one turn (winding), checked by the angles summing to 2 pi
    tot = 0.0
    for i in range(n):
        a, b, c = pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
        a1 = math.atan2(b[1] - a[1], b[0] - a[0])
        a2 = math.atan2(c[1] - b[1], c[0] - b[0])
        da = (a2 - a1 + math.pi) % (2 * math.pi) - math.pi
        tot += da
    return abs(abs(tot) - 2 * math.pi) < 1e-6


def hull(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def exact_on_ray(o, d, k):
    """o + 2^k d when it is exact in doubles, else None."""
    f = 2.0 ** k
    p = (o[0] + f * d[0], o[1] + f * d[1])
    if Fraction(p[0]) == Fraction(o[0]) + Fraction(f) * Fraction(d[0]) and \
            Fraction(p[1]) == Fraction(o[1]) + Fraction(f) * Fraction(d[1]) and valid_coord(p):
        return p
    return None


def make_world(rng, case_dir, index):
    """A random world: (path, scene, poses, mount, beams, fov_rad, fov_arg, L, range_arg, range_min, world_pose)."""
    g = WorldGen(rng)
    s, off = g.scale()
    walls, targets, boxes, polygons = [], [], [], []
    scene = Scene()
    seg_index = 0

    def add_chain(points, closed):
        nonlocal seg_index
        pts = [tuple(map(float, p)) for p in points]
        if not all(valid_coord(p) for p in pts):
            return False
        n = len(pts)
        m = n if closed else n - 1
        for i in range(m):
            if pts[i] == pts[(i + 1) % n]:
                return False
        if closed and n < 3 or n < 2:
            return False
        if n == 2 and not closed and rng.random() < 0.5:
            walls.append({"from": list(pts[0]), "to": list(pts[1])})
        else:
            walls.append({"points": [list(p) for p in pts], "closed": closed})
        for i in range(m):
            scene.add_segment(pts[i], pts[(i + 1) % n], "wall", seg_index)
            seg_index += 1
        return True

    # The lidar and the poses first: walls through vertices and along beams need the beams' directions.
    beams = rng.choice([1, 2, 3, 4, 5, 8, 16, 37, 64, 90, 180, 360, 360, 720, 1081])
    fov_deg = rng.choice([360.0, 360.0, 270.0, 180.0, 90.0, 1e-3, rng.uniform(1, 359), 359.9999])
    fov = deg2rad(fov_deg)
    mount = (0.0, 0.0, 0.0)
    if rng.random() < 0.15:
        mount = (rng.uniform(-1, 1) * s, rng.uniform(-1, 1) * s, rng.choice([0.0, 90.0, -45.0, rng.uniform(-180, 180)]))
    n_poses = rng.randint(1, 4)
    thetas = [0.0, 0.0, 90.0, 180.0, -90.0, 45.0, 270.0, 360.0, 12.5, -135.0]
    poses = []
    for _ in range(n_poses):
        p = g.pt(s, off)
        th = rng.choice(thetas + [rng.uniform(-360, 360), rng.uniform(-1e5, 1e5)])
        poses.append((p[0], p[1], th))

    # Walls
    for _ in range(rng.randint(0, 10)):
        kind = rng.random()
        if kind < 0.3:
            add_chain([g.pt(s, off), g.pt(s, off)], False)
        elif kind < 0.5:
            add_chain([g.lattice(s, off) for _ in range(rng.randint(2, 6))], False)
        elif kind < 0.7:
            add_chain([g.lattice(s, off) for _ in range(rng.randint(3, 6))], True)
        elif kind < 0.8:  # collinear overlapping walls on one lattice line
            a = g.lattice(s, off)
            dxy = (rng.randint(-2, 2), rng.randint(-2, 2))
            if dxy != (0, 0):
                for _ in range(rng.randint(2, 4)):
                    k1, k2 = rng.randint(-5, 5), rng.randint(-5, 5)
                    add_chain([(a[0] + k1 * dxy[0] * s, a[1] + k1 * dxy[1] * s),
                               (a[0] + k2 * dxy[0] * s, a[1] + k2 * dxy[1] * s)], False)
        elif kind < 0.9:  # a wall through a pose (a robot on a wall)
            p = rng.choice(poses)
            v = (rng.randint(-3, 3) * s, rng.randint(-3, 3) * s)
            add_chain([(p[0] - v[0], p[1] - v[1]), (p[0] + v[0], p[1] + v[1])], False)
        else:  # tiny wall
            a = g.pt(s, off)
            e = s * rng.choice([1e-9, 1e-6, 1e-3])
            add_chain([a, (a[0] + e, a[1] + rng.choice([0.0, e]))], False)
    # Walls through beam vertices and along beams of the first pose
    o, dirs, _, _, _ = beams_of(poses[0], mount, beams, fov)
    for _ in range(rng.randint(0, 6)):
        i = rng.randrange(beams)
        d = dirs[i][1]
        k = rng.randint(-3, 3) + int(round(math.log2(s)))
        p = exact_on_ray(o, d, k)
        if p is None:
            continue
        r = rng.random()
        if r < 0.4:
            add_chain([p, g.pt(s, off)], False)
        elif r < 0.6:
            q = exact_on_ray(o, d, k + 1)
            if q is not None:
                add_chain([p, q], False)  # along the beam
        elif r < 0.8:
            add_chain([g.pt(s, off), p, g.pt(s, off)], rng.random() < 0.5)  # a corner on the beam
        else:
            q = exact_on_ray(o, d, k - 1)
            if q is not None:
                add_chain([(2 * o[0] - q[0], 2 * o[1] - q[1]), q], False)  # through the origin along the beam
    # Targets
    for _ in range(rng.randint(0, 4)):
        c = g.pt(s, off)
        rad = max(1e-4, s * rng.choice([0.5, 1.0, 0.01, 2.0, 0.3]))
        if rng.random() < 0.15:
            c = rng.choice(poses)[:2]
        t = {"center": list(c), "radius": rad}
        if rng.random() < 0.3:
            t["kind"] = "poison"
        targets.append(t)
        scene.add_circle(c, rad, "target", len(targets) - 1)
    # Boxes
    for _ in range(rng.randint(0, 3)):
        c = g.pt(s, off)
        size = (max(1e-4, s * rng.choice([1.0, 2.0, 0.5, 0.01, rng.uniform(0.1, 3)])),
                max(1e-4, s * rng.choice([1.0, 2.0, 0.5, 0.01, rng.uniform(0.1, 3)])))
        ang = rng.choice([0.0, 0.0, 90.0, 45.0, 30.0, -60.0, 180.0, rng.uniform(-180, 180), 1e5])
        boxes.append({"center": list(c), "size": list(size), "angle": ang})
        scene.add_box(c, size, ang, len(boxes) - 1)
    # Convex polygons
    for _ in range(rng.randint(0, 3)):
        base = g.lattice(s, off)
        pts = [(base[0] + rng.randint(-3, 3) * s * 0.5, base[1] + rng.randint(-3, 3) * s * 0.5)
               for _ in range(rng.randint(3, 9))]
        h = hull(pts)
        if len(h) < 3 or len(h) > 32 or not strictly_convex(h):
            continue
        if rng.random() < 0.5:
            h = h[::-1]
        polygons.append({"points": [list(p) for p in h]})
        scene.add_polygon(h, "polygon", len(polygons) - 1)

    # Poses on corners, walls, polygon vertices, inside boxes
    for j in range(len(poses)):
        r = rng.random()
        x, y, th = poses[j]
        if r < 0.2 and scene.segs:
            a, b, _, _ = rng.choice(scene.segs)
            x, y = rng.choice([a, b, ((a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5)])
        elif r < 0.3 and polygons:
            x, y = rng.choice(rng.choice(polygons)["points"])
        elif r < 0.35 and boxes:
            x, y = rng.choice(boxes)["center"]
        elif r < 0.5 and scene.segs:  # rounded onto a wall: a hair off its line
            a, b, _, _ = rng.choice(scene.segs)
            u = rng.random()
            x, y = a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])
        elif r < 0.55 and targets:  # rounded onto a target's circle
            t = rng.choice(targets)
            phi = rng.uniform(-math.pi, math.pi)
            x, y = t["center"][0] + t["radius"] * math.cos(phi), t["center"][1] + t["radius"] * math.sin(phi)
        elif r < 0.6 and boxes:  # rounded onto (or a hair off) a box's face
            bx = rng.choice(boxes)
            ang = deg2rad(bx["angle"])
            lx = rng.uniform(-0.5, 0.5) * bx["size"][0]
            ly = 0.5 * bx["size"][1] * rng.choice([-1, 1]) * (1 + rng.choice([0.0, 1e-9, -1e-9, 1e-15]))
            x = bx["center"][0] + (math.cos(ang) * lx - math.sin(ang) * ly)
            y = bx["center"][1] + (math.sin(ang) * lx + math.cos(ang) * ly)
        if r >= 0.8 and scene.segs and j > 0:  # beams along a wall, or grazing it
            a, b, _, _ = rng.choice(scene.segs)
            th = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) + rng.choice([0.0, 1e-7, -1e-9, 1e-12])
        if not valid_coord((x, y)):
            x, y = poses[j][:2]
        if j == 0:
            continue  # the beams of pose 0 were used above
        poses[j] = (x, y, th)

    rng_kind = rng.random()
    if rng_kind < 0.3:
        L = s * rng.choice([1.0, 4.0, 10.0, 30.0])
    elif rng_kind < 0.5:
        L = 2.0 ** (int(round(math.log2(s))) + rng.randint(-2, 5))  # a vertex placed at o + 2^k d lies exactly at L
    else:
        L = s * rng.uniform(0.5, 40)
    L = min(max(L, 1e-4), 1e6)
    range_min = 0.0
    if rng.random() < 0.2:
        range_min = rng.choice([L * 0.1, L * 0.5, s, 2.0 ** (int(round(math.log2(s))) - 1)])
        if not range_min < L:
            range_min = 0.0

    robot = {"pose": [poses[0][0], poses[0][1], poses[0][2]], "radius": max(1e-4, 0.1 * s),
             "lidar": {"beams": beams, "fov": fov_deg, "range": L, "range_min": range_min}}
    if mount != (0.0, 0.0, 0.0):
        robot["lidar"]["mount"] = list(mount)
    world = {"name": "exact%d" % index, "walls": walls, "targets": targets, "boxes": boxes, "polygons": polygons,
             "robot": robot}
    # Moving objects: a vehicle, a door at phase 0 and other robots, far from the rest so that they start where
    # the file puts them (a robot placed overlapping a solid is moved at load).
    if rng.random() < 0.3:
        far = (off[0] + 40 * s * rng.choice([-1, 1]), off[1] + rng.uniform(-20, 20) * s)
        if valid_coord(far) and abs(far[0]) < 1e6 - 5 * s:
            vr = max(1e-4, s * 0.5)
            world["paths"] = [{"id": "p", "points": [list(far), [far[0], far[1] + s]]}]
            world["vehicles"] = [{"path": "p", "position": list(far), "radius": vr}]
            scene.add_circle(far, vr, "vehicle", 0)
            if rng.random() < 0.5:
                a = (far[0], far[1] + 3 * s)
                b = (far[0] + s, far[1] + 3 * s)
                world["movers"] = [{"type": "door", "from": list(a), "to": list(b), "offset": [0, s], "period": 4,
                                    "phase": 0}]
                scene.add_segment(a, b, "mover", 0)
            if rng.random() < 0.5:
                rr = max(1e-4, 0.25 * s)
                q = (far[0], far[1] - 4 * s)
                first = dict(robot)
                first["id"] = "r0"
                other = {"id": "r1", "pose": [q[0], q[1], 0], "radius": rr}
                if rng.random() < 0.5:
                    # A footprint at angle 0: the world points are pose + point, one rounding each.
                    fp = rng.choice([[[-rr, -rr], [rr, -rr], [rr, rr], [-rr, rr]], [[rr, 0.0], [-rr, rr], [-rr, -rr]]])
                    other["footprint"] = fp
                    scene.add_polygon([(q[0] + x, q[1] + y) for x, y in fp], "robot", 1)
                else:
                    scene.add_circle(q, rr, "robot", 1)
                world["robots"] = [first, other]
                del world["robot"]
    scene.finish()
    path = os.path.join(case_dir, "world%d.json" % index)
    with open(path, "w") as f:
        json.dump(world, f)
    world_pose = rng.random() < 0.1
    if world_pose:
        poses = poses[:1]
    beams_arg = beams if rng.random() < 0.7 else None
    fov_arg = fov_deg if rng.random() < 0.7 else None
    range_arg = L if rng.random() < 0.7 else None
    return path, scene, poses, mount, beams, fov, beams_arg, fov_arg, L, range_arg, range_min, world_pose


# ----------------------------------------------------------------------------------------------------------------------
# Random maps


def png_chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)


def write_png(path, width, height, bit_depth, colour_type, rows, palette=None, trns=None):
    """rows: lists of sample tuples per pixel (colour_type 0: (g,), 2: (r,g,b), 3: (i,), 4: (g,a), 6: (r,g,b,a))."""
    raw = bytearray()
    for row in rows:
        raw.append(0)
        if bit_depth < 8:
            bits, acc, nb = bit_depth, 0, 0
            for px in row:
                acc = (acc << bits) | px[0]
                nb += bits
                if nb == 8:
                    raw.append(acc)
                    acc, nb = 0, 0
            if nb:
                raw.append(acc << (8 - nb))
        else:
            for px in row:
                for v in px:
                    raw += struct.pack(">H", v) if bit_depth == 16 else bytes([v])
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type,
                                                                  0, 0, 0))
    if palette is not None:
        data += png_chunk(b"PLTE", b"".join(bytes(p) for p in palette))
    if trns is not None:
        data += png_chunk(b"tRNS", trns)
    data += png_chunk(b"IDAT", zlib.compress(bytes(raw))) + png_chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def write_bmp(path, width, height, kind, rows, palette=None):
    """rows top first, pixels as write_png's (palette index, RGB or RGBA, 8 bits); kind: pal8, pal8-rle (RLE8 runs),
    rgb24, rgb24-down (rows top first, negative height) or argb32 (bit fields with an alpha mask in a V4 header)."""
    down = kind.endswith("-down")
    order = rows if down else rows[::-1]
    header, compression, table = 40, 0, b""
    if kind.startswith("pal8"):
        bits = 8
        table = b"".join(bytes((b, g, r, 0)) for (r, g, b) in palette)
        if kind == "pal8-rle":
            compression = 1
            pixels = bytearray()
            for row in order:
                x = 0
                while x < width:
                    n = 1
                    while x + n < width and n < 255 and row[x + n] == row[x]:
                        n += 1
                    pixels += bytes((n, row[x][0]))
                    x += n
                pixels += b"\0\0"
            pixels += b"\0\1"
        else:
            stride = (width + 3) // 4 * 4
            pixels = b"".join(bytes(px[0] for px in row) + bytes(stride - width) for row in order)
    elif kind.startswith("rgb24"):
        bits = 24
        stride = (3 * width + 3) // 4 * 4
        pixels = b"".join(b"".join(bytes((b, g, r)) for (r, g, b) in row) + bytes(stride - 3 * width) for row in order)
    else:
        bits, compression, header = 32, 3, 108
        pixels = b"".join(b"".join(bytes((b, g, r, a)) for (r, g, b, a) in row) for row in order)
    info = struct.pack("<IiiHHIIiiII", header, width, -height if down else height, 1, bits, compression, len(pixels),
                       2835, 2835, len(palette) if table else 0, 0)
    if header == 108:
        info += struct.pack("<IIII", 0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000) + bytes(108 - 56)
    offset = 14 + len(info) + len(table)
    with open(path, "wb") as f:
        f.write(b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + table + bytes(pixels))


def write_pnm(path, magic, width, height, maxval, rows):
    """rows of tuples (1 or 3 samples); magic P1..P6."""
    plain = magic in ("P1", "P2", "P3")
    if magic in ("P1", "P4"):
        head = "%s\n# exact_check\n%d %d\n" % (magic, width, height)
    else:
        head = "%s\n# exact_check\n%d %d\n%d\n" % (magic, width, height, maxval)
    body = bytearray()
    if plain:
        text = []
        for row in rows:
            text.append(" ".join(" ".join(str(v) for v in px) for px in row))
        body = ("\n".join(text) + "\n").encode()
    elif magic == "P4":
        for row in rows:
            acc, nb = 0, 0
            for px in row:
                acc = (acc << 1) | px[0]
                nb += 1
                if nb == 8:
                    body.append(acc)
                    acc, nb = 0, 0
            if nb:
                body.append(acc << (8 - nb))
    else:
        for row in rows:
            for px in row:
                for v in px:
                    body += struct.pack(">H", v) if maxval > 255 else bytes([v])
    with open(path, "wb") as f:
        f.write(head.encode() + bytes(body))


def quantum(v, maxval):
    if maxval == 65535:
        return v
    if maxval == 255:
        return v * 257
    return int(65535.0 * v / maxval + 0.5)


def classify(qs, alpha, has_alpha, mode, negate, occ_t, free_t):
    """Map value of map_server (-1 unknown, 0..100) from 16-bit quanta qs (1 or 3) and alpha (a quantum)."""
    if len(qs) == 1:
        chans = [qs[0]] * 3
    else:
        chans = list(qs)
    if mode == "trinary" and has_alpha:
        chans.append(alpha)
    total = 0.0
    for c in chans:
        total += c
    shade = (total / len(chans)) / 65535.0
    occ = shade if negate else 1.0 - shade
    if mode == "trinary":
        if occ_t < occ:
            return 100
        return 0 if occ < free_t else -1
    if mode == "scale":
        if has_alpha and alpha != 65535:
            return -1
        if occ_t < occ:
            return 100
        if occ < free_t:
            return 0
        x = (occ - free_t) / (occ_t - free_t) * 100.0
        return int(round_half_even(x))
    v = math.floor(shade * 255.0 + 0.5)  # std::round on a non-negative value
    return int(v) if 0 <= v <= 100 else -1


def round_half_even(x):
    return float(round(x))  # rint in the default rounding mode: ties to even, as Python's round


def map_corner(ox, oy, res, yaw, u, v):
    x = u * res
    y = v * res
    if yaw == 0.0:
        return (ox + x, oy + y)
    c, s = math.cos(yaw), math.sin(yaw)
    return (ox + (c * x - s * y), oy + (s * x + c * y))


def make_map(rng, case_dir, index):
    W = rng.choice([1, 1, 2, 3, 5, 8, 13, 20, 31, 40])
    H = rng.choice([1, 2, 3, 5, 8, 13, 20, 31, 40])
    fmt_ = rng.choice(["P5-8", "P5-16", "P2-8", "P2-16", "P5-odd", "P4", "P1", "P6-8", "P3-8", "P6-16",
                       "png-g8", "png-g16", "png-g1", "png-g2", "png-g4", "png-ga8", "png-ga16", "png-rgb8",
                       "png-rgb16", "png-rgba8", "png-rgba16", "png-pal", "png-pal-trns", "png-g8-trns",
                       "bmp-pal8", "bmp-pal8-rle", "bmp-rgb24", "bmp-rgb24-down", "bmp-argb32"])
    mode = rng.choice(["trinary", "trinary", "trinary", "scale", "raw", None])
    negate = rng.choice([0, 0, 1, "true", "false"])
    neg = negate in (1, "true")
    occ_t, free_t = rng.choice([(0.65, 0.196), (0.65, 0.25), (0.5, 0.4), (1.0, 0.0), (0.9, 0.1)])
    if rng.random() < 0.3:  # a threshold exactly at an 8-bit level's occupancy
        v = rng.randint(1, 254)
        occ_t = 1.0 - (v * 257.0 * 3 / 3) / 65535.0 if not neg else (v * 257.0) / 65535.0
        free_t = occ_t * rng.choice([0.5, 0.9, 0.0])
    maxval = {"P5-8": 255, "P2-8": 255, "P6-8": 255, "P3-8": 255, "P5-16": 65535, "P2-16": 65535,
              "P6-16": 65535, "P5-odd": rng.choice([1, 3, 100, 1000, 4095, 40000]), "P4": 1, "P1": 1}.get(fmt_)
    pattern = rng.choice(["random", "rooms", "checker", "border", "full", "sparse"])
    dens = rng.uniform(0.05, 0.7)

    def wants_wall(u, v):
        if pattern == "random":
            return rng.random() < dens
        if pattern == "rooms":
            return u % 7 == 0 or v % 5 == 0 or rng.random() < 0.05
        if pattern == "checker":
            return (u + v) % 2 == 0
        if pattern == "border":
            return u in (0, W - 1) or v in (0, H - 1)
        if pattern == "full":
            return rng.random() < 0.95
        return rng.random() < 0.03

    # Pixel samples: "dark" or "light" intents, mixed with values near the thresholds; the class is then computed.
    def sample(intent, depth):
        top = (1 << depth) - 1
        r = rng.random()
        if r < 0.15:
            return rng.randint(0, top)
        dark = intent == (not neg)
        if depth == 8 and r < 0.3:
            return rng.choice([0, 254, 205, 255, 100, 101, 99, 1, 128, 127])
        return rng.randint(0, top // 4) if dark else rng.randint(3 * top // 4, top)

    rows = []  # image rows, top first; each pixel: (samples tuple, quanta tuple, alpha quantum, has_alpha)
    cls = [[0] * W for _ in range(H)]  # cls[v][u], v from the bottom
    palette = trns = None
    depth = 8
    colour = {"png-g8": 0, "png-g16": 0, "png-g1": 0, "png-g2": 0, "png-g4": 0, "png-ga8": 4, "png-ga16": 4,
              "png-rgb8": 2, "png-rgb16": 2, "png-rgba8": 6, "png-rgba16": 6, "png-pal": 3, "png-pal-trns": 3,
              "png-g8-trns": 0, "bmp-pal8": 3, "bmp-pal8-rle": 3, "bmp-rgb24": 2, "bmp-rgb24-down": 2,
              "bmp-argb32": 6}.get(fmt_)
    if fmt_.startswith("bmp") and colour == 3:
        palette = [(0, 0, 0), (255, 255, 255), (254, 254, 254)] + [
            (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(rng.randint(0, 20))]
    if fmt_.startswith("png"):
        depth = 16 if fmt_.endswith("16") else int(fmt_[-1]) if fmt_[-1] in "124" and fmt_[-2] == "g" else 8
        if fmt_ in ("png-pal", "png-pal-trns"):
            palette = [(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(8)]
            palette[0] = (0, 0, 0)
            palette[1] = (255, 255, 255)
            palette[2] = (254, 254, 254)
            if fmt_ == "png-pal-trns":
                alphas = [255, 255, 0, 128, 255, 0, 200, 255]
                trns = bytes(alphas[:rng.randint(1, 8)])
    trns_grey = rng.randint(0, 255) if fmt_ == "png-g8-trns" else None
    if trns_grey is not None:
        trns = struct.pack(">H", trns_grey)
    for row_i in range(H):
        v = H - 1 - row_i
        row = []
        for u in range(W):
            want = wants_wall(u, v)
            if maxval is not None:  # PNM
                if fmt_ in ("P4", "P1"):
                    bit = 1 if want == (not neg) else 0
                    if rng.random() < 0.1:
                        bit = rng.randint(0, 1)
                    samp = (bit,)
                    q = (0 if bit else 65535,)  # PBM: 1 is black
                elif fmt_ in ("P6-8", "P3-8", "P6-16"):
                    d = 16 if maxval == 65535 else 8
                    samp = tuple(sample(want, d) for _ in range(3))
                    if rng.random() < 0.5:
                        samp = (samp[0],) * 3
                    q = tuple(quantum(x, maxval) for x in samp)
                else:
                    if maxval in (255, 65535):
                        samp = (sample(want, 16 if maxval == 65535 else 8),)
                    else:
                        samp = (rng.choice([0, maxval, rng.randint(0, maxval)]),)
                    q = (quantum(samp[0], maxval),)
                alpha, has_alpha = 65535, False
            else:
                if colour == 3:
                    idx = rng.randrange(len(palette)) if rng.random() < 0.3 else (0 if want == (not neg) else 1)
                    samp = (idx,)
                    q = tuple(x * 257 for x in palette[idx])
                    has_alpha = trns is not None
                    alpha = (trns[idx] if idx < len(trns) else 255) * 257 if has_alpha else 65535
                elif colour == 0:
                    g = sample(want, depth)
                    samp = (g,)
                    q = (g * (65535 // ((1 << depth) - 1)),)
                    has_alpha = trns_grey is not None
                    alpha = 0 if has_alpha and g == trns_grey else 65535
                elif colour == 4:
                    g = sample(want, depth)
                    top = (1 << depth) - 1
                    a = rng.choice([top, top, top, 0, rng.randint(0, top)])
                    samp = (g, a)
                    q = (g * (65535 // top),)
                    alpha, has_alpha = a * (65535 // top), True
                elif colour == 2:
                    samp = tuple(sample(want, depth) for _ in range(3))
                    q = tuple(x * (65535 // ((1 << depth) - 1)) for x in samp)
                    alpha, has_alpha = 65535, False
                else:
                    top = (1 << depth) - 1
                    samp = tuple(sample(want, depth) for _ in range(3)) + (rng.choice([top, top, 0,
                                                                                       rng.randint(0, top)]),)
                    q = tuple(x * (65535 // top) for x in samp[:3])
                    alpha, has_alpha = samp[3] * (65535 // top), True
            row.append(samp)
            cls[v][u] = classify(q, alpha, has_alpha, mode or "trinary", neg, occ_t, free_t)
        rows.append(row)
    ext = fmt_[:3] if fmt_[:3] in ("png", "bmp") else {"P4": "pbm", "P1": "pbm", "P6-8": "ppm", "P3-8": "ppm",
                                                "P6-16": "ppm"}.get(fmt_, "pgm")
    img = "map%d.%s" % (index, ext)
    ipath = os.path.join(case_dir, img)
    if fmt_.startswith("png"):
        write_png(ipath, W, H, depth, colour, rows, palette, trns)
    elif fmt_.startswith("bmp"):
        write_bmp(ipath, W, H, fmt_[4:], rows, palette)
    else:
        write_pnm(ipath, fmt_[:2], W, H, maxval, rows)

    res = rng.choice([0.5, 0.25, 0.125, 2.0 ** -5, 1.0, 4.0, 0.05, 0.1, 0.03, 0.37, 1e-4 * 3, 7.0])
    big = rng.random() < 0.2
    ox = rng.choice([0.0, -1.0, -0.5 * W * res, rng.uniform(-10, 10), 1e5 + 0.1 if big else 3.0])
    oy = rng.choice([0.0, -2.0, -0.5 * H * res, rng.uniform(-10, 10), -7.0e5 if big else 1.5])
    yaw = rng.choice([0.0, 0.0, 0.0, 0.0, math.pi / 2, rng.uniform(-3, 3)])
    lines = ["image: %s" % img, "resolution: %r" % res]
    if rng.random() < 0.5:
        lines.append("origin: [%r, %r, %r]" % (ox, oy, yaw))
    else:
        lines.append("origin:\n  - %r\n  - %r\n  - %r" % (ox, oy, yaw))
    lines.append("negate: %s" % negate)
    lines.append("occupied_thresh: %r" % occ_t)
    lines.append("free_thresh: %r" % free_t)
    if mode is not None:
        lines.append("mode: %s" % mode)
    if rng.random() < 0.3:
        lines.append("elevation_image: none.pgm  # ignored")
    rng.shuffle(lines)
    ypath = os.path.join(case_dir, "map%d.yaml" % index)
    with open(ypath, "w") as f:
        f.write("# exact_check map %d (%s, %dx%d)\n" % (index, fmt_, W, H) + "\n".join(lines) + "\n")

    unknown_occupied = rng.random() < 0.3
    wall = [[cls[v][u] == 100 or (unknown_occupied and cls[v][u] == -1) for u in range(W)] for v in range(H)]
    n_wall = sum(sum(r) for r in wall)
    info = {"fmt": fmt_, "W": W, "H": H, "mode": mode, "negate": negate, "res": res, "origin": (ox, oy, yaw),
            "walls": n_wall, "unknown_occupied": unknown_occupied}
    return ypath, wall, (ox, oy, res, yaw), unknown_occupied, info


def map_scene(wall, geo):
    ox, oy, res, yaw = geo
    H, W = len(wall), len(wall[0])
    scene = Scene()
    corner = {}

    def C(u, v):
        if (u, v) not in corner:
            corner[(u, v)] = map_corner(ox, oy, res, yaw, float(u), float(v))
        return corner[(u, v)]

    def is_wall(u, v):
        return 0 <= u < W and 0 <= v < H and wall[v][u]

    if yaw == 0.0:
        # Unit edges: collinear ones lie exactly on one line of doubles, so their union is the merged segment.
        for v in range(H):
            for u in range(W):
                if not wall[v][u]:
                    continue
                if not is_wall(u, v - 1):
                    scene.add_segment(C(u, v), C(u + 1, v), "wall", -1)
                if not is_wall(u, v + 1):
                    scene.add_segment(C(u, v + 1), C(u + 1, v + 1), "wall", -1)
                if not is_wall(u - 1, v):
                    scene.add_segment(C(u, v), C(u, v + 1), "wall", -1)
                if not is_wall(u + 1, v):
                    scene.add_segment(C(u + 1, v), C(u + 1, v + 1), "wall", -1)
    else:
        # Rotated corners are rounded off the grid's lines: the walls are the maximal runs of edges with the wall
        # on the same side, from the corner where the boundary turns to the next (maps.md).
        for v in range(H + 1):
            run = None
            for u in range(W + 1):
                side = None
                if u < W and is_wall(u, v - 1) != is_wall(u, v):
                    side = is_wall(u, v - 1)
                if run is not None and side != run[1]:
                    scene.add_segment(C(run[0], v), C(u, v), "wall", -1)
                    run = None
                if side is not None and run is None:
                    run = (u, side)
        for u in range(W + 1):
            run = None
            for v in range(H + 1):
                side = None
                if v < H and is_wall(u - 1, v) != is_wall(u, v):
                    side = is_wall(u - 1, v)
                if run is not None and side != run[1]:
                    scene.add_segment(C(u, run[0]), C(u, v), "wall", -1)
                    run = None
                if side is not None and run is None:
                    run = (v, side)
    scene.finish()
    return scene, C


def map_inside_fn(wall, geo, C):
    """Whether a point lies strictly inside a wall cell (its walls are segments: the beam sees the far side)."""
    ox, oy, res, yaw = geo
    H, W = len(wall), len(wall[0])

    def inside(o):
        c, s = (math.cos(yaw), math.sin(yaw)) if yaw != 0.0 else (1.0, 0.0)
        lx = (c * (o[0] - ox) + s * (o[1] - oy)) / res
        ly = (-s * (o[0] - ox) + c * (o[1] - oy)) / res
        for u in range(int(math.floor(lx)) - 1, int(math.floor(lx)) + 2):
            for v in range(int(math.floor(ly)) - 1, int(math.floor(ly)) + 2):
                if 0 <= u < W and 0 <= v < H and wall[v][u]:
                    q = [C(u, v), C(u + 1, v), C(u + 1, v + 1), C(u, v + 1)]
                    if all(orient_exact(q[i], q[(i + 1) % 4], o) > 0 for i in range(4)):
                        return True
        return False

    return inside


# ----------------------------------------------------------------------------------------------------------------------
# Hostile inputs


def hostile(chk, d):
    """Broken and hostile maps, worlds and arguments: each must fail with a message naming the file, exit non-zero,
    not crash and not hang."""
    cases = []  # (name, argv, expect_ok, must_name)
    good_pgm = b"P5\n4 3\n255\n" + bytes([0, 254, 254, 0] * 3)

    def w(name, data):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return p

    w("good.pgm", good_pgm)
    base = "resolution: 0.1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\nfree_thresh: 0.196\n"

    def ymap(name, text, image="good.pgm", must=None, ok=False):
        p = w(name, ("image: %s\n" % image if image is not None else "") + text)
        cases.append((name, [chk.lidarsim, "scan", p, "--beams", "8"], ok, must or name))
        cases.append((name + " (check)", [chk.lidarsim, "check", p], ok, must or name))

    ymap("ok.yaml", base, ok=True)
    w("trunc.pgm", b"P5\n10 10\n255\n" + bytes(50))
    ymap("truncated.yaml", base, "trunc.pgm", "trunc.pgm")
    w("huge.pgm", b"P5\n100000 100000\n255\n" + bytes(100))
    ymap("huge.yaml", base, "huge.pgm", "huge.pgm")
    w("wide.pgm", b"P5\n4294967295 1\n255\n" + bytes(100))
    ymap("wide.yaml", base, "wide.pgm", "wide.pgm")
    w("zero.pgm", b"P5\n0 0\n255\n")
    ymap("zero.yaml", base, "zero.pgm", "zero.pgm")
    w("maxval0.pgm", b"P5\n2 2\n0\n" + bytes(4))
    ymap("maxval0.yaml", base, "maxval0.pgm", "maxval0.pgm")
    w("maxval70000.pgm", b"P5\n2 2\n70000\n" + bytes(8))
    ymap("maxval70000.yaml", base, "maxval70000.pgm", "maxval70000.pgm")
    w("plain_bad.pgm", b"P2\n2 2\n255\n0 x 3 4\n")
    ymap("plainbad.yaml", base, "plain_bad.pgm", "plain_bad.pgm")
    w("plain_big.pgm", b"P2\n2 2\n255\n0 300 3 4\n")
    ymap("plainbig.yaml", base, "plain_big.pgm", "plain_big.pgm")
    w("empty.pgm", b"")
    ymap("emptyimg.yaml", base, "empty.pgm", "empty.pgm")
    w("garbage.png", b"\x89PNG\r\n\x1a\n" + os.urandom(64))
    ymap("garbagepng.yaml", base, "garbage.png", "garbage.png")
    write_png(os.path.join(d, "ok.png"), 4, 3, 8, 0, [[(0,), (254,), (254,), (0,)]] * 3)
    data = open(os.path.join(d, "ok.png"), "rb").read()
    w("trunc.png", data[: len(data) - 20])
    ymap("truncpng.yaml", base, "trunc.png", "trunc.png")
    bad = bytearray(data)
    bad[30] ^= 0xFF
    w("crc.png", bytes(bad))
    ymap("crcpng.yaml", base, "crc.png", "crc.png")
    w("hugepng.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)))
    ymap("hugepng.yaml", base, "hugepng.png", "hugepng.png")
    w("hugepng2.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)) +
      png_chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + png_chunk(b"IEND", b""))
    ymap("hugepng2.yaml", base, "hugepng2.png", "hugepng2.png")
    w("widepng.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 0x7fffffff, 1, 16, 6, 0, 0, 0)) +
      png_chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + png_chunk(b"IEND", b""))
    ymap("widepng.yaml", base, "widepng.png", "widepng.png")
    if not os.path.lexists(os.path.join(d, "loop.pgm")):
        os.symlink("loop.pgm", os.path.join(d, "loop.pgm"))
    ymap("loop.yaml", base, "loop.pgm", "loop.pgm")
    laughs = "".join("l%d: &l%d [%s]\n" % (k, k, ", ".join(["*l%d" % (k - 1)] * 9) if k else '"x"') for k in range(12))
    ymap("laughs.yaml", laughs + base, ok=True)
    ymap("bigyaw.yaml", base.replace("[0, 0, 0]", "[0, 0, 1e10]"), must="bigyaw.yaml:")
    ymap("negres.yaml", base.replace("0.1", "-0.1"), must="negres.yaml:")
    ymap("zerores.yaml", base.replace("0.1", "0"), must="zerores.yaml:")
    ymap("nanres.yaml", base.replace("0.1", ".nan"), must="nanres.yaml:")
    ymap("nanres2.yaml", base.replace("0.1", "NaN"), must="nanres2.yaml:")
    ymap("infres.yaml", base.replace("0.1", ".inf"), must="infres.yaml:")
    ymap("hugeres.yaml", base.replace("0.1", "1e300"), must="hugeres.yaml:")
    ymap("nanorigin.yaml", base.replace("[0, 0, 0]", "[.nan, 0, 0]"), must="nanorigin.yaml:")
    ymap("nanyaw.yaml", base.replace("[0, 0, 0]", "[0, 0, .nan]"), must="nanyaw.yaml:")
    ymap("origin2.yaml", base.replace("[0, 0, 0]", "[0, 0]"), must="origin2.yaml:")
    ymap("originstr.yaml", base.replace("[0, 0, 0]", "zero"), must="originstr.yaml:")
    ymap("farorigin.yaml", base.replace("[0, 0, 0]", "[999999.9, 0, 0]"), must="farorigin.yaml")
    ymap("nanthresh.yaml", base.replace("0.65", ".nan"), must="nanthresh.yaml:")
    ymap("threshorder.yaml", base.replace("0.65", "0.1"), must="threshorder.yaml:")
    ymap("thresh2.yaml", base.replace("0.65", "2"), must="thresh2.yaml:")
    ymap("mode.yaml", base + "mode: fancy\n", must="mode.yaml:")
    ymap("negate.yaml", base + "negate: maybe\n", must="negate.yaml:")
    ymap("dupkey.yaml", base + "resolution: 0.2\n", must="dupkey.yaml:")
    ymap("nokey.yaml", base.replace("free_thresh: 0.196\n", ""), must="nokey.yaml")
    ymap("noimage.yaml", base, None, must="noimage.yaml")
    ymap("emptyimage.yaml", base, "''", must="emptyimage.yaml")
    ymap("missing.yaml", base, "missing.pgm", "missing.pgm")
    ymap("escape.yaml", base, "../" * 30 + "etc/passwd", "passwd")
    ymap("dir.yaml", base, "/", must="dir.yaml")
    ymap("devzero.yaml", base, "/dev/zero", "/dev/zero")
    ymap("self.yaml", base, "self.yaml", "self.yaml")
    ymap("syntax.yaml", base + "origin: [0, 0\n", must="syntax.yaml:")
    ymap("list.yaml", "- 1\n- 2\n", None, must="list.yaml")
    ymap("deep.yaml", "a: " + "[" * 200 + "]" * 200 + "\n" + base, must="deep.yaml")
    ymap("binary.yaml", "\x00\x01\x02garbage\xff", None, must="binary.yaml")
    ymap("utf16.yaml", "\ufeffimage: good.pgm\n" + base, None, ok=True)
    if hasattr(os, "mkfifo"):
        fifo = os.path.join(d, "fifo.pgm")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        ymap("fifo.yaml", base, "fifo.pgm", "fifo.pgm")
    # 1x1 maps, all occupied, all unknown
    w("one_wall.pgm", b"P5\n1 1\n255\n\x00")
    ymap("onewall.yaml", base, "one_wall.pgm", ok=True)
    w("one_free.pgm", b"P5\n1 1\n255\n\xfe")
    ymap("onefree.yaml", base, "one_free.pgm", "onefree.yaml")
    w("all_wall.pgm", b"P5\n5 4\n255\n" + bytes(20))
    ymap("allwall.yaml", base, "all_wall.pgm", ok=True)
    w("all_unknown.pgm", b"P5\n5 4\n255\n" + bytes([205] * 20))
    ymap("allunknown.yaml", base, "all_unknown.pgm", "allunknown.yaml")
    p = w("allunknown_occ.json", json.dumps({"map": "allunknown.yaml", "unknown": "occupied"}))
    cases.append(("allunknown_occ.json", [chk.lidarsim, "scan", p, "--beams", "8"], True, ""))
    # Worlds
    def world(name, text, must=None, ok=False):
        p = w(name, text)
        cases.append((name, [chk.lidarsim, "scan", p, "--beams", "8"], ok, must or name + ":"))

    world("trunc.json", '{"walls": [{"from": [0, 0], "to": [1')
    world("nan.json", '{"walls": [{"from": [0, NaN], "to": [1, 1]}]}')
    world("big.json", '{"walls": [{"from": [0, 1e999], "to": [1, 1]}]}')
    world("far.json", '{"walls": [{"from": [0, 1e7], "to": [1, 1]}]}')
    world("zerolen.json", '{"walls": [{"from": [1, 1], "to": [1, 1]}]}')
    world("closed2.json", '{"walls": [{"points": [[0, 0], [1, 1]], "closed": true}]}')
    world("repeat.json", '{"walls": [{"points": [[0, 0], [1, 1], [0, 0]], "closed": true}]}')
    world("concave.json", '{"walls": [], "polygons": [{"points": [[0,0],[2,0],[1,0.2],[1,2]]}]}')
    world("beams0.json", '{"walls": [], "robot": {"lidar": {"beams": 0}}}')
    world("fov0.json", '{"walls": [], "robot": {"lidar": {"fov": 0}}}')
    world("rmin.json", '{"walls": [], "robot": {"lidar": {"range": 1, "range_min": 1}}}')
    world("deep.json", "[" * 100000 + "]" * 100000)
    world("nomap.json", '{"map": "nothere.yaml"}', "nothere.yaml")
    world("mapjson.json", '{"map": "mapjson.json"}', "mapjson.json")
    world("mapdir.json", '{"map": "/"}', "mapdir.json")
    world("bom.json", '\ufeff{"walls": [{"from": [0, 0], "to": [1, 1]}]}', ok=True)
    world("nul.json", '{"walls": []}\x00')
    world("empty.json", "")
    # Arguments
    okw = w("okw.json", '{"walls": [{"from": [0, 1], "to": [1, 1]}]}')
    for extra in (["--pose=nan,0,0"], ["--pose=1e7,0,0"], ["--pose=0,0,1e300"], ["--pose=0,0"], ["--beams", "0"],
                  ["--beams", "100001"], ["--beams", "1e3"], ["--fov", "0"], ["--fov", "361"], ["--fov", "nan"],
                  ["--range", "-1"], ["--range", "0"], ["--range", "nan"], ["--range", "1e7"],
                  ["--poses", os.path.join(d, "nothere.txt")], ["--poses", w("bad_poses.txt", "1 2 x\n")],
                  ["--poses", w("nan_poses.txt", "1 2 nan\n")], ["--threads", "-1"]):
        cases.append(("okw.json " + " ".join(extra), [chk.lidarsim, "scan", okw] + extra, False, ""))
    for name, argv, ok, must in cases:
        chk.stats["hostile"] += 1
        rc, out, err, secs = chk.run(argv, timeout=30)
        text = err.decode(errors="replace").strip()
        if rc is None:
            chk.problem("hang", "%s: no answer in 30 s" % name)
            continue
        if rc < 0 or rc > 2 or "Sanitizer" in text or "runtime error:" in text:
            chk.problem("crash", "%s: exit %d: %s" % (name, rc, text[:300]))
            continue
        if secs > 10:
            chk.problem("slow", "%s: %.1f s" % (name, secs))
        if ok:
            if rc != 0:
                chk.problem("hostile", "%s: refused (%d): %s" % (name, rc, text[:300]))
            continue
        if rc == 0:
            chk.problem("hostile", "%s: accepted (exit 0): %s" % (name, out.decode(errors="replace")[:200]))
            continue
        if not text or "\n" in text and len(text.splitlines()) > 3:
            chk.problem("hostile", "%s: unclear message: %r" % (name, text[:300]))
        elif must and must not in text:
            chk.problem("hostile", "%s: message does not name %r: %s" % (name, must, text[:300]))
        if chk.args.verbose:
            print("hostile %-28s exit %d: %s" % (name, rc, text[:160]))


# ----------------------------------------------------------------------------------------------------------------------


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lidarsim", default=os.path.join(here, "..", "build", "lidarsim"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="index of the first world and map (to rerun one)")
    ap.add_argument("--count", type=int, default=20, help="random worlds")
    ap.add_argument("--maps", type=int, default=None, help="random maps (default: --count)")
    ap.add_argument("--hostile", action="store_true", help="also the hostile inputs")
    ap.add_argument("--keep", default=None, help="folder for the generated files (kept)")
    ap.add_argument("--doc-directions", action="store_true",
                    help="also compare each range with the beam along (cos, sin)(heading + angle) (counted, not failed)")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    if args.maps is None:
        args.maps = args.count
    chk = Checker(args)
    os.makedirs(chk.keep, exist_ok=True)
    t0 = time.time()
    for n in range(args.first, args.first + args.count):
        rng = random.Random("world-%d-%d" % (args.seed, n))
        label = "seed %d world %d" % (args.seed, n)
        (path, scene, poses, mount, beams, fov, beams_arg, fov_arg, L, range_arg, range_min,
         world_pose) = make_world(rng, chk.keep, n)
        before = len(chk.problems)
        scans = chk.scan(path, poses, beams_arg, fov_arg, range_arg, rng.choice([1, 2]), world_pose)
        chk.stats["worlds"] += 1
        if scans is not None:
            chk.compare("%s (%s)" % (label, path), scene, scans, poses, mount, beams, fov, L, range_min)
        if len(chk.problems) == before and not args.keep:
            os.remove(path)
    for n in range(args.first, args.first + args.maps):
        rng = random.Random("map-%d-%d" % (args.seed, n))
        ypath, wall, geo, unk, info = make_map(rng, chk.keep, n)
        label = "seed %d map %d %s" % (args.seed, n, info)
        ox, oy, res, yaw = geo
        H, W = len(wall), len(wall[0])
        scene, C = map_scene(wall, geo)
        path = ypath
        if unk or rng.random() < 0.2:
            path = os.path.join(chk.keep, "mapworld%d.json" % n)
            wd = {"map": os.path.basename(ypath)}
            if unk:
                wd["unknown"] = "occupied"
            with open(path, "w") as f:
                json.dump(wd, f)
        before = len(chk.problems)
        poses = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.3:
                p = C(rng.randint(0, W), rng.randint(0, H))
            elif r < 0.6:
                p = map_corner(ox, oy, res, yaw, rng.randint(0, W - 1) + 0.5, rng.randint(0, H - 1) + 0.5)
            else:
                p = map_corner(ox, oy, res, yaw, rng.uniform(-1, W + 1), rng.uniform(-1, H + 1))
            poses.append((p[0], p[1], rng.choice([0.0, 90.0, 180.0, -90.0, 45.0, rng.uniform(-360, 360)])))
        beams = rng.choice([1, 4, 8, 90, 360, 360, 1080])
        fov_deg = rng.choice([360.0, 360.0, 270.0, 180.0, rng.uniform(1, 359)])
        L = min(1e6, max(1e-4, res * max(W, H) * rng.choice([0.3, 1.0, 1.5, 3.0])))
        chk.stats["maps"] += 1
        if info["walls"] == 0:  # refused, as the docs say, naming the map
            rc, out, err, secs = chk.run([chk.lidarsim, "scan", path, "--beams", "4"])
            if rc != 1 or b"no wall cell" not in err or os.path.basename(path).encode() not in err:
                chk.problem("map", "%s: a map without wall cells: exit %s: %s" % (label, rc, err[:300]))
            continue
        scans = chk.scan(path, poses, beams, fov_deg, L, rng.choice([1, 2]))
        if scans is not None:
            chk.compare("%s (%s)" % (label, path), scene, scans, poses, (0.0, 0.0, 0.0), beams, deg2rad(fov_deg), L,
                        0.0, map_inside=map_inside_fn(wall, geo, C))
        if len(chk.problems) == before and not args.keep:
            os.remove(ypath)
            for e in ("pgm", "pbm", "ppm", "png"):
                p = os.path.join(chk.keep, "map%d.%s" % (n, e))
                if os.path.exists(p):
                    os.remove(p)
            if path != ypath:
                os.remove(path)
    if args.hostile:
        hd = os.path.join(chk.keep, "hostile")
        os.makedirs(hd, exist_ok=True)
        hostile(chk, hd)
    st = chk.stats
    print("exact_check: seed %d: %d worlds, %d maps, %d scans, %d beams (%d returns), max relative error %.3g, "
          "%d hostile inputs, %.1f s" % (args.seed, st["worlds"], st["maps"], st["scans"], st["beams"], st["hits"],
                                         st["max_rel"], st["hostile"], time.time() - t0))
    print("  %d beams from strictly inside a map wall cell (the range is the cell's far side)" % st["inside_wall_cell"])
    print("  %d beams' directions differ from (cos, sin)(heading + angle)%s" % (
        st["dir_differs"], "; along the latter, %d beams would have another range" % st["doc_direction"]
        if args.doc_directions else ""))
    if chk.problems:
        cats = {}
        for c, _ in chk.problems:
            cats[c] = cats.get(c, 0) + 1
        print("exact_check: %d problems %s; files in %s" % (len(chk.problems), cats, chk.keep))
        return 1
    if not args.keep:
        shutil.rmtree(chk.keep, ignore_errors=True)
    print("exact_check: no discrepancy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
