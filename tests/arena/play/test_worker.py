"""The worker recovers what a dead worker left behind, interrupted episodes first."""

import signal
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from arena import queue
from arena.services.episodes import episode_claim, reap_stale_episodes
from arena.models import Episode, Run
from arena.play.worker import Worker
from tests.conftest import new_run
from tests.support.episodes import record_step
from tests.support.worker_process import embedded_arena

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_interrupted_episode_resumes_before_the_backlog(baseline):
    submission = baseline("random")
    interrupted = new_run(submission, episodes=1).episodes.get()
    queue.huey.flush()
    assert episode_claim(interrupted.pk, "died")
    for index, action in enumerate(["up", "left"]):
        record_step(interrupted.pk, index, action, worker="died")
    backlog = new_run(submission, episodes=30)
    Episode.objects.filter(pk=interrupted.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert reap_stale_episodes() == {"requeued": 1, "failed": 0}

    async_to_sync(Worker(concurrency=1, name="next").serve)(until_idle=True)

    interrupted.refresh_from_db()
    assert interrupted.status == Episode.FINISHED and interrupted.attempts == 2
    started = list(backlog.episodes.values_list("started_at", flat=True))
    assert interrupted.started_at < min(started)
    backlog.refresh_from_db()
    assert backlog.status == Run.FINISHED


STALE_SECONDS = 5


@pytest.fixture
def arena(settings, monkeypatch):
    """A throw-away arena for real worker processes. What the test queues here goes to
    the arena's queue file; the arena starts from a copy of the tests' database
    (`start_from_here`)."""
    arena = embedded_arena(settings, monkeypatch, ARENA_HEARTBEAT_STALE_SECONDS=str(STALE_SECONDS))
    yield arena
    arena.close()


def test_a_worker_killed_between_taking_and_claiming_an_episode_leaves_none_behind(baseline, arena):
    run = new_run(baseline("expert"), episodes=4)
    sent_by = time.monotonic()
    arena.start_from_here()
    doomed = arena.start_worker("--concurrency", "1", die_on_taking=1)
    assert doomed.wait(timeout=20) == -signal.SIGKILL
    # It took a message to the grave: four episodes wait, three messages are left.
    assert arena.query("select status, count(*) from arena_episode group by status") == [("queued", 4)]
    assert queue.pending_count() == 3

    # Long enough for a live worker to have claimed what it took.
    time.sleep(max(0.0, sent_by + STALE_SECONDS + 0.5 - time.monotonic()))
    rescuer = arena.start_worker("--concurrency", "4", "--until-idle")
    assert rescuer.wait(timeout=20) == 0, rescuer.log.read_text()[-2000:]

    assert arena.query("select status, count(*) from arena_episode group by status") == [("finished", 4)]
    assert arena.query("select status from arena_run where id = ?", (run.pk,)) == [("finished",)]
