"""The fleet world's external robots driven through lidarsim.ParallelEnv (PettingZoo's parallel API, no PettingZoo
needed) by a small reactive policy that reads each agent's own observation: go forward while the beams ahead are
clear, else turn towards the more open side. The autopilot robots drive themselves meanwhile.

    python3 examples/python/fleet_parallel.py [--world worlds/fleet.json] [--steps 300] [--seed 1] [--frame out.png]

Prints each agent's return, collisions and distance; --frame writes the last frame (needs matplotlib for PNG).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import lidarsim  # noqa: E402  (from this checkout when run from it)


def policy(observation: np.ndarray, beams: int) -> int:
    """An action index from one observation (ranges / range in [0, 1] first, beam 0 at angle_min)."""
    near = observation[:beams]
    # With the sensor's beams spread counter-clockwise, the middle of the scan looks straight ahead.
    ahead = near[beams // 2 - beams // 12 : beams // 2 + beams // 12 + 1]
    if ahead.min() > 0.12:
        return lidarsim.ACTIONS.index("forward")
    left, right = near[beams // 2 :].mean(), near[: beams // 2].mean()
    return lidarsim.ACTIONS.index("left" if left > right else "right")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--world", default=str(root / "worlds" / "fleet.json"))
    parser.add_argument("--steps", type=int, default=300, help="agent steps (one per fresh scan)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--frame", help="write the last frame here (PNG)")
    args = parser.parse_args()

    env = lidarsim.ParallelEnv(args.world, render_mode="rgb_array" if args.frame else None, max_steps=args.steps)
    beams = {agent: (env.observation_space(agent).shape[0] - 2) // 7 for agent in env.possible_agents}
    observations, _ = env.reset(seed=args.seed)
    returns = {agent: 0.0 for agent in env.agents}
    while env.agents:
        actions = {agent: policy(observations[agent], beams[agent]) for agent in env.agents}
        observations, rewards, _, _, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    for agent in env.possible_agents:
        stats = env.stats(agent)
        print(
            f"{agent}: return {returns[agent]:+.1f}, collisions {stats['collisions']}, "
            f"distance {stats['distance']:.1f} m, food {stats['food']}, poison {stats['poison']}"
        )
    if args.frame:
        import matplotlib.pyplot as plt

        plt.imsave(args.frame, env.render())
        print(f"wrote {args.frame}")
    env.close()


if __name__ == "__main__":
    main()
