"""The examples: Dask scans on a two-worker LocalCluster equal scan_batch; the DQN trains for a few hundred steps;
the fleet example drives its agent through ParallelEnv."""

import subprocess
import sys

import numpy as np
import pytest

import lidarsim
from conftest import ROOT, world_path

EXAMPLES = ROOT / "examples" / "python"


def test_dask_scans_on_a_local_cluster_equal_scan_batch():
    pytest.importorskip("dask.distributed")
    sys.path.insert(0, str(EXAMPLES))
    import dask_scans

    dask_scans._share_paths()
    from dask.distributed import Client, LocalCluster

    path = world_path("default")
    poses = dask_scans.random_poses(path, 3000, seed=7)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        ranges = dask_scans.scan_dataset(client, path, poses, beams=90, chunk=400)
        workers = {w for w in client.run(lambda: 1)}
    assert len(workers) == 2
    expected = lidarsim.load(path).scan_batch(poses, beams=90).ranges.astype(np.float32)
    assert ranges.shape == (3000, 90) and np.array_equal(ranges, expected)


def test_dqn_trains_a_few_hundred_steps(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    out = tmp_path / "curve.png"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_dqn.py"), "--steps", "300", "--envs", "4", "--max-steps", "30",
         "--eval-every", "150", "--eval-episodes", "1", "--learn-start", "100", "--out", str(out)],
        capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "held-out food minus poison" in done.stdout and out.is_file() and out.with_suffix(".csv").is_file()
    rows = out.with_suffix(".csv").read_text().splitlines()
    assert rows[0].startswith("env_steps") and len(rows) >= 3


def test_dqn_reports_no_training_episode_before_the_first_ends(tmp_path):
    # An evaluation before any training episode ended printed "training episodes   +nan".
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_dqn.py"), "--steps", "120", "--envs", "2", "--max-steps", "40",
         "--eval-every", "40", "--eval-episodes", "1", "--learn-start", "50", "--out", str(tmp_path / "curve.png")],
        capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "training episodes" in line]
    assert len(lines) >= 2 and "nan" not in done.stdout.lower()
    assert "training episodes    n/a" in lines[0] and "n/a" not in lines[-1]


def test_fleet_parallel_example_drives_the_external_robot():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "fleet_parallel.py"), "--steps", "40", "--seed", "2"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[0]
    assert line.startswith("agent: return ") and "distance" in line
    assert float(line.split("distance ")[1].split(" m")[0]) > 1.0
