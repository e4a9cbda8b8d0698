"""A round of head-to-head matches between four scripted fake models and the anchors,
played over real HTTP by the match worker, for each game."""

import asyncio
from collections import defaultdict

import pytest

from arena.matches.models import Match, MatchMove
from arena.matches.player import MatchWorker
from arena.matches.ratings import pairs_for_round
from arena.matches.scheduler import finished_results, round_pairs, schedule_round
from arena.matches.seats import MAX_ATTEMPTS
from arena.services.submissions import submission_create
from tests.support.fake_players import STYLES, ScriptedPlayer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def four_models(transactional_db, allow_loopback):
    servers = [ScriptedPlayer(style).start() for style in STYLES]
    submissions = {}
    for style, server in zip(STYLES, servers):
        submissions[style] = submission_create(
            owner=None,
            fields={
                "name": f"plays {style}", "base_url": server.base_url, "model": "fake", "max_tokens": 64,
                "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": True,
                "head_to_head": True,
            },
            api_key="sk-test-canary-0123456789",
            runs=[],
        )
    yield submissions
    for server in servers:
        server.stop()


def _play_all():
    return asyncio.run(MatchWorker(concurrency=4).serve(until_idle=True))


@pytest.mark.parametrize("game,per_player", [("tictactoe", 5), ("connect_four", 5), ("chess", 2)])
def test_a_round_plays_to_results(four_models, game, per_player):
    queued = schedule_round(game, per_player=per_player)
    assert queued and len(queued) % 2 == 0
    assert _play_all() == len(queued)
    matches = list(Match.objects.filter(game=game))
    assert {m.status for m in matches} == {Match.FINISHED}, [m.error for m in matches]
    assert all(m.result in (0.0, 0.5, 1.0) and m.end_reason and m.num_moves for m in matches)
    # Each pair plays the same opening twice, each submission in the first seat once.
    by_pair = defaultdict(list)
    for m in matches:
        by_pair[m.pair_key].append(m)
    for pair in by_pair.values():
        assert len(pair) == 2
        assert {(m.first_id, m.second_id) for m in pair} == {(pair[0].first_id, pair[0].second_id), (pair[0].second_id, pair[0].first_id)}
        assert pair[0].opening_seed == pair[1].opening_seed and pair[0].opening_moves == pair[1].opening_moves
    # Moves are stored in order, alternating seats.
    for m in matches:
        moves = list(m.moves.order_by("index"))
        assert [mv.index for mv in moves] == list(range(m.num_moves))
        assert all(a.seat != b.seat for a, b in zip(moves, moves[1:]))


def test_illegal_answers_are_retried_with_feedback_then_forfeit(four_models):
    schedule_round("tictactoe", per_player=5)
    _play_all()
    cheater = four_models["illegal"]
    for m in Match.objects.filter(first=cheater) | Match.objects.filter(second=cheater):
        seat = 0 if m.first_id == cheater.pk else 1
        last = m.moves.order_by("index").last()
        assert last.seat == seat and not last.legal and last.action == ""
        assert last.num_attempts == MAX_ATTEMPTS == len(last.attempts)
        assert [bool(a["feedback"]) for a in last.attempts] == [True, True, False]
        assert "not a legal move" in last.attempts[0]["feedback"]
        # The retry's messages carry the answer and the feedback, as sent.
        assert last.attempts[1]["messages_added"][0] == {"role": "assistant", "content": "Action: Zz9"}
        assert m.result == (0.0 if seat == 0 else 1.0)
        assert "forfeits" in m.end_reason


def test_a_legal_answer_after_feedback_plays_on(four_models):
    schedule_round("connect_four", per_player=5)
    _play_all()
    recovering = four_models["recovering"]
    moves = MatchMove.objects.filter(match__first=recovering, seat=0) | MatchMove.objects.filter(match__second=recovering, seat=1)
    assert moves.exists()
    for move in moves:
        assert move.legal and move.num_attempts == 2 and move.action == move.parsed_action
        assert move.attempts[0]["legal"] is False and move.attempts[1]["legal"] is True
        assert move.reasoning.startswith("recovering: thinking")
        assert move.tokens_in and move.messages[0]["role"] == "user" and "legal" in move.messages[0]["content"]


def test_a_round_takes_the_ratings_pairs_then_more_passes_without_repeats():
    results = [(1, 2, 1.0), (2, 1, 0.0), (1, 3, 0.5), (3, 1, 0.5)]
    players = [1, 2, 3, 4]
    assert round_pairs("chess", players, results) == pairs_for_round("chess", players, results)
    three = round_pairs("chess", players, results, per_player=3)
    assert len({frozenset(pair) for pair in three}) == len(three) == 6  # every pair once
    load = {p: sum(p in pair for pair in three) for p in players}
    assert max(load.values()) <= 3


def test_a_second_round_plays_other_openings_with_the_ratings_choice_of_pairs(four_models):
    first = schedule_round("tictactoe")
    _play_all()
    results = finished_results("tictactoe")
    second = schedule_round("tictactoe")
    assert {m.round for m in first} == {1} and {m.round for m in second} == {2}
    assert {m.opening_seed for m in first}.isdisjoint({m.opening_seed for m in second})
    players = sorted({m.first_id for m in first + second} | {m.second_id for m in first + second} | {s.pk for s in four_models.values()})
    expected = {frozenset(pair) for pair in pairs_for_round("tictactoe", players, results)}
    assert {frozenset((m.first_id, m.second_id)) for m in second} == expected


def test_a_dead_endpoint_fails_its_match_not_the_worker(four_models, settings):
    settings.ARENA_MODEL_MAX_RETRIES = 0
    dead = four_models["first"]
    dead.base_url = "http://127.0.0.1:9/v1"
    dead.save(update_fields=["base_url"])
    schedule_round("tictactoe", per_player=5)
    _play_all()
    failed = Match.objects.filter(status=Match.FAILED)
    assert failed.exists() and all(m.result is None and "endpoint failed" in m.error for m in failed)
    assert all("sk-test-canary" not in m.error for m in failed)
    assert Match.objects.filter(status=Match.FINISHED).exists()


def test_a_model_past_its_token_budget_is_not_scheduled(four_models):
    spender = four_models["first"]
    spender.budget_tokens_per_run = 50
    spender.save(update_fields=["budget_tokens_per_run"])
    first_round = schedule_round("tictactoe", per_player=5)
    assert any(spender.pk in (m.first_id, m.second_id) for m in first_round)
    _play_all()
    second_round = schedule_round("tictactoe", per_player=5)
    assert second_round and all(spender.pk not in (m.first_id, m.second_id) for m in second_round)
    # The hidden are left out too.
    hidden = four_models["last"]
    hidden.moderation = hidden.HIDDEN
    hidden.save(update_fields=["moderation"])
    third_round = schedule_round("tictactoe", per_player=5)
    assert all(hidden.pk not in (m.first_id, m.second_id) for m in third_round)


def test_a_model_past_its_cost_budget_is_not_scheduled(four_models):
    """The cost budget per run (USD at the submission's prices) holds for matches too."""
    from decimal import Decimal

    spender, thrifty = four_models["first"], four_models["last"]
    for submission, budget in ((spender, Decimal("0.0001")), (thrifty, Decimal("1000"))):
        submission.price_input_per_mtok, submission.price_output_per_mtok = Decimal("2"), Decimal("8")
        submission.budget_usd_per_run = budget
        submission.save(update_fields=["price_input_per_mtok", "price_output_per_mtok", "budget_usd_per_run"])
    first_round = schedule_round("tictactoe", per_player=5)
    assert any(spender.pk in (m.first_id, m.second_id) for m in first_round)
    _play_all()
    second_round = schedule_round("tictactoe", per_player=5)
    players = {pk for m in second_round for pk in (m.first_id, m.second_id)}
    assert spender.pk not in players and thrifty.pk in players
