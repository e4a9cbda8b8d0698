"""In real Chromium against the real site, what hostile submitters leave behind: a replay
of megabyte completions loads pages of cut steps and fetches the shown step whole; a
model named with markup is drawn in charts as the text it is, never as a link."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from leaderboard.serializers import STEP_PAGE_MAX_BYTES
from tests.support.huge_steps import END_MARK

pytestmark = pytest.mark.browser

HUGE_EPISODE = """
import json
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission, submission_create
from tests.support.huge_steps import huge_steps_episode
print(json.dumps(huge_steps_episode(baseline_submission("random", "Random"), steps=3).id))
"""

MARKUP_NAME = '<a href="https://example.com/">LNK</a> %{y}'

# Finished runs of a model so named and of the random baseline on lmact/tictactoe, in
# one transaction: their episodes are queued on commit, already finished, so the
# site's worker plays nothing.
MARKUP_NAMED_RUN = f"""
import json
from django.db import transaction
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission, submission_create
from arena.models import Episode, Run
with transaction.atomic():
    submission = submission_create(
        owner=None, api_key="sk-unused-key-0000",
        fields={{"name": {MARKUP_NAME!r}, "model": {MARKUP_NAME!r}, "base_url": "https://api.example.com/v1"}},
        runs=[RunSpec(task="lmact/tictactoe", format="ascii", num_episodes=2)],
    )
    random_play = run_create(
        baseline_submission("random", "Random"),
        RunSpec(task="lmact/tictactoe", format="ascii", num_episodes=2),
    )
    for run in (submission.runs.get(), random_play):  # two lines: the chart draws its legend
        run.episodes.update(status=Episode.FINISHED, score=1.0)
        Run.objects.filter(pk=run.pk).update(episodes_done=2, score_sum=1.0, score_sq_sum=1.0, status=Run.FINISHED)
print(json.dumps(submission.id))
"""

# The steps lists the page fetched: [url, bytes of the body]. Performance entries list a
# request once it is answered: the lists are, before the player is ready.
STEPS_LISTINGS = """() => performance.getEntriesByType("resource")
  .filter((entry) => /[/]steps[/]([?].*)?$/.test(new URL(entry.name).pathname + new URL(entry.name).search))
  .map((entry) => [new URL(entry.name).pathname + new URL(entry.name).search, entry.decodedBodySize])"""
WHOLE_STEP = re.compile(r"/api/episodes/[0-9]+/steps/[0-9]+/?(\?.*)?$")


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _page(browser):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def test_a_replay_of_megabyte_completions_lists_cut_steps_and_shows_the_step_on_screen_whole(site, browser):
    episode_id = site.django(HUGE_EPISODE)
    page, errors = _page(browser)
    # Every request for a step whole, as it leaves: an answered one and one still loading.
    asked_whole = []
    page.on("request", lambda request: WHOLE_STEP.search(request.url) and asked_whole.append(_path(request.url)))
    # Step 2 cannot be had whole (below), however its address is written (a query string
    # too), from before the page opens.
    refused = []

    def refuse(route):
        refused.append(_path(route.request.url))
        route.fulfill(status=500, body="{}")

    page.route(re.compile(rf"/api/episodes/{episode_id}/steps/2/?(\?.*)?$"), refuse)

    page.goto(f"{site.url}/episodes/{episode_id}/")

    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=20_000)
    expect(page.locator("#player")).to_have_attribute("data-step-count", "3")
    expect(page.locator("#completion")).to_contain_text(END_MARK, timeout=20_000)
    expect(page.locator("#step-cut")).to_be_hidden()
    expect(page.locator("#reasoning")).to_contain_text(END_MARK)
    expect(page.locator("#prompt-added")).to_contain_text(END_MARK)

    page.keyboard.press("ArrowRight")
    expect(page.locator("#fact-step")).to_have_text("1")
    expect(page.locator("#completion")).to_contain_text("step 1 says up.")
    expect(page.locator("#completion")).to_contain_text(END_MARK, timeout=20_000)

    listings = page.evaluate(STEPS_LISTINGS)
    assert listings and all(size <= STEP_PAGE_MAX_BYTES for _, size in listings), listings
    # Only the steps shown were asked for whole.
    assert asked_whole == [f"/api/episodes/{episode_id}/steps/{index}/" for index in (0, 1)], asked_whole

    # A whole step that cannot be had leaves the cut one on screen, and says so.
    page.keyboard.press("End")
    expect(page.locator("#fact-step")).to_have_text("2")
    # As long as the megabyte texts above: the answer comes after the page has laid out
    # step 1's, which on a loaded two-core machine took longer than expect's 5 s.
    expect(page.locator("#step-cut")).to_contain_text("the whole step could not be loaded (HTTP 500)", timeout=20_000)
    expect(page.locator("#step-cut a")).to_have_attribute("href", f"/api/episodes/{episode_id}/steps/2/")
    expect(page.locator("#completion")).to_contain_text("step 2 says up.")
    expect(page.locator("#completion")).not_to_contain_text(END_MARK)
    # Step 2 was asked for whole once it was shown, and every such request was refused.
    assert asked_whole[2:] == refused == [f"/api/episodes/{episode_id}/steps/2/"], (asked_whole, refused)

    assert not errors, errors


LONG_PARSED_EPISODE = """
import json
from arena.services.submissions import baseline_submission
from tests.support.huge_steps import huge_steps_episode
answer = "I think the best move is " + "very " * 2000 + "up"
print(json.dumps(huge_steps_episode(baseline_submission("random", "Random"), steps=1, size=20_000, parsed_action=answer).id))
"""


def test_a_whole_answer_stored_as_the_parsed_action_is_cut_in_its_cell(site, browser):
    episode_id = site.django(LONG_PARSED_EPISODE)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{episode_id}/")

    parsed = page.locator("#parsed-action")
    expect(parsed).to_contain_text("I think the best move is very very", timeout=20_000)
    expect(parsed).to_contain_text("(10,027 characters; the whole answer is under Completion)")
    # The cut answer keeps the step's other facts on screen: a few lines, not a wall.
    assert parsed.bounding_box()["height"] < 200, parsed.bounding_box()
    expect(page.locator("#executed-action")).to_be_in_viewport()
    assert not errors, errors


@pytest.fixture(scope="module")
def markup_named_model(site):
    return site.django(MARKUP_NAMED_RUN)


@pytest.mark.parametrize(
    "path, chart",
    [("/suites/lmact/", "[data-figure='fig-best-lmact-tictactoe']"), ("/tasks/lmact/tictactoe/", "[data-figure='fig-score-ascii']")],
)
def test_a_model_named_with_markup_is_text_in_charts(site, browser, markup_named_model, path, chart):
    page, errors = _page(browser)

    page.goto(f"{site.url}{path}")

    drawn = page.locator(f"{chart}[data-chart-state='drawn']")
    expect(drawn).to_be_attached(timeout=20_000)
    expect(drawn).to_contain_text("LNK")  # the label is drawn
    assert drawn.locator("svg a").count() == 0  # Plotly draws <a href> in a label as a link
    expect(drawn).to_contain_text(MARKUP_NAME)
    assert not errors, errors
