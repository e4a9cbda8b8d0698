"""Queued episodes whose queue message was lost with a dying worker are queued again,
and only those (arena.play.requeue)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from arena import queue
from arena.services.episodes import episode_claim
from arena.models import Episode
from arena.play.requeue import requeue_lost_messages
from tests.conftest import new_run

pytestmark = pytest.mark.django_db(transaction=True)


def _take() -> int | None:
    dequeued = queue.dequeue_episode()
    return None if dequeued is None else dequeued.episode_id


def _sent_long_ago(*episodes):
    Episode.objects.filter(pk__in=[e.pk for e in episodes]).update(enqueued_at=timezone.now() - timedelta(hours=1))


def test_a_queued_episode_whose_message_was_taken_by_a_dead_worker_is_queued_again(baseline):
    first, second = new_run(baseline("random"), episodes=2).episodes.order_by("index")
    assert _take() == first.pk  # the worker that took it died before claiming
    _sent_long_ago(first, second)

    assert requeue_lost_messages() == 1
    assert queue.pending_episode_ids() == {first.pk, second.pk}
    first.refresh_from_db()
    assert first.enqueued_at > timezone.now() - timedelta(minutes=1)
    # Sent again once: the next look finds its new message waiting.
    assert requeue_lost_messages() == 0


def test_a_message_taken_only_moments_ago_is_left_to_the_worker_that_took_it(baseline):
    episode = new_run(baseline("random"), episodes=1).episodes.get()
    assert _take() == episode.pk
    assert requeue_lost_messages() == 0
    assert queue.pending_count() == 0


def test_episodes_that_are_claimed_or_never_sent_are_left_alone(baseline):
    submission = baseline("random")
    claimed = new_run(submission, episodes=1).episodes.get()
    queue.huey.flush()
    assert episode_claim(claimed.pk, "alive")
    never_sent = new_run(submission, episodes=1).episodes.get()
    queue.huey.flush()
    Episode.objects.filter(pk=never_sent.pk).update(enqueued_at=None)  # e.g. a later episode of a Reflexion run
    _sent_long_ago(claimed)

    assert requeue_lost_messages() == 0
    assert queue.pending_count() == 0


def test_a_lost_episode_that_had_started_goes_ahead_of_the_backlog(baseline):
    submission = baseline("random")
    resumed = new_run(submission, episodes=1).episodes.get()
    assert _take() == resumed.pk
    Episode.objects.filter(pk=resumed.pk).update(attempts=1)  # reaped once already
    _sent_long_ago(resumed)
    backlog = list(new_run(submission, episodes=3).episodes.values_list("pk", flat=True))

    assert requeue_lost_messages() == 1
    assert [_take() for _ in range(4)] == [resumed.pk, *backlog]


def test_a_started_episode_whose_resume_message_was_lost_goes_ahead_though_an_older_message_waits(baseline):
    # A message that was only slow was sent twice: one of the two still waits at the back
    # of the backlog when the episode, since started and interrupted, loses its resume
    # message with a dying worker. That old message would play it only after the backlog.
    submission = baseline("random")
    backlog = list(new_run(submission, episodes=3).episodes.values_list("pk", flat=True))
    resumed = new_run(submission, episodes=1).episodes.get()
    Episode.objects.filter(pk=resumed.pk).update(attempts=1)
    _sent_long_ago(resumed)

    assert requeue_lost_messages() == 1
    assert _take() == resumed.pk
    # Then the backlog, and the old message, which finds the episode taken.
    assert [pk for pk in (_take() for _ in range(4)) if pk != resumed.pk] == backlog
