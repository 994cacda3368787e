"""A PettingZoo-style parallel environment over a fleet world (``"robots": [...]``), without depending on PettingZoo.

The agents are the world's robots whose ``controller`` is ``"external"``, named by their ids, in file order (a world
without one has a single agent, its first robot). Every step takes one action per agent, all at once, and runs inside
C (``lsAgent_StepAgents``) until every agent has a fresh scan. The other robots keep doing what the world says:
``"autopilot"`` robots drive themselves, ``"manual"`` robots (nobody holds the keys here) stand still.

Observations and rewards are those of ``lidarsim.Env``, per robot: each agent's observation comes from its own lidar
(other robots are seen as moving bodies, the ``vehicle`` group), so agents with different lidars have observation
spaces of different sizes. Episodes end by time only: after ``max_steps`` steps every agent is truncated and
``agents`` becomes empty until the next ``reset``.
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _lib, spaces
from .env import _world, check_command, check_render_size, continuous_box, observation_box
from .sim import ACTIONS, action_index, counters, read_scan, render_rgb
from .world import Scan, World, _finite, _flag, _integer, _next_episode_seed, _seed

class ParallelEnv(_lib.OwnsHandle):
    """The external robots of a fleet world as agents of one parallel environment (PettingZoo's ParallelEnv API).

    ``ParallelEnv(world, render_mode=None, continuous=False, max_steps=1000, sim_steps_per_action=0,
    collision_penalty=0.0, render_size=(640, 400))``; world is a ``World`` or a path. Actions per agent: an index of
    ``lidarsim.ACTIONS`` (``Discrete(6)``), or with ``continuous=True`` (v m/s, w rad/s) in that robot's
    ``Box([-max_speed, -max_turn_rate], [max_speed, max_turn_rate])``. All dicts are keyed by robot id. Cannot be
    copied or pickled (TypeError): make another.
    """

    metadata = {"name": "lidarsim_fleet_v0", "render_modes": ["rgb_array"], "render_fps": 10, "is_parallelizable": True}
    _remake = "make another with the same arguments, lidarsim.ParallelEnv(env.world, ...)"

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
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self._size = check_render_size(render_size)
        self.world = _world(world)
        self.max_steps = _integer("max_steps", max_steps, 1, 2**31 - 1)
        definition = _lib.AgentDef(
            self.max_steps,
            _integer("sim_steps_per_action", sim_steps_per_action, 0, 1_000_000),
            _finite("collision_penalty", collision_penalty, -1e9, 1e9),
        )
        self._handle = _lib.core.lsCreateAgent(self.world._handle, ctypes.byref(definition))
        self.continuous = _flag("continuous", continuous)
        robots = self.world._robot_infos()
        count = _lib.core.lsAgent_AgentCount(self._handle)
        self._robots = [_lib.core.lsAgent_AgentRobot(self._handle, k) for k in range(count)]
        #: Every agent the environment can have: the external robots' ids, in file order.
        self.possible_agents: List[str] = [robots[r].id.decode("utf-8") for r in self._robots]
        #: The agents of the running episode (empty before reset and after the episode's end).
        self.agents: List[str] = []
        self._index = {agent: k for k, agent in enumerate(self.possible_agents)}
        self._all = {info.id.decode("utf-8"): r for r, info in enumerate(robots)}
        self._sizes = [_lib.core.lsAgent_RobotObservationSize(self._handle, r) for r in self._robots]
        self._scratch = np.empty(max(self._sizes), np.float64)
        self._limits = [(robots[r].maxSpeed, robots[r].maxTurnRate) for r in self._robots]
        self._observation_spaces = {a: observation_box(n, (n,)) for a, n in zip(self.possible_agents, self._sizes)}
        self._action_spaces = {
            a: continuous_box(*limits, (2,)) if self.continuous else spaces.Discrete(len(ACTIONS))
            for a, limits in zip(self.possible_agents, self._limits)
        }
        self._rewards = np.zeros(count, np.float64)
        self._next_seed = self.world.seed

    # The PettingZoo API --------------------------------------------------------------------------------------------

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        return len(self.possible_agents)

    def observation_space(self, agent: str) -> Any:
        """The agent's observation space: Box of float32, its lidar's beams * 7 + 2 values (as ``Env``'s)."""
        return self._observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> Any:
        """The agent's action space: Discrete(6), or Box of its (v, w) limits when continuous."""
        return self._action_spaces[self._agent(agent)]

    @_lib.serialized
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Dict[str, np.ndarray], dict]:
        """Starts an episode: every robot back to its start. seed: that episode's seed (respawn places, lidar noise);
        None: the world's sim.seed the first time, then a seed drawn from the previous episode's (as Env's). Returns
        (observations, infos)."""
        handle = self._live()
        if seed is not None:
            self._next_seed = _seed("seed", seed)
        _lib.core.lsAgent_Reset(handle, self._next_seed)
        self._next_seed = _next_episode_seed(self._next_seed)
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos()

    @_lib.serialized
    def step(self, actions: Dict[str, Any]) -> Tuple[dict, dict, dict, dict, dict]:
        """One action per agent, all at once. Returns (observations, rewards, terminations (always False),
        truncations (True for all at the episode's end), infos), each keyed by agent id."""
        handle = self._live()
        if not self.agents:
            raise RuntimeError("lidarsim.ParallelEnv: no agents are running; call reset() first")
        if not isinstance(actions, dict):
            raise TypeError(f"actions: expected a dict from agent id to action, got {type(actions).__name__}")
        unknown = [a for a in actions if a not in self._index]
        if unknown:
            raise KeyError(f"actions: no agent {unknown[0]!r} (the agents are {', '.join(self.agents)})")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise KeyError(f"actions: no action for agent {missing[0]!r} (every agent acts every step)")
        rewards = self._rewards
        if self.continuous:
            commands = np.empty((len(self.possible_agents), 2), np.float64)
            for agent, k in self._index.items():
                commands[k] = check_command(f"actions[{agent!r}]", actions[agent], (2,), *self._limits[k])
            done = _lib.core.lsAgent_StepAgentsContinuous(
                handle, _lib.ptr(commands, ctypes.c_double), _lib.ptr(rewards, ctypes.c_double)
            ).done
        else:
            discrete = np.empty(len(self.possible_agents), np.int32)
            for agent, k in self._index.items():
                try:
                    discrete[k] = action_index(actions[agent])
                except (TypeError, ValueError) as e:  # action_index names it "action"; name the agent instead
                    raise type(e)(f"actions[{agent!r}]: {str(e).removeprefix('action: ')}") from None
            done = _lib.core.lsAgent_StepAgents(
                handle, _lib.ptr(discrete, ctypes.c_int), _lib.ptr(rewards, ctypes.c_double)
            ).done
        observations, infos = self._observations(), self._infos()
        reward = {a: float(rewards[k]) for a, k in self._index.items()}
        terminations = {a: False for a in self.agents}
        truncations = {a: bool(done) for a in self.agents}
        if done:
            self.agents = []
        return observations, reward, terminations, truncations, infos

    @_lib.serialized
    def render(self) -> Optional[np.ndarray]:
        """rgb_array: the whole fleet as the frame ``lidarsim render`` draws, (H, W, 3) uint8; None: returns None."""
        if self.render_mode is None:
            return None
        return render_rgb(self._sim(), self._size[0], self._size[1], True)

    @_lib.serialized
    def close(self) -> None:
        """Frees the simulation; later calls raise RuntimeError (close itself may be called again)."""
        if getattr(self, "_handle", None):
            _lib.core.lsDestroyAgent(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Beyond the API --------------------------------------------------------------------------------------------------

    @_lib.serialized
    def scan(self, robot: str) -> Scan:
        """The latest scan of a robot (any robot of the world, by id; an agent's observation is made from its own),
        a copy with hit kinds and indices."""
        r = self._robot(robot)
        return read_scan(self._sim(), self._sim_info(r), robot=r)

    @_lib.serialized
    def stats(self, robot: str) -> dict:
        """A robot's counters in this episode (any robot of the world, by id): score, food, poison, collisions,
        crushes, distance, episode_step, pose (x, y, theta degrees), speed (v m/s, w rad/s)."""
        return self._info(self._robot(robot))

    # Internals -------------------------------------------------------------------------------------------------------

    def _live(self) -> int:
        if not getattr(self, "_handle", None):
            raise RuntimeError("lidarsim.ParallelEnv: the environment is closed")
        return self._handle

    def _sim(self) -> int:
        return _lib.core.lsAgent_GetSim(self._live())

    def _agent(self, agent) -> str:
        if not isinstance(agent, str) or agent not in self._index:
            raise KeyError(f"agent: no agent {agent!r} (the agents are {', '.join(self.possible_agents)})")
        return agent

    def _robot(self, robot) -> int:
        if not isinstance(robot, str) or robot not in self._all:
            raise KeyError(f"robot: no robot {robot!r} (the robots are {', '.join(self._all)})")
        return self._all[robot]

    def _observations(self) -> Dict[str, np.ndarray]:
        out = {}
        for agent, k in self._index.items():
            n = _lib.core.lsAgent_ObserveRobot(
                self._handle, self._robots[k], _lib.ptr(self._scratch, ctypes.c_double), len(self._scratch)
            )
            out[agent] = self._scratch[:n].astype(np.float32)
        return out

    def _sim_info(self, robot: int) -> _lib.SimInfo:
        info = _lib.SimInfo()
        _lib.core.lsSim_GetRobotInfo(self._sim(), robot, ctypes.byref(info))
        return info

    def _info(self, robot: int) -> dict:
        i = self._sim_info(robot)
        return dict(
            counters(i),
            episode_step=_lib.core.lsAgent_StepCount(self._handle),
            pose=(i.x, i.y, math.degrees(i.angle)),
            speed=(i.v, i.w),
        )

    def _infos(self) -> Dict[str, dict]:
        return {a: self._info(self._robots[k]) for a, k in self._index.items()}
