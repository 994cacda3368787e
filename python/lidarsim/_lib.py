"""Finding and loading lidarsim's shared libraries, and the C signatures the package calls (ctypes).

The core is ``liblidarsim.so`` (no SDL); ``liblidarsim_render.so`` holds the window's renderer, loaded only when a
frame is drawn. They are looked for, in order:

1. ``$LIDARSIM_LIBRARY``: the path of ``liblidarsim.so`` (the renderer is looked for beside it);
2. ``lidarsim/_native/`` inside the installed package (``pip install ./python`` builds and copies them there);
3. ``build/`` of the source tree the package sits in (``python/lidarsim`` -> ``build/``), for running from a checkout.

ctypes releases the GIL for the whole of every foreign call, so other Python threads run while C works.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from ctypes import POINTER, c_char, c_char_p, c_double, c_int, c_int8, c_int32, c_longlong, c_uint8, c_uint64, c_void_p
from pathlib import Path

ERROR_CAPACITY = 4096  # larger than the C lsError, which the C side never overruns

_HERE = Path(__file__).resolve().parent


def _candidates(name: str) -> list[Path]:
    found = []
    env = os.environ.get("LIDARSIM_LIBRARY")
    if env:
        found.append(Path(env) if name == "liblidarsim.so" else Path(env).parent / name)
    found.append(_HERE / "_native" / name)
    found.append(_HERE.parent.parent / "build" / name)
    return found


def _find(name: str) -> Path:
    for path in _candidates(name):
        if path.is_file():
            return path
    tried = "\n  ".join(str(p) for p in _candidates(name))
    raise OSError(
        f"lidarsim: cannot find {name}; looked in\n  {tried}\n"
        "build it (cmake -S . -B build && cmake --build build), install the package (pip install ./python), "
        "or set LIDARSIM_LIBRARY to the path of liblidarsim.so"
    )


class WorldInfo(ctypes.Structure):
    """Mirror of lsWorldInfo (core/batch.h); its size is checked against the C side at load."""

    _fields_ = [
        ("name", c_char * 128),
        ("segments", c_int),
        ("targets", c_int),
        ("food", c_int),
        ("poison", c_int),
        ("boxes", c_int),
        ("polygons", c_int),
        ("paths", c_int),
        ("vehicles", c_int),
        ("movers", c_int),
        ("bounds", c_double * 4),
        ("pose", c_double * 3),
        ("robotRadius", c_double),
        ("maxSpeed", c_double),
        ("maxTurnRate", c_double),
        ("beams", c_int),
        ("fov", c_double),
        ("range", c_double),
        ("rangeMin", c_double),
        ("rate", c_double),
        ("noise", c_double),
        ("lidarSeed", c_uint64),
        ("dt", c_double),
        ("simSeed", c_uint64),
    ]


class SimInfo(ctypes.Structure):
    """Mirror of lsSimInfo (core/batch.h)."""

    _fields_ = [
        ("time", c_double),
        ("step", c_longlong),
        ("x", c_double),
        ("y", c_double),
        ("angle", c_double),
        ("v", c_double),
        ("w", c_double),
        ("score", c_double),
        ("food", c_int),
        ("poison", c_int),
        ("collisions", c_int),
        ("crushes", c_int),
        ("distance", c_double),
        ("scanned", c_int),
        ("beams", c_int),
        ("angleMin", c_double),
        ("angleMax", c_double),
        ("angleIncrement", c_double),
        ("rangeMin", c_double),
        ("rangeMax", c_double),
        ("scanTime", c_double),
    ]


class RobotInfo(ctypes.Structure):
    """Mirror of lsRobotInfo (core/batch.h): one robot of a world."""

    _fields_ = [
        ("id", c_char * 64),
        ("controller", c_int),
        ("pose", c_double * 3),
        ("reach", c_double),
        ("maxSpeed", c_double),
        ("maxTurnRate", c_double),
        ("beams", c_int),
        ("fov", c_double),
        ("range", c_double),
        ("rangeMin", c_double),
        ("rate", c_double),
        ("noise", c_double),
    ]


class AgentStep(ctypes.Structure):
    """Mirror of lsAgentStep (core/agent.h)."""

    _fields_ = [("reward", c_double), ("done", ctypes.c_bool)]


class ScanOutput(ctypes.Structure):
    """Mirror of lsScanOutput: row-major output arrays, any may be NULL."""

    _fields_ = [
        ("ranges", POINTER(c_double)),
        ("intensities", POINTER(c_double)),
        ("kinds", POINTER(c_int8)),
        ("indices", POINTER(c_int32)),
    ]


class ScanOverrides(ctypes.Structure):
    """Mirror of lsScanOverrides: zero / negative fields keep the world's lidar settings."""

    _fields_ = [
        ("beams", c_int),
        ("fov", c_double),
        ("range", c_double),
        ("noise", c_double),
        ("haveSeed", c_int),
        ("seed", c_uint64),
    ]


class ScanLayout(ctypes.Structure):
    """Mirror of lsScanLayout."""

    _fields_ = [("beams", c_int), ("angleMin", c_double), ("angleMax", c_double), ("angleIncrement", c_double)]


class AgentDef(ctypes.Structure):
    """Mirror of lsAgentDef (core/agent.h)."""

    _fields_ = [("maxSteps", c_int), ("simStepsPerAction", c_int), ("collisionPenalty", c_double)]


class VecEnvDef(ctypes.Structure):
    """Mirror of lsVecEnvDef (core/batch.h)."""

    _fields_ = [("count", c_int), ("agent", AgentDef), ("autoReset", ctypes.c_bool)]


class Control(ctypes.Structure):
    """Mirror of lsControl (core/sim.h): mode 0 manual (v, w), 1 autopilot, 2 a discrete action."""

    _fields_ = [("mode", c_int), ("v", c_double), ("w", c_double), ("action", c_int)]


class Warnings(ctypes.Structure):
    """Mirror of lsWarnings (core/world.h)."""

    _fields_ = [("messages", (c_char * 256) * 16), ("count", c_int), ("dropped", c_int)]


def _declare(lib: ctypes.CDLL, name: str, restype, *argtypes) -> None:
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


def _load_core() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(_find("liblidarsim.so")))
    p = c_void_p
    _declare(lib, "lsLoadWorld", p, c_char_p, c_char_p, POINTER(Warnings))
    _declare(lib, "lsDestroyWorld", None, p)
    _declare(lib, "lsWorld_GetInfo", None, p, POINTER(WorldInfo))
    _declare(lib, "lsWorldInfo_Size", c_int)
    _declare(lib, "lsWorld_CheckOutput", ctypes.c_bool, p, c_char_p, c_char_p, c_char_p)
    _declare(lib, "lsSimInfo_Size", c_int)
    _declare(lib, "lsCreateWorldScanner", p, p)
    _declare(lib, "lsDestroyWorldScanner", None, p)
    _declare(
        lib,
        "lsWorldScanner_Scan",
        ctypes.c_bool,
        p,
        p,
        POINTER(ScanOverrides),
        POINTER(c_double),
        c_int,
        p,
        POINTER(ScanOutput),
        POINTER(ScanLayout),
        c_char_p,
    )
    _declare(lib, "lsCreatePool", p, c_int)
    _declare(lib, "lsDestroyPool", None, p)
    _declare(lib, "lsPool_ThreadCount", c_int, p)
    _declare(lib, "lsCreateSim", p, p)
    _declare(lib, "lsDestroySim", None, p)
    _declare(lib, "lsSim_Reset", None, p, c_uint64)
    _declare(lib, "lsSim_Step", None, p, POINTER(Control))
    _declare(lib, "lsSim_StepRobots", None, p, POINTER(Control))
    _declare(lib, "lsSim_GetInfo", None, p, POINTER(SimInfo))
    _declare(lib, "lsSim_CopyScan", c_int, p, POINTER(ScanOutput), c_int)
    _declare(lib, "lsSim_Hash", c_uint64, p)
    _declare(lib, "lsCreateVecEnv", p, p, POINTER(VecEnvDef), p, c_char_p)
    _declare(lib, "lsDestroyVecEnv", None, p)
    _declare(lib, "lsVecEnv_Count", c_int, p)
    _declare(lib, "lsVecEnv_ObservationSize", c_int, p)
    _declare(lib, "lsVecEnv_Reset", None, p, c_uint64, POINTER(ctypes.c_float))
    _declare(lib, "lsVecEnv_ResetOne", None, p, c_int, c_uint64, POINTER(ctypes.c_float))
    _declare(lib, "lsVecEnv_ResetSeeded", None, p, POINTER(c_uint64), POINTER(c_uint8), POINTER(ctypes.c_float))
    _declare(
        lib,
        "lsVecEnv_Step",
        c_int,
        p,
        POINTER(c_int32),
        POINTER(c_double),
        POINTER(ctypes.c_float),
        POINTER(c_double),
        POINTER(c_uint8),
        POINTER(ctypes.c_float),
    )
    _declare(lib, "lsVecEnv_GetSim", p, p, c_int)
    _declare(lib, "lsVecEnv_EpisodeStep", c_int, p, c_int)
    _declare(lib, "lsSim_GetRobotInfo", ctypes.c_bool, p, c_int, POINTER(SimInfo))
    _declare(lib, "lsSim_CopyRobotScan", c_int, p, c_int, POINTER(ScanOutput), c_int)
    _declare(lib, "lsWorld_GetRobotInfo", ctypes.c_bool, p, c_int, POINTER(RobotInfo))
    _declare(lib, "lsRobotInfo_Size", c_int)
    _declare(lib, "lsCreateAgent", p, p, POINTER(AgentDef))
    _declare(lib, "lsDestroyAgent", None, p)
    _declare(lib, "lsAgent_Reset", None, p, c_uint64)
    _declare(lib, "lsAgent_AgentCount", c_int, p)
    _declare(lib, "lsAgent_AgentRobot", c_int, p, c_int)
    _declare(lib, "lsAgent_RobotObservationSize", c_int, p, c_int)
    _declare(lib, "lsAgent_ObserveRobot", c_int, p, c_int, POINTER(c_double), c_int)
    _declare(lib, "lsAgent_StepAgents", AgentStep, p, POINTER(c_int), POINTER(c_double))
    _declare(lib, "lsAgent_StepAgentsContinuous", AgentStep, p, POINTER(c_double), POINTER(c_double))
    _declare(lib, "lsAgent_StepCount", c_int, p)
    _declare(lib, "lsAgent_GetSim", p, p)
    _declare(lib, "lsAllocatedBytes", c_longlong)
    for name, struct in (
        ("lsWorldInfo_Size", WorldInfo),
        ("lsSimInfo_Size", SimInfo),
        ("lsRobotInfo_Size", RobotInfo),
    ):
        if getattr(lib, name)() != ctypes.sizeof(struct):
            raise OSError(f"lidarsim: {name} disagrees with the package ({lib._name} is from another version)")
    return lib


core = _load_core()
_render: ctypes.CDLL | None = None


def render_library() -> ctypes.CDLL:
    """The renderer (liblidarsim_render.so, SDL2), loaded on first use."""
    global _render
    if _render is None:
        lib = ctypes.CDLL(str(_find("liblidarsim_render.so")))
        _declare(lib, "lsRenderRgb", ctypes.c_bool, c_void_p, c_int, c_int, ctypes.c_bool, ctypes.c_bool,
                 POINTER(c_uint8), c_char_p)
        _render = lib
    return _render


def error_buffer() -> ctypes.Array:
    """A zeroed buffer for a C lsError."""
    return ctypes.create_string_buffer(ERROR_CAPACITY)


def message(buffer: ctypes.Array) -> str:
    """The text of a filled lsError."""
    return buffer.value.decode("utf-8", "replace")


def ptr(array, ctype):
    """A ctypes pointer to a numpy array's data (None for None), without a copy."""
    if array is None:
        return None
    return array.ctypes.data_as(POINTER(ctype))


def serialized(method):
    """Runs the method holding its object's lock (``self._lock``, an RLock). ctypes releases the GIL in every C call,
    so without it a ``close()`` in one thread would free the C object under another thread's call (a crash), and two
    threads stepping one simulation would interleave its steps (lost steps, no error)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        lock = getattr(self, "_lock", None)
        if lock is None:  # __del__ of an object whose __init__ never ran
            return method(self, *args, **kwargs)
        with lock:
            return method(self, *args, **kwargs)

    return locked


class OwnsHandle:
    """Base of the classes whose objects own a C object (a handle freed when the object is closed or collected):
    ``copy.copy``, ``copy.deepcopy`` and pickling raise TypeError. A copy would share the handle, so whichever copy
    went first would free the C object under the others (a crash, or a closed environment); a pickle cannot carry
    it to another process. ``_remake`` says how to make another instead."""

    _remake = ""

    def _refuse(self, what: str):
        why = "a copy would share" if what == "copied" else "a pickle cannot carry"
        name = type(self).__name__
        return TypeError(f"lidarsim.{name} cannot be {what}: it owns a C object that {why}; {self._remake}")

    def __copy__(self):
        raise self._refuse("copied")

    def __deepcopy__(self, memo):
        raise self._refuse("copied")

    def __reduce_ex__(self, protocol):
        raise self._refuse("pickled")


def user_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn`` that names the first caller outside this package (its methods call one
    another and go through ``serialized``, so a fixed level would name the package's own lines)."""
    level, frame = 1, sys._getframe(1)
    package = str(_HERE)
    while frame is not None and frame.f_code.co_filename.startswith(package):
        level, frame = level + 1, frame.f_back
    return level
