"""Two submissions compared on the games both played (`/compare/?a=&b=`): for each
task × format × variant, their episodes paired by seed (leaderboard.compare.paired)."""

from __future__ import annotations

import dataclasses
import re

from django.urls import reverse

from arena.models import Run, Submission
from envs.registry import all_suites, all_tasks
from envs.suite import Suite
from leaderboard.compare.paired import BOOTSTRAP_RESAMPLES, Pairing, episode_values, pair_runs
from leaderboard.selectors.submissions import runs_with_results, submissions_by_id


class ComparisonError(ValueError):
    """Parameters that name no comparison; the message says why, for a 400."""


def suite_for(task_id: str) -> Suite | None:
    """The suite of a task id, also for imported runs of tasks the catalogue lacks."""
    return all_suites().get(task_id.split("/", 1)[0])


def submissions_to_compare(query) -> tuple[Submission, Submission]:
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
        if pk not in found:
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


@dataclasses.dataclass(frozen=True)
class PairedGame:
    task_id: str
    title: str
    suite: Suite
    a_run: Run
    b_run: Run
    pairing: Pairing

    @property
    def variant(self) -> str:
        return " · ".join(p for p in [self.a_run.format, *self.a_run.settings.options_label()] if p)

    @property
    def demonstrations(self) -> int:
        return self.a_run.num_demonstrations

    def replay_url(self, pair) -> str:
        return reverse("leaderboard:compare", args=[pair.a.episode_id, pair.b.episode_id])


@dataclasses.dataclass(frozen=True)
class Comparison:
    a: Submission
    b: Submission
    games: list[PairedGame]
    only_a: int  # games only a played
    only_b: int


def compare_submissions(a: Submission, b: Submission) -> Comparison:
    runs_a, runs_b = _representative_runs(a), _representative_runs(b)
    shared = [key for key in runs_a if key in runs_b]
    games = []
    tasks = all_tasks()
    for key in sorted(shared, key=lambda k: (_suite_order(k[0]), k[0], k[1:3], k[3], k[4])):
        suite = suite_for(key[0])
        if suite is None:
            continue  # a task of no known suite has no metric to compare
        a_run, b_run = runs_a[key], runs_b[key]
        metric = suite.primary_metric
        values = episode_values([a_run.pk, b_run.pk], metric)
        pairing = pair_runs(metric, values.get(a_run.pk, {}), values.get(b_run.pk, {}))
        title = tasks[key[0]].title if key[0] in tasks else key[0]
        games.append(PairedGame(key[0], title, suite, a_run, b_run, pairing))
    return Comparison(a, b, games, only_a=len(set(runs_a) - set(shared)), only_b=len(set(runs_b) - set(shared)))


def _suite_order(task_id: str) -> int:
    suite = suite_for(task_id)
    return suite.order if suite else 10**6


def comparison_json(comparison: Comparison) -> dict:
    """The figures of the page, for the API."""

    def submission(s: Submission) -> dict:
        return {"id": s.pk, "name": s.name, "model": s.model, "kind": s.kind}

    games = []
    for game in comparison.games:
        pairing = game.pairing
        games.append({
            "task": game.task_id, "format": game.a_run.format, "options": game.a_run.options,
            "num_demonstrations": game.demonstrations, "metric": pairing.metric.name,
            "metric_label": pairing.metric.label, "higher_is_better": pairing.metric.higher_is_better,
            "a_run": game.a_run.pk, "b_run": game.b_run.pk,
            "shared_seeds": len(pairing.pairs), "paired": len(pairing.differences), "missing": pairing.missing,
            "unpaired_a": pairing.only_a, "unpaired_b": pairing.only_b,
            "mean_difference": pairing.mean_difference,
            "ci95": list(pairing.interval) if pairing.interval else None,
            "better": pairing.better or None,
            **pairing.counts,
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
