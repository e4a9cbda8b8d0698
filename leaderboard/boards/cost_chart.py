"""The cost-against-score figure (leaderboard.boards.cost), built server-side for
static/js/charts.js like the arena's other Plotly charts: the frontier's submissions in
colour joined by the frontier's steps, the dominated ones in grey, and on the model page
the submission's own point ringed."""

from __future__ import annotations

from arena.models import Submission
from leaderboard.boards import overall
from leaderboard.boards.charts import _figure, _scatter, plain_text
from leaderboard.boards.cost import USD, CostChart, CostPoint, cost_charts
from leaderboard.selectors.runs import Filters, scored_runs_by_id, with_mode

# The submissions a board ranks or lists for reference (leaderboard.selectors.runs.scored_runs).
BOARD_KINDS = (Submission.KIND_MODEL, Submission.KIND_BASELINE)

FRONTIER_COLOUR = "#1f6feb"
DOMINATED_COLOUR = "#b0b0b0"
OWN_COLOUR = "#d62828"


def _hover(point: CostPoint, chart: CostChart) -> str:
    cost = f"${point.usd_per_episode:.4f}" if chart.axis == USD else f"{point.tokens_per_episode:,.0f} tokens"
    stderr = f" ± {point.score_stderr:.{chart.digits}f}" if point.score_stderr is not None else ""
    state = "dominated" if point.dominated else "on the frontier"
    name = plain_text(point.submission.name)
    return f"{name}<br>{point.score:.{chart.digits}f}{stderr}<br>{cost} per episode ({point.episodes} episodes)<br>{state}"


def _trace(points: list[CostPoint], chart: CostChart, *, name: str, colour: str, size: int = 11) -> dict:
    return _scatter(
        x=[point.cost(chart.axis) for point in points],
        y=[point.score for point in points],
        error_y={"type": "data", "array": [point.score_stderr or 0 for point in points], "color": colour},
        mode="markers+text",
        text=[plain_text(point.submission.name) for point in points],
        textposition="top center",
        marker={"color": colour, "size": size, "line": {"width": 1, "color": "#ffffff"}},
        name=name,
        hovertext=[_hover(point, chart) for point in points],
        hoverinfo="text",
    )


def frontier_steps(chart: CostChart) -> tuple[list[float], list[float]]:
    """The frontier as a staircase from the cheapest point: each step holds its score
    until the next frontier point, which is dearer and better."""
    xs, ys = [], []
    for point in chart.frontier:
        if xs:
            xs.append(point.cost(chart.axis))
            ys.append(ys[-1])
        xs.append(point.cost(chart.axis))
        ys.append(point.score)
    return xs, ys


def cost_figure(chart: CostChart, own=None) -> dict:
    """The chart as a Plotly figure (a dict for json_script); `own`: the submission whose
    point is ringed."""
    # Plain traces and layout (leaderboard.boards.charts._figure): built through Plotly's
    # objects, the model page's dozen charts took 0.3 s of CPU at 10^5 episodes.
    xs, ys = frontier_steps(chart)
    traces = [_scatter(
        x=xs, y=ys, mode="lines", line={"color": FRONTIER_COLOUR, "width": 2}, name="Pareto frontier",
        hoverinfo="skip",
    ), _trace(chart.frontier, chart, name="on the frontier", colour=FRONTIER_COLOUR)]
    dominated = [point for point in chart.points if point.dominated]
    if dominated:
        traces.append(_trace(dominated, chart, name="dominated", colour=DOMINATED_COLOUR))
    if own is not None:
        mine = chart.point_of(own)
        if mine is not None:
            traces.append(_scatter(
                x=[mine.cost(chart.axis)], y=[mine.score], mode="markers", name="this submission",
                marker={"size": 20, "color": "rgba(0,0,0,0)", "line": {"width": 3, "color": OWN_COLOUR}},
                hoverinfo="skip",
            ))
    direction = "higher is better" if chart.higher_is_better else "lower is better"
    return _figure(traces, {
        "title": {"text": plain_text(chart.title)},
        "xaxis": {"title": {"text": chart.axis_label + " · cheaper to the left"}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": f"{plain_text(chart.metric_label)} · {direction}"}},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 50, "l": 70, "r": 20, "b": 90},
        "height": 420,
    })


def chart_context(chart, own=None) -> dict:
    """What a template needs to draw one chart and list its points."""
    return {"chart": chart, "figure": cost_figure(chart, own), "id": f"fig-cost-{chart.key.replace('.', '-')}"}


def submission_cost_context(submission, ranked_runs: list | None = None) -> list[dict]:
    """The model page's charts: each chart of either tab the submission has a point on,
    its point ringed, with where it sits ("on the frontier" or "dominated"). Of
    `ranked_runs` when given (every task's ranked runs by id, leaderboard.selectors.
    submissions.every_ranked_run): the boards' runs are its models' and baselines'."""
    entries = []
    # Both tabs' runs read once, and a tab's board (the whole arena's runs of that
    # observation mode) built only when the submission has a run in it: the two boards
    # were some 40 % of a model page's CPU at 10^5 episodes (bench/read_pages.py).
    if ranked_runs is None:
        runs = scored_runs_by_id(Filters())
    else:
        runs = [run for run in ranked_runs if run.submission.kind in BOARD_KINDS]
    for tab, label in overall.TABS.items():
        tab_runs = with_mode(runs, tab)
        if not any(run.submission_id == submission.pk for run in tab_runs):
            continue
        for chart in cost_charts(tab, runs=tab_runs):
            point = chart.point_of(submission)
            if point is None:
                continue
            entry = chart_context(chart, own=submission)
            entry["id"] = f"{entry['id']}-{tab}"
            entries.append({**entry, "tab": label, "point": point})
    return entries
