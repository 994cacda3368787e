"""Objects that own a C object, and processes: copies and pickles are refused (a copy shared the handle, and the
first copy collected freed the C object under the others), a forked child gets pools of its own, seeds of vectors
started from neighbouring seeds do not overlap, and a batch too large for the memory is refused before it is made.
Whatever could crash or hang runs in a child process with a timeout."""

import copy
import json
import pickle
import subprocess

import numpy as np
import pytest

import lidarsim
from conftest import ROOT, run_python, world_path
from lidarsim import world as world_module

SETUP = f"""
import copy, gc, pickle, numpy as np, lidarsim
world = lidarsim.load({world_path("rldemo")!r})
"""

# Each makes an object, copies it (which must raise TypeError), drops the copy if one was made, and uses the original.
COPIES = {
    "Sim": ("lidarsim.Sim(world)", "obj.step(); obj.pose"),
    "Env": ("lidarsim.Env(world)", "obj.reset(seed=0); obj.step(0)"),
    "VectorEnv": ("lidarsim.VectorEnv(world, 2, threads=1)", "obj.reset(seed=0); obj.step(np.zeros(2, int))"),
    "ParallelEnv": (f"lidarsim.ParallelEnv({world_path('fleet')!r})", "obj.reset(); obj.step({'agent': 0})"),
}


@pytest.mark.parametrize("name", sorted(COPIES))
@pytest.mark.parametrize("how", ["copy.copy", "copy.deepcopy", "pickle.dumps"])
def test_copies_of_objects_with_a_c_handle_are_refused(name, how):
    make, use = COPIES[name]
    done = run_python(SETUP + f"""
obj = {make}
try:
    other = {how}(obj)
except TypeError as e:
    print("refused:", e)
else:
    del other
    gc.collect()
{use}
print("original still works")
""")
    assert done.returncode == 0, done.stderr  # a signal (negative) was the crash
    assert f"refused: lidarsim.{name} cannot be" in done.stdout
    assert "make another" in done.stdout and "original still works" in done.stdout


def test_a_world_copies_as_itself_and_is_not_pickled():
    # Read-only: a copy may be the world itself (as for a tuple), so objects holding one deep-copy fine.
    done = run_python(SETUP + """
assert copy.copy(world) is world and copy.deepcopy(world) is world
holder = copy.deepcopy({"world": world, "poses": [1.0]})
assert holder["world"] is world
del holder
gc.collect()
print(world.scan().ranges[:3])
try:
    pickle.dumps(world)
except TypeError as e:
    print("refused:", e)
""")
    assert done.returncode == 0, done.stderr
    assert "refused: lidarsim.World cannot be pickled" in done.stdout and "lidarsim.load(path)" in done.stdout


def test_closed_objects_still_refuse_copies(rldemo):
    sim = lidarsim.Sim(rldemo)
    sim.close()
    with pytest.raises(TypeError, match="lidarsim.Sim cannot be copied"):
        copy.copy(sim)
    with pytest.raises(TypeError, match="lidarsim.Sim cannot be pickled"):
        pickle.dumps(sim)


FORK = SETUP + """
import multiprocessing, os, sys
from lidarsim import world as world_module
poses = np.random.default_rng(0).uniform([1, 1, -180], [19, 13, 180], size=(300, 3))
noisy = dict(noise=0.05, seed=7)
parent_batch = world.scan_batch(poses, threads=2, **noisy).ranges
vec = lidarsim.VectorEnv(world, 6, threads=2, max_steps=5)
vec.reset(seed=4)
actions = [np.arange(6) % 6, np.ones(6, int), np.full(6, 2)]

def vector_trace(v):
    v.reset(seed=9)
    return np.concatenate([v.step(a)[0] for a in actions * 3])

parent_vec = vector_trace(vec)
parent_fresh = vector_trace(lidarsim.VectorEnv(world, 6, threads=2, max_steps=5))
parent_pool = world_module.pool(2)

def child_work(_=None):
    # A fresh pool with live threads, the old objects running inline: the same results as the parent's.
    assert world_module.pool(2) is not parent_pool, "the parent's pool was kept"
    batch = world.scan_batch(poses, threads=2, **noisy).ranges
    threads = int([l for l in open("/proc/self/status") if l.startswith("Threads")][0].split()[1])
    return (np.array_equal(batch, parent_batch), np.array_equal(vector_trace(vec), parent_vec),
            np.array_equal(vector_trace(lidarsim.VectorEnv(world, 6, threads=2, max_steps=5)), parent_fresh), threads)
"""


def test_a_forked_child_gets_fresh_pools():
    done = run_python(FORK + """
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        os.write(write, repr(child_work()).encode())
    finally:
        os._exit(0)
os.close(write)
print("child:", os.read(read, 1000).decode())
os.waitpid(pid, 0)
""", timeout=60)  # a hang fails here (TimeoutExpired)
    assert done.returncode == 0, done.stderr
    same_batch, same_vector, same_fresh, threads = eval(done.stdout.split("child:", 1)[1])
    assert same_batch and same_vector and same_fresh
    assert threads >= 2  # the child's new pool of 2 has its own worker thread


def test_multiprocessing_fork_workers_get_fresh_pools():
    done = run_python(FORK + """
if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as workers:
        print("workers:", workers.map_async(child_work, range(4)).get(timeout=40))
""", timeout=60)
    assert done.returncode == 0, done.stderr
    results = eval(done.stdout.split("workers:", 1)[1])
    assert len(results) == 4 and all(r[0] and r[1] and r[2] for r in results)


def test_a_sweep_of_thread_counts_leaves_a_few_pools():
    done = run_python(SETUP + """
from lidarsim import world as world_module
for k in range(1, 41):
    world.scan_batch(np.full((4, 3), 5.0), threads=k)
print("threads:", [l for l in open("/proc/self/status") if l.startswith("Threads")][0].split()[1])
print("kept:", sorted(world_module._pools))
""")
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split("threads:")[1].split()[0]) <= 1 + 37 + 38 + 39 + 40  # every pool: 780
    assert "kept: [37, 38, 39, 40]" in done.stdout


@pytest.fixture(scope="module")
def rldemo():
    return lidarsim.load(world_path("rldemo"))


@pytest.fixture()
def noisy_world(tmp_path):
    # Lidar noise makes every episode's seed show in its observations.
    data = json.loads(open(world_path("rldemo")).read())
    data["robot"]["lidar"]["noise"] = 0.05
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(data))
    return lidarsim.load(path)


def vector_rows(world, seed, count=4, steps=100):
    vec = lidarsim.VectorEnv(world, count, threads=1, max_steps=20)
    obs, infos = vec.reset(seed=seed)
    rows = [obs]
    for _ in range(steps):
        rows.append(vec.step(np.zeros(count, int))[0])
    return np.stack(rows), infos["seed"]


def test_vectors_seeded_by_rank_do_not_share_episodes(noisy_world):
    # With seeds s + i + N * e, robot i + 1 of a vector seeded 0 replayed robot i of one seeded 1, step for step.
    a, seeds_a = vector_rows(noisy_world, 0)
    b, seeds_b = vector_rows(noisy_world, 1)
    assert not set(seeds_a.tolist()) & set(seeds_b.tolist())
    for i in range(4):
        for j in range(4):
            assert not np.array_equal(a[:, i], b[:, j])
            if i != j:
                assert not np.array_equal(a[:, i], a[:, j])
    again, seeds_again = vector_rows(noisy_world, 0)  # deterministic
    assert np.array_equal(a, again) and np.array_equal(seeds_a, seeds_again)


def test_a_vector_robot_is_an_env_started_from_its_seed(noisy_world):
    # Robot i of a vector is an Env reset with infos["seed"][i], then reset without a seed at each episode's end; the
    # seeds step's infos report for the new episodes are the ones an Env draws.
    vec = lidarsim.VectorEnv(noisy_world, 3, threads=2, max_steps=10)
    obs, infos = vec.reset(seed=5)
    assert infos["seed"].dtype == np.uint64 and infos["_seed"].all()
    env = lidarsim.Env(noisy_world, max_steps=10)
    env_obs, env_info = env.reset(seed=int(infos["seed"][2]))
    assert np.array_equal(env_obs, obs[2])
    for k in range(35):
        action = k % 5
        obs, rewards, _, truncs, infos = vec.step(np.full(3, action))
        env_obs, reward, _, truncated, _ = env.step(action)
        assert reward == rewards[2] and truncated == truncs[2]
        if truncated:
            assert np.array_equal(env_obs, infos["final_observation"][2])
            env_obs, env_info = env.reset()
            assert infos["_seed"][2] and env_info["seed"] == infos["seed"][2]
        assert np.array_equal(env_obs, obs[2])
    # A reset without a seed goes on from each robot's episode, as Env's.
    obs, infos = vec.reset()
    env_obs, env_info = env.reset()
    assert env_info["seed"] == infos["seed"][2] and np.array_equal(env_obs, obs[2])


def test_vector_seeds_are_splitmix_of_the_seed_and_the_index():
    seeds = world_module._first_episode_seeds(2**64 - 1, 3)
    mix = world_module._next_episode_seed
    start = mix((2**64 - 1) ^ world_module._VECTOR_TAG)
    assert seeds.tolist() == [mix((start + i) % 2**64) for i in range(3)]
    values = np.array([0, 1, 2**63, 2**64 - 1, 12345], np.uint64)
    assert world_module._next_episode_seeds(values).tolist() == [mix(int(v)) for v in values]


def test_a_batch_too_large_for_the_memory_is_refused(rldemo, monkeypatch):
    # numpy's empty arrays take no memory until written: the casts filled them until the kernel killed the process.
    poses = np.tile([5.0, 5.0, 0.0], (10_000, 1))
    monkeypatch.setattr(world_module, "_available_memory", lambda: 50 * 2**20)
    with pytest.raises(MemoryError, match=r"10000 scans of 1000 beams need about 0\.2 GiB .*ranges_only=True"):
        rldemo.scan_batch(poses, beams=1000)
    with pytest.raises(MemoryError, match="split the batch"):
        rldemo.scan_batch(poses, beams=1000, ranges_only=True)  # 80 MB
    assert rldemo.scan_batch(poses[:5000], beams=1000, ranges_only=True).ranges.shape == (5000, 1000)  # 40 MB
    with pytest.raises(MemoryError):
        rldemo.scan_batch(poses[:5000], beams=1000, ranges_only=True, dtype=np.float32)  # 60 MB with the copy


def test_a_huge_batch_in_a_small_address_space_is_refused():
    done = run_python(SETUP + """
import resource
resource.setrlimit(resource.RLIMIT_AS, (2**32, resource.RLIM_INFINITY))
try:
    world.scan_batch(np.tile([5.0, 5.0, 0.0], (2_000_000, 1)), beams=1000, ranges_only=True)
except MemoryError as e:
    print("refused:", e)
""")
    assert done.returncode == 0, done.stderr
    assert "refused: poses: 2000000 scans of 1000 beams need about 14.9 GiB" in done.stdout


def test_render_after_autopilot_steps_is_render_autopilot(program, tmp_path):
    # Two steps: the robot has not moved yet, so `lidarsim render`'s trail (which Sim.render does not draw) is empty
    # and the frames are the same pixel for pixel, the HUD's "autopilot on" included (it read "off").
    plt_image = pytest.importorskip("matplotlib.image")
    sim = lidarsim.Sim(lidarsim.load(world_path("default")))
    sim.step(autopilot=True, steps=2)
    frame = sim.render(320, 200)
    out = tmp_path / "ref.png"
    subprocess.run([program, "render", world_path("default"), "-o", str(out), "--steps", "2", "--size", "320x200",
                    "--autopilot"], check=True, capture_output=True, cwd=ROOT)
    reference = (plt_image.imread(out)[..., :3] * 255).round().astype(np.uint8)
    assert np.array_equal(frame, reference)
