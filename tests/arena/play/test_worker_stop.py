"""A worker asked to stop (Ctrl-C, a deploy's SIGTERM) gives the episodes it is playing
back to the queue at their next step boundary instead of playing them to their end:
they resume at once, from their last stored step, with no attempt counted against them.
Episodes waiting on a model server that died (no answer, or connections reset and
retried) stop waiting: the step they waited for is played when they resume."""

import asyncio
import signal
import time

import pytest
from asgiref.sync import async_to_sync

from arena import queue
from arena.services.episodes import episode_claim, episode_release
from arena.services.runs import RunSpec, enqueue_on_commit, run_create
from arena.play.dbthread import db
from arena.models import Episode, Step
from arena.play.worker import Worker
from tests.conftest import new_run
from tests.support.fake_openai import Fault
from tests.support.worker_process import embedded_arena

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


ANSWERED = 5  # completions the server gives before it dies


@pytest.mark.parametrize("dead_server", [Fault.delay(3600), Fault.reset()], ids=["never-answers", "resets"])
def test_a_stop_does_not_wait_for_a_dead_model_server(settings, fake_model, make_model_submission, dead_server):
    # The operator's defaults, not the tests' short ones: a call waits 120 s for an
    # answer, and a reset connection is tried again after seconds of back-off.
    settings.ARENA_MODEL_TIMEOUT_SECONDS = 120.0
    settings.ARENA_MODEL_BACKOFF_SECONDS = 5.0
    # One call at a time: the second episode waits for the endpoint's turn meanwhile.
    run = new_run(make_model_submission(max_concurrent_requests=1), episodes=2)
    fake_model.enqueue(*[Fault.delay(0)] * ANSWERED, *[dead_server] * 50)

    async def scenario():
        worker = Worker(concurrency=2, name="stopping")
        serving = asyncio.create_task(worker.serve())
        while len(fake_model.requests) <= ANSWERED or await db(_stored_of_run, run.pk) < ANSWERED:
            assert not serving.done()
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)  # into the dead server's wait (or the back-off after a reset)
        stopped_at = time.monotonic()
        worker.stop()
        await asyncio.wait_for(serving, timeout=10)
        return time.monotonic() - stopped_at

    assert async_to_sync(scenario)() < 3.0
    episodes = list(run.episodes.all())
    assert [(e.status, e.worker, e.attempts) for e in episodes] == [(Episode.QUEUED, "", 0)] * 2, [
        e.error for e in episodes
    ]
    assert all("was stopped" in e.error for e in episodes)
    # The answered steps are kept, and nothing of the step that waited.
    assert _stored_of_run(run.pk) == ANSWERED
    assert all(e.num_steps == _stored(e.pk) for e in episodes)
    assert queue.pending_episode_ids(resume=True) == {e.pk for e in episodes}

    fake_model.clear()  # the server is back
    async_to_sync(Worker(concurrency=2, name="next").serve)(until_idle=True)
    for episode in run.episodes.all():
        assert episode.status == Episode.FINISHED and episode.attempts == 1, episode.error
        indices = list(episode.steps.order_by("index").values_list("index", flat=True))
        assert indices == list(range(episode.num_steps))


def _stored_of_run(run_id: int) -> int:
    return Step.objects.filter(episode__run_id=run_id).count()


@pytest.fixture
def arena(settings, monkeypatch):
    """A throw-away arena for a real worker process, started from a copy of the tests'
    database (`start_from_here`), whose queue file gets what the test queues."""
    arena = embedded_arena(settings, monkeypatch, ARENA_ALLOW_LOOPBACK="1",
                           ARENA_ENCRYPTION_KEY=settings.ARENA_ENCRYPTION_KEY)
    yield arena
    arena.close()


def test_sigterm_ends_a_worker_process_waiting_on_a_dead_model_server_within_seconds(
    arena, fake_model, make_model_submission
):
    """The real command as `make serve` starts it, with the operator's timeouts (120 s a
    call, seconds of back-off)."""
    run = new_run(make_model_submission(max_concurrent_requests=1), episodes=2)
    fake_model.enqueue(*[Fault.delay(0)] * ANSWERED, *[Fault.delay(3600)] * 10)
    arena.start_from_here()
    episodes = ("select status, attempts, num_steps from arena_episode where run_id = ?", (run.pk,))
    steps = ("select count(*) from arena_step join arena_episode e on e.id = episode_id where e.run_id = ?", (run.pk,))
    worker = arena.start_worker("--matches", "2")
    deadline = time.monotonic() + 90
    while len(fake_model.requests) <= ANSWERED or arena.query(*steps)[0][0] < ANSWERED:
        assert worker.poll() is None and time.monotonic() < deadline, worker.log.read_text()[-2000:]
        time.sleep(0.05)
    time.sleep(0.3)

    signalled = time.monotonic()
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=10) == 0, worker.log.read_text()[-2000:]
    assert time.monotonic() - signalled < 3.0

    # Given back to resume, no attempt counted, the answered steps kept and no other.
    assert [(status, attempts) for status, attempts, _ in arena.query(*episodes)] == [("queued", 0)] * 2
    assert arena.query(*steps)[0][0] == ANSWERED == sum(num_steps for _, _, num_steps in arena.query(*episodes))
