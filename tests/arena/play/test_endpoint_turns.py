"""A slow endpoint's backlog never holds a worker's places: the worker keeps at most two
episodes per call the endpoint takes at once, and the next user's episode starts at once
(a one-slot llama-server with eighty episodes queued used to fill all 32 places of the
worker, and a second user's first episode waited minutes for one of them to end)."""

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


@pytest.fixture(autouse=True)
def empty_queue():
    queue.huey.flush()
    yield
    queue.huey.flush()


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
