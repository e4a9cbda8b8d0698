"""The cost-against-score page (/cost/): per tab, the overall chart and each suite's
(leaderboard.cost_selectors, drawn by leaderboard.cost_chart)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.shortcuts import render

from leaderboard import overall
from leaderboard.cost_chart import cost_figure
from leaderboard.cost_selectors import cost_charts


def chart_context(chart, own=None) -> dict:
    """What a template needs to draw one chart and list its points."""
    return {"chart": chart, "figure": cost_figure(chart, own), "id": f"fig-cost-{chart.key.replace('.', '-')}"}


def cost_page(request):
    tab = request.GET.get("tab", "llm")
    tab = tab if tab in overall.TABS else "llm"
    charts = [chart_context(chart) for chart in cost_charts(tab)]
    return render(request, "leaderboard/cost.html", {
        "charts": charts, "tab": tab,
        "tab_links": [(key, label, urlencode({"tab": key})) for key, label in overall.TABS.items()],
    })


def submission_cost_context(submission) -> list[dict]:
    """The model page's charts: each chart of either tab the submission has a point on,
    its point ringed, with where it sits ("on the frontier" or "dominated")."""
    entries = []
    for tab, label in overall.TABS.items():
        for chart in cost_charts(tab):
            point = chart.point_of(submission)
            if point is None:
                continue
            entry = chart_context(chart, own=submission)
            entry["id"] = f"{entry['id']}-{tab}"
            entries.append({**entry, "tab": label, "point": point})
    return entries
