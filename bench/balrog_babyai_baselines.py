"""BALROG's BabyAI tasks (BALROG App. A): the expert and the random baseline, measured
through the task protocol.

For each of the five tasks, seeds 0..N-1 (default 200):

- expert (minigrid's BabyAIBot): the share of episodes it accomplishes, which should be
  at least 99 %, the seeds it fails, and the most and mean steps it needs against the
  task's step limit;
- random legal actions: the mean progress (0 or 100 per episode, BALROG §3) with its
  standard error as BALROG reports it (population standard deviation / √N). The paper
  gives no random figure for BabyAI (Tables 4 and 5 list models only).

    .venv/bin/python bench/balrog_babyai_baselines.py [--episodes 200]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.balrog.babyai import BabyAITask  # noqa: E402
from envs.core import ExpertPolicy, RandomLegalPolicy  # noqa: E402
from envs.registry import make, tasks_of  # noqa: E402


def play(task_id: str, seed: int, policy_cls) -> tuple[float, int]:
    """(progress, steps) of one episode."""
    task = make(task_id)
    task.reset(seed)
    policy = policy_cls(seed)
    while not task.step(policy.act(task)).done:
        pass
    return task.episode_metrics()["progress"], task.steps_taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    n = parser.parse_args().episodes

    for task_id, cls in tasks_of("balrog").items():
        if not issubclass(cls, BabyAITask):
            continue
        started = time.perf_counter()
        expert = [play(task_id, seed, ExpertPolicy) for seed in range(n)]
        failed = [seed for seed, (progress, _) in enumerate(expert) if progress < 100]
        steps = [taken for progress, taken in expert if progress == 100]
        random_progress = [play(task_id, seed, RandomLegalPolicy)[0] for seed in range(n)]
        mean = statistics.fmean(random_progress)
        error = statistics.pstdev(random_progress) / math.sqrt(n)
        print(f"{task_id} (step limit {cls.max_steps}), seeds 0..{n - 1}")
        print(f"  expert: accomplished {100 * (n - len(failed)) / n:.1f}% ({n - len(failed)}/{n}); failed seeds {failed}")
        if steps:
            print(f"          steps max {max(steps)}, mean {statistics.fmean(steps):.1f}")
        print(f"  random legal actions: progress {mean:.1f} ± {error:.1f}")
        print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
