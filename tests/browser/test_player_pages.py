"""In real Chromium against the real site: an episode skipped by its run's budget is
shown as ended (not as live, waiting); a step whose answer was cut off is told from an
illegal one; and the compare page moves both episodes on one scrubber and marks where
their actions first differ."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SKIPPED_EPISODE = """
import json
from arena.services.submissions import baseline_submission
from tests.support.episodes import skipped_episode
print(json.dumps(skipped_episode(baseline_submission("random", "Random")).id))
"""

TWO_SCRIPTED_EPISODES = """
import json
from arena.services.submissions import baseline_submission
from tests.support.episodes import scripted_episode
left = scripted_episode(baseline_submission("expert", "Expert"), ["up", "up", "left", "down"])
right = scripted_episode(baseline_submission("random", "Random"), ["up", "up", "right"])
print(json.dumps([left.id, right.id]))
"""

# Steps 1 and 2 replaced: the first because the token limit cut its answer off, the
# second because its answer was not a legal action.
CUT_OFF_AND_ILLEGAL = """
import json
from arena.models import Step
from arena.services.submissions import baseline_submission
from tests.support.episodes import scripted_episode
episode = scripted_episode(baseline_submission("random", "Random"), ["up", "up", "left"])
Step.objects.filter(episode=episode, index=1).update(legal=False, cut_off=True, parsed_action=None)
Step.objects.filter(episode=episode, index=2).update(legal=False, parsed_action="jump")
print(json.dumps(episode.id))
"""

# The same three steps in an episode still being played (claimed by a worker that is not
# the site's): the page counts what it has live.
PLAYING_WITH_CUT_OFF_AND_ILLEGAL = """
import json
from arena.models import Step
from arena.services.runs import RunSpec
from arena.services.submissions import baseline_submission
from tests.support.episodes import claimed_episode, record_step
episode = claimed_episode(
    baseline_submission("random", "Random"),
    RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1, first_seed=4), worker="elsewhere",
)
for index, action in enumerate(["up", "up", "left"]):
    record_step(episode.id, index, action, worker="elsewhere")
Step.objects.filter(episode=episode, index=1).update(legal=False, cut_off=True, parsed_action=None)
Step.objects.filter(episode=episode, index=2).update(legal=False, parsed_action="jump")
print(json.dumps(episode.id))
"""


def _page(browser):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def test_a_skipped_episode_page_shows_it_as_ended(site, browser):
    episode_id = site.django(SKIPPED_EPISODE)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{episode_id}/")

    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=10_000)
    expect(page.locator("#player")).to_have_attribute("data-mode", "replay")
    expect(page.locator("#live-badge")).to_be_hidden()
    expect(page.locator("#episode-status")).to_have_text("skipped")
    expect(page.locator("#end-reason")).to_have_text("Episode not played: skipped: budget exhausted")
    expect(page.locator("#observation")).to_have_text("This episode has no recorded steps.")
    assert not errors, errors


def test_a_step_cut_off_by_the_token_limit_is_not_called_illegal(site, browser):
    episode_id = site.django(CUT_OFF_AND_ILLEGAL)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{episode_id}/?step=1")
    expect(page.locator("#fact-step")).to_have_text("1", timeout=10_000)
    expect(page.locator("#legal-badge")).to_have_text("answer cut off → replaced")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#fact-step")).to_have_text("2")
    expect(page.locator("#legal-badge")).to_have_text("illegal → replaced")
    page.keyboard.press("Home")
    expect(page.locator("#legal-badge")).to_have_text("legal")
    # Only the illegal step is marked as one on the scrubber.
    expect(page.locator("#scrubber-marks .mark-illegal")).to_have_count(1)
    assert not errors, errors


def test_a_live_episode_counts_cut_off_answers_apart_from_illegal_actions(site, browser):
    episode_id = site.django(PLAYING_WITH_CUT_OFF_AND_ILLEGAL)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{episode_id}/")
    expect(page.locator("#live-badge")).to_be_visible(timeout=10_000)
    expect(page.locator("#fact-step")).to_have_text("2", timeout=10_000)
    expect(page.locator("#episode-illegal")).to_have_text("1")
    expect(page.locator("#episode-cut-off")).to_have_text("1")
    assert not errors, errors


WAITING_MODEL_EPISODE = """
import json
from arena.services.runs import RunSpec
from arena.services.submissions import submission_create
from tests.support.episodes import claimed_episode
submission = submission_create(
    owner=None, api_key="",
    fields={"name": "Waiting model", "model": "m", "base_url": "https://api.example.com/v1"}, runs=[],
)
claimed = claimed_episode(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1), worker="elsewhere")
print(json.dumps(claimed.id))
"""


def test_a_model_episode_without_a_step_says_what_it_waits_for(site, browser):
    # Claimed by a worker that is not the site's: it stays without a step.
    claimed = site.django(WAITING_MODEL_EPISODE)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{claimed}/")
    expect(page.locator("#observation")).to_contain_text("a turn at the endpoint", timeout=10_000)
    assert not errors, errors


def test_the_compare_page_moves_both_episodes_together_and_marks_the_first_difference(site, browser):
    left, right = site.django(TWO_SCRIPTED_EPISODES)
    page, errors = _page(browser)

    page.goto(f"{site.url}/episodes/{left}/compare/{right}/")
    expect(page.locator("#compare[data-ready='1']")).to_be_attached(timeout=10_000)
    expect(page.locator("#first-difference")).to_have_text(
        "Executed actions first differ at step 2: Expert played left, Random played right."
    )
    expect(page.locator("#scrubber-marks .mark-differ")).to_have_attribute("data-step", "2")
    # Both sides are drawn by the player's renderer for the task, at the same step.
    expect(page.locator("#left-observation")).to_have_attribute("data-renderer", "text")
    expect(page.locator("#left-observation")).to_have_text("obs 0")
    expect(page.locator("#right-observation")).to_have_text("obs 0")

    page.keyboard.press("ArrowRight")
    expect(page.locator("#left-fact-step")).to_have_text("1")
    expect(page.locator("#right-fact-step")).to_have_text("1")

    page.keyboard.press("Shift+ArrowRight")  # to where the actions first differ
    expect(page.locator("#compare-title")).to_have_text("Side by side: step 2 of 3")
    expect(page.locator("#left-executed-action")).to_have_text("left")
    expect(page.locator("#right-executed-action")).to_have_text("right")
    expect(page.locator("#step-label")).to_contain_text("actions differ here")
    expect(page).to_have_url(re.compile(r"\?step=2$"))

    page.keyboard.press("End")  # the longer episode's last step; the other had ended
    expect(page.locator("#left-fact-step")).to_have_text("3")
    expect(page.locator("#right-observation")).to_have_text("This episode had already ended.")
    expect(page.locator("#right-end-reason")).to_contain_text("Episode ended: step limit")

    page.locator("#scrubber").fill("0")
    expect(page.locator("#left-fact-step")).to_have_text("0")
    expect(page.locator("#right-fact-step")).to_have_text("0")
    assert not errors, errors
