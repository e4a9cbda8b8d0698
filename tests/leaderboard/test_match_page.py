"""The match page replays a stored match: both sides' prompts, answers and reasoning,
the illegal-move rule, the moves JSON; and the list of matches."""

import asyncio

import pytest

from arena.matches import services
from arena.matches.models import Match
from arena.matches.player import MatchWorker
from arena.services.submissions import submission_create
from tests.support.fake_players import ScriptedPlayer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def played_match(transactional_db, allow_loopback):
    servers = [ScriptedPlayer("recovering").start(), ScriptedPlayer("illegal").start()]
    models = [
        submission_create(
            owner=None,
            fields={"name": f"plays {style}", "base_url": server.base_url, "model": "fake", "max_tokens": 64,
                    "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": True,
                    "head_to_head": True},
            api_key="sk-test-canary-0123456789", runs=[],
        )
        for style, server in zip(("recovering", "illegal"), servers)
    ]
    services.queue_pair("tictactoe", models[0], models[1], opening_seed=0, round_number=1)
    asyncio.run(MatchWorker().serve(until_idle=True))
    # Tic-tac-toe opens with one shared X mark, so O, the recovering model here, moves first.
    yield Match.objects.get(first__name="plays illegal", second__name="plays recovering")
    for server in servers:
        server.stop()


def test_the_match_page_shows_both_sides_and_the_rule(client, played_match):
    page = client.get(f"/matches/{played_match.pk}/").content.decode()
    assert "plays recovering" in page and "plays illegal" in page
    assert 'id="illegal-move-rule"' in page and "3" in page and "forfeits" in page
    assert "recovering: thinking" in page  # reasoning, in the page's data
    assert "not a legal move" in page  # the feedback sent
    assert "sk-test-canary" not in page and "127.0.0.1" not in page
    assert played_match.end_reason in page


def test_the_moves_json_pages_by_index(client, played_match):
    body = client.get(f"/matches/{played_match.pk}/moves.json?after=-1").json()
    assert body["match"]["status"] == "finished" and body["match"]["seats"][1]["side"] == "O"
    assert [m["index"] for m in body["moves"]] == list(range(played_match.num_moves))
    first = body["moves"][0]
    assert first["messages"][0]["role"] == "user" and "legal" in first["messages"][0]["content"]
    assert first["attempts"][0]["legal"] is False and first["attempts"][1]["legal"] is True
    after = client.get(f"/matches/{played_match.pk}/moves.json?after=0").json()
    assert [m["index"] for m in after["moves"]] == list(range(1, played_match.num_moves))
    assert client.get(f"/matches/{played_match.pk}/moves.json?after=x").status_code == 400
    assert client.get("/matches/999999/").status_code == 404


def test_the_match_list_links_every_match(client, played_match):
    page = client.get("/matches/?game=tictactoe").content.decode()
    for match in Match.objects.all():
        assert f"/matches/{match.pk}/" in page


def test_the_model_page_links_its_matches(client, played_match):
    page = client.get(played_match.second.get_absolute_url()).content.decode()
    assert f"/matches/?submission={played_match.second_id}" in page
    listed = client.get(f"/matches/?submission={played_match.second_id}").content.decode()
    assert f"/matches/{played_match.pk}/" in listed
