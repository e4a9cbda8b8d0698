"""Read side of the TextAtari suite page (TextAtari §3.3, App. E): the human-normalised
score per game for every submission × scenario × agent, with the random and expert
baselines as reference rows, and the relative-performance chart of two of those rows
(leaderboard.suites.textatari_chart).

A row is one configuration: a submission, the scenario its runs were told (baselines
read no prompt, so they have none), its agent (the paper's Naive, CoT and Reflexion
agents, from the run's strategy settings) and the step limit (a score over 100 steps
is not comparable with one over 1,000). A cell is the mean ± standard error over the
pooled episodes of the row's runs of one game, read from the runs' folded metrics
(Run.metric_sums, Run.score_sum); episodes and steps are never read.
"""

from __future__ import annotations

import dataclasses
import math

from django.utils.text import slugify

from arena.protocol import CUSTOM, RowProtocol, row_protocol
from arena.models import Run, Submission
from arena.variant import Variant
from envs.balrog.catalog import Figure
from envs.registry import tasks_of
from envs.suite import Suite
from envs.textatari.catalog import CATEGORIES, DEVIATIONS, SCENARIO_TITLES
from envs.textatari.scenarios import reference_coverage
from envs.textatari.scores import Anchors, anchors
from leaderboard.boards.cells import episodes_url, grouped, mean_of, pooled_runs, sample_pooled, score_sums
from leaderboard.boards.harness import without_superseded
from leaderboard.selectors.runs import STRATEGY_FILTERS, Filters, lean_runs_of_tasks
from leaderboard.suites.textatari_chart import relative_performance

# The step-limit setting's name, and the limit a run has when it does not set it.
MAX_STEPS = "max_steps"


def figure_text(figure: Figure, digits: int = 1) -> str:
    """"12.3 ± 4.5"; the mean alone with one episode; "—" without any."""
    if figure.mean is None:
        return "—"
    if figure.stderr is None:
        return f"{figure.mean:.{digits}f}"
    return f"{figure.mean:.{digits}f} ± {figure.stderr:.{digits}f}"


@dataclasses.dataclass(frozen=True)
class Game:
    name: str  # "pong"
    task_id: str  # "textatari/pong"
    title: str
    category: str  # its category's title


def games(suite: Suite) -> list[Game]:
    """The suite's games by category (envs.textatari.catalog), then any game the
    catalogue does not place."""
    tasks = tasks_of(suite.id)
    by_name = {task_id.split("/", 1)[1]: cls for task_id, cls in tasks.items()}
    ordered, placed = [], set()
    for category in CATEGORIES:
        for name in category.games:
            if name in by_name:
                ordered.append(Game(name, by_name[name].id, by_name[name].title, category.title))
                placed.add(name)
    ordered += [Game(name, cls.id, cls.title, "Other") for name, cls in by_name.items() if name not in placed]
    return ordered


def step_limits(suite: Suite) -> tuple[int, ...]:
    """The step limits the suite's tasks offer (Task.settings), in increasing order."""
    limits = {int(value) for cls in tasks_of(suite.id).values() for value in cls.settings.get(MAX_STEPS, ())}
    return tuple(sorted(limits))


def category_spans(columns: list[Game]) -> list[tuple[str, int]]:
    """(category title, number of its games among the columns), for a grouped header."""
    spans: list[tuple[str, int]] = []
    for game in columns:
        if spans and spans[-1][0] == game.category:
            spans[-1] = (game.category, spans[-1][1] + 1)
        else:
            spans.append((game.category, 1))
    return spans


def agent_label(variant: Variant) -> str:
    """The paper's name of the agent a run's strategy makes (§3.2, App. E: Naive, CoT,
    Reflexion_last, Reflexion_max), with the settings that set it apart."""
    name = "CoT" if variant.chain_of_thought else "Naive"
    if variant.reflection == Submission.REFLECTION_RECENT:
        name = "Reflexion_last" + ("" if variant.chain_of_thought else " (no CoT)")
    elif variant.reflection == Submission.REFLECTION_BEST:
        name = "Reflexion_max" + ("" if variant.chain_of_thought else " (no CoT)")
    extras = [f"history {variant.history_window}"]
    if variant.num_demonstrations:
        extras.append(f"{variant.num_demonstrations} demos")
    if variant.answer_markers:
        extras.append("robust")
    if variant.self_correction:
        extras.append("self-correction")
    return f"{name} · {', '.join(extras)}"


@dataclasses.dataclass
class Cell:
    game: Game
    normalised: Figure  # in percent
    score: Figure  # the game score
    runs: list[Run]
    url: str
    # The game's anchor gap is within random play's spread at the row's step limit
    # (envs.textatari.scores): its normalised score is mostly luck.
    flagged: bool = False

    @property
    def illegal(self) -> "IllegalCount":
        return IllegalCount.of(self.runs)

    @property
    def normalised_text(self) -> str:
        return figure_text(self.normalised)

    @property
    def score_text(self) -> str:
        return figure_text(self.score)

    @property
    def hover(self) -> str:
        flag = "; anchor gap negative or within random play's spread" if self.flagged else ""
        illegal = f"; {self.illegal.text}" if self.illegal.steps else ""
        return (
            f"{self.game.title}: game score {self.score_text}, normalised {self.normalised_text} %, "
            f"{self.normalised.episodes} episodes{illegal}{flag}"
        )


@dataclasses.dataclass(frozen=True)
class IllegalCount:
    """Answers that named no legal action, over the steps played (Run.illegal_total,
    Run.steps_total). The task plays NOOP for them (envs.textatari.tasks); the paper
    does not say what it did, so the page counts them instead of letting them pass as
    the model's choice of NOOP."""

    illegal: int
    steps: int

    @classmethod
    def of(cls, runs: list[Run]) -> "IllegalCount":
        return cls(sum(run.illegal_total for run in runs), sum(run.steps_total for run in runs))

    @property
    def percent(self) -> float | None:
        return 100 * self.illegal / self.steps if self.steps else None

    @property
    def text(self) -> str:
        return f"{self.illegal:,} of {self.steps:,} answers illegal ({self.percent:.1f} %), played as NOOP"


@dataclasses.dataclass
class Row:
    submission: Submission
    scenario: str  # "" for baselines
    agent: str  # "" for baselines
    max_steps: int
    cells: list[Cell]
    mean: Figure
    rank: int | None = None
    protocol: RowProtocol | None = None  # the protocol its runs were played under (arena.protocol)

    @property
    def key(self) -> str:
        """Names the row in the chart's query string (?a=…&b=…)."""
        agent = slugify(self.agent) or "baseline"
        return f"{self.submission.pk}.{self.scenario or 'none'}.{agent}.{self.max_steps}"

    @property
    def scenario_title(self) -> str:
        return SCENARIO_TITLES.get(self.scenario, self.scenario) if self.scenario else ""

    @property
    def label(self) -> str:
        parts = [self.submission.name, self.scenario_title or "baseline", self.agent, f"{self.max_steps:,} steps"]
        return " · ".join(part for part in parts if part)

    @property
    def mean_text(self) -> str:
        return figure_text(self.mean)

    @property
    def illegal(self) -> IllegalCount:
        return IllegalCount.of([run for cell in self.cells for run in cell.runs])

    @property
    def games_played(self) -> int:
        return sum(1 for cell in self.cells if cell.normalised.episodes)

    @property
    def complete(self) -> bool:
        return self.games_played == len(self.cells)

    def cell(self, game: str) -> Cell | None:
        return next((cell for cell in self.cells if cell.game.name == game and cell.runs), None)


@dataclasses.dataclass(frozen=True)
class PageFilters:
    """The page's filters: the agent strategy (as on the other suite pages), the
    scenario and the step limit; unknown values are ignored."""

    strategy: str = ""
    scenario: str = ""
    max_steps: int | None = None

    @classmethod
    def from_query(cls, query, scenarios: tuple[str, ...], step_limits: tuple[int, ...]) -> "PageFilters":
        scenario = query.get("scenario", "")
        try:
            steps = int(query.get("steps", ""))
        except ValueError:
            steps = None
        return cls(
            strategy=Filters.from_query(query).strategy,
            scenario=scenario if scenario in scenarios else "",
            max_steps=steps if steps in step_limits else None,
        )


def _run_key(run: Run, default_steps: dict[str, int]) -> tuple[int, str, str, int]:
    variant = run.settings
    steps = int(variant.options.get(MAX_STEPS, default_steps[run.task]))
    if run.submission.is_baseline:
        return (run.submission_id, "", "", steps)
    return (run.submission_id, str(variant.options.get("scenario", "")), agent_label(variant), steps)


def _row(key: tuple, runs: list[Run], columns: list[Game], suite: Suite) -> Row:
    by_task = grouped(runs, lambda run: run.task)
    cells = []
    for game in columns:
        behind = by_task.get(game.task_id, [])
        normalised = pooled_runs(behind, suite)
        score = sample_pooled(score_sums(run) for run in behind)
        cells.append(Cell(game, normalised, score, behind, episodes_url(suite, behind) if behind else ""))
    submission_id, scenario, agent, steps = key
    for cell in cells:
        cell.flagged = anchors(cell.game.name, steps).within_random_spread
    return Row(
        submission=runs[0].submission, scenario=scenario, agent=agent, max_steps=steps, cells=cells,
        mean=mean_of(cell.normalised for cell in cells),
    )


def board(suite: Suite, filters: PageFilters = PageFilters()) -> tuple[list[Game], list[Row]]:
    """The columns (games by category) and the rows: more games played first (a mean
    over fewer games is not comparable), then the higher mean normalised score. Model
    submissions are ranked; baselines are reference rows, kept under every filter but
    the step limit; rows with custom settings follow, unranked."""
    columns = games(suite)
    default_steps = {game.task_id: tasks_of(suite.id)[game.task_id].max_steps for game in columns}
    grouped: dict[tuple, list[Run]] = {}
    for run in without_superseded(lean_runs_of_tasks(default_steps, Filters(strategy=filters.strategy))):
        key = _run_key(run, default_steps)
        if filters.scenario and key[1] not in ("", filters.scenario):
            continue
        if filters.max_steps is not None and key[3] != filters.max_steps:
            continue
        grouped.setdefault(key, []).append(run)
    rows = [_row(key, group, columns, suite) for key, group in grouped.items()]
    for row in rows:
        row.protocol = row_protocol(run for cell in row.cells for run in cell.runs)
    # Rows with custom settings (arena.protocol) after the others, never ranked.
    rows.sort(key=lambda row: (row.protocol.kind == CUSTOM, -row.games_played,
                               -(row.mean.mean if row.mean.mean is not None else -math.inf), row.submission.pk, row.key))
    rank = 0
    for row in rows:
        if row.submission.kind == Submission.KIND_MODEL and row.protocol.kind != CUSTOM:
            rank += 1
            row.rank = rank
    return columns, rows


@dataclasses.dataclass(frozen=True)
class AnchorRow:
    """One game's anchors at every step limit, for the page's table of anchors."""

    game: Game
    by_limit: list[Anchors]
    # The expert episode behind the reference scenario's block: its score and length,
    # and which of its every-10th pairs the block shows (envs.textatari.scenarios).
    reference: dict

    @property
    def flagged(self) -> bool:
        return any(figures.within_random_spread for figures in self.by_limit)


def anchor_rows(columns: list[Game], limits: tuple[int, ...]) -> list[AnchorRow]:
    """Where each game's 0 % and 100 % come from, per step limit (measured, carried
    from a smaller limit, or the literature's figure standing in), and the expert
    episode behind its reference block."""
    return [
        AnchorRow(game, [anchors(game.name, limit) for limit in limits], reference_coverage(game.name))
        for game in columns
    ]


def page_context(suite: Suite, query) -> dict:
    """What the suite page shows for a query string: the filtered table, and the chart of
    the rows named by ?a= and ?b= when both are listed and differ."""
    limits = step_limits(suite)
    filters = PageFilters.from_query(query, tuple(SCENARIO_TITLES), limits)
    columns, rows = board(suite, filters)
    picked = {side: query.get(side, "") for side in ("a", "b")}
    by_key = {row.key: row for row in rows}
    chart = None
    if picked["a"] in by_key and picked["b"] in by_key and picked["a"] != picked["b"]:
        chart = relative_performance(by_key[picked["a"]], by_key[picked["b"]])
    return {
        "suite": suite, "columns": columns, "spans": category_spans(columns), "rows": rows,
        "show_scores": query.get("show") == "score", "filters": filters, "strategy_filters": STRATEGY_FILTERS,
        "scenarios": SCENARIO_TITLES, "step_limits": limits, "picked": picked, "chart": chart,
        "same_pick": bool(picked["a"]) and picked["a"] == picked["b"], "deviations": DEVIATIONS,
        "anchor_rows": anchor_rows(columns, limits),
        # rank, submission, scenario, agent, steps, mean, one per game
        "colspan": 6 + len(columns),
    }
