"""Two submissions compared on the games both played (`/compare/?a=&b=`): for each
task × format × variant, their episodes paired by seed (leaderboard.compare.paired)."""

from __future__ import annotations

import dataclasses
import re

from django.urls import reverse

from arena.models import Run, Submission
from arena.moderation import is_staff, owns
from envs.registry import all_suites, all_tasks
from envs.suite import Suite
from leaderboard.compare.paired import BOOTSTRAP_RESAMPLES, Pairing, episode_values, pair_runs
from leaderboard.compare.summaries import GameSummary, game_summaries
from leaderboard.selectors.submissions import runs_with_results, submissions_by_id


class ComparisonError(ValueError):
    """Parameters that name no comparison; the message says why, for a 400."""


def suite_for(task_id: str) -> Suite | None:
    """The suite of a task id, also for imported runs of tasks the catalogue lacks."""
    return all_suites().get(task_id.split("/", 1)[0])


def submissions_to_compare(query, viewer=None) -> tuple[Submission, Submission]:
    """The two submissions `?a=&b=` name; ComparisonError when they name no comparison.
    A taken-down one is left out, as of every ranking: its owner and staff are told so,
    everyone else reads what a submission that does not exist gives (arena.moderation)."""
    ids = []
    for name in ("a", "b"):
        raw = (query.get(name) or "").strip()
        if not raw:
            raise ComparisonError(f"name two submissions: ?a=<id>&b=<id> (the {name} parameter is missing)")
        if not re.fullmatch(r"[0-9]{1,18}", raw):
            raise ComparisonError(f"{name}={raw[:40]!r} is not a submission id (a whole number)")
        ids.append(int(raw))
    if ids[0] == ids[1]:
        raise ComparisonError("a and b are the same submission: pick two different ones")
    found = submissions_by_id(ids)
    for name, pk in zip(("a", "b"), ids):
        submission = found.get(pk)
        if submission is not None and submission.moderation == Submission.HIDDEN:
            if is_staff(viewer) or owns(viewer, submission):
                raise ComparisonError(f"submission {pk} (parameter {name}) was taken down by the operators: it is "
                                      "left out of comparisons, as of every ranking, until they restore it")
            submission = None
        if submission is None:
            raise ComparisonError(f"there is no submission {pk} (parameter {name})")
    return found[ids[0]], found[ids[1]]


def game_key(run: Run) -> tuple:
    """What makes two runs the same game for the comparison: the task, what the model
    sees (format, the task's options, the number of demonstrations) and whether it is
    the replay-control test. Prompt strategy stays out: it is part of what is compared."""
    settings = run.settings
    return (run.task, settings.format, tuple(sorted(settings.options.items())), settings.num_demonstrations,
            settings.replay_control)


def _representative_runs(submission: Submission) -> dict[tuple, Run]:
    """One run per game: the submission's own run before one of an experiment (which
    varies the prompt), then the one with the most finished episodes, then the newest."""
    runs = runs_with_results(submission)
    chosen: dict[tuple, Run] = {}
    for run in sorted(runs, key=lambda r: (r.experiment_id is not None, -r.episodes_done, -r.pk)):
        chosen.setdefault(game_key(run), run)
    return chosen


# A comparison listing more seeds than this shows each game's per-seed table on its own
# (`?seeds=<run>`): two submissions that played every task share some 6,000 seeds, a
# 1.9 MB page whose rows took half its CPU.
SEED_ROWS_ON_PAGE = 600


@dataclasses.dataclass(frozen=True)
class PairedGame:
    task_id: str
    title: str
    suite: Suite
    a_run: Run
    b_run: Run
    summary: GameSummary
    pairing: Pairing | None = None  # the seeds, paired: only for the games whose seeds are shown

    @property
    def variant(self) -> str:
        return " · ".join(p for p in [self.a_run.format, *self.a_run.settings.options_label()] if p)

    @property
    def demonstrations(self) -> int:
        return self.a_run.num_demonstrations

    @property
    def metric(self):
        return self.suite.primary_metric

    def replay_url(self, pair) -> str:
        return reverse("leaderboard:compare", args=[pair.a.episode_id, pair.b.episode_id])


@dataclasses.dataclass(frozen=True)
class Comparison:
    a: Submission
    b: Submission
    games: list[PairedGame]
    only_a: int  # games only a played
    only_b: int

    @property
    def shared_seeds(self) -> int:
        return sum(game.summary.shared_seeds for game in self.games)

    @property
    def seeds_apart(self) -> bool:
        """Each game's seeds on a page of their own (too many for one page)."""
        return self.shared_seeds > SEED_ROWS_ON_PAGE


def compare_submissions(a: Submission, b: Submission, *, seeds_of: int | None = None, every_seed: bool = False) -> Comparison:
    """The games a and b both played, each with its summary (leaderboard.compare.summaries);
    the paired seeds of every game when `every_seed` or when they fit on one page, else of
    the game whose run of a is `seeds_of` (if any)."""
    runs_a, runs_b = _representative_runs(a), _representative_runs(b)
    shared = [key for key in runs_a if key in runs_b]
    tasks = all_tasks()
    keys = sorted((key for key in shared if suite_for(key[0]) is not None),  # no suite: no metric to compare
                  key=lambda k: (_suite_order(k[0]), k[0], k[1:3], k[3], k[4]))
    summaries = game_summaries([(suite_for(key[0]).primary_metric, runs_a[key], runs_b[key]) for key in keys])
    games = [
        PairedGame(key[0], tasks[key[0]].title if key[0] in tasks else key[0], suite_for(key[0]), runs_a[key], runs_b[key],
                   summary)
        for key, summary in zip(keys, summaries)
    ]
    only_a, only_b = len(set(runs_a) - set(shared)), len(set(runs_b) - set(shared))
    comparison = Comparison(a, b, games, only_a, only_b)
    if every_seed or not comparison.seeds_apart:
        return dataclasses.replace(comparison, games=_with_seeds(games, lambda game: True))
    return dataclasses.replace(comparison, games=_with_seeds(games, lambda game: game.a_run.pk == seeds_of))


def _with_seeds(games: list[PairedGame], shown) -> list[PairedGame]:
    """The games, those `shown` with their seeds paired (one query per metric; the
    interval is the summary's, not resampled again)."""
    by_metric: dict[str, list[PairedGame]] = {}
    for game in games:
        if shown(game):
            by_metric.setdefault(game.metric.name, []).append(game)
    pairings = {}
    for metric_games in by_metric.values():
        metric = metric_games[0].metric
        values = episode_values([run.pk for game in metric_games for run in (game.a_run, game.b_run)], metric)
        for game in metric_games:
            pairings[game.a_run.pk, game.b_run.pk] = pair_runs(
                metric, values.get(game.a_run.pk, {}), values.get(game.b_run.pk, {}), interval=False
            )
    return [dataclasses.replace(game, pairing=pairings.get((game.a_run.pk, game.b_run.pk))) for game in games]


def _suite_order(task_id: str) -> int:
    suite = suite_for(task_id)
    return suite.order if suite else 10**6


def comparison_json(comparison: Comparison) -> dict:
    """The figures of the page, for the API."""

    def submission(s: Submission) -> dict:
        return {"id": s.pk, "name": s.name, "model": s.model, "kind": s.kind}

    games = []
    for game in comparison.games:
        pairing, summary, metric = game.pairing, game.summary, game.metric
        games.append({
            "task": game.task_id, "format": game.a_run.format, "options": game.a_run.options,
            "num_demonstrations": game.demonstrations, "metric": metric.name,
            "metric_label": metric.label, "higher_is_better": metric.higher_is_better,
            "a_run": game.a_run.pk, "b_run": game.b_run.pk,
            "shared_seeds": summary.shared_seeds, "paired": summary.paired, "missing": summary.missing,
            "unpaired_a": summary.only_a, "unpaired_b": summary.only_b,
            "mean_difference": summary.mean_difference,
            "ci95": list(summary.interval) if summary.interval else None,
            "better": summary.better or None,
            **summary.counts,
            "seeds": [
                {"seed": p.seed, "a_episode": p.a.episode_id, "b_episode": p.b.episode_id, "a": p.a.value,
                 "b": p.b.value, "difference": p.difference, "outcome": pairing.outcome(p.difference),
                 "replay": game.replay_url(p)}
                for p in pairing.pairs
            ],
        })
    return {
        "a": submission(comparison.a), "b": submission(comparison.b),
        "statistics": "mean of per-seed differences a − b with a percentile bootstrap 95 % interval "
                      f"({BOOTSTRAP_WORDS})",
        "games": games, "games_only_a": comparison.only_a, "games_only_b": comparison.only_b,
    }


BOOTSTRAP_WORDS = f"{BOOTSTRAP_RESAMPLES:,} resamples of the paired seeds with a fixed random seed"
