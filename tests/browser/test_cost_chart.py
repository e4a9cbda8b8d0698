"""In real Chromium against the real site: the cost-against-score chart draws five priced
submissions on LMAct's grid world, the frontier's three in colour joined by the frontier,
the two dominated ones grey, and the model page rings its own point."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# (name, mean score over two episodes, tokens per episode) at $1 per million tokens:
# Charlie is beaten by Bravo, Echo by Bravo and Delta.
SETUP = r"""
import json
from decimal import Decimal
from django.utils import timezone
from arena.models import Run, Submission
from envs.registry import get_task_class, suite_of

# Played under LMAct's paper preset: only comparable runs are charted (arena.protocol).
preset = suite_of("lmact/gridworld").paper_preset
variant = {"format": "ascii", "options": {}, **dict(preset.strategy)}
num_episodes = max(2, preset.episodes_of(get_task_class("lmact/gridworld")))
ids = {}
for name, score, tokens in (("Alpha", 0.25, 1000), ("Bravo", 0.75, 2000), ("Charlie", 0.5, 3000),
                            ("Delta", 1.0, 4000), ("Echo", 0.75, 5000)):
    model = Submission.objects.create(
        name=name, kind=Submission.KIND_MODEL, model=name.lower(),
        price_input_per_mtok=Decimal("1"), price_output_per_mtok=Decimal("1"),
    )
    now = timezone.now()
    Run.objects.create(
        submission=model, task="lmact/gridworld", variant=variant, num_episodes=num_episodes,
        status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=2,
        score_sum=2 * score, score_sq_sum=2 * score * score, illegal_episodes=2,
        tokens_spent_in=2 * tokens, tokens_spent_out=0,
    )
    ids[name] = model.pk
print(json.dumps(ids))
"""

CHART = '.plotly-chart[data-figure="fig-cost-lmact-gridworld"]'


def _marker_fills(page, chart: str) -> list[str]:
    return page.eval_on_selector_all(
        f"{chart} .scatterlayer .trace .points path.point", "nodes => nodes.map(n => getComputedStyle(n).fill)"
    )


def test_the_chart_draws_the_frontier_and_greys_the_dominated(site, browser, tmp_path):
    ids = site.django(SETUP)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site.url + "/cost/")
    chart = page.locator(CHART)
    expect(chart).to_have_attribute("data-chart-state", "drawn")
    fills = _marker_fills(page, CHART)
    assert fills.count("rgb(31, 111, 235)") == 3 and fills.count("rgb(176, 176, 176)") == 2
    # The frontier is one line through Alpha, Bravo and Delta.
    assert page.locator(f"{CHART} .scatterlayer .trace path.js-line").count() >= 1
    chart.screenshot(path=str(tmp_path / "cost-chart.png"))
    print("screenshot:", tmp_path / "cost-chart.png")

    page.goto(f"{site.url}/submissions/{ids['Charlie']}/")
    own = page.locator('.plotly-chart[data-figure="fig-cost-lmact-gridworld-llm"]')
    expect(own).to_have_attribute("data-chart-state", "drawn")
    expect(page.locator("#cost-against-score")).to_be_visible()
    expect(page.locator(".cost-standing").first).to_contain_text("dominated")
    own.screenshot(path=str(tmp_path / "cost-chart-model-page.png"))
    print("screenshot:", tmp_path / "cost-chart-model-page.png")
    page.close()
