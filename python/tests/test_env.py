"""Sim, Env and VectorEnv: determinism, agreement with each other and with the lidarsim program, spaces, render."""

import json
import subprocess
import warnings

import numpy as np
import pytest

import lidarsim
from conftest import world_path
from lidarsim import spaces


@pytest.fixture(scope="module")
def rldemo():
    return lidarsim.load(world_path("rldemo"))


def test_sim_is_deterministic_and_drives(rldemo, tmp_path):
    a, b = lidarsim.Sim(rldemo, seed=4), lidarsim.Sim(rldemo, seed=4)
    for k in range(120):
        a.step(k % 6)
        b.step(lidarsim.ACTIONS[k % 6])
    assert a.state_hash() == b.state_hash() and a.pose == b.pose
    a.step(0.5, 0.2, steps=30)
    assert a.velocity[0] == pytest.approx(0.5) and a.velocity[1] == pytest.approx(0.2)
    a.reset(4)
    assert a.time == 0.0 and a.step_count == 0 and a.pose == pytest.approx(rldemo.robot_pose)
    a.step(autopilot=True, steps=300)
    assert a.stats["distance"] > 1.0 and a.step_count == 300
    scan = a.scan
    assert scan.ranges.shape == (9,) and scan.range_max == 3.0
    a.close()
    with pytest.raises(RuntimeError, match="closed"):
        a.step(0)


def test_sim_record_writes_json_lines(rldemo, tmp_path):
    sim = lidarsim.Sim(rldemo)
    path = tmp_path / "run.jsonl"
    sim.record(path)
    sim.step(0, steps=10)
    sim.stop_recording()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["step"] for line in lines] == list(range(11))
    assert lines[0]["scan"] is not None and len(lines[0]["scan"]["ranges"]) == 9
    assert sum(line["scan"] is not None for line in lines) == 1 + 10 // 3  # 10 scans/s at dt 1/30
    assert lines[-1]["pose"] == pytest.approx(list(sim.pose))


def test_sim_matches_the_run_command(program, rldemo):
    out = subprocess.run(
        [program, "run", world_path("rldemo"), "--steps", "400", "--autopilot", "--seed", "9", "--record", "-",
         "--every", "400"], capture_output=True, text=True, check=True)
    last = json.loads(out.stdout.splitlines()[-1])
    sim = lidarsim.Sim(rldemo, seed=9)
    sim.step(autopilot=True, steps=400)
    assert last["pose"] == list(sim.pose) and last["score"] == sim.score
    # A fleet: autopilot=True drives every robot, as --autopilot does (it drove only the first one).
    out = subprocess.run([program, "run", world_path("fleet"), "--steps", "300", "--autopilot", "--seed", "7"],
                         capture_output=True, text=True, check=True)
    fleet = lidarsim.Sim(lidarsim.load(world_path("fleet")), seed=7)
    fleet.step(autopilot=True, steps=300)
    assert f"hash: {fleet.state_hash():016x}" in out.stdout, out.stdout


def test_env_follows_the_gymnasium_api(rldemo):
    env = lidarsim.Env(rldemo)
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and obs.shape == (9 * 7 + 2,) and obs in env.observation_space
    assert env.action_space.n == 6 and info["episode_step"] == 0
    total = 0.0
    for k in range(200):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs in env.observation_space and terminated is False and isinstance(reward, float)
        total += reward
    assert info["score"] == total and info["episode_step"] == 200
    one_hot = obs[9:9 + 54].reshape(9, 6)
    assert (one_hot.sum(axis=1) == 1).all()
    again, _ = env.reset(seed=3)
    first, _ = lidarsim.Env(rldemo).reset(seed=3)
    assert np.array_equal(again, first)
    env.close()
    env.close()
    with pytest.raises(RuntimeError):
        env.step(0)


def test_unseeded_resets_do_not_replay_a_neighbour_seeds_episodes(rldemo, tmp_path):
    # Envs seeded s and s + 1 (as gymnasium's SyncVectorEnv seeds them): the first's second episode must not be the
    # second's first, and the seed in reset's info replays an episode exactly. Lidar noise makes the seed show.
    text = json.loads(open(world_path("rldemo")).read())
    text["robot"]["lidar"]["noise"] = 0.05
    (tmp_path / "noisy.json").write_text(json.dumps(text))
    noisy = lidarsim.load(str(tmp_path / "noisy.json"))

    def run(env, seed=None):
        obs, info = env.reset(seed=seed)
        trace = [obs]
        for k in range(60):
            trace.append(env.step(k % 6)[0])
        return info["seed"], np.array(trace)

    a = lidarsim.Env(noisy)
    first_seed, _ = run(a, seed=0)
    second_seed, second = run(a)
    assert first_seed == 0 and second_seed not in (0, 1)
    b_seed, b_first = run(lidarsim.Env(noisy), seed=1)
    assert b_seed == 1 and not np.array_equal(second, b_first)
    _, replayed = run(lidarsim.Env(noisy), seed=second_seed)
    assert np.array_equal(second, replayed)
    # The world's seed the first time, as before.
    assert run(lidarsim.Env(rldemo))[0] == rldemo.seed


def test_env_truncates_and_takes_continuous_actions(rldemo):
    env = lidarsim.Env(rldemo, continuous=True, max_steps=5)
    env.reset(seed=1)
    assert env.action_space.shape == (2,)
    for k in range(5):
        obs, reward, terminated, truncated, info = env.step(np.array([1.0, 0.5], np.float32))
    assert truncated and not terminated
    assert obs[-2] > 0.5 and obs[-1] > 0.0  # v / max_speed, w / max_turn_rate
    with pytest.raises(ValueError):
        env.step([5.0, 0.0])
    with pytest.raises(ValueError):
        env.step([np.nan, 0.0])
    with pytest.raises(ValueError):
        env.step([1.0])


def test_env_warns_once_of_a_step_after_truncation(rldemo):
    env = lidarsim.Env(rldemo, max_steps=3)
    for episode in range(2):
        env.reset(seed=episode)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning within the episode
            for k in range(3):
                truncated = env.step(0)[3]
        assert truncated
        with pytest.warns(UserWarning, match="after the episode was truncated; call reset"):
            env.step(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once an episode
            assert env.step(0)[3]


def test_env_observation_equals_vector_row(rldemo):
    env, vec = lidarsim.Env(rldemo), lidarsim.VectorEnv(rldemo, 3, threads=1)
    vec_obs, infos = vec.reset(seed=100)
    obs, _ = env.reset(seed=int(infos["seed"][1]))  # robot 1 of the vector starts with the seed its infos name
    assert np.array_equal(obs, vec_obs[1])
    for k in range(50):
        obs, reward, _, _, _ = env.step(k % 5)
        vec_obs, rewards, _, _, _ = vec.step(np.full(3, k % 5))
        assert np.array_equal(obs, vec_obs[1]) and reward == rewards[1]


def test_continuous_vector_row_equals_env(rldemo):
    # The vector reads its commands from a buffer it keeps (filled every step): row 2 must follow a lone Env driven by
    # the same commands, and the other rows their own.
    env, vec = lidarsim.Env(rldemo, continuous=True), lidarsim.VectorEnv(rldemo, 4, threads=2, continuous=True)
    _, infos = vec.reset(seed=40)
    obs, _ = env.reset(seed=int(infos["seed"][2]))
    for k in range(30):
        commands = np.array([[0.1 * i, 0.4 - 0.2 * i] for i in range(4)]) * ((k % 3) - 0.5)
        obs, reward, _, _, _ = env.step(commands[2])
        vec_obs, rewards, _, _, _ = vec.step(commands)
        assert np.array_equal(obs, vec_obs[2]) and reward == rewards[2]
    assert not np.array_equal(vec_obs[1], vec_obs[3])


def run_vector(world, threads, steps=150):
    vec = lidarsim.VectorEnv(world, 7, threads=threads, max_steps=40)
    obs, _ = vec.reset(seed=11)
    rng = np.random.default_rng(0)
    trace = [obs]
    for _ in range(steps):
        obs, rewards, terms, truncs, infos = vec.step(rng.integers(6, size=7))
        trace += [obs, rewards, truncs]
        if truncs.any():
            trace += [infos["final_observation"][truncs], infos["episode"]["r"]]
    return trace


def test_vector_env_identical_for_any_thread_count(rldemo):
    one = run_vector(rldemo, 1)
    for threads in (2, 4, None):
        other = run_vector(rldemo, threads)
        assert len(one) == len(other)
        assert all(np.array_equal(a, b) for a, b in zip(one, other))


def test_vector_env_actions_of_any_integer_type(rldemo):
    # Integer arrays take a shortcut (one unsigned comparison, then a copy into int32): every integer type and
    # layout must step as int32 does, and a value that a cast to int32 would wrap into [0, 6) must still be refused.
    actions = np.arange(5) % 6

    def trace(convert):
        vec = lidarsim.VectorEnv(rldemo, 5, threads=2, max_steps=15)
        obs, _ = vec.reset(seed=3)
        out = [obs]
        for k in range(20):
            obs, rewards, _, truncs, _ = vec.step(convert((actions + k // 3) % 6))
            out += [obs, rewards, truncs]
        return out

    reference = trace(lambda a: a.astype(np.int32))
    for convert in (lambda a: a.astype(np.int8), lambda a: a.astype(np.uint64), lambda a: a.astype(">i4"),
                    lambda a: np.repeat(a, 2)[::2], lambda a: a.tolist(), lambda a: a.astype(np.float64)):
        assert all(np.array_equal(x, y) for x, y in zip(reference, trace(convert)))
    vec = lidarsim.VectorEnv(rldemo, 2, threads=1)
    vec.reset(seed=3)
    for bad in (np.array([0, -1]), np.array([0, 2**32 + 1]), np.array([6, 0], np.uint8), np.array([0, -1], np.int8),
                np.array([0, 2**31], np.uint32), np.array([0, 7], ">i8")):
        with pytest.raises(ValueError, match=r"actions\[[01]\]"):
            vec.step(bad)
    with pytest.raises(TypeError):
        vec.step(np.array([True, False]))


def test_vector_env_resets_automatically(rldemo):
    vec = lidarsim.VectorEnv(rldemo, 4, threads=2, max_steps=10)
    assert vec.observation_space.shape == (4, 65) and vec.single_action_space.n == 6
    _, first = vec.reset(seed=50)
    for k in range(10):
        obs, rewards, terms, truncs, infos = vec.step(np.zeros(4, np.int64))
    assert truncs.all() and not terms.any()
    assert infos["_final_observation"].all() and infos["final_observation"].shape == (4, 65)
    # Robot 2's second episode has the seed drawn from its first's (as Env's next reset draws it), so its first
    # observation is a fresh reset with that seed.
    assert infos["_seed"].all() and infos["seed"][2] == lidarsim.world._next_episode_seed(int(first["seed"][2]))
    fresh, _ = lidarsim.Env(rldemo).reset(seed=int(infos["seed"][2]))
    assert np.array_equal(obs[2], fresh)
    assert not np.array_equal(infos["final_observation"][2], fresh)
    assert vec.stats(2)["episode_step"] == 0


def test_render_is_the_render_command(program, rldemo, tmp_path):
    plt_image = pytest.importorskip("matplotlib.image")
    env = lidarsim.Env(rldemo, render_mode="rgb_array", render_size=(320, 200))
    env.reset(seed=rldemo.seed)
    frame = env.render()
    assert frame.shape == (200, 320, 3) and frame.dtype == np.uint8
    png = tmp_path / "frame.png"
    subprocess.run([program, "render", world_path("rldemo"), "-o", str(png), "--size", "320x200"], check=True)
    expected = np.round(plt_image.imread(str(png))[:, :, :3] * 255).astype(np.uint8)
    assert np.array_equal(frame, expected)
    env.step(0)
    assert not np.array_equal(env.render(), frame)
    assert lidarsim.Env(rldemo).render() is None


def test_space_stand_ins():
    if spaces.HAVE_GYMNASIUM:
        pytest.skip("gymnasium's own spaces are in use")
    d = spaces.Discrete(6, seed=1)
    assert all(d.sample() in d for _ in range(50)) and 6 not in d and -1 not in d and 2.0 not in d
    b = spaces.Box(np.zeros(3), np.ones(3), dtype=np.float32, seed=2)
    assert b.sample() in b and np.full(3, 2.0, np.float32) not in b and np.zeros(4, np.float32) not in b
    m = spaces.MultiDiscrete([6, 6])
    assert m.sample() in m and np.array([6, 0]) not in m


def test_gymnasium_env_checker(rldemo):
    checker = pytest.importorskip("gymnasium.utils.env_checker")
    checker.check_env(lidarsim.Env(rldemo), skip_render_check=True)


def test_sim_record_refuses_the_files_the_world_was_read_from(tmp_path):
    # Review 28: sim.record(path) opened path for writing at once, so recording over the world (or the map it stands
    # on) replaced it with JSON lines, as `run --record` did before it refused them.
    world_file = tmp_path / "w.json"
    world_file.write_text(open(world_path("rldemo")).read())
    before = world_file.read_bytes()
    sim = lidarsim.Sim(lidarsim.load(world_file))
    for spelt in (world_file, tmp_path / "." / "w.json", str(tmp_path / "sub" / ".." / "w.json")):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(ValueError, match=r"w.json: not written: it would replace .*w.json, the world file"):
            sim.record(spelt)
        sim.step(0, steps=3)
        assert world_file.read_bytes() == before
    maps = tmp_path / "maps"
    maps.mkdir()
    border = [0 if x in (0, 7) or y in (0, 7) else 254 for y in range(8) for x in range(8)]
    (maps / "room.pgm").write_bytes(b"P5 8 8 255\n" + bytes(border))
    (maps / "room.yaml").write_text("image: room.pgm\nresolution: 0.5\norigin: [0, 0, 0]\n"
                                    "occupied_thresh: 0.65\nfree_thresh: 0.196\nnegate: 0\n")
    (tmp_path / "on.json").write_text('{"name": "on", "map": "maps/room.yaml", "robot": {"pose": [2, 2, 0]}}')
    map_before = [(maps / n).read_bytes() for n in ("room.pgm", "room.yaml")]
    for loaded, target, what in ((tmp_path / "on.json", maps / "room.pgm", "the map image"),
                                 (tmp_path / "on.json", maps / "room.yaml", "the map YAML"),
                                 (maps / "room.yaml", maps / "." / "room.yaml", "the map YAML")):
        sim = lidarsim.Sim(lidarsim.load(loaded))
        with pytest.raises(ValueError, match=f"not written: it would replace .*, {what} this world stands on"):
            sim.record(target)
        sim.close()
        assert [(maps / n).read_bytes() for n in ("room.pgm", "room.yaml")] == map_before


def test_sim_record_replaces_a_file_only_when_complete(rldemo, tmp_path):
    # The recording is written beside its name and renamed into place at stop_recording() or close(), as `run
    # --record` does: until then (and if writing fails) a file already there keeps its contents, and the name never
    # shows a half-written recording.
    path = tmp_path / "run.jsonl"
    path.write_text("the old file\n")
    sim = lidarsim.Sim(rldemo)
    sim.record(path)
    sim.step(0, steps=5)
    assert path.read_text() == "the old file\n"
    sim.close()
    assert [json.loads(line)["step"] for line in path.read_text().splitlines()] == list(range(6))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]  # no temporary file left
    # A recording given up (another record() over it) leaves no temporary file and the old contents.
    sim = lidarsim.Sim(rldemo)
    sim.record(tmp_path / "a.jsonl")
    sim.step(0, steps=2)
    sim.stop_recording()
    sim.record(tmp_path / "b.jsonl")
    sim.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "run.jsonl"]
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 3
    # A recording that cannot be written says so, and the sim goes on.
    sim = lidarsim.Sim(rldemo)
    sim.record("/dev/full")
    with pytest.raises(OSError, match="/dev/full: not written"):
        sim.step(0, steps=2000)
        sim.stop_recording()
    sim.step(0, steps=2)
    sim.close()


def test_box_stand_in_takes_sequences_as_gymnasium_does(rldemo):
    # gymnasium's Box.contains turns anything that is not an array into one of the box's dtype first, so a list of
    # Python floats inside the bounds is a member; the stand-in took it as float64, which cannot be cast to float32
    # safely, and said no, though Env.step takes that very list.
    if spaces.HAVE_GYMNASIUM:
        pytest.skip("gymnasium's own spaces are in use")
    env = lidarsim.Env(rldemo, continuous=True)
    assert [0.5, -1.0] in env.action_space and (0.5, -1.0) in env.action_space
    assert [2.0, 0.0] not in env.action_space and [0.5] not in env.action_space and ["a", "b"] not in env.action_space
    assert np.array([0.5, -1.0]) not in env.action_space  # an array keeps its dtype: float64 is not float32
    env.reset(seed=1)
    env.step([0.5, -1.0])


def test_vector_env_names_its_autoreset_mode_as_gymnasium_does(rldemo):
    # gymnasium (1.1 on) reads metadata["autoreset_mode"] as an AutoresetMode, whose same-step value is "SameStep";
    # "same-step" matched no mode (AutoresetMode("same-step") raises). In that mode gymnasium puts the finished
    # episodes' last observations under "final_obs" / "_final_obs": the same arrays as "final_observation".
    vec = lidarsim.VectorEnv(rldemo, 2, threads=1, max_steps=3)
    mode = vec.metadata["autoreset_mode"]
    assert getattr(mode, "value", mode) == "SameStep"
    vec.reset(seed=4)
    for _ in range(3):
        obs, _, _, truncs, infos = vec.step(np.zeros(2, int))
    assert truncs.all()
    assert infos["final_obs"] is infos["final_observation"] and infos["_final_obs"] is infos["_final_observation"]
    assert infos["_final_obs"].all() and not np.array_equal(infos["final_obs"], obs)
