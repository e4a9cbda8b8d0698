"""AdventureGame baselines on all 144 instances (9 experiments × 16), clembench's by
default (`--instances arena` for the generated worlds).

Plays the oracle (an optimal solution) on every instance and prints, per experiment,
% played, quality (successes over all episodes, as the paper counts), goal success rate
and turns against the optimal number (without "done"), then the macro averages, the
paper's clemscore and clembench's code score. The oracle must score 100 on every
instance that has a solution. The random baseline is printed below
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
from envs.adventure.clem import data as clem_data  # noqa: E402
from envs.adventure.generator import EXPERIMENTS, INSTANCES_PER_EXPERIMENT  # noqa: E402
from envs.adventure.metrics import aggregate  # noqa: E402
from envs.registry import make  # noqa: E402


def play(policy_name: str, episodes_per_instance: int = 1, instances: str = "clembench") -> list[dict]:
    results = []
    for experiment in EXPERIMENTS:
        for repeat in range(episodes_per_instance):
            for index in range(INSTANCES_PER_EXPERIMENT):
                seed = index + repeat * INSTANCES_PER_EXPERIMENT
                task = make(f"adventure/{experiment}")
                task.configure(instances=instances)
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
    code = summary["code"]
    print(f"clembench's code score (pooled): quality {code['quality']:.1f}, played {code['played']:.1f}, "
          f"score {code['clemscore']:.1f}")
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-episodes", type=int, default=1, help="random episodes per instance")
    parser.add_argument("--instances", choices=("clembench", "arena"), default="clembench")
    args = parser.parse_args()

    start = time.perf_counter()
    oracle = play("oracle", instances=args.instances)
    report("oracle", oracle, time.perf_counter() - start)
    at_optimum = sum(1 for m in oracle if m["turns"] <= m["optimal_turns"] + 1)
    print(f"oracle episodes within the instance's optimal number of turns (+ done): {at_optimum}/{len(oracle)}")

    start = time.perf_counter()
    report("random", play("random", args.random_episodes, args.instances), time.perf_counter() - start)

    unsolvable = set()
    if args.instances == "clembench":
        unsolvable = {(e, i) for e in EXPERIMENTS for i in range(INSTANCES_PER_EXPERIMENT) if clem_data.unsolvable(e, i)}
    failed = [(m["experiment"], m["instance"]) for m in oracle if m["outcome"] != "success"]
    perfect = set(failed) <= unsolvable
    print(f"\noracle wins every solvable instance: {'yes' if perfect else 'NO'} (lost: {failed})")
    return 0 if perfect else 1


if __name__ == "__main__":
    sys.exit(main())
