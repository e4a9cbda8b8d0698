"""One submission's episodes never keep the next user's first episode waiting: a slow
endpoint's backlog holds at most two places per call the endpoint takes at once (a
one-slot llama-server with eighty episodes queued used to fill all 32 places of the
worker, and a second user's first episode waited minutes for one of them to end), and a
worker full of one submission's playing episodes starts a newcomer's first episode in a
place beyond its concurrency."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from arena import queue
from arena.models import Episode, Run
from arena.play import worker as worker_module
from arena.play.worker import Worker
from tests.conftest import new_run
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_CALL_SECONDS = 2.0


def _claimed(run: Run) -> int:
    return run.episodes.exclude(status=Episode.QUEUED).count()


def test_a_slow_endpoints_backlog_leaves_room_for_the_next_users_episodes(make_model_submission, fake_model):
    with FakeOpenAIServer(latency=SLOW_CALL_SECONDS) as slow_server:
        slow = new_run(
            make_model_submission(name="slow", base_url=slow_server.base_url, max_concurrent_requests=1), episodes=12
        )
        fast_submission = make_model_submission(name="fast", base_url=fake_model.base_url)
        worker = Worker(concurrency=4, name="turns")
        seen = {"slow held at most": 0}

        async def scenario():
            serving = asyncio.create_task(worker.serve())
            # The slow run alone: the worker takes what it may of it.
            deadline = time.monotonic() + 20
            while await sync_to_async(_claimed)(slow) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # time to take more, if it would
            seen["slow held at most"] = max(seen["slow held at most"], await sync_to_async(_claimed)(slow))

            fast = await sync_to_async(new_run)(fast_submission, episodes=2)
            created = time.monotonic()
            while time.monotonic() - created < 60:
                fast_status = await sync_to_async(lambda: Run.objects.get(pk=fast.pk).status)()
                seen["slow held at most"] = max(seen["slow held at most"], await sync_to_async(_claimed)(slow))
                if fast_status == Run.FINISHED:
                    break
                await asyncio.sleep(0.1)
            seen["fast finished after"] = time.monotonic() - created
            seen["slow calls by then"] = len(slow_server.requests)
            worker.stop()
            await serving

        async_to_sync(scenario)()

    # One call at a time there: one episode playing and one ready for the next turn.
    assert seen["slow held at most"] == 2, seen
    # Long before the slow endpoint has ended an episode (a grid world's episode is 25
    # of its calls at most, 2 s each), the fast submission's two episodes have been played.
    assert seen["fast finished after"] < 20, seen
    slow.refresh_from_db()
    assert slow.episodes.filter(status=Episode.FINISHED).count() == 0, seen
    # Nothing of the slow run is lost: what was given back or stopped is queued again.
    assert slow.episodes.filter(status=Episode.QUEUED).count() == 12
    assert queue.pending_episode_ids() >= set(slow.episodes.values_list("pk", flat=True))


def test_a_worker_with_only_busy_endpoints_queued_waits_instead_of_cycling_the_queue(make_model_submission, monkeypatch):
    given_back = []
    original = worker_module.episode_turn_given_back

    def counting(episode_id, *, resume):
        given_back.append(episode_id)
        return original(episode_id, resume=resume)

    monkeypatch.setattr(worker_module, "episode_turn_given_back", counting)
    with FakeOpenAIServer(latency=SLOW_CALL_SECONDS) as slow_server:
        slow = new_run(
            make_model_submission(name="slow", base_url=slow_server.base_url, max_concurrent_requests=1), episodes=20
        )
        worker = Worker(concurrency=8, name="patient")

        async def scenario():
            serving = asyncio.create_task(worker.serve())
            await asyncio.sleep(4.0)
            worker.stop()
            await serving

        async_to_sync(scenario)()

    # Two given back at once, then about one a second: not the whole queue, again and again.
    assert 2 <= len(given_back) <= 12, len(given_back)
    assert slow.episodes.filter(status=Episode.QUEUED).count() == 20


def test_a_worker_full_of_one_submissions_playing_episodes_starts_a_newcomers_first(
    make_model_submission, fake_model, monkeypatch
):
    monkeypatch.setattr(worker_module, "NEWCOMER_CHECK_SECONDS", 0.5)
    with FakeOpenAIServer(latency=SLOW_CALL_SECONDS) as slow_server:
        # Two calls at once there: both of the worker's places play, none waits.
        busy = new_run(
            make_model_submission(name="busy", base_url=slow_server.base_url, max_concurrent_requests=2), episodes=10
        )
        newcomer = make_model_submission(name="newcomer", base_url=fake_model.base_url)
        worker = Worker(concurrency=2, name="newcomers")
        seen = {}

        async def scenario():
            serving = asyncio.create_task(worker.serve())
            deadline = time.monotonic() + 20
            while await sync_to_async(_claimed)(busy) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            fresh = await sync_to_async(new_run)(newcomer, episodes=2)
            created = time.monotonic()
            while time.monotonic() - created < 60:
                if await sync_to_async(lambda: Run.objects.get(pk=fresh.pk).status)() == Run.FINISHED:
                    break
                await asyncio.sleep(0.1)
            seen["newcomer finished after"] = time.monotonic() - created
            seen["busy held"] = await sync_to_async(_claimed)(busy)
            worker.stop()
            await serving

        async_to_sync(scenario)()

    # Its first episode started beyond the two places, then the second (the fair queue
    # shares places as they free; a grid world's episode there is up to 25 calls of 2 s).
    assert seen["newcomer finished after"] < 20, seen
    assert busy.episodes.filter(status=Episode.FINISHED).count() == 0, seen
    assert busy.episodes.filter(status=Episode.QUEUED).count() == 10

