"""The live channel /ws/episodes/<id>/: catch-up, then live steps, then the end."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from arena.services.episodes import episode_claim, episode_finish
from arena.services.steps import StepRecord, step_record
from arena.services.submissions import baseline_submission
from leaderboard.routing import websocket_urlpatterns
from tests.conftest import new_run
from tests.support.episodes import skipped_episode

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

application = URLRouter(websocket_urlpatterns)
WORKER = "consumer-test-worker"


def _record(episode_id, index, done=False):
    step_record(
        episode_id,
        WORKER,
        StepRecord(
            index=index, observation_text=f"obs {index}", observation_image=None, prompt_added=[],
            completion="", reasoning="", parsed_action="up", executed_action="up", legal=True,
            reward=1.0 if done else 0.0, done=done, end_reason="reached the target" if done else "",
            tokens_in=None, tokens_out=None, latency_ms=None, error="",
        ),
    )


def _started_episode():
    submission = baseline_submission("random", "Random")
    run = new_run(submission, episodes=1)
    episode = run.episodes.get()
    assert episode_claim(episode.id, WORKER)
    return episode.id


async def _receive_all(communicator, timeout=3):
    messages = []
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        messages.append(message)
        if message["type"] == "end":
            return messages


async def test_it_sends_stored_steps_then_new_ones_then_the_end_when_joining_mid_episode():
    episode_id = await sync_to_async(_started_episode)()
    for index in range(3):
        await sync_to_async(_record)(episode_id, index)

    communicator = WebsocketCommunicator(application, f"/ws/episodes/{episode_id}/")
    connected, _ = await communicator.connect()
    assert connected
    caught_up = [await communicator.receive_json_from(timeout=3) for _ in range(3)]
    assert [m["step"]["index"] for m in caught_up] == [0, 1, 2]

    await sync_to_async(_record)(episode_id, 3)
    await sync_to_async(_record)(episode_id, 4, done=True)
    await sync_to_async(episode_finish)(episode_id, WORKER, score=1.0, end_reason="reached the target")

    rest = await _receive_all(communicator)
    steps = [m["step"]["index"] for m in rest if m["type"] == "step"]
    assert steps == [3, 4]
    assert rest[-1]["type"] == "end"
    assert rest[-1]["episode"]["status"] == "finished"
    assert rest[-1]["episode"]["end_reason"] == "reached the target"
    await communicator.disconnect()


async def test_steps_committed_while_connecting_are_neither_missed_nor_repeated():
    episode_id = await sync_to_async(_started_episode)()

    async def writer():
        for index in range(20):
            await sync_to_async(_record)(episode_id, index)
            await asyncio.sleep(0)
        await sync_to_async(episode_finish)(episode_id, WORKER, score=0.0, end_reason="step limit")

    communicator = WebsocketCommunicator(application, f"/ws/episodes/{episode_id}/")
    writing = asyncio.create_task(writer())
    connected, _ = await communicator.connect()
    assert connected
    messages = await _receive_all(communicator, timeout=5)
    await writing
    assert [m["step"]["index"] for m in messages if m["type"] == "step"] == list(range(20))
    await communicator.disconnect()


async def test_a_finished_episode_is_replayed_in_full_and_closed():
    episode_id = await sync_to_async(_started_episode)()
    await sync_to_async(_record)(episode_id, 0)
    await sync_to_async(_record)(episode_id, 1, done=True)
    await sync_to_async(episode_finish)(episode_id, WORKER, score=1.0, end_reason="reached the target")

    communicator = WebsocketCommunicator(application, f"/ws/episodes/{episode_id}/")
    connected, _ = await communicator.connect()
    assert connected
    messages = await _receive_all(communicator)
    assert [m["type"] for m in messages] == ["step", "step", "end"]
    assert messages[1]["step"]["observation_text"] == "obs 1"
    await communicator.wait()


def _skipped_episode_id():
    return skipped_episode(baseline_submission("random", "Random")).id


async def test_a_skipped_episode_sends_its_end_right_after_catch_up():
    skipped_id = await sync_to_async(_skipped_episode_id)()

    communicator = WebsocketCommunicator(application, f"/ws/episodes/{skipped_id}/")
    connected, _ = await communicator.connect()
    assert connected
    end = await communicator.receive_json_from(timeout=3)
    assert end["type"] == "end"
    assert end["episode"]["status"] == "skipped"
    assert end["episode"]["end_reason"] == "skipped: budget exhausted"
    await communicator.wait()


async def test_an_unknown_episode_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/episodes/999999/")
    connected, code = await communicator.connect()
    assert not connected
