"""Whose turn it is inside an account: its submissions in turn (round-robin).

The fair queue (arena.queue) gives an account one turn a round, whatever it queued; a
message names the account's turn by one of its episodes, the next in the order they were
queued. Left at that, one account's submission of 5,000 episodes would play them all
before the same account's later submission of 5 got its first. So when a user's message
is taken, the turn goes to the account's next submission (by id, after the one whose
turn came last, wrapping round) that has episodes waiting, and to its first waiting
episode (so each submission's episodes still play in the order they were made). If
that is not the episode the message names, the two swap places: the chosen one plays
now, and the named one is queued again in the chosen one's place (its priority; the
chosen one's own message is found no longer queued when taken, and dropped as any
stale message is). Every waiting episode keeps one message, and the account's share
of turns stays what it was.
"""

from __future__ import annotations

from django.db import transaction

from arena import queue
from arena.models import Episode
from arena.services.prepared import Prepared
from arena.services.runs import enqueue_at

# A user's episodes not started yet: their messages' priorities (arena.queue's bands).
_NEW_USER_EPISODES = {
    "queue_priority__gt": (queue.USER - 1) * queue.BAND_WIDTH,
    "queue_priority__lte": queue.USER * queue.BAND_WIDTH,
}


def turn_of_account(dequeued: queue.Dequeued) -> queue.Dequeued:
    """The episode that plays the turn `dequeued` took: the one it names, or the first
    waiting episode of its account's submission whose turn it is (the module's docstring)."""
    if dequeued.band != queue.USER:
        return dequeued
    with transaction.atomic():
        _, named, _ = _QUEUED_EPISODE_ACCOUNT.execute(episode_id=dequeued.episode_id)
        if named is None or named[1] is None:
            return dequeued  # stale, dropped by the runner; or no account to share
        submission_id, owner_id = named
        waiting = Episode.objects.filter(status=Episode.QUEUED, run__submission__owner_id=owner_id, **_NEW_USER_EPISODES)
        submissions = sorted(set(waiting.order_by().values_list("run__submission_id", flat=True).distinct()) | {submission_id})
        flow = queue.Flow(f"owner:{owner_id}", False)
        last = queue.last_turn_of(flow)
        chosen = next((pk for pk in submissions if pk > last), submissions[0])
        queue.note_turn_of(flow, chosen)
        other = (
            waiting.select_for_update(of=("self",)).filter(run__submission_id=chosen)
            .order_by("pk").values_list("pk", "queue_priority").first()
        )
        if other is None or other[0] == dequeued.episode_id:
            return dequeued
        other_id, other_priority = other
        Episode.objects.filter(pk=other_id).update(queue_priority=dequeued.priority)
        enqueue_at({dequeued.episode_id: other_priority})
    return queue.Dequeued(other_id, dequeued.band, dequeued.priority)


# The named episode's submission and account, locked while its turn is decided; asked for
# every user's episode a worker takes, so the ORM's statement is written once
# (arena.services.prepared: building it cost ~1 ms of CPU, running it microseconds).
_QUEUED_EPISODE_ACCOUNT = Prepared(
    lambda episode_id: list(
        Episode.objects.select_for_update(of=("self",)).filter(pk=episode_id, status=Episode.QUEUED)
        .order_by().values_list("run__submission_id", "run__submission__owner_id")[:1]
    )
)
