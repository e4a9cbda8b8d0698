"""Reads for the leaderboard pages and API. Numbers come from the aggregates kept on
`Run` (updated when episodes finish), never from scanning steps."""

from __future__ import annotations

import dataclasses

from arena.clients.errors import describe
from django.db import router
from django.shortcuts import get_object_or_404

from arena.models import Run
from arena.moderation import not_found, ranked, taken_down_for, visible_to
from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, suite_of, tasks_of
from leaderboard.selectors.episodes import failed_episode_errors
from leaderboard.selectors.lean_runs import (
    SUBMISSION_SECRETS_AND_PROBE,
    lean_built,
    lean_runs,
    lean_values,
    with_submissions,
)
from leaderboard.selectors.ranking import (
    LeaderboardRow,
    SuiteBoard,
    ranked_rows,
    task_board,
    with_all_metrics,
)
from leaderboard.selectors.statements import kept_rows


STRATEGY_FILTERS = {
    "naive": "Naive (answer only)",
    "cot": "Chain of thought",
    "self-correction": "Self-correction",
    "reflection": "Reflexion",
}
MODE_FILTERS = {"llm": "LLM (text observations)", "vlm": "VLM (image observations)"}


@dataclasses.dataclass(frozen=True)
class Filters:
    """Leaderboard filters from the query string; unknown values are ignored."""

    mode: str = ""
    strategy: str = ""

    @classmethod
    def from_query(cls, query) -> "Filters":
        mode = query.get("mode", "")
        strategy = query.get("strategy", "")
        return cls(mode if mode in MODE_FILTERS else "", strategy if strategy in STRATEGY_FILTERS else "")

    def apply(self, runs):
        if self.mode == "vlm":
            runs = runs.filter(variant__format__in=IMAGE_FORMATS)
        elif self.mode == "llm":
            runs = runs.exclude(variant__format__in=IMAGE_FORMATS)
        if self.strategy == "naive":
            runs = runs.filter(variant__chain_of_thought=False)
        elif self.strategy == "cot":
            runs = runs.filter(variant__chain_of_thought=True)
        elif self.strategy == "self-correction":
            runs = runs.filter(variant__self_correction=True)
        elif self.strategy == "reflection":
            runs = runs.exclude(variant__reflection="none").filter(variant__has_key="reflection")
        return runs


def scored_runs(task_id: str | None = None, filters: Filters | None = None, *, join_submission: bool = True):
    """Runs with finished episodes (their submission joined unless `join_submission` is
    False), of one task or all, under the leaderboard filters; unevaluated, so a caller
    narrows it further here."""
    # Rows the operators hid (arena.moderation) are in no ranking, CSV or rating.
    runs = Run.objects.filter(episodes_done__gt=0)
    if join_submission:
        runs = runs.select_related("submission").defer(*SUBMISSION_SECRETS_AND_PROBE)
    runs = ranked(runs)
    if task_id:
        runs = runs.filter(task=task_id)
    if filters is not None:
        # Baselines have no strategy; they stay as reference rows under every filter
        # except the observation mode.
        models = filters.apply(runs.filter(submission__kind="model"))
        baselines = Filters(mode=filters.mode).apply(runs.filter(submission__kind="baseline"))
        runs = models | baselines
    return runs


def leaderboard_rows(task_id: str, filters: Filters | None = None) -> list[LeaderboardRow]:
    """Model runs ranked by the primary metric of the task's suite (`rank_key`), with
    the suite's metrics; baselines are unranked reference rows, placed by the same rule;
    runs with custom settings (arena.protocol) follow, unranked."""
    return ranked_rows(suite_of(task_id), list(scored_runs(task_id, filters)))


def has_model_runs(task_id: str) -> bool:
    """Whether any model (not a baseline) has a finished episode of the task."""
    return scored_runs(task_id).exclude(submission__kind="baseline").exists()


def leaderboard_by_suite(
    filters: Filters | None = None, top: int | None = None, runs: list[Run] | None = None
) -> list[SuiteBoard]:
    """Every task's leaderboard, grouped by suite in the suites' order: the runs read in
    one query (or `runs`, read under `filters` already), ranked per task as
    `leaderboard_rows` ranks them; with `top`, each task keeps its first `top` ranked
    rows and its baselines (the front page's cut, made here so the page renders only
    what it shows, and only the kept rows get the metrics that do not rank)."""
    by_task: dict[str, list[Run]] = {}
    for run in scored_runs_by_id(filters) if runs is None else runs:
        by_task.setdefault(run.task, []).append(run)
    boards = []
    for suite in all_suites().values():
        tasks = []
        for task_id, cls in tasks_of(suite.id).items():
            board = task_board(cls, ranked_rows(suite, by_task.get(task_id, []), primary_only=True), top)
            with_all_metrics(suite, board.rows)
            tasks.append(board)
        boards.append(SuiteBoard(suite=suite, tasks=tasks))
    return boards


@dataclasses.dataclass
class ErrorGroup:
    kind: str
    count: int
    summary: str  # "the model does not accept images"
    fix: str
    example: str  # one episode's own message


def run_error_groups(run: Run) -> list[ErrorGroup]:
    """The run's failed episodes grouped by what went wrong, largest group first: one
    line each on the run page instead of a wall of identical errors."""
    groups: dict[str, ErrorGroup] = {}
    for kind, error in failed_episode_errors(run):
        info = describe(kind)
        key = kind if info else f"other:{error[:80]}"
        group = groups.get(key)
        if group is None:
            summary = info.summary if info else _first_clause(error)
            group = groups[key] = ErrorGroup(kind or "other", 0, summary, info.fix if info else "", error)
        group.count += 1
    return sorted(groups.values(), key=lambda g: -g.count)


def _first_clause(error: str) -> str:
    text = error.removeprefix("not played: ")
    return text if len(text) <= 160 else text[:159] + "…"


def run_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Run:
    """One run with its submission; a 404 when there is none, or when moderation took it
    down for `viewer` (arena.moderation.taken_down_for, with `owner_reads`)."""
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    if viewer is not None and taken_down_for(viewer, run.submission, run, owner_reads=owner_reads):
        raise not_found(Run)
    return run


def runs_newest_first(*, task: str | None = None, submission: int | None = None, status: str | None = None):
    """Every run (hidden ones too: the runs API lists what exists), newest first, narrowed
    by whichever of task, submission id and status is given; unevaluated (DRF pages it)."""
    runs = Run.objects.select_related("submission").order_by("-created_at")
    if task is not None:
        runs = runs.filter(task=task)
    if submission is not None:
        runs = runs.filter(submission_id=submission)
    if status is not None:
        runs = runs.filter(status=status)
    return runs


def suite_runs_by_id(ids: list[int], suite_id: str, viewer) -> list[Run]:
    """The runs among `ids` that play one of the suite's tasks, by id, but those taken
    down for `viewer`, its owner included: an episode list is a list (arena.moderation)."""
    runs = Run.objects.select_related("submission").filter(pk__in=ids, task__startswith=f"{suite_id}/")
    return list(visible_to(viewer, runs, submission="submission", run="").order_by("id"))


def suite_runs(suite_id: str, *, images: bool | None = None, filters: Filters | None = None) -> list[Run]:
    """Runs of the suite's tasks with finished episodes, hidden ones left out, by id:
    with `images` True only image runs, False only text runs, None both; `filters`
    as on the task leaderboards."""
    runs = scored_runs(filters=filters).filter(task__startswith=f"{suite_id}/")
    if images is True:
        runs = runs.filter(variant__format__in=IMAGE_FORMATS)
    elif images is False:
        runs = runs.exclude(variant__format__in=IMAGE_FORMATS)
    return list(runs.order_by("id"))


def lean_suite_runs(suite_id: str, *, images: bool | None = None) -> list[Run]:
    """`suite_runs` as `lean_runs` builds them, each given its submission in one query:
    BALROG's page reads a thousand runs of imported leaderboard submissions (58 runs
    each), and building them through Model.__init__ with the submission joined into
    every row was most of its time (bench/read_pages.py)."""
    runs = scored_runs(join_submission=False).filter(task__startswith=f"{suite_id}/")
    if images is True:
        runs = runs.filter(variant__format__in=IMAGE_FORMATS)
    elif images is False:
        runs = runs.exclude(variant__format__in=IMAGE_FORMATS)
    return with_submissions(lean_runs(runs.order_by("id")))


def runs_of_tasks(task_ids, filters: Filters | None = None, *, order: str = "id") -> list[Run]:
    """Runs of these tasks with finished episodes, under the filters, ordered by `order`."""
    return list(scored_runs(filters=filters).filter(task__in=list(task_ids)).order_by(order))


def lean_runs_of_tasks(task_ids, filters: Filters | None = None) -> list[Run]:
    """`runs_of_tasks` by id, read lean (`lean_runs`) with their submissions: for a page
    that ranks every run of a suite's tasks."""
    runs = scored_runs(filters=filters, join_submission=False).filter(task__in=list(task_ids)).order_by("id")
    return with_submissions(lean_runs(runs))


def scored_runs_by_id(filters: Filters | None = None) -> list[Run]:
    """Every task's runs with finished episodes under the filters, by id, each with its
    submission."""
    filters = Filters() if filters is None else filters
    # The filter's statement kept (leaderboard.selectors.statements): its text is the
    # same at every request.
    rows = kept_rows(
        Run, ("scored runs by id", filters),
        lambda: lean_values(scored_runs(filters=filters, join_submission=False).order_by("id")),
    )
    return with_submissions(lean_built(rows, router.db_for_read(Run)))


def with_mode(runs: list[Run], mode: str) -> list[Run]:
    """`runs` under the observation mode filter of `Filters` ("", "llm" or "vlm"), as
    `Filters.apply` selects them in the database: for a page that reads the runs of
    two modes once."""
    if mode not in ("llm", "vlm"):
        return list(runs)
    images = mode == "vlm"
    return [run for run in runs if (run.variant.get("format") in IMAGE_FORMATS) == images]


def front_page_runs(filters: Filters, tab: str) -> tuple[list[Run], list[Run]]:
    """The runs of the front page's two boards, read once (by id, with submissions): the
    task leaderboards' under `filters`, and the overall leaderboard's of the tab `tab`
    ("llm" or "vlm": that observation mode) under the same strategy."""
    runs = scored_runs_by_id(Filters(strategy=filters.strategy))
    return with_mode(runs, filters.mode), with_mode(runs, tab)


def scored_runs_of_task(task_id: str, filters: Filters | None = None) -> list[Run]:
    return list(scored_runs(task_id, filters))


def runs_by_id(ids, *, taken_down: bool = True) -> dict[int, Run]:
    """The runs of these ids, whole (what a paired comparison's cache key reads), by id;
    without those the operators took down unless `taken_down`."""
    runs = Run.objects.filter(pk__in=list(ids))
    if not taken_down:
        runs = runs.exclude(moderation=Run.HIDDEN)
    return {run.pk: run for run in runs}
