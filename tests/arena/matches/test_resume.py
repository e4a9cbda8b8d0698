"""A match whose worker fell silent goes back to the queue and is resumed after its
stored moves; a worker that lost its match stores nothing more in it; a worker told to
stop gives its matches back at once, even while they wait on a model that never answers."""

import asyncio
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches import services
from arena.matches.games import new_game
from arena.matches.models import Match
from arena.matches.player import MatchWorker
from arena.matches.seats import Attempt, MoveAnswer
from arena.services.submissions import baseline_submission

pytestmark = pytest.mark.django_db(transaction=True)


def _half_played(moves: int) -> Match:
    random_player = baseline_submission("random", "Random")
    engine = baseline_submission("stockfish-level-0", "Stockfish level 0")
    match = services.queue_pair("connect_four", random_player, engine, opening_seed=7, round_number=1)[0]
    assert services.match_claim(match.pk, "dead-worker")
    game = new_game("connect_four", 7)
    for index in range(moves):
        seat, action = game.seat_to_move, sorted(game.legal_moves())[0]
        game.play(action)
        answer = MoveAnswer(action=action, observation="", attempts=[Attempt([], parsed_action=action, legal=True)])
        services.match_record_move(match.pk, "dead-worker", index, seat, answer, game.position_text())
    return match


def test_a_silent_workers_match_is_resumed_after_its_stored_moves(settings):
    match = _half_played(4)
    stored = list(match.moves.order_by("index").values_list("id", "action"))
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=settings.ARENA_HEARTBEAT_STALE_SECONDS + 1))
    assert asyncio.run(MatchWorker(name="new-worker").serve(until_idle=True)) >= 1
    match.refresh_from_db()
    assert match.status == Match.FINISHED and match.worker == "new-worker" and match.result is not None
    moves = list(match.moves.order_by("index"))
    assert [m.index for m in moves] == list(range(match.num_moves)) and match.num_moves > 4
    assert [(m.id, m.action) for m in moves[:4]] == stored  # kept, not played again
    # The game goes on from the stored position: replaying every move reaches the end.
    game = new_game("connect_four", 7)
    for move in moves:
        game.play(move.action)
    assert game.ending() is not None and game.ending().first_score == match.result


def test_a_worker_that_lost_its_match_stores_nothing_more():
    match = _half_played(1)
    Match.objects.filter(pk=match.pk).update(worker="someone-else")
    answer = MoveAnswer(action="1", observation="", attempts=[])
    with pytest.raises(services.MatchLeaseLost):
        services.match_record_move(match.pk, "dead-worker", 1, 0, answer, "")
    services.match_fail(match.pk, "dead-worker", "too late")
    match.refresh_from_db()
    assert match.num_moves == 1 and match.status == Match.RUNNING and not match.error


def test_a_stopped_worker_gives_back_matches_waiting_on_a_silent_model_at_once(fake_model, make_model_submission):
    fake_model.latency = 3600  # accepts the calls, never answers them
    model = make_model_submission(head_to_head=True)
    pair = services.queue_pair("tictactoe", model, baseline_submission("random", "Random"), opening_seed=1,
                               round_number=1)

    async def scenario():
        # Nothing scheduled: a full worker waits for one of its matches to end.
        worker = MatchWorker(concurrency=2, name="stopping")
        serving = asyncio.create_task(worker.serve())
        while len(fake_model.requests) < 2:  # both matches wait on the model
            assert not serving.done()
            await asyncio.sleep(0.02)
        stopped_at = time.monotonic()
        worker.stop()
        await asyncio.wait_for(serving, timeout=10)
        return time.monotonic() - stopped_at

    assert asyncio.run(scenario()) < 2.0
    assert [(m.status, m.worker) for m in Match.objects.filter(pk__in=[m.pk for m in pair])] == [(Match.QUEUED, "")] * 2
