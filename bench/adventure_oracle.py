"""AdventureGame baselines on all 144 instances (9 experiments × 16).

Plays the oracle (the instance's optimal solution) on every instance and prints, per
experiment, % played, quality, goal success rate and turns against the optimal
number, then the macro averages and clemscore. The random baseline is printed below
for comparison (one episode per instance).

    .venv/bin/python bench/adventure_oracle.py [--random-episodes 1]
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.adventure.baselines import BASELINES  # noqa: E402
from envs.adventure.generator import EXPERIMENTS, INSTANCES_PER_EXPERIMENT  # noqa: E402
from envs.adventure.metrics import aggregate  # noqa: E402
from envs.registry import make  # noqa: E402


def play(policy_name: str, episodes_per_instance: int = 1) -> list[dict]:
    results = []
    for experiment in EXPERIMENTS:
        for repeat in range(episodes_per_instance):
            for index in range(INSTANCES_PER_EXPERIMENT):
                seed = index + repeat * INSTANCES_PER_EXPERIMENT
                task = make(f"adventure/{experiment}")
                task.reset(seed)
                policy = BASELINES[policy_name](seed)
                while True:
                    reply = policy.act(task)
                    if not reply.startswith(">"):
                        raise AssertionError(f"a baseline reply must start with >: {reply!r}")
                    if task.step(reply).done:
                        break
                results.append(task.episode_metrics())
    return results


def report(title: str, results: list[dict], seconds: float) -> dict:
    summary = aggregate(results)
    print(f"\n{title}: {len(results)} episodes in {seconds:.2f} s")
    print(f"{'experiment':<18} {'played':>7} {'quality':>8} {'goal rate':>10} {'turns':>7} {'optimal':>8}")
    for experiment, row in summary["experiments"].items():
        print(
            f"{experiment:<18} {row['played']:>7.1f} {row['quality']:>8.1f} {row['goal_success_rate']:>10.1f} "
            f"{row['turns']:>7.2f} {row['optimal_turns']:>8.2f}"
        )
    print(
        f"{'macro':<18} {summary['played']:>7.1f} {summary['quality']:>8.1f} {summary['goal_success_rate']:>10.1f}"
        f"   clemscore {summary['clemscore']:.1f}"
    )
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-episodes", type=int, default=1, help="random episodes per instance")
    args = parser.parse_args()

    start = time.perf_counter()
    oracle = play("oracle")
    summary = report("oracle", oracle, time.perf_counter() - start)
    at_optimum = sum(1 for m in oracle if m["turns"] == m["optimal_turns"])
    print(f"oracle episodes using exactly the optimal number of turns: {at_optimum}/{len(oracle)}")

    start = time.perf_counter()
    report("random", play("random", args.random_episodes), time.perf_counter() - start)

    perfect = all(summary[k] == 100.0 for k in ("played", "quality", "goal_success_rate"))
    perfect = perfect and all(
        row[k] == 100.0 for row in summary["experiments"].values() for k in ("played", "quality", "goal_success_rate")
    )
    print(f"\noracle scores 100 everywhere: {'yes' if perfect else 'NO'}")
    return 0 if perfect else 1


if __name__ == "__main__":
    sys.exit(main())
