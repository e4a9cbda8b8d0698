"""A worker asked to stop (Ctrl-C, a deploy's SIGTERM) gives the episodes it is playing
back to the queue at their next step boundary instead of playing them to their end:
they resume at once, from their last stored step, with no attempt counted against them."""

import asyncio

import pytest
from asgiref.sync import async_to_sync

from arena import queue
from arena.services.episodes import episode_claim, episode_release
from arena.services.runs import RunSpec, enqueue_on_commit, run_create
from arena.play.dbthread import db
from arena.models import Episode, Step
from arena.play.worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)


def _long_episode(submission) -> Episode:
    """A random player's Pong at 1,000 steps: seconds of play, far longer than the test
    lets it run before stopping the worker."""
    spec = RunSpec(task="textatari/pong", format="text", num_episodes=1, options={"max_steps": 1000})
    return run_create(submission, spec).episodes.get()


def _stored(episode_id: int) -> int:
    return Step.objects.filter(episode_id=episode_id).count()


async def _stop_after_steps(worker: Worker, episode_id: int, steps: int) -> None:
    serving = asyncio.create_task(worker.serve())
    while await db(_stored, episode_id) < steps:
        assert not serving.done()
        await asyncio.sleep(0.02)
    worker.stop()
    await asyncio.wait_for(serving, timeout=60)


def test_a_stopped_worker_gives_its_episode_back_to_resume_first(baseline):
    episode = _long_episode(baseline("random"))

    async_to_sync(_stop_after_steps)(Worker(concurrency=1, name="stopping"), episode.pk, 5)

    episode.refresh_from_db()
    stored = _stored(episode.pk)
    assert episode.status == Episode.QUEUED and episode.worker == "", episode.error
    assert 5 <= stored < 1000  # stopped mid-episode, every step it played kept
    assert episode.attempts == 0  # a stop is not a failure of the episode
    assert "was stopped" in episode.error
    assert queue.pending_episode_ids(resume=True) == {episode.pk}

    async_to_sync(Worker(concurrency=1, name="next").serve)(until_idle=True)
    episode.refresh_from_db()
    assert episode.status == Episode.FINISHED and episode.attempts == 1
    indices = list(Step.objects.filter(episode=episode).order_by("index").values_list("index", flat=True))
    assert indices == list(range(episode.num_steps)) and episode.num_steps > stored


def test_releasing_an_episode_another_worker_holds_changes_nothing(baseline):
    episode = _long_episode(baseline("random"))
    assert episode_claim(episode.pk, "holder")
    assert not episode_release(episode.pk, "someone-else")
    episode.refresh_from_db()
    assert (episode.status, episode.worker, episode.attempts) == (Episode.RUNNING, "holder", 1)
    assert queue.pending_episode_ids(resume=True) == set()  # nothing queued ahead for it


def test_baseline_episodes_in_play_make_way_for_a_users_episode(baseline, make_model_submission):
    baseline_episode = _long_episode(baseline("random"))
    user_run = run_create(
        make_model_submission(), RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1)
    )
    user_episode = user_run.episodes.get()
    queue.huey.flush()  # the user's episode comes once the baseline is in play
    enqueue_on_commit([baseline_episode.pk])

    async def scenario():
        worker = Worker(concurrency=1, name="fair")
        serving = asyncio.create_task(worker.serve(until_idle=True))
        while await db(_stored, baseline_episode.pk) < 3:
            assert not serving.done()
            await asyncio.sleep(0.02)
        await db(enqueue_on_commit, [user_episode.pk])
        await asyncio.wait_for(serving, timeout=120)

    async_to_sync(scenario)()

    user_episode.refresh_from_db()
    baseline_episode.refresh_from_db()
    assert user_episode.status == Episode.FINISHED
    # Given back and resumed from its last stored step, no attempt counted for the pause.
    assert baseline_episode.status == Episode.FINISHED and baseline_episode.attempts == 1
    # The user's episode was played while the baseline waited, not after it.
    assert user_episode.finished_at < Step.objects.filter(episode=baseline_episode).order_by("-index")[0].created_at
