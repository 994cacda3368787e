#!/usr/bin/env python3
"""Trains a DQN (PyTorch) on worlds/rldemo.json, the ConvNetJS reinforcement-learning demo's task: a robot with
9 range sensors learns to eat food (+1) and avoid poison (-1).

    python3 examples/python/train_dqn.py [--minutes 20] [--steps 1500000] [--out docs/python_dqn.png]

Double DQN with 3-step returns, a replay buffer and a target network, fed by a lidarsim.VectorEnv (16 robots stepped
in C). Every --eval-every environment steps the policy (epsilon-greedy with --eval-epsilon, the usual DQN evaluation:
a purely greedy policy can loop forever in a corner) plays --validation-episodes episodes on validation seeds, which
pick the network kept at the end, and --eval-episodes full episodes on held-out test seeds, which only measure (never
used in training or in the choice); the same test seeds score a random policy and the untrained network, the
baselines of the learning curve. Writes the curve (PNG) and its numbers (CSV beside it) and prints them.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "python"))  # run from a checkout without installing the package

import lidarsim  # noqa: E402

TEST_SEED = 1_000_000  # held-out test seeds start here; training seeds stay far below
VALIDATION_SEED = 500_000  # validation seeds (choosing the network kept), apart from both


def make_net(inputs: int, actions: int, hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, actions))


class Replay:
    """A ring of n-step transitions: (obs, action, discounted n-step reward, obs n steps later, discount)."""

    def __init__(self, capacity: int, size: int):
        self.obs = np.zeros((capacity, size), np.float32)
        self.next = np.zeros((capacity, size), np.float32)
        self.action = np.zeros(capacity, np.int64)
        self.reward = np.zeros(capacity, np.float32)
        self.discount = np.zeros(capacity, np.float32)
        self.capacity, self.count, self.at = capacity, 0, 0

    def add(self, obs, action, reward, nxt, discount):
        n = len(obs)
        idx = (self.at + np.arange(n)) % self.capacity
        self.obs[idx], self.action[idx], self.reward[idx], self.next[idx], self.discount[idx] = (
            obs, action, reward, nxt, discount)
        self.at = (self.at + n) % self.capacity
        self.count = min(self.count + n, self.capacity)

    def sample(self, rng, batch: int):
        idx = rng.integers(self.count, size=batch)
        return (torch.from_numpy(self.obs[idx]), torch.from_numpy(self.action[idx]),
                torch.from_numpy(self.reward[idx]), torch.from_numpy(self.next[idx]),
                torch.from_numpy(self.discount[idx]))


def evaluate(world, policy, episodes: int, max_steps: int, seed: int = TEST_SEED) -> np.ndarray:
    """Food minus poison of each of `episodes` full episodes from seed on (one robot per episode)."""
    env = lidarsim.VectorEnv(world, episodes, threads=1, max_steps=max_steps)
    obs, _ = env.reset(seed=seed)
    totals = np.zeros(episodes)
    for _ in range(max_steps):
        obs, reward, _, truncated, _ = env.step(policy(obs))
        totals += reward
    env.close()
    return totals


def epsilon_greedy(net, epsilon: float, seed: int):
    """The network's best action, a random one with probability epsilon (its own generator: reproducible)."""
    rng = np.random.default_rng(seed)

    def policy(obs):
        with torch.no_grad():
            best = net(torch.from_numpy(obs)).argmax(1).numpy()
        return np.where(rng.random(len(obs)) < epsilon, rng.integers(6, size=len(obs)), best)
    return policy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", default=str(ROOT / "worlds" / "rldemo.json"))
    parser.add_argument("--minutes", type=float, default=20.0, help="stop training after this many minutes")
    parser.add_argument("--steps", type=int, default=1_500_000, help="stop after this many environment steps")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--max-steps", type=int, default=1000, help="agent steps per episode (100 s simulated)")
    parser.add_argument("--eval-every", type=int, default=50_000)
    parser.add_argument("--eval-episodes", type=int, default=16, help="test episodes per evaluation")
    parser.add_argument("--validation-episodes", type=int, default=8)
    parser.add_argument("--eval-epsilon", type=float, default=0.05)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--gamma", type=float, default=0.97)
    parser.add_argument("--nstep", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--epsilon-steps", type=int, default=300_000, help="exploration decays 1 -> 0.05 over these")
    parser.add_argument("--learn-start", type=int, default=5_000, help="transitions stored before learning starts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "python_dqn.png"), help="learning curve PNG ('' none)")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    world = lidarsim.load(args.world)
    env = lidarsim.VectorEnv(world, args.envs, threads=1, max_steps=args.max_steps)
    size, actions = env.single_observation_space.shape[0], int(env.single_action_space.n)
    net = make_net(size, actions, args.hidden)
    untrained = make_net(size, actions, args.hidden)
    untrained.load_state_dict(net.state_dict())
    target = make_net(size, actions, args.hidden)
    target.load_state_dict(net.state_dict())
    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr)
    replay = Replay(300_000, size)

    started = time.time()
    random_scores = evaluate(world, lambda o: rng.integers(actions, size=len(o)), args.eval_episodes, args.max_steps)
    untrained_scores = evaluate(world, epsilon_greedy(untrained, args.eval_epsilon, 0), args.eval_episodes,
                                args.max_steps)
    print(f"baselines over {args.eval_episodes} held-out episodes: random {random_scores.mean():+.2f}, "
          f"untrained {untrained_scores.mean():+.2f} food minus poison", flush=True)

    curve = [(0, 0.0, untrained_scores.mean(), untrained_scores.std())]
    kept = make_net(size, actions, args.hidden)  # the network with the best validation score so far
    kept.load_state_dict(net.state_dict())
    best_validation, best_steps = -np.inf, 0
    obs, _ = env.reset(seed=args.seed)
    # The last n observations, actions and rewards of every robot, for n-step targets.
    history_obs, history_act, history_rew = [], [], []
    steps, updates, train_returns = 0, 0, []
    next_eval = args.eval_every
    train_seconds = 0.0
    while steps < args.steps and train_seconds < 60.0 * args.minutes:
        tick = time.time()
        epsilon = max(0.05, 1.0 - 0.95 * steps / args.epsilon_steps)
        with torch.no_grad():
            chosen = net(torch.from_numpy(obs)).argmax(1).numpy()
        explore = rng.random(args.envs) < epsilon
        action = np.where(explore, rng.integers(actions, size=args.envs), chosen)
        nxt, reward, _, truncated, info = env.step(action)
        history_obs.append(obs)
        history_act.append(action)
        history_rew.append(reward)
        if len(history_obs) == args.nstep:
            # Episodes end by time only: the n-step return bootstraps through the end (a truncation, not a
            # terminal state), from the last observation of the finished episode.
            last = np.where(truncated[:, None], info["final_observation"], nxt) if truncated.any() else nxt
            ret = sum(args.gamma ** k * history_rew[k] for k in range(args.nstep))
            replay.add(history_obs[0], history_act[0], ret, last, np.full(args.envs, args.gamma ** args.nstep))
            history_obs.pop(0)
            history_act.pop(0)
            history_rew.pop(0)
        if truncated.any():
            train_returns.extend(info["episode"]["r"][truncated].tolist())
            history_obs, history_act, history_rew = [], [], []  # n-step windows never span two episodes
        obs = nxt
        steps += args.envs

        if replay.count >= args.learn_start:
            o, a, r, n, d = replay.sample(rng, args.batch)
            with torch.no_grad():
                best = net(n).argmax(1, keepdim=True)  # Double DQN: the online net picks, the target net values
                y = r + d * target(n).gather(1, best).squeeze(1)
            q = net(o).gather(1, a.unsqueeze(1)).squeeze(1)
            loss = nn.functional.smooth_l1_loss(q, y)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 10.0)
            optimiser.step()
            updates += 1
            if updates % 1000 == 0:
                target.load_state_dict(net.state_dict())
        train_seconds += time.time() - tick

        if steps >= next_eval:
            next_eval += args.eval_every
            validation = evaluate(world, epsilon_greedy(net, args.eval_epsilon, 1), args.validation_episodes,
                                  args.max_steps, VALIDATION_SEED).mean()
            if validation > best_validation:
                best_validation, best_steps = validation, steps
                kept.load_state_dict(net.state_dict())
            scores = evaluate(world, epsilon_greedy(net, args.eval_epsilon, 0), args.eval_episodes, args.max_steps)
            curve.append((steps, train_seconds, scores.mean(), scores.std()))
            # No training episode may have ended yet at the first evaluations (n/a, not the mean of nothing).
            recent = f"{np.mean(train_returns[-32:]):+6.2f}" if train_returns else f"{'n/a':>6}"
            print(f"{steps:8d} steps {train_seconds / 60:5.1f} min  epsilon {epsilon:.2f}  training episodes "
                  f"{recent}  validation {validation:+6.2f}  held-out test {scores.mean():+6.2f} +- "
                  f"{scores.std():.2f}", flush=True)

    validation = evaluate(world, epsilon_greedy(net, args.eval_epsilon, 1), args.validation_episodes, args.max_steps,
                          VALIDATION_SEED).mean()
    if validation > best_validation:
        best_validation, best_steps = validation, steps
        kept.load_state_dict(net.state_dict())
    final = evaluate(world, epsilon_greedy(kept, args.eval_epsilon, 0), args.eval_episodes, args.max_steps)
    last = evaluate(world, epsilon_greedy(net, args.eval_epsilon, 0), args.eval_episodes, args.max_steps)
    if curve[-1][0] != steps:
        curve.append((steps, train_seconds, last.mean(), last.std()))
    total = time.time() - started
    print(f"trained {steps} environment steps, {updates} updates, in {train_seconds / 60:.1f} min of training "
          f"({total / 60:.1f} min with evaluations)")
    print(f"kept the network of step {best_steps} (best validation score {best_validation:+.2f}); last network on "
          f"the test seeds {last.mean():+.2f} +- {last.std():.2f}")
    print(f"held-out food minus poison per episode ({args.eval_episodes} episodes of {args.max_steps} steps, "
          f"epsilon {args.eval_epsilon}): trained {final.mean():+.2f} +- {final.std():.2f}, random {random_scores.mean():+.2f} +- "
          f"{random_scores.std():.2f}, untrained {untrained_scores.mean():+.2f} +- {untrained_scores.std():.2f}")

    if args.out:
        out = Path(args.out)
        with open(out.with_suffix(".csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["env_steps", "train_seconds", "test_mean", "test_std", "random_mean",
                             "untrained_mean"])
            for s, t, m, sd in curve:
                writer.writerow([s, f"{t:.1f}", f"{m:.3f}", f"{sd:.3f}", f"{random_scores.mean():.3f}",
                                 f"{untrained_scores.mean():.3f}"])
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
        xs = np.array([c[0] for c in curve]) / 1000.0
        ms = np.array([c[2] for c in curve])
        sds = np.array([c[3] for c in curve])
        ax.plot(xs, ms, "o-", color="tab:blue", label=f"DQN (epsilon {args.eval_epsilon})")
        ax.fill_between(xs, ms - sds, ms + sds, color="tab:blue", alpha=0.15)
        ax.axhline(random_scores.mean(), color="tab:red", ls="--", label="random policy")
        ax.axhline(untrained_scores.mean(), color="tab:gray", ls=":", label="untrained network")
        ax.plot([best_steps / 1000.0], [final.mean()], "*", color="tab:green", ms=14,
                label=f"kept (best validation): {final.mean():+.1f}")
        ax.set_xlabel("environment steps (thousands)")
        ax.set_ylabel("food minus poison per episode")
        ax.set_title(f"DQN on rldemo.json: {args.eval_episodes} held-out episodes of {args.max_steps} steps")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(out)
        print(f"wrote {out} and {out.with_suffix('.csv')}")
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
