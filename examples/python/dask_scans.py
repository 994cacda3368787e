#!/usr/bin/env python3
"""Generates a scan dataset (poses in, ranges out, saved as .npy) with Dask distributed: the poses are split into
chunks, each worker casts its chunks with World.scan_batch (in C, the GIL released), and the rows come back in order.

    python3 examples/python/dask_scans.py [WORLD.json] [--poses 200000] [--beams 360] [--chunk 10000]
                                          [--scheduler tcp://HOST:8786 | --workers 2] [--out scans]

Without --scheduler it starts a LocalCluster of --workers processes on this machine; with it, the work goes to that
cluster, whose workers need the lidarsim package (pip install ./python) and the world file at the same path. Writes
OUT_poses.npy ((K, 3): x, y, theta degrees, uniform over the world's bounds; some inside walls, as a dataset of
random poses has) and OUT_ranges.npy ((K, beams) float32, inf for no return). The result is the same as one
World.scan_batch over all poses, whatever the cluster.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent.parent / "python"


def _share_paths() -> None:
    """Local workers are new processes: let them import this file and a lidarsim package from a checkout."""
    paths = [str(HERE), str(PACKAGE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    sys.path[:0] = [p for p in (str(HERE), str(PACKAGE)) if p not in sys.path]


_worlds: dict = {}


def scan_chunk(world_path: str, poses: np.ndarray, beams: int, threads: int) -> np.ndarray:
    """Runs on a worker: ranges of one chunk of poses (the world is loaded once per worker process)."""
    import lidarsim

    if world_path not in _worlds:
        _worlds[world_path] = lidarsim.load(world_path)
    batch = _worlds[world_path].scan_batch(poses, beams=beams, threads=threads, ranges_only=True, dtype=np.float32)
    return batch.ranges


def random_poses(world_path: str, count: int, seed: int) -> np.ndarray:
    """count poses uniform over the world's bounds, headings uniform in [-180, 180) degrees."""
    import lidarsim

    x0, y0, x1, y1 = lidarsim.load(world_path).bounds
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(x0, x1, count), rng.uniform(y0, y1, count), rng.uniform(-180, 180, count)])


def scan_dataset(client, world_path: str, poses: np.ndarray, beams: int, chunk: int, threads: int = 1) -> np.ndarray:
    """The (K, beams) float32 ranges of every pose, cast in chunks on the client's cluster, in the poses' order."""
    world_path = os.path.abspath(world_path)
    futures = [
        client.submit(scan_chunk, world_path, poses[start : start + chunk], beams, threads, pure=False)
        for start in range(0, len(poses), chunk)
    ]
    parts = client.gather(futures)
    return np.concatenate(parts) if parts else np.zeros((0, beams), np.float32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("world", nargs="?", default=str(HERE.parent.parent / "worlds" / "default.json"))
    parser.add_argument("--poses", type=int, default=200_000)
    parser.add_argument("--beams", type=int, default=360)
    parser.add_argument("--chunk", type=int, default=10_000, help="poses per task")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--threads", type=int, default=1, help="scan threads inside each task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="scans", help="prefix of the .npy files")
    args = parser.parse_args()
    if args.poses < 1 or args.chunk < 1 or args.beams < 1 or args.workers < 1:
        parser.error("--poses, --chunk, --beams and --workers must be positive")
    if not os.path.isfile(args.world):
        parser.error(f"{args.world}: no such file")

    _share_paths()
    from dask.distributed import Client, LocalCluster

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    try:
        poses = random_poses(args.world, args.poses, args.seed)
        start = time.perf_counter()
        ranges = scan_dataset(client, args.world, poses, args.beams, args.chunk, args.threads)
        seconds = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    np.save(f"{args.out}_poses.npy", poses)
    np.save(f"{args.out}_ranges.npy", ranges)
    rays = ranges.size
    print(f"{len(poses)} scans of {args.beams} beams ({rays / 1e6:.1f} M rays) in {seconds:.2f} s "
          f"({rays / seconds / 1e6:.2f} M rays/s) -> {args.out}_poses.npy, {args.out}_ranges.npy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
