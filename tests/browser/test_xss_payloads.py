"""In real Chromium: what a hostile model writes is shown as text everywhere it is shown
— the replay (completion, reasoning, observation, actions, error), the compare page,
the run page, the submission's name on the leaderboard — and no script of it runs."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PAYLOADS = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=2</script>",
    '<a href="javascript:window.__pwned=3">click</a>',
    '"><svg onload="window.__pwned=4">',
    "{{7*7}} %{y} ${7*7}",
]

# A finished lmact/gridworld episode (and a second one to compare it with) whose every
# stored text carries the payloads; one transaction, so the site's worker plays nothing.
HOSTILE_EPISODES = f"""
import json
from django.db import transaction
from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec, run_create
from arena.services.steps import step_record
from arena.services.submissions import submission_create
from arena.models import Episode
from arena.services.steps import StepRecord
payload = " ".join({PAYLOADS!r})
with transaction.atomic():
    submission = submission_create(
        owner=None, api_key="sk-unused-key-0000",
        fields={{"name": payload[:100], "model": payload[:200], "base_url": "https://api.example.com/v1"}}, runs=[],
    )
    ids = []
    for n in range(2):
        run = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1))
        episode = run.episodes.get()
        assert episode_claim(episode.id, "xss-test")
        for index in range(3):
            step_record(episode.id, "xss-test", StepRecord(
                index=index, observation_text=payload, observation_image=None,
                prompt_added=[{{"type": "text", "text": payload, "section": "trajectory"}}],
                completion=payload, reasoning=payload, parsed_action=payload, executed_action="up" if n else "down",
                legal=False, reward=0.0, done=index == 2, end_reason="step limit" if index == 2 else "",
                tokens_in=1, tokens_out=1, latency_ms=1.0, error=payload, info={{"note": payload}},
            ))
        episode_finish(episode.id, "xss-test", score=0.0, end_reason=payload[:190], final_text=payload)
        ids.append(episode.id)
print(json.dumps({{"episodes": ids, "run": Episode.objects.get(pk=ids[0]).run_id}}))
"""


@pytest.fixture(scope="module")
def hostile(site):
    return site.django(HOSTILE_EPISODES)


def _pages(hostile):
    first, second = hostile["episodes"]
    return [
        f"/episodes/{first}/?step=1",
        f"/episodes/{first}/compare/{second}/?step=1",
        f"/runs/{hostile['run']}/",
        "/tasks/lmact/gridworld/",
    ]


@pytest.mark.parametrize("which", range(4))
def test_hostile_text_is_shown_as_text_and_never_runs(site, browser, hostile, which):
    path = _pages(hostile)[which]
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    response = page.goto(f"{site.url}{path}")
    assert "script-src" in response.headers.get("content-security-policy", "")
    expect(page.locator("body")).to_contain_text("onerror=", timeout=15_000)  # shown, as text
    page.wait_for_timeout(500)  # let any injected handler fire
    assert page.evaluate("() => window.__pwned") is None
    assert not dialogs
    # No element the payload describes was created by it.
    assert page.locator("img[src='x'], svg[onload], a[href^='javascript:']").count() == 0
    page.close()
