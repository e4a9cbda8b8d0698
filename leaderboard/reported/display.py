"""Paper figures (leaderboard.reported.figures) laid out for the task pages: reference rows
under the measured ones, hollow-diamond chart markers, and the chart a task page shows
when no model has played the task yet (issue #17, items 4 and 7)."""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go

from envs.suite import Metric, Suite
from leaderboard.boards.charts import figure_json, plain_text
from leaderboard.reported.figures import ReportedFigure, figures_for_task, reported_set

# Paper figures are drawn apart from measured points: hollow diamonds, one colour.
REPORTED_MARKER = {"symbol": "diamond-open", "size": 11, "color": "#c58b2a", "line": {"width": 2}}


def _decimals(value: float) -> int:
    text = repr(value)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def format_value(figure: ReportedFigure | None, metric: Metric) -> str:
    """A paper figure as the paper prints it: never fewer decimals than it gives (a
    figure rounded here would no longer be the paper's)."""
    if figure is None:
        return "–"
    numbers = [figure.value, *([figure.stderr] if figure.stderr is not None else []), *(figure.ci or ())]
    digits = max(min(metric.digits, 2), *(_decimals(n) for n in numbers))
    text = f"{figure.value:.{digits}f}"
    if figure.stderr is not None:
        text += f" ± {figure.stderr:.{digits}f}"
    elif figure.ci is not None:
        text += f" [{figure.ci[0]:.{digits}f}, {figure.ci[1]:.{digits}f}]"
    return text + metric.unit


@dataclasses.dataclass
class ReportedRow:
    """One line of a paper's table: one model in one setting, with a figure for each of
    the suite's metrics the paper gives there."""

    first: ReportedFigure  # model, source, setting and paper of the line
    figures: list[ReportedFigure | None]  # aligned with the suite's metrics
    cells: list[str]  # the same, as shown

    @property
    def primary(self) -> ReportedFigure | None:
        return self.figures[0]

    @property
    def sources(self) -> str:
        return ", ".join(dict.fromkeys(figure.source for figure in self.figures if figure))

    @property
    def notes(self) -> str:
        return " ".join(dict.fromkeys(figure.notes for figure in self.figures if figure and figure.notes))


def _line_key(figure: ReportedFigure) -> tuple:
    return (figure.model, figure.source.split(" (")[0], figure.tasks, figure.format, figure.variant,
            figure.scenario, figure.agent, figure.environment)


def reported_rows(figures: list[ReportedFigure], suite: Suite) -> list[ReportedRow]:
    names = [metric.name for metric in suite.metrics]
    lines: dict[tuple, list[ReportedFigure | None]] = {}
    for figure in figures:
        if figure.metric in names:
            lines.setdefault(_line_key(figure), [None] * len(names))[names.index(figure.metric)] = figure
    rows = []
    for aligned in lines.values():
        first = next(figure for figure in aligned if figure)
        cells = [format_value(figure, metric) for figure, metric in zip(aligned, suite.metrics)]
        rows.append(ReportedRow(first, aligned, cells))
    return rows


def _better(a: ReportedRow, b: ReportedRow, metric: Metric) -> bool:
    if a.primary is None or b.primary is None:
        return False
    return a.primary.value > b.primary.value if metric.higher_is_better else a.primary.value < b.primary.value


@dataclasses.dataclass
class TaskReported:
    headline: list[ReportedRow]  # shown in the leaderboard table
    more: list[ReportedRow]  # every other figure, listed below it
    papers: list  # the papers cited, for the anchors the sources link to
    # When the paper gives no number for the task: its figures left out, each with why.
    omitted: tuple = ()

    @property
    def count(self) -> int:
        return len(self.headline) + len(self.more)


def task_reported(task_id: str, suite: Suite, mode: str = "") -> TaskReported:
    """The table rows of a task page. Headline: the figures about this very task (or,
    when the paper has none, its averages over several tasks), one per model and
    setting, keeping the best of the settings the paper only ablated (LMAct's legal
    actions × chain of thought); everything else goes to the full list."""
    rows = reported_rows(figures_for_task(task_id, mode), suite)
    own = [row for row in rows if row.first.tasks == (task_id,)]
    pool = own or rows
    best: dict[tuple, ReportedRow] = {}
    for row in pool:
        key = _headline_key(row)
        if key not in best or _better(row, best[key], suite.primary_metric):
            best[key] = row
    headline = [row for row in pool if best.get(_headline_key(row)) is row]
    headline.sort(key=lambda row: _sort_key(row, suite.primary_metric))
    more = [row for row in rows if row not in headline]
    papers = list(dict.fromkeys(row.first.paper for row in rows))
    found = reported_set(suite.id)
    omitted = found.omitted if found is not None and not rows else ()
    return TaskReported(headline, more, papers, omitted)


def _headline_key(row: ReportedRow) -> tuple:
    f = row.first
    return (f.model, f.format, f.scenario, f.agent, f.environment, f.source.split(" (")[0], f.tasks)


def _sort_key(row: ReportedRow, metric: Metric) -> tuple:
    if row.primary is None:
        return (1, 0.0, row.first.model)
    return (0, -row.primary.value if metric.higher_is_better else row.primary.value, row.first.model)


def _hover(figure: ReportedFigure, metric: Metric) -> str:
    return plain_text(
        f"{figure.model} · {figure.setting}<br>{format_value(figure, metric)} · reported (paper), {figure.source}"
    )


def scaling_markers(reported: TaskReported, fmt: str, metric: Metric) -> list[go.Scatter]:
    """Hollow diamonds for the scaling chart of one observation format: each headline
    figure measured at a known number of demonstrations."""
    points = [
        row.primary for row in reported.headline
        if row.primary and row.primary.format == fmt and "num_demonstrations" in dict(row.primary.variant)
    ]
    if not points:
        return []
    return [
        go.Scatter(
            x=[max(dict(f.variant)["num_demonstrations"], 0.5) for f in points],
            y=[f.value for f in points],
            mode="markers", marker=REPORTED_MARKER, name="reported (paper)",
            text=[_hover(f, metric) for f in points], hovertemplate="%{text}<extra></extra>",
        )
    ]


def baselines_chart(task_title: str, rows, reported: TaskReported, suite: Suite) -> dict | None:
    """The chart of a task no model has played yet: each baseline run's value of a
    suite metric with its standard error, and the paper's headline figures as hollow
    diamonds; one line per run or figure, so it reads without a model curve. The metric
    is the primary one, unless the paper gives only others for this task (AdventureGame
    Table 2 has quality and % played per experiment, no clemscore)."""
    given = [i for i in range(len(suite.metrics)) if any(row.figures[i] for row in reported.headline)]
    index = 0 if not given or 0 in given else given[0]
    metric = suite.metrics[index]
    baselines = [
        (row, row.metrics[index]) for row in rows
        if row.submission.is_baseline and len(row.metrics) > index and row.metrics[index].mean is not None
    ]
    papers = [row.figures[index] for row in reported.headline if row.figures[index]]
    if not baselines and not papers:
        return None
    figure = go.Figure()
    if baselines:
        figure.add_trace(
            go.Scatter(
                x=[value.mean for _, value in baselines],
                y=[plain_text(f"{row.submission.name} · {row.run.format}") for row, _ in baselines],
                mode="markers", name="baseline (measured here)", marker={"symbol": "circle", "size": 10, "color": "#2a9d8f"},
                error_x={"type": "data", "array": [value.stderr or 0 for _, value in baselines]},
                hovertemplate="%{x:." + str(metric.digits) + "f}<extra>%{y}</extra>",
            )
        )
    if papers:
        figure.add_trace(
            go.Scatter(
                x=[f.value for f in papers], y=[plain_text(f"{f.model} · {f.setting}") for f in papers],
                mode="markers", name="reported (paper)", marker=REPORTED_MARKER,
                error_x={"type": "data", "array": [f.stderr or 0 for f in papers]},
                text=[_hover(f, metric) for f in papers], hovertemplate="%{text}<extra></extra>",
            )
        )
    lines = len(baselines) + len(papers)
    figure.update_layout(
        title={"text": plain_text(f"{task_title}: baselines{' and paper figures' if papers else ''}")},
        xaxis={"title": {"text": f"{metric.label}{metric.unit} ({metric.direction})"}},
        yaxis={"automargin": True, "autorange": "reversed"},
        legend={"orientation": "h", "y": -0.15 if lines > 6 else -0.4},
        height=140 + 26 * lines, margin={"t": 50, "l": 20, "r": 20, "b": 60},
    )
    return figure_json(figure)
