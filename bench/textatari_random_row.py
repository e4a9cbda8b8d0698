"""Checks the random anchors against fresh random play: the arena's random baseline,
played on seeds apart from the anchor's, should read 0 % on the arena's normalised
TextAtari score within two standard errors, game by game, at every step limit measured.

Two rows per game and limit:
- the page's row: the five episodes the arena's random baseline plays (seeds 0–4,
  §3.1's five seeds), played here through the task itself (text, actions, step limit),
  exactly as the arena's runner plays them;
- a wider row: the same five and more seeds (0–49 by default), the extra ones driven
  without the text (bench.textatari_random_anchor.random_episode, which the script
  checks against the task on the first five), for the power five episodes lack.

The standard error of a row's mean, in percent of the anchor gap, is the one expected
from random play: √(sd² / n + se²) / |gap|, sd and se being the anchor's episode
standard deviation and standard error (five episodes of a skewed game, as H.E.R.O. or
Private Eye, often show no spread of their own). A row's own standard error is printed
beside it. A game flagged † (its anchor gap within random play's spread, or negative)
is listed but its verdict does not count.

With 23 games and two limits, about two rows in a hundred miss by chance at two
standard errors; a miss that the wider row does not repeat is such a case.

    nice .venv/bin/python bench/textatari_random_row.py [--limits 100 1000] [--episodes 50] [--game pong ...]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.textatari_random_anchor import random_episode  # noqa: E402
from envs.textatari.scores import MEASURED, anchors  # noqa: E402

PAGE_EPISODES = 5  # the arena's baseline episodes per TextAtari game (seeds 0–4)


def task_episode(game: str, seed: int, limits: tuple[int, ...]) -> dict[int, float]:
    """The arena's random baseline's episode of `seed`, through the task at the largest
    limit, with the score read when each smaller limit is reached (the task cut there
    plays the same steps: the policy's draws and the console depend only on the seed)."""
    from envs.core import make_policy
    from envs.registry import make

    task = make(f"textatari/{game}", max_steps=max(limits))
    policy = make_policy(type(task), "random", seed)
    task.reset(seed)
    result = {}
    for limit in sorted(limits):
        while not task.done and task.steps_taken < limit:
            task.step(policy.act(task))
        result[limit] = task.score
    return result


def check_game(job: tuple[str, tuple[int, ...], int]) -> tuple[str, dict[int, dict]]:
    game, limits, episodes = job
    page = [task_episode(game, seed, limits) for seed in range(PAGE_EPISODES)]
    for seed, played in enumerate(page):
        driven = random_episode(game, seed, limits)
        if {limit: score for limit, (score, _) in driven.items()} != played:
            raise RuntimeError(f"{game} seed {seed}: the text-free episode differs from the task's")
    extra = [random_episode(game, seed, limits) for seed in range(PAGE_EPISODES, episodes)]
    verdicts = {}
    for limit in limits:
        figures = anchors(game, limit)
        page_scores = [episode[limit] for episode in page]
        wider = page_scores + [episode[limit][0] for episode in extra]
        verdicts[limit] = {
            "anchor": figures,
            "page": _verdict(page_scores, figures),
            "wider": _verdict(wider, figures),
        }
    return game, verdicts


def _verdict(scores: list[float], figures) -> dict:
    count = len(scores)
    gap = abs(figures.gap)
    mean = 100 * (statistics.fmean(scores) - figures.random) / figures.gap
    own = 100 * statistics.stdev(scores) / math.sqrt(count) / gap if count > 1 else math.nan
    expected = math.nan
    if figures.random_sd is not None:
        expected = 100 * math.sqrt(figures.random_sd ** 2 / count + figures.random_se ** 2) / gap
    within = abs(mean) <= 2 * expected if expected > 0 else abs(mean) < 1e-9
    return {"episodes": count, "mean": mean, "own_se": own, "expected_se": expected, "within": within}


def main() -> None:
    from envs.textatari.games import VERBALISERS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limits", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--episodes", type=int, default=50, help="episodes of the wider row (seeds 0 … n − 1)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", action="append")
    args = parser.parse_args()
    games = args.game or sorted(verbaliser.game for verbaliser in VERBALISERS)
    limits = tuple(sorted(set(args.limits)))
    jobs = [(game, limits, max(args.episodes, PAGE_EPISODES)) for game in games]
    print("| Game | Steps | Anchor | Page row (seeds 0–4), % | Wider row (seeds 0–{}), % |".format(args.episodes - 1))
    print("|---|---|---|---|---|")
    misses = []
    with multiprocessing.Pool(args.workers) as pool:
        for game, verdicts in sorted(pool.imap_unordered(check_game, jobs)):
            for limit, verdict in verdicts.items():
                figures = verdict["anchor"]
                flagged = figures.within_random_spread
                anchor = (
                    f"{figures.random:.1f} ± {figures.random_se:.1f} ({figures.source}, {figures.episodes} ep.)"
                    if figures.source != "literature" else f"{figures.random:g} (literature)"
                ) + (" †" if flagged else "")
                cells = [_text(verdict[row], flagged) for row in ("page", "wider")]
                print(f"| {game} | {limit:,} | {anchor} | {cells[0]} | {cells[1]} |", flush=True)
                if not flagged and figures.source == MEASURED:
                    misses += [f"{game} at {limit:,} ({row})" for row in ("page", "wider") if not verdict[row]["within"]]
    print("\nmisses (not flagged, measured anchor):", ", ".join(misses) or "none")


def _text(verdict: dict, flagged: bool) -> str:
    mark = "†" if flagged else ("yes" if verdict["within"] else "**no**")
    return (
        f"{verdict['mean']:+.2f} (s.e. {verdict['expected_se']:.2f} expected, {verdict['own_se']:.2f} own): {mark}"
    )


if __name__ == "__main__":
    main()
