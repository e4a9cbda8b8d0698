"""Reads for the model page (`/submissions/<id>/`): every run of a submission with its
suite's metrics, grouped by suite; where each stands among the other submissions on
the same task; its scaling curves; the submissions it can be compared with.

The page's view (leaderboard.web.submission_views) adds `model_page_context` to what it
shows of the submission itself."""

from __future__ import annotations

import dataclasses

from arena.models import Run, Submission
from envs.registry import all_suites, all_tasks
from envs.suite import Suite
from leaderboard.boards.charts import experiment_scaling_figures
from leaderboard.boards.cost_chart import submission_cost_context
from leaderboard.compare.submissions import suite_for
from leaderboard.selectors.experiment_figures import scaling_points
from leaderboard.selectors.ranking import MetricValue, metric_value, rank_key
from leaderboard.selectors.submissions import (
    every_ranked_run,
    older_runs_shown_to,
    ranked_runs_of_tasks,
    runs_of_submission,
    submissions_sharing_tasks,
    sweeps_with_results,
)

# The strip's drawing box, in SVG user units: dots are placed between the margins.
STRIP_WIDTH, STRIP_HEIGHT, STRIP_MARGIN = 180, 22, 7


@dataclasses.dataclass(frozen=True)
class Mark:
    label: str  # a submission's or a baseline's name, for the hover title
    value: float
    text: str  # the value as the leaderboard prints it
    x: float  # position in the strip, better to the right


@dataclasses.dataclass(frozen=True)
class Standing:
    """Where a run's value falls among the other submissions' best runs of the task."""

    own: Mark
    others: list[Mark]
    baselines: list[Mark]
    rank: int  # 1 + the others strictly better
    field: int  # submissions on the task, this one included

    @property
    def width(self) -> int:
        return STRIP_WIDTH

    @property
    def height(self) -> int:
        return STRIP_HEIGHT

    @property
    def middle(self) -> float:
        return STRIP_HEIGHT / 2


@dataclasses.dataclass(frozen=True)
class ResultRow:
    run: Run
    task_title: str
    metrics: list[MetricValue]  # the suite's, the primary first
    standing: Standing | None

    @property
    def primary(self) -> MetricValue | None:
        return self.metrics[0] if self.metrics else None


@dataclasses.dataclass(frozen=True)
class SuiteResults:
    suite: Suite | None  # None: imported runs of an unknown suite
    rows: list[ResultRow]

    @property
    def metric(self):
        return self.suite.primary_metric if self.suite else None


def _text(value: float, metric) -> str:
    return f"{value:.{metric.digits}f}{metric.unit}"


def _better_first(metric):
    return lambda value: -value if metric.higher_is_better else value


def _best_runs_by_submission(runs: list[Run], metric) -> dict[int, Run]:
    """Each submission's best run of a task, as the leaderboard ranks runs."""
    best: dict[int, Run] = {}
    for run in sorted(runs, key=lambda r: rank_key(r, metric)):
        best.setdefault(run.submission_id, run)
    return best


def _standing(run: Run, value: MetricValue, task_runs: list[Run]) -> Standing | None:
    if value.mean is None:
        return None
    metric = value.metric
    others, baselines = [], []
    for other in _best_runs_by_submission(task_runs, metric).values():
        if other.submission_id == run.submission_id:
            continue
        other_value = metric_value(other, metric).mean
        if other_value is None:
            continue
        target = baselines if other.submission.is_baseline else others
        target.append((other.submission.name, other_value))
    values = [value.mean] + [v for _, v in others + baselines]
    low, high = min(values), max(values)

    def mark(label: str, v: float) -> Mark:
        share = 0.5 if high == low else (v - low) / (high - low)
        if not metric.higher_is_better:
            share = 1 - share
        return Mark(label, v, _text(v, metric), STRIP_MARGIN + share * (STRIP_WIDTH - 2 * STRIP_MARGIN))

    order = _better_first(metric)
    rank = 1 + sum(1 for _, v in others if order(v) < order(value.mean))
    return Standing(
        own=mark(run.submission.name, value.mean),
        others=[mark(label, v) for label, v in others],
        baselines=[mark(label, v) for label, v in baselines],
        rank=rank, field=len(others) + 1,
    )


def model_results(submission: Submission, viewer, ranked_runs: list[Run] | None = None) -> list[SuiteResults]:
    """Every run of the submission (its own and its experiments'), grouped by suite in
    the suites' order, each with its suite's metrics and its standing on the task among
    the ranked runs (`ranked_runs` when given: every task's, leaderboard.selectors.
    submissions.every_ranked_run)."""
    runs = runs_of_submission(submission, viewer)
    tasks = all_tasks()
    played = {run.task for run in runs}
    task_runs: dict[str, list[Run]] = {}
    others = ranked_runs_of_tasks(played) if ranked_runs is None else [run for run in ranked_runs if run.task in played]
    for other in others:
        if not other.settings.replay_control:  # a copying test, not a score
            task_runs.setdefault(other.task, []).append(other)
    groups: dict[str, list[ResultRow]] = {}
    for run in runs:
        suite = suite_for(run.task)
        metrics = [metric_value(run, metric) for metric in suite.metrics] if suite else []
        standing = None
        hidden = run.is_hidden or submission.is_hidden  # in no ranking, so no standing among others
        if metrics and run.episodes_done and not run.settings.replay_control and not hidden:
            standing = _standing(run, metrics[0], task_runs.get(run.task, []))
        title = tasks[run.task].title if run.task in tasks else run.task
        groups.setdefault(suite.id if suite else "", []).append(ResultRow(run, title, metrics, standing))
    suites = all_suites()
    ordered = sorted(groups, key=lambda sid: suites[sid].order if sid in suites else 10**6)
    return [SuiteResults(suites.get(sid), groups[sid]) for sid in ordered]


def scaling_charts(submission: Submission, viewer) -> list[dict]:
    """The score-vs-demonstrations figures of the submission's sweeps that have results."""
    charts = []
    for experiment in sweeps_with_results(submission, viewer):
        _, baselines = scaling_points(experiment.task, experiment.format)
        figures = experiment_scaling_figures(experiment, baselines, viewer)
        charts.append({
            "experiment": experiment, "score": figures["score"], "illegal": figures["illegal"],
            "score_id": f"fig-sweep-{experiment.pk}-score", "illegal_id": f"fig-sweep-{experiment.pk}-illegal",
        })
    return charts


def comparison_choices(submission: Submission) -> list[Submission]:
    """Other submissions with finished episodes on a task this one played, models first."""
    # Models first: comparing with another model is the usual question, baselines after.
    return sorted(submissions_sharing_tasks(submission), key=lambda s: (s.is_baseline, s.name.lower(), s.pk))


def model_page_context(submission: Submission, viewer) -> dict:
    """What the model page shows `viewer`: a stranger reads it as if the submission's
    taken-down runs never existed, its owner reads them marked (leaderboard.selectors.submissions.runs_shown_to)."""
    # Every ranked run read once, for the standings and the cost charts' boards (read
    # twice, they were a fifth of the page at 10^5 episodes, bench/read_pages.py).
    ranked_runs = every_ranked_run()
    return {
        "results": model_results(submission, viewer, ranked_runs),
        "scaling_charts": scaling_charts(submission, viewer),
        "compare_choices": comparison_choices(submission),
        "older_harness_runs": older_runs_shown_to(submission, viewer),
        "cost_charts": submission_cost_context(submission, ranked_runs),
    }
