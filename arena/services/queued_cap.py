"""The per-user cap of episodes waiting in the queue (ARENA_MAX_QUEUED_EPISODES_PER_USER):
the queue takes turns between accounts, and the cap bounds how far ahead one account's
backlog reaches.

The forms and the API check it early (`check_queued_room`), to say so beside the field;
the submission and the experiment are then created under `hold_queued_room`, which
counts again with the owner's row locked, inside the transaction that queues the
episodes. So two submissions sent at once by one account cannot both pass on the same
count: on PostgreSQL the second waits on the lock (SELECT … FOR UPDATE) and counts the
first's episodes; on SQLite every write transaction begins IMMEDIATE (config.settings),
which serialises them the same way.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from arena.models import Episode


class QueuedCapReached(ValidationError):
    """The episodes asked for would take the owner past the cap; the message says how far."""


def _counted(owner) -> bool:
    return owner is not None and getattr(owner, "is_authenticated", False)


def check_queued_room(owner, adding: int, *, what: str = "submission") -> None:
    """QueuedCapReached when `adding` more episodes would take `owner` past the cap
    (nothing for no owner: baselines and the management commands)."""
    if not _counted(owner):
        return
    queued = Episode.objects.filter(status=Episode.QUEUED, run__submission__owner=owner).count()
    limit = settings.ARENA_MAX_QUEUED_EPISODES_PER_USER
    if queued + adding > limit:
        raise QueuedCapReached(
            f"This {what} would queue {adding:,} episodes and you have {queued:,} waiting in the queue; this arena "
            f"allows {limit:,} queued per user. Wait for some to play, or cancel a run, or choose fewer episodes."
        )


def hold_queued_room(owner, adding: int, *, what: str = "submission") -> None:
    """`check_queued_room` with the owner's row locked until the caller's transaction
    ends: call it inside the transaction that queues the episodes, before queuing them."""
    if not _counted(owner):
        return
    get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
    check_queued_room(owner, adding, what=what)
