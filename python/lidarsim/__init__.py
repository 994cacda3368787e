"""lidarsim from Python: worlds, scans, batches of scans, the simulation, and Gymnasium-style environments, over the
C library (ctypes; no copy of the simulation in Python).

    import lidarsim
    world = lidarsim.load("worlds/rldemo.json")
    scan = world.scan((7.0, 1.0, 90.0))              # ranges (inf: no return), intensities, kinds, indices
    batch = world.scan_batch(poses)                  # (K, 3) poses -> (K, beams), on every core
    env = lidarsim.Env(world)                        # reset() -> (obs, info); step(a) -> obs, r, term, trunc, info
    vec = lidarsim.VectorEnv(world, 64)              # 64 robots stepped in C, (64, D) float32 observations
    fleet = lidarsim.ParallelEnv("worlds/fleet.json") # PettingZoo-style: dicts keyed by the external robots' ids

See docs/python.md.
"""

from .env import SEEN, Env, VectorEnv
from .parallel import ParallelEnv
from .sim import ACTIONS, Sim
from .spaces import HAVE_GYMNASIUM
from .world import HIT_KINDS, Scan, ScanBatch, World, WorldError, load

__version__ = "0.1.0"

__all__ = [
    "ACTIONS",
    "Env",
    "HAVE_GYMNASIUM",
    "HIT_KINDS",
    "ParallelEnv",
    "SEEN",
    "Scan",
    "ScanBatch",
    "Sim",
    "VectorEnv",
    "World",
    "WorldError",
    "load",
]
