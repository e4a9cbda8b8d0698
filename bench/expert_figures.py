"""The LMAct experts of tic-tac-toe and grid world, measured through the task protocol.

Tic-tac-toe: the minimax expert plays the uniformly random opponent from the openings
of seeds 0..N-1 (default 1,000); prints its win/draw/loss percentages, the exact
expected win rate over the uniform opening distribution (from the expert's memoised
search), and the random-legal baseline for comparison. The paper reports 85% wins
and no losses (LMAct §2.2).

Grid world: the shortest-path expert from seeds 0..N-1; prints how many episodes
reach the target and the maximum and mean number of steps (the paper: at most 18).

    .venv/bin/python bench/expert_figures.py [--episodes 1000]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.core import ExpertPolicy, RandomLegalPolicy  # noqa: E402
from envs.lmact import tictactoe  # noqa: E402
from envs.registry import make  # noqa: E402


def play(task_id: str, seed: int, policy) -> tuple[str, int, float]:
    """(end reason, steps, return) of one episode."""
    task = make(task_id)
    task.reset(seed)
    total = 0.0
    while True:
        result = task.step(policy.act(task))
        total += result.reward
        if result.done:
            return result.end_reason, task.steps_taken, total


def percentages(counts: collections.Counter, n: int) -> str:
    return "  ".join(f"{reason} {100 * counts[reason] / n:5.1f}%" for reason in ("won", "draw", "lost"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    n = parser.parse_args().episodes

    started = time.perf_counter()
    openings = tictactoe.openings()
    expected = sum(tictactoe._expert_choice(board)[1] for board in openings) / len(openings)
    expert = collections.Counter(play("lmact/tictactoe", s, ExpertPolicy(s))[0] for s in range(n))
    random_ = collections.Counter(play("lmact/tictactoe", s, RandomLegalPolicy(s))[0] for s in range(n))
    print(f"tic-tac-toe, {len(openings)} openings, seeds 0..{n - 1}")
    print(f"  expert vs random opponent: {percentages(expert, n)}")
    print(f"  expert, exact expectation over uniform openings: won {100 * float(expected):.2f}%, lost 0%")
    print(f"  random legal actions:      {percentages(random_, n)}")

    outcomes = [play("lmact/gridworld", s, ExpertPolicy(s)) for s in range(n)]
    steps = [taken for _, taken, _ in outcomes]
    reached = sum(reason == "reached the target" for reason, _, _ in outcomes)
    print(f"grid world, seeds 0..{n - 1}")
    print(f"  expert reached the target in {reached}/{n} episodes; steps max {max(steps)}, mean {statistics.fmean(steps):.2f}")
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
