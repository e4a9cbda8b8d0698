"""A head-to-head match watched live in Chromium: while two fake models play Connect
Four (each answer takes a moment), the match page receives their moves over the live
channel and shows both players' reasoning side by side, then the end."""

import subprocess
import sys

import pytest

from tests.browser.conftest import ROOT
from tests.support.fake_players import ScriptedPlayer
from tests.support.processes import stop_all

QUEUE_MATCH = """
import json
from arena.matches import services
from arena.services.submissions import submission_create
models = []
for style, url in (("first", {first!r}), ("recovering", {recovering!r})):
    models.append(submission_create(owner=None, fields={{
        "name": "plays " + style, "base_url": url, "model": "fake", "max_tokens": 64,
        "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": True, "head_to_head": True,
    }}, api_key="sk-test-canary-0123456789", runs=[]))
print(json.dumps(services.queue_pair("connect_four", models[0], models[1], opening_seed=3, round_number=1)[0].pk))
"""


@pytest.fixture
def slow_models():
    servers = [ScriptedPlayer("first", answer_seconds=0.4).start(), ScriptedPlayer("recovering", answer_seconds=0.4).start()]
    yield servers
    for server in servers:
        server.stop()


def test_a_live_match_shows_both_players_reasoning(site, browser, slow_models):
    first, recovering = slow_models
    match_id = site.django(QUEUE_MATCH.format(first=first.base_url, recovering=recovering.base_url))
    page = browser.new_page()
    polled = []
    page.on("request", lambda request: polled.append(request.url) if "moves.json" in request.url else None)
    page.goto(f"{site.url}/matches/{match_id}/")
    assert page.locator("#match-live").inner_text() == "live"
    assert page.locator("#match-moves tbody tr").count() == 0
    player = subprocess.Popen(
        [sys.executable, "manage.py", "arena_matches", "play", "--until-idle"],
        cwd=ROOT, env=site.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        # Both sides' reasoning reach the open page without a reload, each in its own panel.
        page.locator("#match-side-0 .match-reasoning", has_text="first: thinking about").first.wait_for(timeout=30_000)
        page.locator("#match-side-1 .match-reasoning", has_text="recovering: thinking about").first.wait_for(timeout=30_000)
        assert page.locator("#match-live").inner_text() == "live"  # still being played
        # The recovering model's first answer was illegal: its feedback is shown with the move.
        assert "not a legal move" in page.locator("#match-side-1").inner_text()
        page.locator("#match-live", has_text="ended").wait_for(timeout=60_000)
    finally:
        stop_all([player])
    assert "Game over" in page.locator("#match-turn").inner_text()
    # The opening, chosen once the match started, reached the page with the first move.
    opening = site.django(
        f"import json; from arena.models import Match; print(json.dumps(Match.objects.get(pk={match_id}).opening_moves))"
    )
    assert len(opening) == 2 and page.locator("#match-opening").inner_text() == " ".join(opening)
    rows = page.locator("#match-moves tbody tr").count()
    assert rows > 2
    assert page.locator("#match-side-0 h2").inner_text().startswith("X")
    # Replay: step back to the start, then forward one move.
    page.click('[data-go="first"]')
    assert page.locator("#match-position").inner_text() == f"after move 0 of {rows}"
    assert "No move yet." in page.locator("#match-side-0").inner_text()
    page.click('[data-go="next"]')
    assert page.locator("#match-position").inner_text() == f"after move 1 of {rows}"
    assert polled == [], "the moves came over the websocket, not the JSON fallback"
    assert "sk-test-canary" not in page.content()


PAYLOADS = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=2</script>",
    '"><svg onload="window.__pwned=4">',
]
HOSTILE_MATCH = f"""
import json
from django.db import transaction
from arena.matches import services
from arena.matches.games import Ending
from arena.matches.seats import Attempt, MoveAnswer
from arena.services.submissions import submission_create
payload = " ".join({PAYLOADS!r})
seats = [submission_create(owner=None, api_key="sk-unused-key-0000", runs=[], fields={{
    "name": (str(n) + payload)[:100], "base_url": "https://api.example.com/v1", "model": "m"}}) for n in range(2)]
# Queued and claimed in one transaction: the site's own worker would otherwise take the
# queued match between the two.
with transaction.atomic():
    match = services.queue_pair("tictactoe", seats[0], seats[1], opening_seed=0, round_number=1)[0]
    assert services.match_claim(match.pk, "xss")
for index in range(2):
    answer = MoveAnswer(action=None if index else "b2", observation=payload, messages=[{{"role": "user", "content": payload}}],
                        attempts=[Attempt([], completion=payload, reasoning=payload, parsed_action=payload[:50], feedback=payload)])
    services.match_record_move(match.pk, "xss", index, 1 - index, answer, payload)
services.match_finish(match.pk, "xss", Ending(1.0, payload[:190]))
print(json.dumps(match.pk))
"""


@pytest.mark.parametrize("path", ["/matches/{id}/", "/matches/"])
def test_hostile_model_text_on_a_match_is_text(site, browser, path):
    match_id = site.django(HOSTILE_MATCH)
    page = browser.new_page()
    page.goto(site.url + path.format(id=match_id))
    assert "onerror=" in page.locator("body").inner_text()
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("img[src='x'], svg[onload]").count() == 0
    page.close()
