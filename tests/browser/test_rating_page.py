"""In real Chromium against the real site: the chess rating page of four scripted models
of known strength and the random player lists them strongest first with their intervals
and rank ranges, and their win-rate matrix; it sorts by rating on a click, and the front
page's rating column (over all games) leads to the all-games page. A screenshot goes to
ARENA_SCREENSHOTS when it is set."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SETUP = r"""
import json
from django.utils import timezone
from arena.metrics import fold
from arena.models import Run, Submission
from tests.support.rated_matches import model, play_scripted, random_baseline

anchor = random_baseline()
truth = {anchor: 1000.0}
for name, rating in (("Weak", 1100.0), ("Fair", 1250.0), ("Good", 1400.0), ("Strong", 1600.0)):
    truth[model(name)] = rating
play_scripted("chess", truth, count=300, seed=4)
# Every game, so that the overall rating (over the players of every game) has them all.
play_scripted("tictactoe", truth, count=60, seed=5)
play_scripted("connect_four", truth, count=60, seed=6)
now = timezone.now()
for submission in truth:  # a row on the overall leaderboard for each
    Run.objects.create(
        submission=submission, task="balrog/crafter", variant={"format": "text", "options": {}}, num_episodes=1,
        status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=1, metric_sums=fold({}, {"progress": 10.0}),
    )
print(json.dumps({submission.name: submission.pk for submission in truth}))
"""


def _names(page) -> list[str]:
    return page.locator("#rating-table tbody tr td:nth-child(2) a.model-page").all_inner_texts()


def test_the_rating_page_orders_the_scripted_models_and_sorts_on_a_click(site, browser, tmp_path):
    site.django(SETUP)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site.url + "/")
    # Rows with only Crafter have no average progress: listed apart, in the second table.
    column = page.locator("#overall-table td.overall-rating a, #overall-apart-table td.overall-rating a").first
    expect(column).to_be_visible()
    page.screenshot(path=str(tmp_path / "front-page.png"), full_page=False)
    page.locator("nav.nav a", has_text="Ratings").click()
    expect(page).to_have_url(re.compile(r"/ratings/$"))
    page.locator("nav.tabs a", has_text="Chess").click()
    expect(page.locator("h1")).to_contain_text("Chess")
    assert _names(page) == ["Strong", "Good", "Fair", "Weak", "Random"]
    intervals = page.locator("#rating-table td.rating").all_inner_texts()
    for text in intervals[:4]:
        rating, low, high = map(int, re.fullmatch(r"(\d+) \[(\d+), (\d+)\]", text.strip()).groups())
        assert low < rating < high
    assert intervals[4].strip() == "1000 [1000, 1000]"
    ranks = page.locator("#rating-table td.rank").all_inner_texts()
    assert ranks[0].startswith("1 [1") and ranks[4] == "5 [5]"
    expect(page.locator("#rating-anchor")).to_contain_text("fixed at 1000")
    expect(page.locator("#win-matrix tbody tr")).to_have_count(5)
    page.screenshot(path=str(tmp_path / "ratings-chess.png"), full_page=True)
    if os.environ.get("ARENA_SCREENSHOTS"):
        Path(os.environ["ARENA_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(os.environ["ARENA_SCREENSHOTS"]) / "ratings-chess.png"), full_page=True)

    page.locator("#rating-table th", has_text="Rating").locator("button").click()
    first_sorted = _names(page)[0]
    page.locator("#rating-table th", has_text="Rating").locator("button").click()
    assert {first_sorted, _names(page)[0]} == {"Strong", "Random"}

    # The front page's rating column is over all games: it leads to that page.
    page.goto(site.url + "/")
    page.locator("#overall-table td.overall-rating a").first.click()
    expect(page).to_have_url(re.compile(r"/ratings/all/$"))
    expect(page.locator("h1")).to_contain_text("All games")
    assert _names(page)[0] == "Strong"
