"""LMAct cheetah run and Phoenix: planning experts against random actions, and pool cost.

For each task, plays the expert and a random policy through the task protocol on the
evaluation seeds 0..N-1 (100 steps each) and prints the mean return ± its standard
error and the expert's time per episode; then times building a pool of demonstrations
with `envs.demos.demonstration_pool` (distinct initial states, seeds from
DEMONSTRATION_SEED_BASE on), as the arena does before a run with demonstrations.

The random policy draws uniformly from legal_actions() (Phoenix) or, where the action
space is continuous and legal_actions() is empty (cheetah), uniformly from [-1, 1]^6.
Phoenix has only 74 distinct initial screens, so its pool stops there whatever size is
asked for. Everything runs in this one process, on one core.

    .venv/bin/python bench/lmact_control_experts.py [--episodes 6] [--pool 100] [--tasks lmact/cheetah lmact/phoenix]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.demos import demonstration_pool  # noqa: E402
from envs.registry import make  # noqa: E402

TASKS = ("lmact/cheetah", "lmact/phoenix")


def mean_and_error(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return mean, error


def play(task_id: str, seed: int, policy: str) -> tuple[float, float]:
    """(return, seconds) of one episode."""
    task = make(task_id)
    task.reset(seed)
    rng = random.Random(f"bench-random:{seed}")
    total = 0.0
    started = time.perf_counter()
    try:
        for _ in range(task.max_steps):
            if policy == "expert":
                action = task.expert_action()
            else:
                legal = task.legal_actions()
                action = rng.choice(legal) if legal else task.random_action(rng)
            result = task.step(action)
            total += result.reward
            if result.done:
                break
    finally:
        task.close()
    return total, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=6, help="evaluation episodes per policy (seeds 0..N-1)")
    parser.add_argument("--pool", type=int, default=100, help="demonstrations to build (0 to skip)")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    args = parser.parse_args()

    for task_id in args.tasks:
        print(f"== {task_id}: {args.episodes} episodes of 100 steps per policy", flush=True)
        for policy in ("expert", "random"):
            returns, seconds = zip(*(play(task_id, seed, policy) for seed in range(args.episodes)))
            mean, error = mean_and_error(list(returns))
            print(
                f"  {policy:6s} return {mean:8.2f} ± {error:6.2f} s.e."
                f"   (min {min(returns):.1f}, max {max(returns):.1f}; {statistics.fmean(seconds):.2f} s per episode)",
                flush=True,
            )
        if args.pool:
            format = make(task_id).formats[0]
            started = time.perf_counter()
            pool = demonstration_pool(task_id, format, args.pool)
            elapsed = time.perf_counter() - started
            mean, error = mean_and_error([demonstration.total_reward for demonstration in pool])
            print(
                f"  pool of {args.pool} asked: {len(pool)} demonstrations in {elapsed:.0f} s "
                f"({elapsed / max(len(pool), 1):.2f} s each), their return {mean:.2f} ± {error:.2f} s.e.",
                flush=True,
            )


if __name__ == "__main__":
    main()
