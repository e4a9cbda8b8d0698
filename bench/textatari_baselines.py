"""TextAtari's built-in baselines on every game, through the task protocol: the game
score and the human-normalised score of the uniformly random policy and of the
planning expert, over the seeds the baseline runs play (0..N-1).

Prints, per game and policy, the mean game score ± standard error, the mean
normalised score (in %, TextAtari §3.3: 0 % is the random figure of the DQN
literature, 100 % the human tester's) ± standard error, the mean episode length and
the seconds it took; then, per game, whether the expert's mean normalised score is
above the random policy's, and by how many of their combined standard errors.

The anchors are whole-game means (DQN: episodes of up to 5 minutes of play, 30 no-op
starts); an episode cut at its step limit is measured against them as it stands, so
the random policy normalises to about 0 only where a cut episode scores like a whole
one. The figures show how far each game is from that.

    nice .venv/bin/python bench/textatari_baselines.py [--max-steps 1000] [--seeds 5]
        [--policy random] [--policy expert] [--game pong ...]
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

from envs.core import make_policy  # noqa: E402
from envs.registry import make, tasks_of  # noqa: E402
from envs.textatari.scores import normalised_score  # noqa: E402


def play(task_id: str, policy_name: str, seed: int, max_steps: int) -> tuple[float, int]:
    """(game score, steps) of one episode."""
    task = make(task_id, max_steps=max_steps)
    policy = make_policy(type(task), policy_name, seed)
    task.reset(seed)
    try:
        while not task.done:
            task.step(policy.act(task))
        return task.score, task.steps_taken
    finally:
        task.close()


def mean_se(values: list[float]) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / √n), as the arena's
    runs report them."""
    mean = statistics.fmean(values)
    return mean, (statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-steps", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--policy", action="append", choices=("random", "expert"))
    parser.add_argument("--game", action="append", help="only these games, e.g. pong (repeatable)")
    args = parser.parse_args()
    policies = args.policy or ["random", "expert"]
    print(f"max_steps {args.max_steps}, seeds 0..{args.seeds - 1}")
    print(f"{'game':14} {'policy':7} {'game score':>18} {'normalised %':>18} {'steps':>7} {'s':>7}")
    verdicts = []
    for task_id in tasks_of("textatari"):
        game = task_id.split("/", 1)[1]
        if args.game and game not in args.game:
            continue
        normalised = {}
        for policy in policies:
            started = time.perf_counter()
            episodes = [play(task_id, policy, seed, args.max_steps) for seed in range(args.seeds)]
            scores = [score for score, _ in episodes]
            score_mean, score_se = mean_se(scores)
            normalised[policy] = mean_se([100 * normalised_score(game, score, args.max_steps) for score in scores])
            steps = statistics.fmean(steps for _, steps in episodes)
            print(
                f"{game:14} {policy:7} {score_mean:10.1f} ± {score_se:5.1f} "
                f"{normalised[policy][0]:10.2f} ± {normalised[policy][1]:5.2f} {steps:7.0f} "
                f"{time.perf_counter() - started:7.1f}",
                flush=True,
            )
        if len(normalised) == 2:
            (expert, expert_se), (random_, random_se) = normalised["expert"], normalised["random"]
            combined = math.hypot(expert_se, random_se)
            margin = (expert - random_) / combined if combined else math.inf if expert != random_ else 0.0
            verdicts.append((game, expert > random_, expert - random_, margin))
    if verdicts:
        print("\nexpert above random (normalised points, and in combined standard errors):")
        for game, above, difference, margin in verdicts:
            print(f"  {game:14} {'yes' if above else 'NO ':4} {difference:+9.2f} points  {margin:+7.1f} SE")
        print(f"expert above random on {sum(v[1] for v in verdicts)} of {len(verdicts)} games")


if __name__ == "__main__":
    main()
