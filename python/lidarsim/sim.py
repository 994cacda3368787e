"""The simulation, stepped from Python."""

from __future__ import annotations

import ctypes
import json
import math
import os
import secrets
import stat
import threading
from typing import Optional, Tuple

import numpy as np

from . import _lib
from .world import HIT_KINDS, PathLike, Scan, World, _finite, _flag, _integer, _seed

#: The discrete actions (lsAction): index -> name. Commanded (v, w) as fractions of max speed and turn rate:
#: forward (1, 0), left (0, 1), right (0, -1), forward_left (1/2, 1/2), forward_right (1/2, -1/2), stop (0, 0).
ACTIONS = ("forward", "left", "right", "forward_left", "forward_right", "stop")


def _check_world(world) -> World:
    if not isinstance(world, World):
        raise TypeError(f"world: expected a lidarsim.World (from lidarsim.load), got {type(world).__name__}")
    return world


def read_scan(sim_handle: int, info: _lib.SimInfo, robot: int = 0) -> Scan:
    """A copy of a C sim's latest scan of robot `robot` (info: that robot's lsSimInfo)."""
    beams = info.beams
    ranges = np.empty(beams, np.float64)
    intensities = np.empty(beams, np.float64)
    kinds = np.empty(beams, np.int8)
    indices = np.empty(beams, np.int32)
    out = _lib.ScanOutput(
        _lib.ptr(ranges, ctypes.c_double),
        _lib.ptr(intensities, ctypes.c_double),
        _lib.ptr(kinds, ctypes.c_int8),
        _lib.ptr(indices, ctypes.c_int32),
    )
    _lib.core.lsSim_CopyRobotScan(sim_handle, robot, ctypes.byref(out), beams)
    return Scan(
        ranges,
        intensities,
        kinds,
        indices,
        angle_min=info.angleMin,
        angle_max=info.angleMax,
        angle_increment=info.angleIncrement,
        range_min=info.rangeMin,
        range_max=info.rangeMax,
        scan_time=info.scanTime,
    )


class Sim(_lib.OwnsHandle):
    """A simulation of a world: the robot (driven by (v, w), a discrete action or the autopilot), targets, vehicles,
    moving walls and the lidar, stepped by the world's fixed dt. Deterministic: the same world, seed and controls
    give the same states, bit for bit, as the C core and ``lidarsim run``. Cannot be copied or pickled (TypeError).
    """

    _remake = (
        "make another from the same world, lidarsim.Sim(sim.world, seed), and step it the same way (the same seed and "
        "controls give the same state)"
    )

    def __init__(self, world: World, seed: Optional[int] = None):
        self._lock = threading.RLock()  # see _lib.serialized
        self.world = _check_world(world)
        self._record: Optional[_Recording] = None
        self._last_scan_step = -1
        self._autopilot = False  # whether the last step let the autopilot drive (the HUD of render says so)
        self._robot_count = len(world._robot_infos())
        self._handle = _lib.core.lsCreateSim(world._handle)
        if not self._handle:
            # The core refuses, rather than asserts on, a world it cannot simulate (docs/library.md).
            raise ValueError("lidarsim: the world cannot be simulated (a dt, lidar rate or beam count out of range, "
                             "or geometry that is not finite)")
        if seed is not None:
            self.reset(seed)

    def __del__(self):
        self.close()

    @_lib.serialized
    def close(self) -> None:
        """Frees the simulation (and stops recording: OSError if the recording could not be written, the sim freed
        all the same). Further calls raise RuntimeError."""
        try:
            self.stop_recording()
        finally:
            if getattr(self, "_handle", None):
                _lib.core.lsDestroySim(self._handle)
                self._handle = None

    def _live(self) -> int:
        if not getattr(self, "_handle", None):
            raise RuntimeError("lidarsim.Sim: the simulation is closed")
        return self._handle

    def _info(self) -> _lib.SimInfo:
        info = _lib.SimInfo()
        _lib.core.lsSim_GetInfo(self._live(), ctypes.byref(info))
        return info

    @_lib.serialized
    def reset(self, seed: Optional[int] = None) -> None:
        """Back to time 0; seed (default: the world's sim.seed) drives respawn places and lidar noise."""
        _lib.core.lsSim_Reset(self._live(), self.world.seed if seed is None else _seed("seed", seed))
        self._last_scan_step = -1
        self._write_record()

    def step(self, v_or_action=None, w: Optional[float] = None, *, autopilot: bool = False, steps: int = 1) -> None:
        """Advances ``steps`` fixed steps. ``step(v, w)`` drives at v m/s and w rad/s (clamped to the robot's
        limits), ``step(action)`` takes a discrete action (an int index of ``ACTIONS`` or its name),
        ``step(autopilot=True)`` lets the built-in autopilot drive, ``step()`` brakes to a stop.
        """
        self._live()
        steps = _integer("steps", steps, 0, 2**31 - 1)
        step = _lib.core.lsSim_Step
        if autopilot:
            if v_or_action is not None or w is not None:
                raise ValueError("step: give either autopilot=True or a control, not both")
            # Every robot of a fleet drives itself, as with ``lidarsim run --autopilot``.
            control = (_lib.Control * self._robot_count)(*([_lib.Control(1, 0.0, 0.0, 5)] * self._robot_count))
            step = _lib.core.lsSim_StepRobots
        elif w is not None:
            control = _lib.Control(0, _finite("v", v_or_action), _finite("w", w), 5)
        elif v_or_action is None:
            control = _lib.Control(0, 0.0, 0.0, 5)
        else:
            control = _lib.Control(2, 0.0, 0.0, action_index(v_or_action))
        self._autopilot = _flag("autopilot", autopilot)
        for _ in range(steps):
            # Locked a step at a time: a close() from another thread waits for one step, not for all of them (the
            # next step then raises RuntimeError).
            with self._lock:
                step(self._live(), control)
                if self._record is not None:
                    self._write_record()

    @property
    @_lib.serialized
    def time(self) -> float:
        """Simulated seconds since reset."""
        return self._info().time

    @property
    @_lib.serialized
    def step_count(self) -> int:
        """Steps since reset."""
        return self._info().step

    @property
    @_lib.serialized
    def pose(self) -> Tuple[float, float, float]:
        """The robot's (x metres, y metres, theta degrees)."""
        i = self._info()
        return (i.x, i.y, math.degrees(i.angle))

    @property
    @_lib.serialized
    def velocity(self) -> Tuple[float, float]:
        """The robot's (forward speed m/s, turn rate rad/s)."""
        i = self._info()
        return (i.v, i.w)

    @property
    @_lib.serialized
    def score(self) -> float:
        """Sum of the rewards of the targets collected since reset (food +1, poison -1 by default)."""
        return self._info().score

    @property
    @_lib.serialized
    def stats(self) -> dict:
        """Counters since reset: score, food, poison, collisions, crushes, distance (m), time (s), steps."""
        i = self._info()
        return dict(counters(i), time=i.time, steps=i.step)

    @property
    @_lib.serialized
    def scan(self) -> Scan:
        """The latest scan (the lidar scans at its own rate, not every step): a copy."""
        return read_scan(self._live(), self._info())

    @_lib.serialized
    def state_hash(self) -> int:
        """The 64-bit hash of the whole state (lsSim_Hash), for determinism checks."""
        return _lib.core.lsSim_Hash(self._live())

    @_lib.serialized
    def render(self, width: int = 640, height: int = 400, hud: bool = True) -> np.ndarray:
        """The frame ``lidarsim render`` draws of this state, as an (height, width, 3) uint8 array; after
        ``step(autopilot=True)`` the frame of ``lidarsim render --autopilot`` (its HUD says the autopilot drives)."""
        return render_rgb(self._live(), width, height, hud, self._autopilot)

    # Recording -------------------------------------------------------------------------------------------------------

    @_lib.serialized
    def record(self, path: PathLike) -> None:
        """Writes one JSON line now and after every step until ``stop_recording()`` or ``close()``: step, time,
        pose [x, y, degrees], velocity [v, w], scan (a LaserScan object when a new scan was taken since the previous
        line, else null; ranges use null for no return as ``lidarsim run --record`` writes them), score, food,
        poison, collisions, distance: the keys of ``lidarsim run --record``'s lines that the Python API reads.

        As ``lidarsim run --record``, the lines go to a temporary file beside path that is renamed over it when the
        recording stops, so path never holds a half-written recording and a file already there keeps its contents
        until then (and if writing fails: the OSError says so). A device or FIFO (``/dev/stdout``) is written
        directly. Raises ValueError, writing nothing, when path is the world file this sim's world was loaded from
        or the YAML or image of the map it stands on, however spelt.
        """
        self._live()
        self.stop_recording()
        self._record = _Recording(path, self.world)
        self._last_scan_step = -1
        self._write_record()

    @_lib.serialized
    def stop_recording(self) -> None:
        """Ends the recording, if any: its file is complete under its name when this returns (OSError if it could
        not be written; the old file, if any, is then untouched)."""
        record = getattr(self, "_record", None)
        if record is not None:
            self._record = None
            record.commit()

    def _write_record(self) -> None:
        if self._record is None:
            return
        info = self._info()
        scan = None
        if info.scanned or self._last_scan_step < 0:
            s = read_scan(self._handle, info)
            finite = np.isfinite(s.ranges)
            scan = {
                "angle_min": s.angle_min,
                "angle_max": s.angle_max,
                "angle_increment": s.angle_increment,
                "range_min": s.range_min,
                "range_max": s.range_max,
                "time_increment": 0.0,
                "scan_time": s.scan_time,
                "ranges": [float(r) if f else None for r, f in zip(s.ranges, finite)],
                "intensities": s.intensities.tolist(),
                "hits": [HIT_KINDS[k] if k else None for k in s.kinds.tolist()],
                "indices": s.indices.tolist(),
            }
            self._last_scan_step = info.step
        line = {
            "step": info.step,
            "time": info.time,
            "pose": [info.x, info.y, math.degrees(info.angle)],
            "velocity": [info.v, info.w],
            "scan": scan,
            "score": info.score,
            "food": info.food,
            "poison": info.poison,
            "collisions": info.collisions,
            "distance": info.distance,
        }
        try:
            self._record.write(json.dumps(line) + "\n")
        except OSError:
            self._record = None  # given up, its temporary file removed: the next steps run unrecorded
            raise


class _Recording:
    """A recording being written so that its name never shows a half-written file (the C core's lsAtomicFile, for a
    stream of lines): a temporary file ".lidarsim-XXXXXX" in the target's folder (a symlink's target), renamed over
    the target at commit, keeping an existing target's permissions; a new one gets 0666 less the umask. A device or
    FIFO is written directly. Any failure removes the temporary file and leaves the old one as it was."""

    def __init__(self, path: PathLike, world: World):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
        self.label = os.fsdecode(os.fspath(path))
        if "\0" in self.label:
            raise ValueError("path: contains a NUL character")
        err = _lib.error_buffer()
        if not _lib.core.lsWorld_CheckOutput(world._handle, os.fsencode(world._source), os.fsencode(self.label), err):
            raise ValueError(_lib.message(err))
        self.target = os.path.realpath(self.label)
        self.temp: Optional[str] = None
        self.mode: Optional[int] = None
        try:
            info = os.stat(self.target)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{self.label}: is a folder, not a file to record to")
        if info is not None and not stat.S_ISREG(info.st_mode):
            self.file = open(self.target, "w", encoding="utf-8")
            return
        if info is not None:
            self.mode = stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)
        folder = os.path.dirname(self.target)
        for _ in range(100):
            temp = os.path.join(folder, ".lidarsim-" + secrets.token_hex(3))
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
            except FileExistsError:
                continue
            except OSError as e:
                raise OSError(e.errno, f"{self.label}: cannot create a temporary file next to it: {e.strerror}") from e
            self.temp = temp
            self.file = open(fd, "w", encoding="utf-8")
            return
        raise FileExistsError(f"{self.label}: cannot create a temporary file next to it: 100 names taken")

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as e:
            raise self._failed(e) from e

    def commit(self) -> None:
        try:
            self.file.flush()
            if self.temp is not None:
                os.fsync(self.file.fileno())
            self.file.close()
            if self.temp is not None:
                if self.mode is not None:
                    os.chmod(self.temp, self.mode)
                os.replace(self.temp, self.target)
                self.temp = None
        except OSError as e:
            raise self._failed(e) from e

    def _failed(self, e: OSError) -> OSError:
        """Aborts the recording after e and returns the error to raise, naming the file."""
        self.abort()
        return OSError(e.errno, f"{self.label}: not written ({e.strerror}); the old file is untouched")

    def abort(self) -> None:
        try:
            self.file.close()
        except OSError:
            pass  # the write that failed is reported; the temporary file goes anyway
        if self.temp is not None:
            try:
                os.remove(self.temp)
            except OSError:
                pass
            self.temp = None


def counters(info: _lib.SimInfo) -> dict:
    """A robot's (or the fleet's) counters since reset: score, food, poison, collisions, crushes, distance (m)."""
    keys = ("score", "food", "poison", "collisions", "crushes", "distance")
    return {k: getattr(info, k) for k in keys}


def action_index(action) -> int:
    """A discrete action given as an int in [0, 6) or a name of ``ACTIONS``."""
    if isinstance(action, str):
        if action not in ACTIONS:
            raise ValueError(f"action: expected one of {', '.join(ACTIONS)}, got {action!r}")
        return ACTIONS.index(action)
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action: expected an int in [0, {len(ACTIONS)}) or an action name, got {action!r}")
    if not 0 <= action < len(ACTIONS):
        raise ValueError(f"action: expected an int in [0, {len(ACTIONS)}), got {action}")
    return int(action)


def render_rgb(sim_handle: int, width: int, height: int, hud: bool, autopilot: bool = False) -> np.ndarray:
    """Draws a C sim with the renderer library into a new (height, width, 3) uint8 array (the HUD says whether the
    autopilot drives as autopilot says)."""
    width = _integer("width", width, 16, 16384)
    height = _integer("height", height, 16, 16384)
    lib = _lib.render_library()
    rgb = np.empty((height, width, 3), np.uint8)
    err = _lib.error_buffer()
    hud = _flag("hud", hud)
    if not lib.lsRenderRgb(sim_handle, width, height, hud, bool(autopilot), _lib.ptr(rgb, ctypes.c_uint8), err):
        raise RuntimeError(f"lidarsim: cannot draw the frame: {_lib.message(err)}")
    return rgb
