"""The live channel of a match, /ws/matches/<id>/: stored moves, then new ones as they
are committed, then the end; an unknown match is refused."""

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from arena.matches import services
from arena.matches.games import Ending
from arena.matches.seats import Attempt, MoveAnswer
from arena.services.submissions import baseline_submission
from leaderboard.routing import websocket_urlpatterns

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

application = URLRouter(websocket_urlpatterns)


def _running_match():
    a = baseline_submission("random", "Random")
    b = baseline_submission("stockfish-level-0", "Stockfish level 0")
    match = services.queue_pair("tictactoe", a, b, opening_seed=0, round_number=1)[0]
    assert services.match_claim(match.pk, "w")
    return match.pk


def _move(match_id, index):
    answer = MoveAnswer(action=f"a{index + 1}", observation=f"board {index}",
                        attempts=[Attempt([], completion=f"Action: a{index + 1}", reasoning=f"thought {index}", legal=True)])
    services.match_record_move(match_id, "w", index, index % 2, answer, f"after {index}")


async def _until_end(communicator):
    messages = []
    while not messages or messages[-1]["type"] != "end":
        messages.append(await communicator.receive_json_from(timeout=3))
    return messages


async def test_stored_moves_then_new_ones_then_the_end():
    match_id = await sync_to_async(_running_match)()
    for index in range(2):
        await sync_to_async(_move)(match_id, index)
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match_id}/")
    connected, _ = await communicator.connect()
    assert connected
    start = await communicator.receive_json_from(timeout=3)
    assert start["type"] == "match" and start["match"]["status"] == "running"
    first = [await communicator.receive_json_from(timeout=3) for _ in range(2)]
    assert [m["move"]["index"] for m in first] == [0, 1]
    assert first[1]["move"]["attempts"][0]["reasoning"] == "thought 1"
    await sync_to_async(_move)(match_id, 2)
    await sync_to_async(services.match_finish)(match_id, "w", Ending(1.0, "X wins"))
    rest = await _until_end(communicator)
    assert [m["move"]["index"] for m in rest if m["type"] == "move"] == [2]
    assert rest[-1]["match"]["status"] == "finished" and rest[-1]["match"]["result"] == 1.0
    await communicator.disconnect()


async def test_an_unknown_match_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/matches/987654/")
    connected, code = await communicator.connect()
    assert not connected and code == 4404


async def test_a_move_reaches_a_viewer_by_its_announcement_without_waiting_for_the_poll(settings):
    settings.ARENA_LIVE_POLL_SECONDS = 60.0
    match_id = await sync_to_async(_running_match)()
    communicator = WebsocketCommunicator(application, f"/ws/matches/{match_id}/")
    connected, _ = await communicator.connect()
    assert connected
    await sync_to_async(_move)(match_id, 0)
    start = await communicator.receive_json_from(timeout=3)
    move = await communicator.receive_json_from(timeout=3)
    assert start["type"] == "match" and move["move"]["index"] == 0
    await communicator.disconnect()
