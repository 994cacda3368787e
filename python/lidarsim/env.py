"""Gymnasium-style environments over the C agent interface: ``Env`` (one robot) and ``VectorEnv`` (N robots stepped
inside C on a thread pool).

The task is the one the project descends from: a robot with range sensors eats food (+1) and avoids poison (-1).
One step lets the simulation run until the lidar's next scan. Episodes end by time only (``max_steps`` steps), so
``terminated`` is always False and ``truncated`` becomes True at the end.

Observation (float32, ``beams * 7 + 2`` values, as ``lsAgent_Observe`` writes them):

* ``[0, beams)``: each beam's range / the lidar's range, in [0, 1] (1 for no return);
* ``beams + 6 i + k``: one-hot of what beam i saw, k = 0 nothing, 1 wall/box/polygon, 2 moving wall, 3 vehicle,
  4 food, 5 poison;
* the last two: forward speed / max speed and turn rate / max turn rate, in [-1, 1].
"""

from __future__ import annotations

import ctypes
import os
import threading
import warnings
from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _lib, spaces
from .sim import ACTIONS, action_index, render_rgb
from .world import (
    World,
    _available_memory,
    _finite,
    _first_episode_seeds,
    _flag,
    _integer,
    _next_episode_seed,
    _next_episode_seeds,
    _numbers,
    _seed,
    _threads_arg,
    load,
    pool,
)

#: Names of the one-hot groups of the observation.
SEEN = ("nothing", "wall", "mover", "vehicle", "food", "poison")

_Base: Any = spaces._gym.Env if spaces.HAVE_GYMNASIUM else object


def _world(world) -> World:
    if isinstance(world, World):
        return world
    if isinstance(world, (str, os.PathLike)):
        return load(world)
    raise TypeError(f"world: expected a lidarsim.World or a path, got {type(world).__name__}")


class _Agents(_lib.OwnsHandle):
    """The C vector of agents (lsVecEnv) and its buffers: the part Env and VectorEnv share."""

    _remake = "make another environment"

    def __init__(self, world, count, threads, max_steps, sim_steps_per_action, collision_penalty, auto_reset):
        self.world = _world(world)
        max_steps = _integer("max_steps", max_steps, 1, 2**31 - 1)
        sim_steps = _integer("sim_steps_per_action", sim_steps_per_action, 0, 1_000_000)
        penalty = _finite("collision_penalty", collision_penalty, -1e9, 1e9)
        self.pool = pool(threads) if _threads_arg(threads) != 1 else None  # True, 1.0: TypeError, as scan_batch
        definition = _lib.VecEnvDef(count, _lib.AgentDef(max_steps, sim_steps, penalty), auto_reset)
        if count > 64:
            _check_memory(self.world, count, definition)
        err = _lib.error_buffer()
        self.handle = _lib.core.lsCreateVecEnv(
            self.world._handle, ctypes.byref(definition), self.pool.handle if self.pool else None, err
        )
        if not self.handle:
            raise ValueError(_lib.message(err))
        self.count = count
        self.size = _lib.core.lsVecEnv_ObservationSize(self.handle)
        self.max_steps = max_steps
        info = self.world._info
        self.max_speed, self.max_turn_rate = info.maxSpeed, info.maxTurnRate
        self.beams = info.beams

    def close(self) -> None:
        if self.handle:
            _lib.core.lsDestroyVecEnv(self.handle)
            self.handle = None

    def live(self) -> int:
        if not self.handle:
            raise RuntimeError("lidarsim: the environment is closed")
        return self.handle

    def observation_space(self, shape) -> Any:
        return observation_box(self.size, shape)

    def continuous_space(self, shape) -> Any:
        return continuous_box(self.max_speed, self.max_turn_rate, shape)

    def check_continuous(self, actions: np.ndarray, shape) -> np.ndarray:
        return check_command("action", actions, shape, self.max_speed, self.max_turn_rate)

    def sim_info(self, i: int) -> _lib.SimInfo:
        info = _lib.SimInfo()
        _lib.core.lsSim_GetInfo(_lib.core.lsVecEnv_GetSim(self.live(), i), ctypes.byref(info))
        return info


def _check_memory(world: World, count: int, definition) -> None:
    """MemoryError, before anything is allocated, when count environments would not fit: the C core aborts the
    process when an allocation fails, so the size is measured on a vector of one and scaled (a million robots of a
    small world take about 65 GB)."""
    available = _available_memory()
    if available is None:
        return
    one = _lib.VecEnvDef(1, definition.agent, definition.autoReset)
    before = _lib.core.lsAllocatedBytes()
    probe = _lib.core.lsCreateVecEnv(world._handle, ctypes.byref(one), None, _lib.error_buffer())
    each = _lib.core.lsAllocatedBytes() - before
    if probe:
        _lib.core.lsDestroyVecEnv(probe)
    need = each * count
    if probe and need > available:
        raise MemoryError(
            f"num_envs: {count} environments of this world need about {need / 2**30:.1f} GiB, "
            f"more than the {available / 2**30:.1f} GiB this process can still allocate"
        )


def check_render_size(render_size) -> Tuple[int, int]:
    """A frame's (width, height) in pixels, each in [16, 16384], or a TypeError / ValueError saying what is wrong."""
    if not isinstance(render_size, (tuple, list)) or len(render_size) != 2:
        raise TypeError(f"render_size: expected (width, height) in pixels, got {render_size!r}")
    return (
        _integer("render_size[0]", render_size[0], 16, 16384),
        _integer("render_size[1]", render_size[1], 16, 16384),
    )


def observation_box(size: int, shape) -> Any:
    """The observation space of a lidar observation of size values, broadcast to shape."""
    low = np.zeros(size, np.float32)
    low[-2:] = -1.0
    high = np.ones(size, np.float32)
    return spaces.Box(np.broadcast_to(low, shape), np.broadcast_to(high, shape), dtype=np.float32)


def continuous_box(max_speed: float, max_turn_rate: float, shape) -> Any:
    """The continuous action space (v, w) within a robot's limits, broadcast to shape."""
    high = np.array([max_speed, max_turn_rate], np.float32)
    return spaces.Box(np.broadcast_to(-high, shape), np.broadcast_to(high, shape), dtype=np.float32)


def check_command(name: str, actions, shape, max_speed: float, max_turn_rate: float) -> np.ndarray:
    """Continuous actions as a contiguous float64 array of shape, or a TypeError / ValueError saying what is wrong."""
    a = _numbers(name, actions, "numbers (v m/s, w rad/s)")
    if a.shape != shape:
        raise ValueError(f"{name}: expected shape {shape} of (v m/s, w rad/s), got {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: not finite: {a.tolist()}")
    limits = np.array([max_speed, max_turn_rate]) * (1.0 + 1e-6)  # float32 rounding of the bounds
    if (np.abs(a) > limits).any():
        raise ValueError(
            f"{name}: (v, w) must lie within +-({max_speed:g} m/s, {max_turn_rate:g} rad/s), got {a.tolist()}"
        )
    return np.ascontiguousarray(a)


def _info_dict(info: _lib.SimInfo, episode_step: int) -> dict:
    return {
        "score": info.score,
        "food": info.food,
        "poison": info.poison,
        "collisions": info.collisions,
        "episode_step": episode_step,
        "pose": (info.x, info.y, float(np.degrees(info.angle))),
    }


class Env(_lib.OwnsHandle, _Base):
    """One robot in a world, with the Gymnasium API.

    ``Env(world, render_mode=None, continuous=False, max_steps=1000, sim_steps_per_action=0, collision_penalty=0.0,
    render_size=(640, 400))``; world is a ``World`` or a path. Discrete actions: ``Discrete(6)``, the indices of
    ``lidarsim.ACTIONS``. Continuous: ``Box([-max_speed, -max_turn_rate], [max_speed, max_turn_rate])``, (v m/s,
    w rad/s). Reward: food +1 and poison -1 (the world's ``sim`` rewards) plus ``collision_penalty`` per collision.
    ``render_mode="rgb_array"``: ``render()`` returns the frame ``lidarsim render`` draws, (H, W, 3) uint8;
    ``"human"`` shows it in a matplotlib window. Cannot be copied or pickled (TypeError): make another.
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 10}
    _remake = (
        "make another with the same arguments, lidarsim.Env(env.world, ...); reset(seed=info['seed']) replays an "
        "episode"
    )

    def __init__(
        self,
        world: Union[World, str, os.PathLike],
        render_mode: Optional[str] = None,
        *,
        continuous: bool = False,
        max_steps: int = 1000,
        sim_steps_per_action: int = 0,
        collision_penalty: float = 0.0,
        render_size: Tuple[int, int] = (640, 400),
    ):
        self._lock = threading.RLock()  # see _lib.serialized
        if render_mode not in (None, "rgb_array", "human"):
            raise ValueError(f"render_mode: expected None, 'rgb_array' or 'human', got {render_mode!r}")
        self.render_mode = render_mode
        self._size = check_render_size(render_size)
        self._agents = _Agents(world, 1, 1, max_steps, sim_steps_per_action, collision_penalty, False)
        self.world = self._agents.world
        self.continuous = _flag("continuous", continuous)
        self.observation_space = self._agents.observation_space((self._agents.size,))
        self.action_space = self._agents.continuous_space((2,)) if self.continuous else spaces.Discrete(len(ACTIONS))
        self._next_seed = self.world.seed
        self._started = False
        self._ended = False  # the episode was truncated
        self._warned = False  # of a step after that
        self._figure = None

    @_lib.serialized
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        """Starts an episode. seed: that episode's seed; None: the world's sim.seed the first time, then a seed drawn
        from the previous episode's. Returns (observation, info); info["seed"] is the episode's seed (``lidarsim run
        --seed`` replays it)."""
        if spaces.HAVE_GYMNASIUM:
            super().reset(seed=seed)
        handle = self._agents.live()
        if seed is not None:
            self._next_seed = _seed("seed", seed)
        obs = np.empty(self._agents.size, np.float32)
        _lib.core.lsVecEnv_ResetOne(handle, 0, self._next_seed, _lib.ptr(obs, ctypes.c_float))
        info = _info_dict(self._agents.sim_info(0), 0)
        info["seed"] = self._next_seed
        self._next_seed = _next_episode_seed(self._next_seed)
        self._started = True
        self._ended = self._warned = False
        if self.render_mode == "human":
            self.render()
        return obs, info

    @_lib.serialized
    def step(self, action) -> Tuple[np.ndarray, float, bool, bool, dict]:
        """Takes one action. Returns (observation, reward, terminated (always False), truncated, info)."""
        handle = self._agents.live()
        if not self._started:
            raise RuntimeError("lidarsim.Env: call reset() before step()")
        if self._ended and not self._warned:
            # Gymnasium leaves a step after the end undefined and its own environments warn, once (CartPole's
            # words); the robot goes on from where it was, the episode's step count past max_steps.
            warnings.warn(
                "lidarsim.Env: step() called after the episode was truncated; call reset() to start the next "
                "episode (further steps go on from where the robot is)",
                stacklevel=_lib.user_stacklevel(),
            )
            self._warned = True  # not again this episode
        obs = np.empty(self._agents.size, np.float32)
        reward = np.zeros(1, np.float64)
        truncated = np.zeros(1, np.uint8)
        if self.continuous:
            control = self._agents.check_continuous(action, (2,))
            _lib.core.lsVecEnv_Step(
                handle,
                None,
                _lib.ptr(control, ctypes.c_double),
                _lib.ptr(obs, ctypes.c_float),
                _lib.ptr(reward, ctypes.c_double),
                _lib.ptr(truncated, ctypes.c_uint8),
                None,
            )
        else:
            discrete = np.array([action_index(action)], np.int32)
            _lib.core.lsVecEnv_Step(
                handle,
                _lib.ptr(discrete, ctypes.c_int32),
                None,
                _lib.ptr(obs, ctypes.c_float),
                _lib.ptr(reward, ctypes.c_double),
                _lib.ptr(truncated, ctypes.c_uint8),
                None,
            )
        info = _info_dict(self._agents.sim_info(0), _lib.core.lsVecEnv_EpisodeStep(handle, 0))
        self._ended = self._ended or bool(truncated[0])
        if self.render_mode == "human":
            self.render()
        return obs, float(reward[0]), False, bool(truncated[0]), info

    @_lib.serialized
    def render(self) -> Optional[np.ndarray]:
        """rgb_array: the frame as (H, W, 3) uint8; human: draws it in a window; None: returns None."""
        if self.render_mode is None:
            return None
        handle = self._agents.live()
        frame = render_rgb(_lib.core.lsVecEnv_GetSim(handle, 0), self._size[0], self._size[1], True)
        if self.render_mode == "rgb_array":
            return frame
        import matplotlib.pyplot as plt  # only the human mode needs it

        if self._figure is None:
            if not plt.isinteractive() and plt.get_backend().lower() in ("agg", "pdf", "ps", "svg", "cairo"):
                # matplotlib without a display draws nowhere: say so once, rather than show nothing.
                warnings.warn(
                    f"render_mode='human': matplotlib's backend is {plt.get_backend()} (no display?), so no window "
                    "opens; use render_mode='rgb_array' to get the frames",
                    stacklevel=_lib.user_stacklevel(),
                )
            self._figure = plt.figure(figsize=(self._size[0] / 100, self._size[1] / 100))
            self._image = self._figure.add_axes([0, 0, 1, 1]).imshow(frame)
            self._figure.axes[0].set_axis_off()
        else:
            self._image.set_data(frame)
        plt.pause(1.0 / self.metadata["render_fps"])
        return None

    @_lib.serialized
    def close(self) -> None:
        """Frees the simulation; calls after close raise RuntimeError (close itself may be called again)."""
        self._agents.close()
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None

    def __del__(self):
        if getattr(self, "_agents", None) is not None:
            self._agents.close()

    @property
    @_lib.serialized
    def sim_stats(self) -> dict:
        """The robot's counters in this episode: score, food, poison, collisions, episode_step, pose."""
        return _info_dict(self._agents.sim_info(0), _lib.core.lsVecEnv_EpisodeStep(self._agents.live(), 0))


def _same_step_mode() -> Any:
    """gymnasium's AutoresetMode.SAME_STEP (gymnasium 1.1 on), else its value, "SameStep"."""
    modes = getattr(getattr(spaces._gym, "vector", None), "AutoresetMode", None)
    return getattr(modes, "SAME_STEP", "SameStep")


class VectorEnv(_lib.OwnsHandle):
    """``num_envs`` robots in one world, stepped together inside C on ``threads`` threads (None: every core) with
    the GIL released; observations land in one (num_envs, D) float32 array. The results are identical for any
    thread count.

    Automatic reset: when robot i's episode ends, ``step`` returns the first observation of its next episode in row
    i, ``truncations[i]`` True, and ``infos["final_observation"][i]`` the last observation of the finished one
    (``infos["_final_observation"]`` marks the rows), plus ``infos["episode"] = {"r": returns, "l": lengths}`` with
    ``infos["_episode"]`` (the finished episodes' total reward and length), as gymnasium's SyncVectorEnv and
    RecordEpisodeStatistics do; ``final_obs`` and ``_final_obs`` are the same arrays under gymnasium 1.1's names.
    Episode seeds: after ``reset(seed=s)`` robot i's first episode has seed ``splitmix(splitmix(s ^ tag) + i)`` and
    each later one the seed drawn from its previous one, as ``Env`` draws it (so robot i is an Env reset with that
    seed, then without one); ``infos["seed"]`` reports them after ``reset`` and when episodes end. Vectors seeded s
    and s + 1 share no episode. Cannot be copied or pickled (TypeError): make another.
    """

    metadata = {"autoreset_mode": _same_step_mode()}
    _remake = "make another with the same arguments, lidarsim.VectorEnv(vec.world, vec.num_envs, ...)"

    def __init__(
        self,
        world: Union[World, str, os.PathLike],
        num_envs: int,
        threads: Optional[int] = None,
        *,
        continuous: bool = False,
        max_steps: int = 1000,
        sim_steps_per_action: int = 0,
        collision_penalty: float = 0.0,
        copy: bool = True,
    ):
        self._lock = threading.RLock()  # see _lib.serialized
        num_envs = _integer("num_envs", num_envs, 1, 1_000_000)
        # The automatic resets are made here, not in C, whose schedule of seeds (seed + i + num_envs * e) is linear.
        self._agents = _Agents(world, num_envs, threads, max_steps, sim_steps_per_action, collision_penalty, False)
        self.world = self._agents.world
        self.num_envs = num_envs
        self.continuous = _flag("continuous", continuous)
        self.copy = _flag("copy", copy)
        self.threads = self._agents.pool.threads if self._agents.pool else 1
        size = self._agents.size
        self.single_observation_space = self._agents.observation_space((size,))
        self.observation_space = self._agents.observation_space((num_envs, size))
        if self.continuous:
            self.single_action_space = self._agents.continuous_space((2,))
            self.action_space = self._agents.continuous_space((num_envs, 2))
        else:
            self.single_action_space = spaces.Discrete(len(ACTIONS))
            self.action_space = spaces.MultiDiscrete(np.full(num_envs, len(ACTIONS)))
        self._obs = np.zeros((num_envs, size), np.float32)
        self._final = np.zeros((num_envs, size), np.float32)
        self._rewards = np.zeros(num_envs, np.float64)
        self._truncated = np.zeros(num_envs, np.uint8)
        self._actions = np.zeros(num_envs, np.int32)
        self._commands = np.zeros((num_envs, 2), np.float64)
        # The C step's arguments, made once: a ctypes pointer costs about 2 us to make, and the Python part of a step
        # runs alone between two parallel ones (a step of 64 robots is about 450 us of work; every 10 us of serial
        # time costs about 0.04x of the speed-up on two threads).
        self._step_args = (
            None if self.continuous else _lib.ptr(self._actions, ctypes.c_int32),
            _lib.ptr(self._commands, ctypes.c_double) if self.continuous else None,
            _lib.ptr(self._obs, ctypes.c_float),
            _lib.ptr(self._rewards, ctypes.c_double),
            _lib.ptr(self._truncated, ctypes.c_uint8),
            None,  # without C's automatic reset an ended robot's last observation is its row of obs
        )
        self._returns = np.zeros(num_envs, np.float64)
        self._lengths = np.zeros(num_envs, np.int64)
        self._seeds: Optional[np.ndarray] = None  # the running episodes' seeds, uint64
        self._started = False

    @_lib.serialized
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        """Resets every robot. seed: robot i's episode gets a seed drawn from (seed, i) (None: from the world's
        sim.seed the first time, then each robot's from its previous episode's, as Env's). Returns (observations
        (num_envs, D), infos); infos["seed"] holds each robot's episode seed (uint64; ``_seed`` marks every row)."""
        handle = self._agents.live()
        if seed is not None:
            self._seeds = _first_episode_seeds(_seed("seed", seed), self.num_envs)
        elif self._seeds is None:
            self._seeds = _first_episode_seeds(self.world.seed, self.num_envs)
        else:
            self._seeds = _next_episode_seeds(self._seeds)
        self._start_episodes(handle, None)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._started = True
        infos = {"seed": self._seeds.copy(), "_seed": np.ones(self.num_envs, bool)}
        return (self._obs.copy() if self.copy else self._obs), infos

    def _start_episodes(self, handle: int, rows: Optional[np.ndarray]) -> None:
        """Starts the episodes of self._seeds in the rows the uint8 mask rows marks (None: every row), on the
        vector's threads, writing their first observations into self._obs."""
        _lib.core.lsVecEnv_ResetSeeded(
            handle,
            _lib.ptr(self._seeds, ctypes.c_uint64),
            _lib.ptr(rows, ctypes.c_uint8),
            _lib.ptr(self._obs, ctypes.c_float),
        )

    @_lib.serialized
    def step(self, actions) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Steps every robot once. actions: (num_envs,) ints in [0, 6), or (num_envs, 2) (v, w) when continuous.
        Returns (observations, rewards, terminations (all False), truncations, infos)."""
        handle = self._agents.live()
        if not self._started:
            raise RuntimeError("lidarsim.VectorEnv: call reset() before step()")
        if self.continuous:
            self._commands[...] = self._agents.check_continuous(actions, (self.num_envs, 2))
        else:
            _discrete_into(actions, self._actions)
        ended = _lib.core.lsVecEnv_Step(handle, *self._step_args)
        truncations = self._truncated.astype(bool)
        self._returns += self._rewards
        self._lengths += 1
        infos: dict = {}
        if ended:
            # Same-step reset: the ended rows' last observations move to final_observation and their next episodes
            # start, each seeded from its previous one (as Env's resets without a seed).
            rows = np.flatnonzero(truncations)
            self._final[rows] = self._obs[rows]
            self._seeds[rows] = _next_episode_seeds(self._seeds[rows])
            self._start_episodes(handle, self._truncated)
            infos["seed"], infos["_seed"] = self._seeds.copy(), truncations.copy()
            infos["final_observation"] = self._final.copy()
            infos["_final_observation"] = truncations.copy()
            # The same arrays under gymnasium 1.1's names for the same-step mode.
            infos["final_obs"], infos["_final_obs"] = infos["final_observation"], infos["_final_observation"]
            infos["episode"] = {"r": np.where(truncations, self._returns, 0.0), "l": np.where(truncations, self._lengths, 0)}
            infos["_episode"] = truncations.copy()
            self._returns[truncations] = 0.0
            self._lengths[truncations] = 0
        obs = self._obs.copy() if self.copy else self._obs
        rewards = self._rewards.copy() if self.copy else self._rewards
        return obs, rewards, np.zeros(self.num_envs, bool), truncations, infos

    @_lib.serialized
    def render(self, index: int = 0, width: int = 640, height: int = 400) -> np.ndarray:
        """Robot index's world as the frame ``lidarsim render`` draws, (height, width, 3) uint8."""
        index = _integer("index", index, 0, self.num_envs - 1)
        return render_rgb(_lib.core.lsVecEnv_GetSim(self._agents.live(), index), width, height, True)

    @_lib.serialized
    def stats(self, index: int) -> dict:
        """Robot index's counters in its current episode: score, food, poison, collisions, episode_step, pose."""
        index = _integer("index", index, 0, self.num_envs - 1)
        handle = self._agents.live()
        return _info_dict(self._agents.sim_info(index), _lib.core.lsVecEnv_EpisodeStep(handle, index))

    @_lib.serialized
    def close(self) -> None:
        """Frees the robots; calls after close raise RuntimeError."""
        self._agents.close()

    def __del__(self):
        if getattr(self, "_agents", None) is not None:
            self._agents.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


#: The unsigned integer type of each integer size, for the one-comparison range test of _discrete_into.
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _discrete_into(actions, out: np.ndarray) -> None:
    """Checks discrete actions (len(out) ints in [0, 6)) and writes them into out (int32): for an integer array in
    native byte order by one comparison (a negative int read as unsigned is larger than any action) and a copy, about
    2 us; anything else through _check_discrete, which also words the errors."""
    a = actions if type(actions) is np.ndarray else np.asarray(actions)
    if a.shape == out.shape and a.dtype.kind in "iu" and a.dtype.isnative:
        if a.view(_UNSIGNED[a.dtype.itemsize]).max() < len(ACTIONS):
            out[...] = a  # values in [0, 6): the cast to int32 cannot wrap
            return
    out[...] = _check_discrete(actions, len(out))


def _check_discrete(actions, count: int) -> np.ndarray:
    a = np.asarray(actions)
    if a.shape != (count,):
        raise ValueError(f"actions: expected shape ({count},) of ints in [0, {len(ACTIONS)}), got {a.shape}")
    if not np.issubdtype(a.dtype, np.integer):
        if not np.issubdtype(a.dtype, np.floating):
            raise TypeError(f"actions: expected ints in [0, {len(ACTIONS)}), got dtype {a.dtype}")
        whole = np.isfinite(a) & (a == np.round(a))
        if not whole.all():
            bad = int(np.argmin(whole))
            raise TypeError(f"actions[{bad}]: expected an int in [0, {len(ACTIONS)}), got {a[bad]}")
    if ((a < 0) | (a >= len(ACTIONS))).any():
        bad = int(np.argmax((a < 0) | (a >= len(ACTIONS))))
        raise ValueError(f"actions[{bad}]: expected an int in [0, {len(ACTIONS)}), got {a[bad]}")
    return np.ascontiguousarray(a, dtype=np.int32)
