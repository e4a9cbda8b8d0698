"""The cost-against-score page (/cost/): per tab, the overall chart and each suite's
(leaderboard.boards.cost, drawn by leaderboard.boards.cost_chart)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.shortcuts import render

from leaderboard.boards import overall
from leaderboard.boards.cost import cost_charts
from leaderboard.boards.cost_chart import chart_context


def cost_page(request):
    tab = request.GET.get("tab", "llm")
    tab = tab if tab in overall.TABS else "llm"
    charts = cost_charts(tab)
    # An empty chart says nothing a line cannot: the charts without a point are named
    # together instead of drawn (on a new arena, every one of them).
    return render(request, "leaderboard/cost.html", {
        "charts": [chart_context(chart) for chart in charts if chart.points],
        "empty_titles": [chart.title for chart in charts if not chart.points],
        "tab": tab,
        "tab_links": [(key, label, urlencode({"tab": key})) for key, label in overall.TABS.items()],
    })
