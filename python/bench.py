#!/usr/bin/env python3
"""Benchmark of the Python package against the C library doing the same work; prints figures, asserts nothing.

    python3 python/bench.py [--envs 64] [--steps 1500] [--poses 100000] [--beams 360] [--repeat 3]
    python3 python/bench.py --speedup [--envs 64] [--steps 50] [--rounds 40] [--threads 2] [--no-copy]

1. VectorEnv on worlds/rldemo.json with --envs robots: environment steps per second on 1 thread and on every core,
   against build/bench/ls_bench_batch running lsVecEnv (the same C work without Python) and the plain C agent loop
   (lsAgent_Step + lsAgent_Observe per robot). The actions follow the same fixed pattern in both.
2. World.scan_batch of --poses random poses x --beams beams on worlds/default.json: rays per second on 1 thread and
   on every core, against the same C call from ls_bench_batch.
Each figure is the best of --repeat runs. One-thread figures are per CPU second (time.process_time, lsCpuSeconds in
C), the fair measure on a shared machine; all-core figures are per wall-clock second. $LIDARSIM_BENCH names the C
program.

--speedup measures only the VectorEnv's speed-up from 1 thread to --threads (wall clock on both), the figure issue 16
asks >= 1.8x of on 2 cores: two vectors in the same states stepped by the same actions in --rounds rounds of one
block of --steps steps each, so that a burst of other work on a shared machine spoils a few rounds rather than one
side. It prints the median and quartiles of the rounds' ratios, the medians of the steps and the CPU time per step
on 1 thread, for all rounds and for the rounds in which other processes took under 5 % of the machine (/proc/stat).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Tuple

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


def busy_seconds() -> Optional[Tuple[float, float]]:
    """(busy, total) CPU seconds of the whole machine so far from /proc/stat (Linux), or None."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def speedup(world, envs: int, steps: int, rounds: int, threads: int, copy: bool) -> None:
    table = [((s // 7 + np.arange(envs)) % 6).astype(np.int32) for s in range(42)]
    vectors = {n: lidarsim.VectorEnv(world, envs, threads=n, copy=copy) for n in (1, threads)}
    for vec in vectors.values():
        vec.reset(seed=1)
    done = {n: 0 for n in vectors}

    def block(n: int) -> tuple:
        vec, first = vectors[n], done[n]
        wall, cpu = time.perf_counter(), time.process_time()
        for s in range(first, first + steps):
            vec.step(table[s % 42])
        done[n] += steps
        return (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps

    block(1)  # warm: the caches, the pool's threads
    block(threads)
    # Per round: 1-thread wall and CPU per step, n-thread wall per step, and the share of the machine that other
    # processes took meanwhile (the machine's busy time less this process's CPU time; None without /proc/stat).
    results = []
    for r in range(rounds):
        before, cpu = busy_seconds(), time.process_time()
        order = (1, threads) if r % 2 == 0 else (threads, 1)
        timed = {n: block(n) for n in order}
        after, cpu = busy_seconds(), time.process_time() - cpu
        others = None
        if before is not None and after is not None and after[1] > before[1]:
            others = max(0.0, after[0] - before[0] - cpu) / (after[1] - before[1])
        results.append((timed[1][0], timed[1][1], timed[threads][0], others))
    for vec in vectors.values():
        vec.close()
    print(f"VectorEnv, rldemo.json, {envs} robots, copy={copy}: {rounds} rounds of {steps} steps on 1 thread and "
          f"{steps} on {threads} (the same actions, the same states); load {os.getloadavg()[0]:.2f} after")

    def report(rows: list, label: str) -> None:
        if not rows:
            print(f"  {label}: none")
            return
        one, cpu, many = (np.median([row[k] for row in rows]) for k in range(3))
        ratios = np.array([row[0] / row[2] for row in rows])
        q1, q3 = np.percentile(ratios, [25, 75])
        # The ratio within each round is the figure (both sides stepped the same states); the medians of the two
        # columns come from different rounds, and rounds differ in cost (collisions, episode ends).
        print(f"  {label}: {len(rows)} rounds; speed-up {np.median(ratios):.3f}x (median of the rounds' ratios; "
              f"quartiles {q1:.3f}x to {q3:.3f}x); medians: 1 thread {one * 1e6:.1f} us/step (CPU "
              f"{cpu * 1e6:.1f}), {threads} threads {many * 1e6:.1f} us/step")

    report(results, "all rounds")
    if results[0][3] is not None:
        print(f"  other processes' share of the machine per round: median {np.median([r[3] for r in results]):.0%}")
        report([r for r in results if r[3] < 0.05], "rounds in which other processes took under 5 %")


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
    parser.add_argument("--steps", type=int, default=None, help="1500; 50 with --speedup")
    parser.add_argument("--poses", type=int, default=100_000)
    parser.add_argument("--beams", type=int, default=360)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--speedup", action="store_true", help="only the VectorEnv's 1 -> --threads speed-up")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-copy", action="store_true", help="VectorEnv(copy=False) for --speedup")
    args = parser.parse_args()
    if args.speedup:
        speedup(lidarsim.load(ROOT / "worlds" / "rldemo.json"), args.envs, args.steps or 50, args.rounds,
                args.threads, not args.no_copy)
        return 0
    args.steps = args.steps or 1500

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
