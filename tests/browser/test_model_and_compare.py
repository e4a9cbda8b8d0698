"""In real Chromium against the real site: a model page shows its results and standing,
its form opens the paired comparison, which shows a confidence interval, and a seed's
link opens the two episodes side by side."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TWO_SUBMISSIONS_ON_SHARED_SEEDS = """
import json
from arena.services.submissions import baseline_submission
from tests.support.episodes import scripted_run
expert = baseline_submission("expert", "Expert")
rnd = baseline_submission("random", "Random")
scripted_run(expert, [1.0, 1.0, 0.5, 1.0], first_seed=7)
scripted_run(rnd, [0.0, 0.5, 0.0, 0.0], first_seed=7, steps=3)
print(json.dumps([expert.pk, rnd.pk]))
"""


def test_a_model_page_leads_to_a_paired_comparison_and_a_side_by_side_replay(site, browser):
    expert, rnd = site.django(TWO_SUBMISSIONS_ON_SHARED_SEEDS)
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{site.url}/submissions/{expert}/")
    results = page.locator("#results-lmact")
    expect(results).to_contain_text("Grid world")
    expect(results).to_contain_text("0.875 ± 0.125")
    expect(results.locator(".standing svg circle.strip-own")).to_have_count(1)

    page.select_option("#compare-with", str(rnd))
    page.locator("#compare-form button").click()
    expect(page).to_have_url(re.compile(rf"/compare/\?a={expert}&b={rnd}$"))
    summary = page.locator("#paired-summary tbody tr").first
    expect(summary).to_contain_text("+0.750")
    expect(summary.locator("td.ci .muted")).to_have_text(re.compile(r"^\[\+0\.\d{3}, \+1\.000\]$"))
    expect(summary).to_contain_text("4 / 0 / 0")
    expect(summary).to_contain_text("A better")

    page.locator("a.seed-replay").first.click()
    expect(page).to_have_url(re.compile(r"/episodes/\d+/compare/\d+/"))
    expect(page.locator("#compare[data-ready='1']")).to_be_attached(timeout=10_000)
    expect(page.locator("#compare-title")).to_contain_text("Side by side")
    assert not errors, errors
