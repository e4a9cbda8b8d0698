"""Queued episodes whose queue message went missing are queued again.

A worker takes a message off the queue before it claims the episode (arena.play.worker, and
Huey's own consumer alike). One that dies in between takes the message with it: the
episode stays queued with no message anywhere, and the reaper, which looks at running
episodes, never sees it. So every worker looks now and then for queued episodes whose
message was sent a while ago (Episode.enqueued_at) and is no longer in the queue, and
sends it again.

A message that was only slow — a live worker has taken it but not claimed the episode
yet — is then sent twice, which is harmless: claiming is a conditional update
(episode_claim), so one message plays the episode and the other finds it
taken and is dropped. The copy left at the back of the queue must not count as the
message of that episode once it has started and been interrupted, though: it would
resume the episode only after the whole backlog. A started episode is lost unless a
message ahead of the backlog waits for it.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena import queue
from arena.services.episodes import episode_claim
from arena.services.runs import enqueue_on_commit
from arena.models import Episode

logger = logging.getLogger(__name__)

# Episodes re-sent per transaction (SQLite limits the parameters of one statement).
CHUNK = 500


def requeue_lost_messages(now=None) -> int:
    """Queue again the queued episodes whose message was sent longer ago than a live
    worker takes to claim what it dequeued (ARENA_HEARTBEAT_STALE_SECONDS, as for the
    reaper) and is not in the queue; those that had started go ahead of the backlog,
    as reaped ones do. The number of episodes queued again."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.ARENA_HEARTBEAT_STALE_SECONDS)
    waiting = Episode.objects.filter(status=Episode.QUEUED, enqueued_at__lt=cutoff)
    if not waiting.exists():
        return 0
    pending = queue.pending_episode_ids()
    # An episode that had started needs a message ahead of the backlog: the one still
    # waiting may be an old message sent twice, at the back.
    resuming = queue.pending_episode_ids(resume=True)
    lost = [pk for pk, attempts in waiting.values_list("pk", "attempts") if pk not in (resuming if attempts else pending)]
    requeued = 0
    for start in range(0, len(lost), CHUNK):
        requeued += _send_again(lost[start : start + CHUNK], cutoff)
    if requeued:
        logger.warning("re-queued %d queued episodes whose queue message was lost", requeued)
    return requeued


def _send_again(episode_ids: list[int], cutoff) -> int:
    with transaction.atomic():
        # Read again: an episode claimed (or sent again by another worker) since the
        # queue was read is left alone.
        still_lost = Episode.objects.filter(pk__in=episode_ids, status=Episode.QUEUED, enqueued_at__lt=cutoff)
        fresh, started = [], []
        for pk, attempts in still_lost.values_list("pk", "attempts"):
            (started if attempts else fresh).append(pk)
        if fresh:
            enqueue_on_commit(fresh)
        if started:
            enqueue_on_commit(started, resume=True)
    return len(fresh) + len(started)
