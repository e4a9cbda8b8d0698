"""The task queue: Huey, behind this module's functions.

Embedded mode keeps the queue in a SQLite file (no extra server); scaled mode uses
Redis (REDIS_URL). The unit of queued work is one episode. Our worker
(`manage.py arena_worker`) pulls messages with `dequeue_episode` and plays many episodes
concurrently on one asyncio loop; Huey's own consumer (`huey_consumer`) can execute the
same task too, one episode per consumer thread, because the task body is the same runner.

Messages have a priority: an episode that was interrupted (its worker died) is resumed
before the episodes waiting to start, however long the backlog.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils.module_loading import import_string
from huey import MemoryHuey, PriorityRedisHuey, SqliteHuey
from huey.exceptions import HueyException

logger = logging.getLogger(__name__)

# Huey takes higher priorities first, and messages of one priority in order.
RESUME_PRIORITY = 10


def _make_huey():
    if settings.ARENA_QUEUE == "redis":
        # A sorted set rather than the list of plain RedisHuey, which has no priorities;
        # under its own name, since the list's key cannot become a set. Messages still
        # in an old list are found missing and sent again (arena.requeue).
        return PriorityRedisHuey("arena-by-priority", url=settings.REDIS_URL, results=False)
    if settings.ARENA_QUEUE == "memory":
        return MemoryHuey("arena", results=False)
    return SqliteHuey("arena", filename=settings.ARENA_QUEUE_PATH, results=False)


huey = _make_huey()


# What plays a dequeued episode, named rather than imported: the runner writes through
# arena.services, which queues episodes through this module (no import cycle).
PLAYER = "arena.runner.play_episode_blocking"


@huey.task(name="play_episode")
def play_episode(episode_id: int) -> None:
    import_string(PLAYER)(episode_id)


def enqueue_episodes(episode_ids: list[int], *, resume: bool = False) -> None:
    """Queue the episodes; with `resume`, ahead of every episode not started yet."""
    priority = RESUME_PRIORITY if resume else None
    for episode_id in episode_ids:
        huey.enqueue(play_episode.s(episode_id, priority=priority))


def dequeue_episode() -> int | None:
    """Take the next queued episode id, or None when the queue is empty."""
    task = huey.dequeue()
    if task is None:
        return None
    if task.name != "play_episode" or not task.args:
        logger.warning("dropping unexpected queue message %r", task.name)
        return None
    return int(task.args[0])


def pending_count() -> int:
    return huey.pending_count()


def pending_episode_ids(*, resume: bool = False) -> set[int]:
    """The episodes that have a message waiting in the queue; with `resume`, only those
    whose message goes ahead of the episodes not started yet."""
    pending = set()
    for message in huey.storage.enqueued_items():
        try:
            task = huey.deserialize_task(message)
        except HueyException:  # not ours; `dequeue_episode` drops it
            continue
        if task.name == "play_episode" and task.args and (not resume or (task.priority or 0) >= RESUME_PRIORITY):
            pending.add(int(task.args[0]))
    return pending
