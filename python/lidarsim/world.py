"""Worlds, scans and batches of scans."""

from __future__ import annotations

import ctypes
import errno
import math
import os
import re
import threading
from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from . import _lib

PathLike = Union[str, "os.PathLike[str]"]

#: Names of the hit kinds of ``Scan.kinds`` (lsHitKind): ``HIT_KINDS[kinds[i]]``.
HIT_KINDS = ("none", "wall", "mover", "target", "box", "polygon", "vehicle", "robot")

#: Names of a robot's controller (lsController).
CONTROLLERS = ("manual", "autopilot", "external")

_PLACE = re.compile(r"^:(\d+):(\d+): (.*)$", re.S)
_JSON_PATH = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\.[A-Za-z_][A-Za-z0-9_]*)*): (.*)$", re.S)


class WorldError(ValueError):
    """A world file that cannot be loaded. ``str(error)`` is exactly what ``lidarsim check`` prints, e.g.
    ``worlds/bad.json:4:32: targets[0].kind: expected "food" or "poison"``.

    Attributes: ``file`` (the path as given), ``line`` and ``column`` (1-based, None when the place is unknown),
    ``json_path`` (``targets[0].kind``; None for syntax errors and whole-file problems) and ``reason`` (the message
    after the place).
    """

    def __init__(self, text: str, file: str):
        super().__init__(text)
        self.file = file
        self.line: Optional[int] = None
        self.column: Optional[int] = None
        self.json_path: Optional[str] = None
        rest = text[len(file) :] if text.startswith(file) else None
        if rest is None:
            self.reason = text
            return
        place = _PLACE.match(rest)
        if place:
            self.line, self.column = int(place.group(1)), int(place.group(2))
            rest = place.group(3)
        elif rest.startswith(": "):
            rest = rest[2:]
        path = _JSON_PATH.match(rest)
        if path:
            self.json_path, rest = path.group(1), path.group(2)
        self.reason = rest


class _Pool(_lib.OwnsHandle):
    """A C thread pool (lsPool). threads <= 0 or None: one per core."""

    _remake = "use lidarsim.world.pool(threads)"

    def __init__(self, threads: int):
        self.handle = _lib.core.lsCreatePool(threads)
        self.threads = _lib.core.lsPool_ThreadCount(self.handle)

    def __del__(self):
        if getattr(self, "handle", None):
            _lib.core.lsDestroyPool(self.handle)
            self.handle = None


_pools: dict = {}
_pools_lock = threading.Lock()


def _forget_pools_in_child() -> None:
    """After os.fork, in the child: drop the cached pools, so that the next scan_batch or VectorEnv makes a fresh
    pool with live threads (the child has only the thread that forked; the C core runs a forked copy's jobs inline on
    the caller and frees it without joining). An object made before the fork keeps the copy it holds, and runs on
    one thread. The lock is made anew: another thread of the parent may have held it when the process forked."""
    global _pools, _pools_lock
    _pools_lock = threading.Lock()
    _pools = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_in_child)


#: The most threads a pool takes: LS_POOL_MAX_THREADS of include/lidarsim/pool.h, past which the C pool clamps, and
#: the command line's --threads cap. 1024 was taken here, and gave 256.
_MAX_THREADS = 256


def _threads_arg(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads: expected an int or None, got {type(threads).__name__}")
    if threads < 0 or threads > _MAX_THREADS:
        raise ValueError(f"threads: expected 0 (all cores) to {_MAX_THREADS}, got {threads}")
    return int(threads)


#: How many pools the cache keeps (the most recently used thread counts).
_POOLS_KEPT = 4


def pool(threads: Optional[int]) -> _Pool:
    """The shared pool of that many threads (None or 0: one per core), made on first use. The pools of the last
    _POOLS_KEPT thread counts used are kept; an older one is freed once nothing holds it (a VectorEnv holds its own),
    so a sweep over thread counts does not leave every pool's threads behind (128 counts left 8 000 threads)."""
    key = _threads_arg(threads)
    with _pools_lock:
        found = _pools.pop(key, None)
        _pools[key] = found if found is not None else _Pool(key)  # last in the dict's order: the most recent
        while len(_pools) > _POOLS_KEPT:
            del _pools[next(iter(_pools))]
        return _pools[key]


def _finite(name: str, value, low: float = -math.inf, high: float = math.inf, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if value < low or value > high or (open_low and value == low):
        bounds = f"{'(' if open_low else '['}{low:g}, {high:g}]"
        raise ValueError(f"{name}: expected a number in {bounds}, got {value!r}")
    return value


def _integer(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if value < low or value > high:
        raise ValueError(f"{name}: expected an integer in [{low}, {high}], got {value}")
    return int(value)


def _numbers(name: str, value, what: str) -> np.ndarray:
    """value as a float64 array when it holds numbers (an integer or floating-point dtype), else TypeError: converting
    with dtype=np.float64 read '1' as 1.0 and True as 1.0, took an object array, and dropped a complex number's
    imaginary part with only a ComplexWarning."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as e:  # ragged nesting
        raise TypeError(f"{name}: expected {what}: {e}") from None
    if array.dtype.kind not in "iuf":
        why = " (a bool is not a number here)" if array.dtype.kind == "b" else ""
        raise TypeError(f"{name}: expected {what}, got an array of dtype {array.dtype}{why}")
    return array.astype(np.float64, copy=False)


def _flag(name: str, value) -> bool:
    """A bool (Python's or numpy's), else TypeError: any object is true or false, so "no" read as True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {value!r}")
    return bool(value)


def _seed(name: str, value) -> int:
    return _integer(name, value, 0, 2**64 - 1)


def _next_episode_seed(seed: int) -> int:
    """The seed of the episode after one of seed, for a reset without a seed: a step of SplitMix64 (Steele, Lea and
    Flood, 2014), a bijection of the 64-bit integers that scatters neighbours. With seed + 1 instead, the envs a
    vector seeds s + i (gymnasium's SyncVectorEnv) replayed each other's episodes: env 0's second was env 1's first."""
    mask = 2**64 - 1
    z = (seed + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _next_episode_seeds(seeds: np.ndarray) -> np.ndarray:
    """_next_episode_seed of every element of a uint64 array (numpy's uint64 arithmetic wraps as the mask does)."""
    z = seeds + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


#: Mixed into a VectorEnv's seed before its robots' seeds are drawn from it ("lidarvec" in ASCII), so that they are
#: not the seeds an Env started from the same seed gives its later episodes.
_VECTOR_TAG = 0x6C69646172766563


def _first_episode_seeds(seed: int, count: int) -> np.ndarray:
    """The seeds of the first episodes of count robots of a VectorEnv reset with seed: robot i's is
    splitmix(splitmix(seed ^ _VECTOR_TAG) + i), uint64. With seed + i (gymnasium's SyncVectorEnv's rule, and this
    package's before), robot i + 1 of a vector seeded 0 replayed robot i of one seeded 1, episode after episode; here
    two vectors share a seed only by a 64-bit coincidence."""
    base = np.array([_next_episode_seed(seed ^ _VECTOR_TAG)], np.uint64)
    return _next_episode_seeds(base + np.arange(count, dtype=np.uint64))


def _available_memory() -> Optional[int]:
    """Bytes this process may still allocate: the system's available memory, less under an address-space limit
    (``ulimit -v``); None when neither can be read."""
    limits = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            with open("/proc/self/statm", encoding="ascii") as f:
                used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            limits.append(max(soft - used, 0))
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return min(limits) if limits else None


@dataclass(repr=False)
class Scan:
    """One scan, with the fields of a ROS ``sensor_msgs/LaserScan`` (REP 117: ``inf`` for no return).

    ``ranges`` (metres, float64), ``intensities`` (reflectance times |cos incidence|, 0 for no return), ``kinds``
    (int8 codes, names in ``HIT_KINDS``), ``indices`` (int32, the object hit in its array of the world, -1 for no
    return); angles in radians in the sensor frame, counter-clockwise, beam i at ``angle_min + i * angle_increment``.
    """

    ranges: np.ndarray
    intensities: np.ndarray
    kinds: np.ndarray
    indices: np.ndarray
    angle_min: float
    angle_max: float
    angle_increment: float
    range_min: float
    range_max: float
    scan_time: float = 0.0
    time_increment: float = 0.0

    def __repr__(self) -> str:
        # A summary: the dataclass's own repr printed every array in full (hundreds of lines for one scan).
        return f"<lidarsim.Scan {_scan_summary(self.ranges, self.angle_min, self.angle_max, self.range_max)}>"

    @property
    def angles(self) -> np.ndarray:
        """Each beam's angle, radians, sensor frame."""
        return self.angle_min + np.arange(len(self.ranges)) * self.angle_increment

    def points(self, pose: Sequence[float]) -> np.ndarray:
        """The hit points in the world frame for a sensor at pose (x, y, theta degrees); rows of no return are NaN."""
        x, y, theta = pose
        a = math.radians(theta) + self.angles
        with np.errstate(invalid="ignore"):
            pts = np.stack([x + self.ranges * np.cos(a), y + self.ranges * np.sin(a)], axis=1)
        pts[~np.isfinite(self.ranges)] = np.nan
        return pts


@dataclass(repr=False)
class ScanBatch:
    """Scans from K poses: (K, beams) arrays (``intensities``, ``kinds``, ``indices`` are None unless asked for)."""

    ranges: np.ndarray
    intensities: Optional[np.ndarray]
    kinds: Optional[np.ndarray]
    indices: Optional[np.ndarray]
    angle_min: float
    angle_max: float
    angle_increment: float
    range_min: float
    range_max: float

    def __repr__(self) -> str:
        return f"<lidarsim.ScanBatch {len(self.ranges)} scans: " + (
            f"{_scan_summary(self.ranges, self.angle_min, self.angle_max, self.range_max)}>"
        )


def _scan_summary(ranges: np.ndarray, angle_min: float, angle_max: float, range_max: float) -> str:
    """'360 beams, 331 returns (0.42 .. 11.8 m), -180.0 .. 179.0 deg, range_max 12 m' for a Scan's or a batch's repr."""
    beams = ranges.shape[-1] if ranges.ndim > 0 else 0
    hit = np.isfinite(ranges)
    returns = int(hit.sum())
    span = f" ({ranges[hit].min():.3g} .. {ranges[hit].max():.3g} m)" if returns else ""
    return (
        f"{beams} beams, {returns} returns{span}, {math.degrees(angle_min):.1f} .. {math.degrees(angle_max):.1f} deg, "
        f"range_max {range_max:g} m"
    )


class World(_lib.OwnsHandle):
    """A loaded world (``lidarsim.load``). Read-only from Python; the same file gives the same world.

    ``copy.copy`` and ``copy.deepcopy`` return the world itself (as they do for a tuple: nothing can change it, and any
    number of sims, environments and threads may share it). It cannot be pickled: load the file again in the other
    process.
    """

    _remake = "load the world file again in the other process (lidarsim.load(path))"

    def __init__(self, handle: int, path: str, warnings: list):
        self._handle = handle
        self.path = path
        # The file as loaded, absolute, so a later chdir does not hide it from Sim.record's check.
        self._source = os.path.abspath(path)
        #: Warnings of the load (unknown keys with a suggestion), as ``lidarsim check`` prints them.
        self.warnings = warnings
        info = _lib.WorldInfo()
        _lib.core.lsWorld_GetInfo(handle, ctypes.byref(info))
        self._info = info
        self._scanner = None
        self._scanner_lock = threading.Lock()

    def __del__(self):
        if getattr(self, "_scanner", None):
            _lib.core.lsDestroyWorldScanner(self._scanner)
            self._scanner = None
        if getattr(self, "_handle", None):
            _lib.core.lsDestroyWorld(self._handle)
            self._handle = None

    def __copy__(self) -> "World":
        return self

    def __deepcopy__(self, memo) -> "World":
        return self

    def __repr__(self) -> str:
        i = self._info
        return (
            f"<lidarsim.World {self.name!r}: {i.segments} walls, {i.targets} targets, {i.boxes} boxes, "
            f"{i.polygons} polygons, {i.vehicles} vehicles, {i.movers} movers>"
        )

    @property
    def name(self) -> str:
        return self._info.name.decode("utf-8", "replace")

    @property
    def bounds(self) -> tuple:
        """(min x, min y, max x, max y) of all geometry, metres."""
        return tuple(self._info.bounds)

    @property
    def robot_pose(self) -> tuple:
        """The robot's start (x, y, theta degrees)."""
        p = self._info.pose
        return (p[0], p[1], math.degrees(p[2]))

    @property
    def counts(self) -> dict:
        """Numbers of things: walls (segments), targets, food, poison, boxes, polygons, paths, vehicles, movers."""
        i = self._info
        keys = ("segments", "targets", "food", "poison", "boxes", "polygons", "paths", "vehicles", "movers")
        return {k: getattr(i, k) for k in keys}

    @property
    def lidar(self) -> dict:
        """The robot's lidar: beams, fov (degrees), range, range_min (metres), rate (Hz), noise (m), seed."""
        i = self._info
        return {
            "beams": i.beams,
            "fov": math.degrees(i.fov),
            "range": i.range,
            "range_min": i.rangeMin,
            "rate": i.rate,
            "noise": i.noise,
            "seed": i.lidarSeed,
        }

    @property
    def robot(self) -> dict:
        """The robot: radius (m), max_speed (m/s), max_turn_rate (rad/s)."""
        i = self._info
        return {"radius": i.robotRadius, "max_speed": i.maxSpeed, "max_turn_rate": i.maxTurnRate}

    def _robot_infos(self) -> list:
        """Every robot's lsRobotInfo, in file order."""
        infos: list = []
        while True:
            info = _lib.RobotInfo()
            if not _lib.core.lsWorld_GetRobotInfo(self._handle, len(infos), ctypes.byref(info)):
                return infos
            infos.append(info)

    @property
    def robots(self) -> list:
        """Every robot in file order (the first is the one ``robot`` describes): dicts of id, controller ("manual",
        "autopilot" or "external"), pose (x, y, theta degrees), reach (m, the footprint's bounding radius), max_speed
        (m/s), max_turn_rate (rad/s), beams."""
        return [
            {
                "id": i.id.decode("utf-8"),
                "controller": CONTROLLERS[i.controller],
                "pose": (i.pose[0], i.pose[1], math.degrees(i.pose[2])),
                "reach": i.reach,
                "max_speed": i.maxSpeed,
                "max_turn_rate": i.maxTurnRate,
                "beams": i.beams,
            }
            for i in self._robot_infos()
        ]

    @property
    def dt(self) -> float:
        """The simulation's fixed step, seconds."""
        return self._info.dt

    @property
    def seed(self) -> int:
        """The simulation's seed from the file."""
        return self._info.simSeed

    def _ensure_scanner(self):
        with self._scanner_lock:
            if self._scanner is None:
                self._scanner = _lib.core.lsCreateWorldScanner(self._handle)
            return self._scanner

    def _overrides(self, beams, fov, range, noise, seed) -> _lib.ScanOverrides:
        o = _lib.ScanOverrides(beams=0, fov=0.0, range=0.0, noise=-1.0, haveSeed=0, seed=0)
        if beams is not None:
            o.beams = _integer("beams", beams, 1, 100000)
        if fov is not None:
            o.fov = math.radians(_finite("fov", fov, 1e-6, 360.0))  # a smaller one's radians may round to 0
        if range is not None:
            o.range = _finite("range", range, 0.0, math.inf, open_low=True)
        if noise is not None:
            o.noise = _finite("noise", noise, 0.0)
        if seed is not None:
            o.haveSeed, o.seed = 1, _seed("seed", seed)
        return o

    def _scan(self, poses: np.ndarray, overrides, threads, ranges_only: bool, dtype, name: str = "poses"):
        count = poses.shape[0]
        layout = _lib.ScanLayout()
        # The beam count decides the arrays' width: find it first (no poses cast).
        err = _lib.error_buffer()
        out = _lib.ScanOutput()
        scanner = self._ensure_scanner()
        if not _lib.core.lsWorldScanner_Scan(
            scanner, self._handle, ctypes.byref(overrides), None, 0, None, ctypes.byref(out), ctypes.byref(layout), err
        ):
            raise ValueError(_lib.message(err))
        beams = layout.beams
        if count * beams > 2**31 - 1:
            raise ValueError(f"poses: {count} scans of {beams} beams is more than 2^31 values; split the batch")
        _check_batch_memory(count, beams, ranges_only, dtype)
        ranges = np.empty((count, beams), np.float64)
        intensities = kinds = indices = None
        if not ranges_only:
            intensities = np.empty((count, beams), np.float64)
            kinds = np.empty((count, beams), np.int8)
            indices = np.empty((count, beams), np.int32)
        out = _lib.ScanOutput(
            _lib.ptr(ranges, ctypes.c_double),
            _lib.ptr(intensities, ctypes.c_double),
            _lib.ptr(kinds, ctypes.c_int8),
            _lib.ptr(indices, ctypes.c_int32),
        )
        p = pool(threads) if count > 1 else None
        ok = _lib.core.lsWorldScanner_Scan(
            scanner,
            self._handle,
            ctypes.byref(overrides),
            _lib.ptr(poses, ctypes.c_double),
            count,
            p.handle if p is not None else None,
            ctypes.byref(out),
            None,
            err,
        )
        if not ok:
            message = _lib.message(err)
            # C numbers the rows of a batch; scan's one pose is called what its caller called it.
            if name == "pose" and message.startswith("poses[0]: "):
                message = "pose: " + message[len("poses[0]: ") :]
            raise ValueError(message)
        if dtype is not None and np.dtype(dtype) != ranges.dtype:
            ranges = ranges.astype(dtype)
        info = self._info
        range_max = overrides.range if overrides.range != 0.0 else info.range
        extra = dict(
            angle_min=layout.angleMin,
            angle_max=layout.angleMax,
            angle_increment=layout.angleIncrement,
            range_min=info.rangeMin,
            range_max=range_max,
        )
        return ranges, intensities, kinds, indices, extra

    def scan(
        self,
        pose: Optional[Sequence[float]] = None,
        beams: Optional[int] = None,
        fov: Optional[float] = None,
        range: Optional[float] = None,
        noise: Optional[float] = None,
        seed: Optional[int] = None,
    ) -> Scan:
        """One scan from ``pose`` = (x metres, y metres, theta degrees) (default: the robot's start pose), with the
        world's lidar and any of ``beams``, ``fov`` (degrees), ``range`` (metres), ``noise`` (Gaussian range noise,
        metres) and ``seed`` (of the noise) overridden. Vehicles and moving walls stand at their places in the file.
        Gives the same numbers as ``lidarsim scan WORLD --pose X,Y,DEG`` with the same options.
        """
        poses = _poses(self.robot_pose if pose is None else pose, "pose")
        ranges, intensities, kinds, indices, extra = self._scan(
            poses, self._overrides(beams, fov, range, noise, seed), 1, False, None, "pose"
        )
        return Scan(ranges[0], intensities[0], kinds[0], indices[0], scan_time=1.0 / self._info.rate, **extra)

    def scan_batch(
        self,
        poses,
        beams: Optional[int] = None,
        fov: Optional[float] = None,
        range: Optional[float] = None,
        noise: Optional[float] = None,
        seed: Optional[int] = None,
        threads: Optional[int] = None,
        ranges_only: bool = False,
        dtype=None,
    ) -> ScanBatch:
        """Scans from every row of ``poses``, a (K, 3) array of (x, y, theta degrees), cast in C on ``threads``
        threads (None: every core) with the GIL released. Returns (K, beams) arrays; the results are identical for
        any thread count and equal ``lidarsim scan --poses FILE`` with the same options: with noise, one stream
        seeded with ``seed`` runs from pose to pose as if the scans were cast one after the other (so row k equals
        ``scan(poses[k])`` without noise, and row 0 with it). ``ranges_only`` skips intensities, kinds and indices
        (a quarter of the memory); ``dtype`` converts the ranges to a floating-point type (e.g. ``np.float32``: a
        beam without a return stays ``inf``, which no integer type holds).
        """
        if dtype is not None and np.dtype(dtype).kind != "f":
            raise ValueError(f"dtype: expected a floating-point type (np.float32, np.float64), got {np.dtype(dtype)}")
        array = _poses(poses, "poses")
        ranges, intensities, kinds, indices, extra = self._scan(
            array, self._overrides(beams, fov, range, noise, seed), threads, _flag("ranges_only", ranges_only), dtype
        )
        _threads_arg(threads)
        return ScanBatch(ranges, intensities, kinds, indices, **extra)


def _check_batch_memory(count: int, beams: int, ranges_only: bool, dtype) -> None:
    """MemoryError, before the arrays are made, when a batch's arrays would not fit: numpy's empty arrays take no
    memory until written, so the casts in C would fill them until the kernel kills the process."""
    available = _available_memory()
    if available is None:
        return
    each = 8 if ranges_only else 8 + 8 + 1 + 4  # ranges; intensities, kinds, indices
    if dtype is not None and np.dtype(dtype) != np.float64:
        each += np.dtype(dtype).itemsize  # the converted ranges, while the float64 ones still exist
    need = count * beams * each
    if need > available:
        what = "ranges" if ranges_only else "ranges, intensities, kinds and indices"
        raise MemoryError(
            f"poses: {count} scans of {beams} beams need about {need / 2**30:.1f} GiB ({what}), more than the "
            f"{available / 2**30:.1f} GiB this process can still allocate; split the batch"
            + ("" if ranges_only else " or pass ranges_only=True")
        )


def _poses(poses, name: str) -> np.ndarray:
    array = _numbers(name, poses, "numbers (x, y, theta degrees)")
    if name == "pose":
        if array.shape != (3,):
            raise ValueError(f"pose: expected (x, y, theta degrees), got shape {array.shape}")
        array = array[np.newaxis]
    if array.ndim != 2 or array.shape[1] != 3:
        want = "(x, y, theta degrees)" if name == "pose" else "a (K, 3) array of (x, y, theta degrees)"
        raise ValueError(f"{name}: expected {want}, got shape {np.shape(poses)}")
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{name}: {'' if name == 'pose' else f'row {k} is '}not finite: {array[k].tolist()}")
    return np.ascontiguousarray(array)


def load(path: PathLike) -> World:
    """Loads a world file (JSON, as ``lidarsim check`` reads it). Raises ``FileNotFoundError`` when there is no
    such file and ``WorldError`` (file, line, column, JSON path) when it is not a valid world."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
    text = os.fspath(path)
    if "\0" in text:
        raise ValueError("path: contains a NUL character")
    if not os.path.exists(text):
        raise FileNotFoundError(errno.ENOENT, f"{text}: no such file", text)
    err = _lib.error_buffer()
    warnings = _lib.Warnings()
    handle = _lib.core.lsLoadWorld(os.fsencode(text), err, ctypes.byref(warnings))
    if not handle:
        raise WorldError(_lib.message(err), text)
    messages = [warnings.messages[i].value.decode("utf-8", "replace") for i in range(min(warnings.count, 16))]
    return World(handle, text, messages)
