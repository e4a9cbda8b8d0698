"""BALROG's Baba Is AI task (BALROG App. D): the expert and the random baseline, measured
through the task protocol.

Seeds 0..40·N−1 (default N = 3) play every one of the 40 families N times:

- expert (the engine search of envs.balrog.babaisai_expert): the share of levels it wins
  within the 100-move limit, the families and seeds it fails, its moves (mean, most) and
  its time per episode (mean, most), searches included;
- random legal actions: the mean progress (0 or 100 per episode, BALROG §3) with its
  standard error as BALROG reports it (population standard deviation / √N), and the
  families it ever wins.

    .venv/bin/python bench/balrog_babaisai_expert.py [--per-family 3]
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

from envs.registry import get_task_class  # noqa: E402
from envs.balrog.babaisai_levels import FAMILY_NAMES  # noqa: E402
from envs.core import ExpertPolicy, RandomLegalPolicy  # noqa: E402
from envs.registry import make  # noqa: E402

BabaIsAITask = get_task_class("balrog/babaisai")


def play(seed: int, policy_cls) -> tuple[str, float, int, float]:
    """(family, progress, moves, seconds) of one episode."""
    started = time.perf_counter()
    task = make(BabaIsAITask.id)
    task.reset(seed)
    policy = policy_cls(seed)
    while not task.step(policy.act(task)).done:
        pass
    return task.family, task.episode_metrics()["progress"], task.steps_taken, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-family", type=int, default=3)
    n = parser.parse_args().per_family * len(FAMILY_NAMES)

    expert = [play(seed, ExpertPolicy) for seed in range(n)]
    failed = [(family, seed) for seed, (family, progress, _, _) in enumerate(expert) if progress < 100]
    moves = [taken for _, progress, taken, _ in expert if progress == 100]
    seconds = [spent for *_, spent in expert]
    print(f"{BabaIsAITask.id}: seeds 0..{n - 1} ({n // len(FAMILY_NAMES)} per family, step limit 100)")
    print(f"  expert: won {100 * (n - len(failed)) / n:.1f}% ({n - len(failed)}/{n}); failed {failed}")
    if moves:
        print(f"          moves mean {statistics.fmean(moves):.1f}, most {max(moves)}")
    print(f"          seconds per episode mean {statistics.fmean(seconds):.3f}, most {max(seconds):.2f}, "
          f"total {sum(seconds):.1f}")

    random_runs = [play(seed, RandomLegalPolicy) for seed in range(n)]
    progress = [p for _, p, _, _ in random_runs]
    error = statistics.pstdev(progress) / math.sqrt(n)
    won = sorted({family for family, p, _, _ in random_runs if p == 100})
    print(f"  random legal actions: progress {statistics.fmean(progress):.1f} ± {error:.1f}; won in {won}")


if __name__ == "__main__":
    main()
