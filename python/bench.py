#!/usr/bin/env python3
"""Benchmark of the Python package against the C library doing the same work; prints figures, asserts nothing.

    python3 python/bench.py [--envs 64] [--steps 1500] [--poses 100000] [--beams 360] [--repeat 3]

1. VectorEnv on worlds/rldemo.json with --envs robots: environment steps per second on 1 thread and on every core,
   against build/bench/ls_bench_batch running lsVecEnv (the same C work without Python) and the plain C agent loop
   (lsAgent_Step + lsAgent_Observe per robot). The actions follow the same fixed pattern in both.
2. World.scan_batch of --poses random poses x --beams beams on worlds/default.json: rays per second on 1 thread and
   on every core, against the same C call from ls_bench_batch.
Each figure is the best of --repeat runs. One-thread figures are per CPU second (time.process_time, lsCpuSeconds in
C), the fair measure on a shared machine; all-core figures are per wall-clock second. $LIDARSIM_BENCH names the C
program.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import lidarsim  # noqa: E402


def vector_steps_per_second(world, envs: int, steps: int, threads) -> float:
    vec = lidarsim.VectorEnv(world, envs, threads=threads, copy=False)
    # The C benchmark's pattern: robot i takes action (step // 7 + i) % 6; it repeats every 42 steps.
    table = [((s // 7 + np.arange(envs)) % 6).astype(np.int32) for s in range(42)]
    vec.reset(seed=1)
    clock = time.process_time if threads == 1 else time.perf_counter
    start = clock()
    for s in range(steps):
        vec.step(table[s % 42])
    seconds = clock() - start
    vec.close()
    return steps * envs / seconds


def scan_rays_per_second(world, poses: np.ndarray, beams: int, threads) -> float:
    clock = time.process_time if threads == 1 else time.perf_counter
    start = clock()
    batch = world.scan_batch(poses, beams=beams, threads=threads, ranges_only=True)
    seconds = clock() - start
    return batch.ranges.size / seconds


def best(repeat: int, fn, *args) -> float:
    return max(fn(*args) for _ in range(repeat))


def c_figures(args) -> dict:
    program = os.environ.get("LIDARSIM_BENCH", str(ROOT / "build" / "bench" / "ls_bench_batch"))
    if not os.path.isfile(program):
        print(f"(no C benchmark at {program}: build it with cmake --build build)")
        return {}
    figures: dict = {}
    for _ in range(args.repeat):
        out = subprocess.run(
            [program, "--agents", str(ROOT / "worlds" / "rldemo.json"), "--scans", str(ROOT / "worlds" / "default.json"),
             "--envs", str(args.envs), "--steps", str(args.steps), "--poses", str(args.poses), "--beams",
             str(args.beams)], capture_output=True, text=True, check=True, cwd=ROOT).stdout
        for line in out.splitlines():
            key, value = line.split()
            figures[key] = max(figures.get(key, 0.0), float(value))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--poses", type=int, default=100_000)
    parser.add_argument("--beams", type=int, default=360)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    agents = lidarsim.load(ROOT / "worlds" / "rldemo.json")
    scans = lidarsim.load(ROOT / "worlds" / "default.json")
    cores = lidarsim.VectorEnv(agents, 1, threads=None).threads
    x0, y0, x1, y1 = scans.bounds
    rng = np.random.default_rng(7)
    poses = np.column_stack([rng.uniform(x0, x1, args.poses), rng.uniform(y0, y1, args.poses),
                             rng.uniform(-180, 180, args.poses)])

    c = c_figures(args)
    py1 = best(args.repeat, vector_steps_per_second, agents, args.envs, args.steps, 1)
    pyn = best(args.repeat, vector_steps_per_second, agents, args.envs, args.steps, None)
    sc1 = best(args.repeat, scan_rays_per_second, scans, poses, args.beams, 1)
    scn = best(args.repeat, scan_rays_per_second, scans, poses, args.beams, None)

    def ratio(a, key):
        return f"{a / c[key]:.2f} of C" if c.get(key) else ""

    print(f"VectorEnv, rldemo.json, {args.envs} robots, {args.steps} steps (best of {args.repeat}); {cores} cores")
    print(f"  Python, 1 thread      {py1:12,.0f} steps/s  {ratio(py1, 'vecenv_1_thread_steps_per_s')}")
    print(f"  Python, {cores} threads     {pyn:12,.0f} steps/s  {ratio(pyn, 'vecenv_all_threads_steps_per_s')}"
          f"  ({pyn / py1:.2f}x of 1 thread)")
    if c:
        print(f"  C lsVecEnv, 1 thread  {c['vecenv_1_thread_steps_per_s']:12,.0f} steps/s")
        print(f"  C lsVecEnv, {cores} threads {c['vecenv_all_threads_steps_per_s']:12,.0f} steps/s")
        print(f"  C agent loop          {c['agent_loop_steps_per_s']:12,.0f} steps/s  (Python 1 thread: "
              f"{py1 / c['agent_loop_steps_per_s']:.2f} of it)")
    print(f"scan_batch, default.json, {args.poses} poses x {args.beams} beams")
    print(f"  Python, 1 thread      {sc1 / 1e6:12.2f} M rays/s  {ratio(sc1, 'scans_1_thread_rays_per_s')}")
    print(f"  Python, {cores} threads     {scn / 1e6:12.2f} M rays/s  {ratio(scn, 'scans_all_threads_rays_per_s')}"
          f"  ({scn / sc1:.2f}x of 1 thread)")
    if c:
        print(f"  C, 1 thread           {c['scans_1_thread_rays_per_s'] / 1e6:12.2f} M rays/s")
        print(f"  C, {cores} threads          {c['scans_all_threads_rays_per_s'] / 1e6:12.2f} M rays/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
