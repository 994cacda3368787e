"""Bad input from Python raises a clear exception and never crashes the interpreter: each case runs in its own
process (forked from the test, so it is quick; one case also in a fresh interpreter), which must exit normally
having caught the expected exception. A crash (an abort from a C assert, a segfault) shows as a signal."""

import os
import sys

import numpy as np
import pytest

import lidarsim
from conftest import run_python, world_path

SETUP = f"""
import numpy as np, lidarsim
world = lidarsim.load({world_path("rldemo")!r})
"""

CASES = {
    "missing file": ("FileNotFoundError", "lidarsim.load('/nonexistent/world.json')"),
    "folder as world": ("WorldError", "lidarsim.load('/')"),
    "world not a path": ("TypeError", "lidarsim.load(None)"),
    "NaN pose": ("ValueError", "world.scan((1.0, float('nan'), 0.0))"),
    "short pose": ("ValueError", "world.scan((1.0, 2.0))"),
    "wrong-shaped poses": ("ValueError", "world.scan_batch(np.zeros((5, 4)))"),
    "poses of strings": ("TypeError", "world.scan_batch([['a', 'b', 'c']])"),
    # Numbers only (an integer or floating-point dtype): these were converted to float64, a complex one with only a
    # ComplexWarning, '1' and True read as 1.0.
    "poses of number strings": ("TypeError", "world.scan_batch([['1', '2', '3']])"),
    "complex poses": ("TypeError", "world.scan_batch(np.zeros((2, 3), complex))"),
    "bool poses": ("TypeError", "world.scan_batch(np.zeros((2, 3), bool))"),
    "bool pose": ("TypeError", "world.scan((True, False, True))"),
    "ranges_only not a bool": ("TypeError", "world.scan_batch(np.zeros((2, 3)), ranges_only='yes')"),
    # Flags are True or False: bool() took "no" for True.
    "continuous not a bool": ("TypeError", "lidarsim.Env(world, continuous='no')"),
    "copy not a bool": ("TypeError", "lidarsim.VectorEnv(world, 2, copy='no')"),
    "autopilot not a bool": ("TypeError", "lidarsim.Sim(world).step(autopilot='no')"),
    "hud not a bool": ("TypeError", "lidarsim.Sim(world).render(hud=0)"),
    "continuous strings": (
        "TypeError",
        "e = lidarsim.Env(world, continuous=True); e.reset(); e.step(np.array(['1', '2']))",
    ),
    "continuous objects": (
        "TypeError",
        "e = lidarsim.Env(world, continuous=True); e.reset(); e.step(np.array([0.1, 0.2], dtype=object))",
    ),
    "continuous bools": ("TypeError", "e = lidarsim.Env(world, continuous=True); e.reset(); e.step([True, False])"),
    "vector continuous bools": (
        "TypeError",
        "v = lidarsim.VectorEnv(world, 2, threads=1, continuous=True); v.reset(); v.step(np.zeros((2, 2), bool))",
    ),
    "parallel continuous strings": (
        "TypeError",
        "p = lidarsim.ParallelEnv(world, continuous=True); p.reset(); p.step({a: ['0', '0'] for a in p.agents})",
    ),
    "huge beam count": ("ValueError", "world.scan((1, 1, 0), beams=10**9)"),
    "too many values": ("ValueError", "world.scan_batch(np.zeros((30000, 3)), beams=100000)"),
    "NaN range": ("ValueError", "world.scan((1, 1, 0), range=float('nan'))"),
    # The bounds `lidarsim scan` holds --pose, --range and --noise to (limits.h), not only finiteness.
    "pose off the world": ("ValueError", "world.scan((1e308, 0.0, 0.0))"),
    "huge heading": ("ValueError", "world.scan_batch([[1.0, 1.0, 0.0], [1.0, 1.0, 1e300]])"),
    "huge range": ("ValueError", "world.scan((1, 1, 0), range=1e308)"),
    "huge noise": ("ValueError", "world.scan((1, 1, 0), noise=1e308)"),
    "sim of no world": ("TypeError", "lidarsim.Sim('worlds/rldemo.json')"),
    "sim NaN control": ("ValueError", "lidarsim.Sim(world).step(float('nan'), 0.0)"),
    "sim bad action": ("ValueError", "lidarsim.Sim(world).step(6)"),
    "sim action name": ("ValueError", "lidarsim.Sim(world).step('jump')"),
    "closed sim": ("RuntimeError", "s = lidarsim.Sim(world); s.close(); s.pose"),
    "step before reset": ("RuntimeError", "lidarsim.Env(world).step(0)"),
    "out-of-range action": ("ValueError", "e = lidarsim.Env(world); e.reset(); e.step(7)"),
    "negative action": ("ValueError", "e = lidarsim.Env(world); e.reset(); e.step(-1)"),
    "float action": ("TypeError", "e = lidarsim.Env(world); e.reset(); e.step(1.5)"),
    "closed env": ("RuntimeError", "e = lidarsim.Env(world); e.reset(); e.close(); e.step(0)"),
    "closed env render": ("RuntimeError", "e = lidarsim.Env(world, 'rgb_array'); e.close(); e.render()"),
    "bad render mode": ("ValueError", "lidarsim.Env(world, render_mode='ascii')"),
    "tiny render size": ("ValueError", "lidarsim.Env(world, 'rgb_array', render_size=(2, 2))"),
    "continuous too fast": ("ValueError", "e = lidarsim.Env(world, continuous=True); e.reset(); e.step([9, 0])"),
    "negative seed": ("ValueError", "lidarsim.Env(world).reset(seed=-5)"),
    "zero max_steps": ("ValueError", "lidarsim.Env(world, max_steps=0)"),
    "NaN penalty": ("ValueError", "lidarsim.Env(world, collision_penalty=float('nan'))"),
    # Within a reward's bound (limits.h, 1e9): a penalty of 1e308 made the reward of two collisions in a step inf.
    "huge penalty": ("ValueError", "lidarsim.Env(world, collision_penalty=1e308)"),
    "huge vector penalty": ("ValueError", "lidarsim.VectorEnv(world, 2, threads=1, collision_penalty=-1e10)"),
    "huge parallel penalty": ("ValueError", "lidarsim.ParallelEnv(world, collision_penalty=1e308)"),
    "no envs": ("ValueError", "lidarsim.VectorEnv(world, 0)"),
    "vector wrong shape": ("ValueError", "v = lidarsim.VectorEnv(world, 4, threads=1); v.reset(); v.step(np.zeros(3))"),
    "vector action range": ("ValueError", "v = lidarsim.VectorEnv(world, 2, threads=1); v.reset(); v.step([0, 6])"),
    "vector NaN action": ("TypeError", "v = lidarsim.VectorEnv(world, 2, threads=1); v.reset(); v.step([0, np.nan])"),
    # A float array of whole numbers is taken; one that is not names the action (not the dtype, which is allowed).
    "vector half action": ("TypeError", "v = lidarsim.VectorEnv(world, 2, threads=1); v.reset(); v.step([0, 1.5])"),
    "integer dtype": ("ValueError", "world.scan_batch(np.zeros((2, 3)), dtype=np.int32)"),
    "vector closed": ("RuntimeError", "v = lidarsim.VectorEnv(world, 2, threads=1); v.close(); v.reset()"),
    "vector continuous shape": (
        "ValueError", "v = lidarsim.VectorEnv(world, 2, threads=1, continuous=True); v.reset(); v.step(np.zeros(2))"),
    "bad thread count": ("ValueError", "lidarsim.VectorEnv(world, 2, threads=-3)"),
    "thread count not an int": ("TypeError", "lidarsim.VectorEnv(world, 2, threads=True)"),
    "render size not a pair": ("TypeError", "lidarsim.Env(world, render_size=5)"),
    "parallel render size not a pair": ("TypeError", "lidarsim.ParallelEnv(world, render_size=(640,))"),
    # The C core aborts when an allocation fails: too many robots for the memory left are refused first.
    "too many environments": (
        "MemoryError",
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**32, resource.RLIM_INFINITY)); "
        "lidarsim.VectorEnv(world, 10**6, threads=1)"),
    "render index": ("ValueError", "v = lidarsim.VectorEnv(world, 2, threads=1); v.render(5)"),
}



def run_forked(statement: str, error: str) -> tuple:
    """Runs statement in a forked child; returns (exit status, what it printed)."""
    namespace = {"np": np, "lidarsim": lidarsim, "world": lidarsim.load(world_path("rldemo"))}
    expected = getattr(lidarsim, error, None) or getattr(__import__("builtins"), error)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        code = 3
        try:
            exec(statement, namespace)
            text = "no exception"
        except expected as e:
            text, code = f"{type(e).__name__}: {e}", 0
        except BaseException as e:  # noqa: BLE001 - report whatever else came out
            text = f"unexpected {type(e).__name__}: {e}"
        os.write(write, text.encode())
        os._exit(code)
    os.close(write)
    with os.fdopen(read) as f:
        text = f.read()
    _, status = os.waitpid(pid, 0)
    return status, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_raises(name):
    error, statement = CASES[name]
    sys.stdout.flush()
    status, text = run_forked(statement, error)
    assert os.WIFEXITED(status), f"killed by signal {os.WTERMSIG(status)}: {text}"
    assert os.WEXITSTATUS(status) == 0, text
    assert len(text) > len(error) + 8  # the message says something


def test_bad_input_in_a_fresh_interpreter():
    done = run_python(SETUP + """
for bad in [lambda: world.scan_batch(np.full((3, 3), np.nan)), lambda: lidarsim.Env(world).step(0)]:
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print('caught:', e)
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("caught:") == 2


def test_messages_say_what_is_wrong():
    """A message names the bound the value missed, not one the value meets (\"a finite number in [-inf, inf], got
    nan\", \"in (0, inf], got inf\" were printed)."""
    world = lidarsim.load(world_path("rldemo"))
    cases = [
        (lambda: world.scan((1, 1, 0), range=float("inf")), "range: expected a finite number, got inf"),
        (lambda: world.scan((1, 1, 0), fov=400), "fov: expected a number in [1e-06, 360], got 400.0"),
        (lambda: world.scan((1, 1, 0), fov=5e-324), "fov: expected a number in [1e-06, 360], got 5e-324"),
        (lambda: lidarsim.Sim(world).step(float("nan"), 0.0), "v: expected a finite number, got nan"),
        (lambda: world.scan_batch(np.zeros((2, 3)), dtype=np.int32), "dtype: expected a floating-point type"),
        # The shape given, not the shape after wrapping it in a list (it said (1, 2) and (1, 2, 3)).
        (lambda: world.scan((1.0, 2.0)), "pose: expected (x, y, theta degrees), got shape (2,)"),
        (lambda: world.scan([[1, 2, 3], [4, 5, 6]]), "pose: expected (x, y, theta degrees), got shape (2, 3)"),
        # One pose is "pose", not "poses[0]", and its numbers have every digit (%g printed 1000001 as 1e+06).
        (
            lambda: world.scan(pose=(1e6, 1e6, 1000001)),
            "pose: expected x and y each a coordinate in [-1e+06, 1e+06] m, and an angle in [-1e+06, 1e+06] deg, got "
            "(1000000, 1000000, 1000001)",
        ),
        (lambda: world.scan(pose=(float("nan"), 0, 0)), "pose: not finite: [nan, 0.0, 0.0]"),
        (lambda: world.scan_batch([(0, 0, 0), (1000000.5, 0.5, 0)]), "poses[1]: expected x and y each a coordinate"),
        (lambda: world.scan_batch([(0, 0, 0), (0, float("inf"), 0)]), "poses: row 1 is not finite: [0.0, inf, 0.0]"),
        # The command line's cap (and the C pool's, which clamped 257 to 256): 1024 was taken.
        (lambda: world.scan_batch(np.zeros((2, 3)), threads=257), "threads: expected 0 (all cores) to 256, got 257"),
        (lambda: lidarsim.VectorEnv(world, 2, threads=257), "threads: expected 0 (all cores) to 256, got 257"),
        (lambda: world.scan_batch(np.ones((1, 3), complex)), "poses: expected numbers (x, y, theta degrees), got an "
         "array of dtype complex128"),
        (lambda: world.scan_batch(np.ones((1, 3), bool)), "poses: expected numbers (x, y, theta degrees), got an "
         "array of dtype bool (a bool is not a number here)"),
        (
            lambda: world.scan_batch(np.zeros((1, 3)), ranges_only="yes"),
            "ranges_only: expected True or False, got 'yes'",
        ),
    ]
    for bad, expected in cases:
        with pytest.raises((ValueError, TypeError)) as caught:
            bad()
        assert str(caught.value).startswith(expected), str(caught.value)
    v = lidarsim.VectorEnv(world, 2, threads=1)
    v.reset(seed=1)
    with pytest.raises(TypeError, match=r"actions\[1\]: expected an int in \[0, 6\), got 1.5"):
        v.step(np.array([0.0, 1.5]))
    v.step(np.array([0.0, 2.0]))  # whole numbers as floats are taken
    v.close()
    e = lidarsim.Env(world, continuous=True)
    e.reset(seed=1)
    bad_actions = ((np.array(["1", "2"]), "<U1"), (np.array([0.1, 0.2], object), "object"), ([True, False], "bool"))
    for bad, dtype in bad_actions:
        with pytest.raises(TypeError) as caught:
            e.step(bad)
        assert str(caught.value).startswith(f"action: expected numbers (v m/s, w rad/s), got an array of dtype {dtype}")
    e.step(np.array([0, 0], np.int8))  # integers are numbers
    e.close()


# Another thread closing a Sim or VectorEnv that one thread is stepping: the stepping thread gets RuntimeError, never
# a crash (ctypes releases the GIL, so the C object was freed under the call); threads stepping one Sim together
# take turns, losing no step.
THREADS = """
import threading, time
sim = lidarsim.Sim(world)
caught = []
def steps(target, call):
    try:
        call()
    except RuntimeError as e:
        caught.append(str(e))
t = threading.Thread(target=steps, args=(sim, lambda: sim.step(autopilot=True, steps=10**7)))
t.start(); time.sleep(0.2); sim.close(); t.join()
assert caught == ["lidarsim.Sim: the simulation is closed"], caught
sim = lidarsim.Sim(world)
ts = [threading.Thread(target=lambda: [sim.step(autopilot=True) for _ in range(500)]) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
assert sim.step_count == 2000, sim.step_count
v = lidarsim.VectorEnv(world, 64, threads=2)
v.reset(seed=1)
def vsteps():
    for _ in range(10**6):
        v.step(np.zeros(64, np.int64))
t = threading.Thread(target=steps, args=(v, vsteps))
t.start(); time.sleep(0.2); v.close(); t.join()
assert caught[-1] == "lidarsim: the environment is closed", caught
raise RuntimeError("done")
"""


def test_close_from_another_thread():
    # A fresh interpreter, not a fork: a forked child has none of the parent's pool threads.
    done = run_python(SETUP + "try:\n" + "".join(f"    {line}\n" for line in THREADS.strip().splitlines()) +
                      "except RuntimeError as e:\n    print(e)\n", timeout=120)
    assert done.returncode == 0, f"status {done.returncode}: {done.stderr}"
    assert done.stdout.strip() == "done", done.stdout + done.stderr
