"""ParallelEnv: the PettingZoo parallel API (checked in the spirit of pettingzoo's parallel_api_test), agreement of
the observations with the lidarsim program's scans, determinism, and clear errors for bad actions."""

import json
import math
import subprocess

import numpy as np
import pytest

import lidarsim
from conftest import world_path

# Two rooms split by a wall at x = 10: the agents "a" and "b" (different lidars, so different observation sizes) in
# the left one, an autopilot robot and a manual one with food in the right one, out of the agents' sight.
FLEET = {
    "name": "two rooms",
    "walls": [{"points": [[0, 0], [20, 0], [20, 10], [0, 10], [0, 0]]}, {"points": [[10, 0], [10, 10]]}],
    "targets": [{"center": [14, 2], "radius": 0.2}, {"center": [17, 7], "radius": 0.2}],
    "robots": [
        {"id": "a", "controller": "external", "pose": [3, 5, 0], "radius": 0.3,
         "lidar": {"beams": 90, "fov": 360, "range": 8, "noise": 0}},
        {"id": "b", "controller": "external", "pose": [8, 5, 180], "radius": 0.3, "max_speed": 0.8,
         "footprint": [[-0.3, -0.2], [0.3, -0.2], [0.3, 0.2], [-0.3, 0.2]],
         "lidar": {"beams": 45, "fov": 180, "range": 6, "noise": 0}},
        {"id": "pilot", "controller": "autopilot", "pose": [15, 3, 90], "radius": 0.3, "lidar": {"beams": 60}},
        {"id": "parked", "controller": "manual", "pose": [15, 8, 0], "radius": 0.3},
    ],
    "sim": {"seed": 5},
}


@pytest.fixture(scope="module")
def fleet_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("fleet") / "two_rooms.json"
    path.write_text(json.dumps(FLEET))
    return str(path)


@pytest.fixture(scope="module")
def fleet(fleet_path):
    return lidarsim.load(fleet_path)


def check_parallel_api(env, steps=40, seed=1):
    """What pettingzoo.test.parallel_api_test checks, without PettingZoo: the agent lists, the per-agent spaces
    (the same object on every call), the keys and types of every dict reset and step return, observations inside
    their spaces, and agents leaving when they are done."""
    assert len(env.possible_agents) >= 1 and len(set(env.possible_agents)) == len(env.possible_agents)
    assert all(isinstance(a, str) for a in env.possible_agents) and env.max_num_agents == len(env.possible_agents)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        env.action_space(agent).seed(seed)
    observations, infos = env.reset(seed=seed)
    assert env.agents == env.possible_agents and env.num_agents == len(env.agents)
    assert set(observations) == set(env.agents) and set(infos) == set(env.agents)
    for agent, obs in observations.items():
        assert obs in env.observation_space(agent), agent
        assert isinstance(infos[agent], dict)
    done_seen = False
    for _ in range(steps):
        live = list(env.agents)
        actions = {agent: env.action_space(agent).sample() for agent in live}
        for agent, action in actions.items():
            assert action in env.action_space(agent)
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for d in (observations, rewards, terminations, truncations, infos):
            assert isinstance(d, dict) and set(d) == set(live)
        for agent in live:
            assert observations[agent] in env.observation_space(agent)
            assert isinstance(rewards[agent], float) and math.isfinite(rewards[agent])
            assert isinstance(terminations[agent], bool) and isinstance(truncations[agent], bool)
        assert set(env.agents) <= set(live)
        gone = {a for a in live if terminations[a] or truncations[a]}
        assert set(env.agents) == set(live) - gone
        if not env.agents:
            done_seen = True
            with pytest.raises(RuntimeError, match="reset"):
                env.step({})
            break
    return done_seen


@pytest.mark.parametrize("continuous", [False, True])
def test_parallel_api_conformance(fleet, continuous):
    env = lidarsim.ParallelEnv(fleet, continuous=continuous, max_steps=25)
    assert env.possible_agents == ["a", "b"]  # the external robots, in file order
    assert env.observation_space("a").shape == (90 * 7 + 2,) and env.observation_space("b").shape == (45 * 7 + 2,)
    if continuous:
        assert env.action_space("b").high.tolist() == pytest.approx([0.8, env.action_space("b").high[1]])
    else:
        assert env.action_space("a").n == len(lidarsim.ACTIONS)
    assert check_parallel_api(env, steps=40), "the episode should end after max_steps"
    # A second episode starts cleanly after the first ended.
    observations, _ = env.reset()
    assert env.agents == ["a", "b"] and set(observations) == {"a", "b"}
    env.close()
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


def test_shipped_fleet_world_has_its_external_robot(tmp_path):
    env = lidarsim.ParallelEnv(world_path("fleet"), render_mode="rgb_array", render_size=(320, 200))
    assert env.possible_agents == ["agent"]
    check_parallel_api(env, steps=5)
    frame = env.render()
    assert frame.shape == (200, 320, 3) and frame.dtype == np.uint8 and frame.std() > 0


def scan_with_program(program, path, robot, pose=None):
    args = [program, "scan", path, "--robot", robot, "--format", "json"]
    if pose is not None:
        args += ["--pose", ",".join(repr(float(v)) for v in pose)]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def expected_observation(scan, speed, limits):
    ranges = np.array([math.inf if r is None else r for r in scan["ranges"]])
    near = np.clip(ranges / scan["range_max"], 0.0, 1.0)
    near[~np.isfinite(ranges)] = 1.0
    groups = {None: 0, "wall": 1, "box": 1, "polygon": 1, "mover": 2, "vehicle": 3, "robot": 3, "target": 4}
    onehot = np.zeros((len(ranges), 6))
    onehot[np.arange(len(ranges)), [groups[h] for h in scan["hits"]]] = 1.0
    return np.concatenate([near, onehot.ravel(), [speed[0] / limits[0], speed[1] / limits[1]]]).astype(np.float32)


def test_observations_equal_the_programs_scans(fleet, fleet_path, program):
    env = lidarsim.ParallelEnv(fleet)
    robots = {r["id"]: r for r in fleet.robots}
    observations, infos = env.reset(seed=3)
    # At time 0 every robot stands where the file puts it, as `lidarsim scan --robot` places them.
    for agent in env.agents:
        scan = scan_with_program(program, fleet_path, agent)
        assert "robot" in scan["hits"], "the agents face each other and must see each other"
        limits = (robots[agent]["max_speed"], robots[agent]["max_turn_rate"])
        np.testing.assert_array_equal(observations[agent], expected_observation(scan, (0.0, 0.0), limits))
    # "a" drives, "b" stays put: a's scan from its new pose, with b where the file puts it, is the program's scan.
    for _ in range(10):
        observations, _, _, _, infos = env.step({"a": "forward_left", "b": "stop"})
    assert infos["b"]["pose"] == pytest.approx(robots["b"]["pose"], abs=1e-12)
    pose = infos["a"]["pose"]
    assert pose[0] > 3.3 and pose[2] > 5.0
    scan = scan_with_program(program, fleet_path, "a", pose)
    limits = (robots["a"]["max_speed"], robots["a"]["max_turn_rate"])
    # The pose goes through decimal degrees on the command line, so the ranges agree to rounding, not bits.
    np.testing.assert_allclose(observations["a"], expected_observation(scan, infos["a"]["speed"], limits), atol=1e-6)
    mine = env.scan("a")
    assert lidarsim.HIT_KINDS[mine.kinds[np.argmin(np.where(np.isfinite(mine.ranges), mine.ranges, 99))]] in (
        "wall", "robot")
    np.testing.assert_allclose(np.nan_to_num(mine.ranges, posinf=-1), np.nan_to_num(
        np.array([math.inf if r is None else r for r in scan["ranges"]]), posinf=-1), atol=1e-9)


def test_the_other_robots_follow_their_controllers(fleet):
    env = lidarsim.ParallelEnv(fleet)
    env.reset(seed=2)
    start = {r["id"]: r["pose"] for r in fleet.robots}
    for _ in range(30):
        env.step({"a": "stop", "b": "stop"})
    # The autopilot robot drives itself; the manual one (nobody holds the keys here) and the stopped agents stand.
    assert env.stats("pilot")["distance"] > 0.5
    for robot in ("a", "b", "parked"):
        assert env.stats(robot)["pose"] == pytest.approx(start[robot], abs=1e-12) and env.stats(robot)["distance"] == 0
    assert env.scan("pilot").ranges.shape == (60,)
    with pytest.raises(KeyError, match="no robot 'ghost'"):
        env.stats("ghost")


def test_same_seed_same_episode(fleet):
    def episode(seed):
        env = lidarsim.ParallelEnv(fleet, max_steps=60)
        observations, _ = env.reset(seed=seed)
        trace = [np.concatenate(list(observations.values()))]
        rng = np.random.default_rng(0)
        while env.agents:
            observations, rewards, _, _, infos = env.step({a: int(rng.integers(6)) for a in env.agents})
            trace.append(np.concatenate(list(observations.values()) + [np.array(list(rewards.values()))]))
        env.close()
        return np.concatenate(trace), infos

    first, infos_first = episode(11)
    again, infos_again = episode(11)
    assert np.array_equal(first, again) and infos_first == infos_again
    assert len(first) > 60 * (90 * 7 + 2)


def test_bad_actions_raise_clear_errors(fleet):
    env = lidarsim.ParallelEnv(fleet)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"a": 0, "b": 0})
    env.reset()
    with pytest.raises(TypeError, match="dict"):
        env.step([0, 0])
    with pytest.raises(KeyError, match="no agent 'pilot'"):
        env.step({"a": 0, "b": 0, "pilot": 0})
    with pytest.raises(KeyError, match="no action for agent 'b'"):
        env.step({"a": 0})
    with pytest.raises(ValueError, match=r"actions\['a'\]: expected an int in \[0, 6\)"):
        env.step({"a": 6, "b": 0})
    with pytest.raises(TypeError, match=r"actions\['b'\]"):
        env.step({"a": 0, "b": float("nan")})
    with pytest.raises(ValueError, match=r"actions\['b'\]: expected one of"):
        env.step({"a": 0, "b": "jump"})
    with pytest.raises(KeyError, match="no agent 'nobody'"):
        env.observation_space("nobody")
    cont = lidarsim.ParallelEnv(fleet, continuous=True)
    cont.reset()
    with pytest.raises(ValueError, match=r"actions\['a'\]: expected shape \(2,\)"):
        cont.step({"a": [0.1, 0.2, 0.3], "b": [0, 0]})
    with pytest.raises(ValueError, match=r"actions\['a'\]: not finite"):
        cont.step({"a": [math.nan, 0.0], "b": [0, 0]})
    with pytest.raises(ValueError, match=r"actions\['b'\]: \(v, w\) must lie within \+-\(0.8 m/s"):
        cont.step({"a": [0, 0], "b": [1.0, 0]})
    with pytest.raises(TypeError, match=r"actions\['a'\]: expected numbers"):
        cont.step({"a": "fast", "b": [0, 0]})
    # Nothing was stepped by the refused calls.
    assert cont.stats("a")["episode_step"] == 0
    _, rewards, _, _, infos = cont.step({"a": np.array([0.5, 0.0], np.float32), "b": (0.0, 0.1)})
    assert infos["a"]["speed"][0] > 0.0 and infos["a"]["episode_step"] == 1
    with pytest.raises(ValueError, match="render_mode"):
        lidarsim.ParallelEnv(fleet, render_mode="human")
    with pytest.raises(ValueError, match="max_steps"):
        lidarsim.ParallelEnv(fleet, max_steps=0)


def test_one_robot_world_has_one_agent():
    env = lidarsim.ParallelEnv(world_path("rldemo"), max_steps=3)
    single = lidarsim.Env(world_path("rldemo"), max_steps=3)
    assert env.possible_agents == ["robot"]
    observations, _ = env.reset(seed=9)
    obs, _ = single.reset(seed=9)
    assert np.array_equal(observations["robot"], obs)
    for action in (0, 3, 4):
        observations, rewards, _, truncations, _ = env.step({"robot": action})
        obs, reward, _, truncated, _ = single.step(action)
        assert np.array_equal(observations["robot"], obs) and rewards["robot"] == reward
        assert truncations["robot"] == truncated
