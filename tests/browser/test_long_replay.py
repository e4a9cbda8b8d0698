"""In real Chromium against the real site: a 100,000-step episode opens at a deep-linked
step after a few small requests (a window of steps and the scrubber's marks, not every
step), then steps, scrubs to a far step, jumps to marked events and to the end, each
move fetching only the window it needs."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

STEPS = 100_000

LONG_EPISODE = f"""
import json
from arena.services.submissions import baseline_submission
from tests.support.long_episode import long_episode
print(json.dumps(long_episode(baseline_submission("random", "Random"), {STEPS}).id))
"""


@pytest.fixture(scope="module")
def long_episode_id(site):
    return site.django(LONG_EPISODE)


class ApiTraffic:
    """The API requests a page made and the bytes of their responses."""

    def __init__(self, page):
        self.requests = []
        self.bytes = 0
        page.on("requestfinished", self._finished)

    def _finished(self, request):
        if "/api/" in request.url:
            self.requests.append(request.url)
            self.bytes += request.sizes()["responseBodySize"]


def _open(browser, url):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    traffic = ApiTraffic(page)
    page.goto(url)
    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=20_000)
    return page, traffic, errors


def test_a_100k_step_episode_opens_at_the_linked_step_after_a_few_small_requests(site, browser, long_episode_id):
    page, traffic, errors = _open(browser, f"{site.url}/episodes/{long_episode_id}/?step=73512")

    expect(page.locator("#observation")).to_have_text("long episode, step 73512")
    expect(page.locator("#step-label")).to_have_text("Step 73512 / 99999")
    expect(page.locator("#fact-cumulative")).to_have_text("73")  # a reward of 1 every 1,000 steps
    expect(page.locator("#player")).to_have_attribute("data-step-count", str(STEPS))
    # The scrubber spans the whole episode, marks included: the one error is at step 50,001.
    assert page.locator("#scrubber").get_attribute("max") == str(STEPS - 1)
    expect(page.locator("#scrubber-marks .mark-error")).to_have_count(1)
    page.wait_for_load_state("networkidle")
    assert len(traffic.requests) < 5, traffic.requests
    assert traffic.bytes < 2_000_000, traffic.bytes
    assert not errors, errors


def test_a_100k_step_episode_steps_and_scrubs_loading_only_the_windows_it_shows(site, browser, long_episode_id):
    page, traffic, errors = _open(browser, f"{site.url}/episodes/{long_episode_id}/?step=73512")

    page.keyboard.press("ArrowRight")
    expect(page.locator("#observation")).to_have_text("long episode, step 73513")

    page.locator("#scrubber").fill("12345")  # a far step, as a drag of the scrubber ends
    expect(page.locator("#observation")).to_have_text("long episode, step 12345")
    expect(page.locator("#fact-cumulative")).to_have_text("12")
    expect(page).to_have_url(re.compile(r"\?step=12345$"))

    page.keyboard.press("Shift+ArrowRight")  # the next marked event: an illegal action
    expect(page.locator("#observation")).to_have_text("long episode, step 12351")
    expect(page.locator("#legal-badge")).to_have_text("illegal → replaced")

    page.keyboard.press("End")
    expect(page.locator("#observation")).to_have_text(f"long episode, step {STEPS - 1}")
    expect(page.locator("#end-reason")).to_contain_text("step limit")

    page.wait_for_load_state("networkidle")
    held = int(page.locator("#player").get_attribute("data-steps-held"))
    assert held <= 1_200, held
    assert len(traffic.requests) < 15, traffic.requests
    assert traffic.bytes < 5_000_000, traffic.bytes
    assert not errors, errors
