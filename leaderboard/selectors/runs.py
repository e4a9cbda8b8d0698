"""Reads for the leaderboard pages and API. Numbers come from the aggregates kept on
`Run` (updated when episodes finish), never from scanning steps."""

from __future__ import annotations

import dataclasses
import functools
import json
import math

import orjson
from arena.protocol import is_comparable
from arena.clients.errors import describe
from arena.metrics import summary
from arena.moderation import taken_down_for
from django.db import router
from django.http import Http404
from django.db.models import JSONField, TextField
from django.db.models.base import ModelState
from django.db.models.functions import Cast
from django.shortcuts import get_object_or_404

from arena.models import Run, Submission
from arena.moderation import ranked
from arena.variant import Variant
from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, suite_of, tasks_of
from envs.suite import MEAN_OF_EPISODE_METRIC_OVER, Metric, Suite
from leaderboard.selectors.episodes import failed_episode_errors
from leaderboard.selectors.statements import kept_rows, rows_of, statement_of


@dataclasses.dataclass(frozen=True)
class MetricValue:
    """One metric of one run, as shown: scaled mean, its standard error (None with
    fewer than two values), how many episodes have a value and how many have none."""

    metric: Metric
    mean: float | None
    stderr: float | None
    episodes: int
    missing: int

    def __init__(self, metric: Metric, mean: float | None, stderr: float | None, episodes: int, missing: int):
        # The fields set in the instance's dictionary, as the generated __init__ sets them
        # through object.__setattr__ one call each (frozen): a front page builds some two
        # thousand values, and those calls were a tenth of its boards (bench/read_pages.py).
        fields = self.__dict__
        fields["metric"], fields["mean"], fields["stderr"] = metric, mean, stderr
        fields["episodes"], fields["missing"] = episodes, missing

    @property
    def missing_share(self) -> float:
        """The share of episodes without a value; 1 when no episode has one."""
        total = self.episodes + self.missing
        return self.missing / total if self.episodes else 1.0


def metric_value(run: Run, metric: Metric) -> MetricValue:
    """A metric of a run, folded as its descriptor says, from the run's aggregates."""
    if metric.is_summed_reward:
        mean, stderr, n, missing = run.score_mean, run.score_stderr, run.episodes_done, 0
    else:
        sums = run.metric_sums
        entry = sums.get(metric.episode_metric, _NO_SUMS)
        if metric.fold == MEAN_OF_EPISODE_METRIC_OVER:
            # The metric is 0 on the other episodes (envs.suite), so its sums over all
            # episodes are its sums over the selected ones, and those are counted by
            # the sum of the 0/1 condition.
            selected = int(sums.get(metric.over, _NO_SUMS).get("sum", 0))
            entry = {"n": selected, "sum": entry.get("sum", 0.0), "sumsq": entry.get("sumsq", 0.0)}
        # arena.metrics.summary's mean and standard error, worked out here without its
        # dictionary: a board asks for some ten thousand values (bench/read_pages.py).
        n, missing, mean, stderr = entry.get("n", 0), entry.get("missing", 0), None, None
        if n:
            mean = entry["sum"] / n
            if n > 1:
                variance = max(0.0, (entry["sumsq"] - n * mean * mean) / (n - 1))
                stderr = math.sqrt(variance / n)
    scale = metric.scale
    return MetricValue(
        metric, None if mean is None else mean * scale, None if stderr is None else stderr * scale, n, missing,
    )


# What metric_value reads for a metric no episode of the run reported.
_NO_SUMS: dict = {}


def rank_key(run: Run, metric: Metric) -> tuple:
    """Orders runs best first by a metric (envs.suite.Metric): fewest episodes without a
    value first, then the mean in the metric's direction; ties go to more episodes."""
    return rank_key_of(run, metric_value(run, metric))


def rank_key_of(run: Run, value: MetricValue) -> tuple:
    """`rank_key` from the run's value of the metric, already computed."""
    metric = value.metric
    if value.mean is None:
        by_mean = math.inf
    else:
        by_mean = -value.mean if metric.higher_is_better else value.mean
    return (value.missing_share, by_mean, -run.episodes_done, run.id)


@dataclasses.dataclass
class LeaderboardRow:
    rank: int | None
    run: Run
    # The suite's metrics of the run, the primary metric first.
    metrics: list[MetricValue] = dataclasses.field(default_factory=list)
    # Set when this row cannot be told apart from the ranked row above it
    # (leaderboard.boards.neighbours.NeighbourMark).
    neighbour_mark: object = None

    @property
    def submission(self):
        return self.run.submission

    @property
    def primary(self) -> MetricValue | None:
        return self.metrics[0] if self.metrics else None


@dataclasses.dataclass
class TaskBoard:
    """One task's leaderboard on the front page: its top ranked rows and every baseline
    (the reference rows), in rank order; the whole table is on the task's page."""

    task: type
    rows: list[LeaderboardRow]
    # Ranked (model) rows the task has in all, shown here or not.
    ranked_total: int = 0

    @property
    def ranked_cut(self) -> int:
        """Ranked rows the front page leaves to the task's page."""
        return self.ranked_total - sum(1 for row in self.rows if row.rank is not None)


@dataclasses.dataclass
class SuiteBoard:
    """One suite's section of the front page: its descriptor and its tasks' leaderboards."""

    suite: Suite
    tasks: list[TaskBoard]

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


# The submission's columns no ranking shows, each read and decoded once per row of a
# board otherwise: the encrypted secrets and the endpoint probe's JSON report.
SUBMISSION_SECRETS_AND_PROBE = (
    "submission__api_key_encrypted", "submission__agent_secret_encrypted", "submission__endpoint_probe",
)


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


def ranked_rows(suite: Suite, runs: list[Run], *, primary_only: bool = False) -> list[LeaderboardRow]:
    """`runs` (of one task) as leaderboard rows, ranked as `leaderboard_rows` says; each
    run's metrics are computed once, the primary one ranking it. With `primary_only`,
    the rows hold the primary metric alone (`with_all_metrics` adds the others to the
    rows a page keeps)."""
    metrics = suite.metrics[:1] if primary_only else suite.metrics
    valued = [(run, [metric_value(run, metric) for metric in metrics]) for run in runs]
    valued.sort(key=lambda item: rank_key_of(item[0], item[1][0]))
    # Runs with custom settings (arena.protocol) come after the comparable ones, unranked.
    comparable = [is_comparable(run) for run, _ in valued]
    valued = [item for item, ok in zip(valued, comparable) if ok] + [item for item, ok in zip(valued, comparable) if not ok]
    rows, rank = [], 0
    for run, metrics in valued:
        if run.submission.is_baseline or not is_comparable(run):
            rows.append(LeaderboardRow(rank=None, run=run, metrics=metrics))
        else:
            rank += 1
            rows.append(LeaderboardRow(rank=rank, run=run, metrics=metrics))
    return rows


def with_all_metrics(suite: Suite, rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """Rows of `ranked_rows(..., primary_only=True)` given the suite's other metrics."""
    for row in rows:
        row.metrics = row.metrics[:1] + [metric_value(row.run, metric) for metric in suite.metrics[1:]]
    return rows


def has_model_runs(task_id: str) -> bool:
    """Whether any model (not a baseline) has a finished episode of the task."""
    return scored_runs(task_id).exclude(submission__kind="baseline").exists()


@dataclasses.dataclass
class BreakdownRow:
    row: LeaderboardRow
    rates: list[float | None]  # percentages, in the task's breakdown order


def rate_breakdown_rows(task_cls, rows: list[LeaderboardRow]) -> list[BreakdownRow]:
    """For tasks with a rate breakdown (Task.rate_breakdown): each leaderboard row's
    share of episodes, in percent, where each of the per-episode 0/1 metrics held."""
    if not task_cls.rate_breakdown:
        return []
    result = []
    for row in rows:
        rates = []
        for key, _ in task_cls.rate_breakdown:
            entry = summary(row.run.metric_sums.get(key, {}))
            rates.append(None if entry["mean"] is None else 100.0 * entry["mean"])
        if any(rate is not None for rate in rates):
            result.append(BreakdownRow(row=row, rates=rates))
    return result


def task_board(cls, rows: list[LeaderboardRow], top: int | None) -> TaskBoard:
    """A task's board of its ranked `rows`: the first `top` ranked rows and every
    baseline row, in their order (`top` None: all of them), with the count of ranked rows."""
    ranked_total = sum(1 for row in rows if row.rank is not None)
    if top is not None:
        rows = [row for row in rows if row.rank is None or row.rank <= top]
    return TaskBoard(task=cls, rows=rows, ranked_total=ranked_total)


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
class ScalingPoint:
    label: str
    num_demonstrations: int
    score_mean: float
    score_stderr: float | None
    illegal_rate: float | None
    episodes: int


def scaling_points(task_id: str, fmt: str) -> tuple[dict[str, list[ScalingPoint]], dict[str, Run]]:
    """Model runs of one task/format grouped into curves over the number of
    demonstrations (one curve per model and prompt setting), and the baseline runs."""
    return _scaling_points(scored_runs(task_id).filter(variant__format=fmt).order_by("created_at", "id"))


def scaling_points_by_format(task_id: str) -> dict[str, tuple[dict[str, list[ScalingPoint]], dict[str, Run]]]:
    """`scaling_points` of each format the task's runs played, from one read of them
    (the task page draws one pair of charts per format)."""
    by_format: dict[str, list[Run]] = {}
    for run in scored_runs(task_id).order_by("created_at", "id"):
        by_format.setdefault(run.variant.get("format"), []).append(run)
    return {fmt: _scaling_points(runs) for fmt, runs in by_format.items()}


def _scaling_points(runs) -> tuple[dict[str, list[ScalingPoint]], dict[str, Run]]:
    curves: dict[str, list[ScalingPoint]] = {}
    baselines: dict[str, Run] = {}
    for run in runs:
        if run.submission.is_baseline:
            baselines[run.submission.policy] = run
            continue
        label = run.submission.model or run.submission.name
        flags = run.settings.prompt_flags()
        if flags:
            label += f" ({', '.join(flags)})"
        curves.setdefault(label, []).append(
            ScalingPoint(
                label=label,
                num_demonstrations=run.num_demonstrations,
                score_mean=run.score_mean,
                score_stderr=run.score_stderr,
                illegal_rate=run.illegal_rate,
                episodes=run.episodes_done,
            )
        )
    for points in curves.values():
        points.sort(key=lambda p: p.num_demonstrations)
    return curves, baselines


def best_scores_by_task(suite: str) -> list[tuple[type, list[tuple[str, Run]], dict[str, Run]]]:
    """LMAct Fig. 2: per task, each model's best run over every setting (format,
    demonstrations, prompt flags), and the best baseline runs."""
    sections = []
    for task_id, cls in tasks_of(suite).items():
        best: dict[str, Run] = {}
        baselines: dict[str, Run] = {}
        for run in scored_runs(task_id):
            if run.settings.replay_control:
                continue  # a copying test, not a score
            target = baselines if run.submission.is_baseline else best
            key = run.submission.policy if run.submission.is_baseline else (run.submission.model or run.submission.name)
            if key not in target or (run.score_mean or 0) > (target[key].score_mean or 0):
                target[key] = run
        sections.append((cls, sorted(best.items(), key=lambda kv: -(kv[1].score_mean or 0)), baselines))
    return sections


def replay_rows(task_id: str, fmt: str) -> list[tuple[str, list[float], list[int]]]:
    """LMAct Figs. A8–A13: mean replay accuracy per step, one row per model."""
    return replay_rows_by_format(task_id).get(fmt, [])


def replay_rows_by_format(task_id: str) -> dict[str, list[tuple[str, list[float], list[int]]]]:
    """`replay_rows` of each format of the task, from one read of its replay runs."""
    by_format: dict[str, list] = {}
    runs = scored_runs(task_id).filter(experiment__kind="replay").order_by("created_at", "id")
    for run in runs:
        entry = run.metric_sums.get("replay_accuracy")
        if not entry:
            continue
        curve = [s / n for s, n in zip(entry["curve_sum"], entry["curve_n"])]
        by_format.setdefault(run.variant.get("format"), []).append(
            (run.submission.model or run.submission.name, curve, entry["curve_n"])
        )
    return by_format


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


def run_or_404(pk: int, viewer=None) -> Run:
    """One run with its submission; a 404 when there is none, or when moderation took it
    down for `viewer` (arena.moderation.taken_down_for)."""
    run = get_object_or_404(Run.objects.select_related("submission"), pk=pk)
    if viewer is not None and taken_down_for(viewer, run.submission, run):
        raise Http404("no such run")
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


def suite_runs_by_id(ids: list[int], suite_id: str) -> list[Run]:
    """The runs among `ids` that play one of the suite's tasks, by id."""
    runs = Run.objects.select_related("submission").filter(pk__in=ids, task__startswith=f"{suite_id}/")
    return list(runs.order_by("id"))


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
        lambda: _lean_values(scored_runs(filters=filters, join_submission=False).order_by("id")),
    )
    return with_submissions(_lean_built(rows, router.db_for_read(Run)))


def lean_runs(runs) -> list[Run]:
    """The runs of the queryset `runs` (of Run), as the ORM builds them but for a board's
    thousand rows at a fraction of the cost: the fields read as values, the JSON ones
    decoded once here, and each instance given them directly instead of through
    Model.__init__ (which, with the JSON decoding, was most of the front page's read,
    bench/read_pages.py). The fields no board shows (LEAN_DEFERRED, whose conversion
    from SQLite's text was a fifth of the read) are left deferred, as `.defer()` leaves
    them: read from the database if asked for. tests/leaderboard/selectors/
    test_front_page_reads.py holds the instances to the ORM's."""
    values = _lean_values(runs)
    statement = statement_of(values)
    return _lean_built(values if statement is None else rows_of(statement), runs.db)


def _lean_values(runs):
    """The rows lean_runs reads of the queryset `runs`, through the ORM."""
    plain, decoded = _lean_fields()
    texts = {f"{name}__text": Cast(name, TextField()) for name in decoded}
    return runs.annotate(**texts).values_list(*plain, *texts)


def _lean_built(rows, database: str) -> list[Run]:
    """lean_runs's instances of `rows` (of `_lean_values`), read from `database`."""
    plain, decoded = _lean_fields()
    split = len(plain)
    variant_at = split + decoded.index("variant")
    # A board's runs share a few variants (a submission plays every task with one):
    # each distinct text's Variant is built once and given to its runs, as Variant.of
    # keeps it on a run (building one per run was a tenth of the overall board).
    # The decoded variant is shared the same way (decoding each run's text again was a
    # tenth of the read): lean runs are rows to show, and nothing changes their variant.
    variants: dict[str, tuple[object, Variant | None]] = {}
    decoding = list(enumerate(decoded, start=split))
    # Every run's fields in a copy of one dictionary holding their names in order: a
    # copy is made at its full size, where a dictionary built from the pairs grew five
    # times (half the cost of the fields, bench/read_pages.py); the order is the same.
    names = dict.fromkeys([*plain, *decoded])
    built = []
    new_run = Run.__new__
    for values in rows:
        variant_text = values[variant_at]
        shared = variants.get(variant_text)
        if shared is None:
            data = None if variant_text is None else _decoded(variant_text)
            shared = variants[variant_text] = (data, _shared_variant(data))
        data, variant = shared
        fields = names.copy()
        fields.update(zip(plain, values))
        for at, name in decoding:
            text = values[at]
            fields[name] = data if at == variant_at else None if text is None else _decoded(text)
        if variant is not None:
            fields["_variant"] = (data, variant)
        state = fields["_state"] = ModelState()
        # The fields cache made here, as ModelState's descriptor makes it on first use
        # (with_submissions fills it: a Python call per run through the descriptor).
        state.adding, state.db, state.fields_cache = False, database, {}
        run = new_run(Run)
        run.__dict__ = fields
        built.append(run)
    return built


def _shared_variant(data) -> Variant | None:
    """The Variant of a run's decoded variant, shared by the runs whose variant is the
    same text; None where Variant.from_dict fails on it (such a run fails where it
    always did, when Variant.of is asked for its variant)."""
    if not isinstance(data, dict):
        return None
    try:
        return Variant.from_dict(data)
    except (TypeError, ValueError):
        return None


# Run's fields that no board, table or download of a board reads: the times and the
# budget (read one at a time on a lean run if ever asked for).
LEAN_DEFERRED = ("created_at", "started_at", "finished_at", "budget_usd", "budget_tokens")


# A run of digits long enough to be an integer past 64 bits, which orjson would turn
# into a float where json keeps it whole, looked for in the UTF-8 text with every digit
# made "0" and everything else a space (a regular expression cost four times orjson).
_DIGITS_ONLY = bytes(ord("0") if chr(b).isdigit() and b < 128 else ord(" ") for b in range(256))
_LONG_DIGITS = b"0" * 19


def _decoded(text: str):
    """JSON text as the ORM's JSONField decodes it (json.loads; the text itself when it
    is not JSON), by orjson, four times faster on the runs' aggregates, except where the
    two could differ: numbers that long, and what orjson refuses (NaN, Infinity)."""
    encoded = text.encode()
    if _LONG_DIGITS not in encoded.translate(_DIGITS_ONLY):
        try:
            return orjson.loads(encoded)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@functools.cache
def _lean_fields() -> tuple[list[str], list[str]]:
    """Run's concrete fields as `lean_runs` reads them: the ones read as values, and the
    JSON ones read as text and decoded."""
    fields = [field for field in Run._meta.concrete_fields if field.attname not in LEAN_DEFERRED]
    decoded = [field.attname for field in fields if isinstance(field, JSONField)]
    return [field.attname for field in fields if field.attname not in decoded], decoded


def with_submissions(runs: list[Run]) -> list[Run]:
    """`runs`, each given its submission, read in one query: a few submissions are behind
    a board's thousand runs, and joining them into every row built a Submission per run
    (half the cost of reading a board's runs, bench/read_pages.py)."""
    fields = [name.removeprefix("submission__") for name in SUBMISSION_SECRETS_AND_PROBE]
    submissions = Submission.objects.defer(*fields).in_bulk({run.submission_id for run in runs})
    cache_name = Run.submission.field.cache_name  # where set_cached_value puts it, set directly
    for run in runs:
        run._state.fields_cache[cache_name] = submissions[run.submission_id]
    return runs


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
