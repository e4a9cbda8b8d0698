"""End to end: models of known strength opt in, rounds of tic-tac-toe are scheduled and
played over real HTTP by the match worker, and the ratings fitted from the results order
them as their strength implies: the minimax expert (never loses) on top with the perfect
tic-tac-toe baseline, the model that never answers a legal move (forfeits every game) at
the bottom, the random anchor between."""

import asyncio

import pytest

from arena.matches.player import MatchWorker
from arena.matches.ratings import rate
from arena.matches.scheduler import finished_results, schedule_round
from arena.models import Match, Submission
from arena.services.submissions import submission_create
from tests.support.fake_players import ScriptedPlayer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def known_strengths(transactional_db, allow_loopback):
    servers = {style: ScriptedPlayer(style).start() for style in ("expert", "first", "illegal")}
    submissions = {
        style: submission_create(
            owner=None, api_key="sk-test-canary-0123456789", runs=[],
            fields={"name": f"plays {style}", "base_url": server.base_url, "model": "fake", "max_tokens": 64,
                    "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": True,
                    "head_to_head": True},
        )
        for style, server in servers.items()
    }
    yield submissions
    for server in servers.values():
        server.stop()


def test_ratings_from_played_rounds_order_players_by_strength(known_strengths):
    for _ in range(4):
        schedule_round("tictactoe", openings_per_pair=2, per_player=3)
        asyncio.run(MatchWorker(concurrency=4).serve(until_idle=True))
    assert not Match.objects.exclude(status=Match.FINISHED).exists()
    expert, illegal = known_strengths["expert"], known_strengths["illegal"]
    # The expert never loses; the illegal player loses every game.
    for match in Match.objects.filter(first=expert) | Match.objects.filter(second=expert):
        assert match.result == (1.0 if match.first_id == expert.pk else 0.0) or match.result == 0.5
    assert all("forfeits" in m.end_reason for m in Match.objects.filter(first=illegal) | Match.objects.filter(second=illegal))
    anchor = Submission.objects.get(kind=Submission.KIND_BASELINE, policy="random")
    ratings = rate(finished_results("tictactoe"), anchor=anchor.pk, resamples=200)
    order = [p.player for p in ratings.players]
    # On top: the expert, or the perfect-player baseline it can only draw with.
    perfect = Submission.objects.get(kind=Submission.KIND_BASELINE, policy="tictactoe-perfect")
    assert set(order[:2]) >= {expert.pk} and set(order[:2]) <= {expert.pk, perfect.pk}, order
    assert order[-1] == illegal.pk, order
    assert order.index(anchor.pk) < order.index(illegal.pk)
    by_player = {p.player: p for p in ratings.players}
    if by_player[illegal.pk].rated:
        assert by_player[expert.pk].low > by_player[illegal.pk].high
