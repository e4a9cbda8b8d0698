"""TextAtari's relative-performance chart (TextAtari Fig. 6 and App. E, Figs. 8–39):
two configurations A and B (two submissions, or two scenarios or agents of one),
compared game by game.

App. E.1 describes every one of these figures the same way: "bar charts represent the
relative performance differences (percentage change) across all 23 Atari environments,
while vertical lines indicate the normalized average performance scores for each
configuration". Here, as there:

- one horizontal bar per game both configurations played: the percentage change of the
  mean game score from A to B, 100 × (B − A) / |A| (|A|, so that a better B is a
  positive bar even where scores are negative, as in Pong). The paper does not say
  which score the change is taken of; the game score is the one the paper calls
  performance, and it keeps games whose normalised score is near 0 from dwarfing the
  rest. A game where A's mean score is 0 has no percentage change: it gets no bar and
  is named under the chart;
- one vertical line per configuration, at its normalised average: the mean over the
  games both played of the game's mean human-normalised score, in percent, on the same
  axis as the bars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from leaderboard.boards.charts import figure_json, plain_text
from leaderboard.boards.cells import mean_of

if TYPE_CHECKING:  # the rows it compares; the page module imports this one
    from leaderboard.suites.textatari import Row

# Pixels: the plot area, the room under it for the tick labels and axis title, then the
# legend.
PLOT_MIN_HEIGHT, BAR_HEIGHT = 140, 26
MARGIN_TOP, LEGEND_GAP, MARGIN_BOTTOM = 50, 64, 150

COLOURS = {"better": "#2a9d8f", "worse": "#e76f51", "A": "#264653", "B": "#e9c46a"}


def percentage_change(a: float, b: float) -> float | None:
    """100 × (b − a) / |a|; None where a is 0 (no change can be stated in percent)."""
    if a == 0:
        return None
    return 100.0 * (b - a) / abs(a)


def relative_performance(a: Row, b: Row) -> dict:
    """The chart of B against A: {"figure", "compared": games with a bar, "undefined":
    titles of games without one, "empty": why there is no chart ("" when there is)}."""
    common = [
        (cell_a, b.cell(cell_a.game.name))
        for cell_a in a.cells
        if cell_a.runs and b.cell(cell_a.game.name) is not None
    ]
    if not common:
        return {"figure": None, "compared": 0, "undefined": [], "empty": "These two have no games in common."}
    titles, changes, hovers, undefined = [], [], [], []
    for cell_a, cell_b in common:
        change = percentage_change(cell_a.score.mean, cell_b.score.mean)
        if change is None:
            undefined.append(cell_a.game.title)
            continue
        titles.append(cell_a.game.title)
        changes.append(change)
        hovers.append(
            f"A {cell_a.score.mean:.1f} → B {cell_b.score.mean:.1f} "
            f"(normalised {cell_a.normalised.mean:.1f} % → {cell_b.normalised.mean:.1f} %)"
        )
    lines = {
        "A": mean_of(cell_a.normalised for cell_a, _ in common),
        "B": mean_of(cell_b.normalised for _, cell_b in common),
    }
    figure = go.Figure(
        go.Bar(
            x=changes, y=titles, orientation="h", customdata=hovers, name="change of the game score, A → B",
            marker={"color": [COLOURS["better"] if change >= 0 else COLOURS["worse"] for change in changes]},
            hovertemplate="%{y}: %{x:+.1f} %<br>%{customdata}<extra></extra>",
        )
    )
    for side, row in (("A", a), ("B", b)):
        mean = lines[side].mean
        figure.add_vline(x=mean, line_dash="dash", line_color=COLOURS[side], line_width=2)
        # An invisible trace puts the line in the legend with the configuration's name.
        figure.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="lines", line={"dash": "dash", "color": COLOURS[side]},
                name=plain_text(f"{side}: {row.label}, normalised average {mean:.1f} %"),
            )
        )
    games = "game" if len(common) == 1 else "games"
    # Sized in pixels: the bars get room even when there are one or two, and the legend
    # (three lines once it wraps) starts below the axis title instead of over it.
    plot_height = max(PLOT_MIN_HEIGHT, BAR_HEIGHT * len(titles))
    figure.update_layout(
        title={"text": f"Relative performance over {len(common)} {games} (percentage change, A → B)"},
        xaxis={"title": {"text": "% change of the mean game score; dashed: normalised average (%)"},
               "zeroline": True},
        yaxis={"autorange": "reversed"},
        height=MARGIN_TOP + plot_height + MARGIN_BOTTOM,
        legend={"orientation": "h", "yanchor": "top", "y": -LEGEND_GAP / plot_height},
        margin={"t": MARGIN_TOP, "l": 140, "r": 20, "b": MARGIN_BOTTOM},
    )
    return {"figure": figure_json(figure), "compared": len(titles), "undefined": undefined, "empty": ""}
