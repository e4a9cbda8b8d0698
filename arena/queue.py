"""The task queue: Huey, behind this module's functions, made fair.

Embedded mode keeps the queue in a SQLite file (no extra server); scaled mode uses
Redis (REDIS_URL). The unit of queued work is one episode. Our worker
(`manage.py arena_worker`) pulls messages with `dequeue_episode` and plays many episodes
concurrently on one asyncio loop; Huey's own consumer (`huey_consumer`) can execute the
same task too, one episode per consumer thread, because the task body is the same runner.

Fairness is carried by the message's priority alone, so every Huey back-end (SQLite,
Redis's sorted set, memory) keeps it without a scheduler of its own. Highest first:

  1. interrupted episodes of users' submissions (their worker died or was stopped),
  2. users' episodes not started yet, shared fairly between submissions,
  3. interrupted baseline episodes,
  4. baseline episodes not started yet, shared fairly between baseline runs.

"Fairly" is start-time fair queueing (Goyal, Vin & Cheng, "Start-time Fair Queueing",
SIGCOMM 1996): every message of a flow (a user's account; a baseline's run) gets a
virtual start tag, one after the other within the flow, and never earlier than the
band's virtual time, the tag of the message served next. Messages are taken in tag order,
so flows take turns, one episode each, however much each queued: a submission created
behind 5,000 baseline episodes and another user's 5,000 episodes has its first episode
taken next but one. A user's submissions and experiments are one flow (arena.services.runs):
a user with twenty submissions queued gets one turn per round, as a newcomer with one
does. Inside the flow, the account's turn goes to its submissions in turn (round-robin,
arena.services.turns): a big submission does not starve the same account's small later
one. The turn is decided when its message is taken, so a message names its account's
turn, and the episode it names may swap places with the one whose turn it is.
"""

from __future__ import annotations

import logging
import math
import struct
import time
from dataclasses import dataclass

from django.conf import settings
from django.utils.module_loading import import_string
from huey import MemoryHuey, PriorityRedisHuey, SqliteHuey
from huey.exceptions import HueyException
from huey.storage import MemoryStorage, RedisPriorityQueue, SqliteStorage

logger = logging.getLogger(__name__)

# A band's priorities span (band - 1) × BAND_WIDTH (exclusive) to band × BAND_WIDTH, the
# highest for the smallest tag. Exact in SQLite's reals and Redis's doubles up to 2**53.
BAND_WIDTH = 10**12
BASELINE, BASELINE_RESUME, USER, USER_RESUME = 1, 2, 3, 4


def _make_huey():
    if settings.ARENA_QUEUE == "redis":
        # A sorted set rather than the list of plain RedisHuey, which has no priorities;
        # under its own name, since the list's key cannot become a set. Messages still
        # in an old list are found missing and sent again (arena.play.requeue).
        return PriorityRedisHuey("arena-by-priority", url=settings.REDIS_URL, results=False)
    if settings.ARENA_QUEUE == "memory":
        return MemoryHuey("arena", results=False)
    return SqliteHuey("arena", filename=settings.ARENA_QUEUE_PATH, results=False)


huey = _make_huey()


# What plays a dequeued episode, named rather than imported: the runner writes through
# arena.services.runs, which queues episodes through this module (no import cycle).
PLAYER = "arena.play.runner.play_episode_blocking"


@huey.task(name="play_episode")
def play_episode(episode_id: int) -> None:
    import_string(PLAYER)(episode_id)


@dataclass(frozen=True)
class Flow:
    """Episodes that take one turn between them: `key` names the flow (a user, a
    submission without an owner, a baseline run), `baseline` puts it in the baselines' bands."""

    key: str
    baseline: bool


def band_of(priority: float | None) -> int:
    """The band of a message's priority (0 for messages of an older arena, sent with
    priority 0 or none)."""
    return max(0, math.ceil((priority or 0) / BAND_WIDTH))


def is_baseline_band(band: int) -> bool:
    return band in (BASELINE, BASELINE_RESUME)


def priorities(flows: list[tuple[Flow, list[int]]], *, resume: bool = False) -> dict[int, float]:
    """The priority of each episode's message: interrupted ones (`resume`) first in their
    band, in the order they come; the others after the flow's earlier messages and
    never before the band's virtual time (the module's docstring)."""
    result: dict[int, float] = {}
    for flow, episode_ids in flows:
        if resume:
            band = BASELINE_RESUME if flow.baseline else USER_RESUME
            result.update((episode_id, float(band * BAND_WIDTH)) for episode_id in episode_ids)
            continue
        band = BASELINE if flow.baseline else USER
        key = f"fair:{band}:{flow.key}"
        start = max(_virtual_time(band), _stored_tag(key) + 1)
        for offset, episode_id in enumerate(episode_ids):
            result[episode_id] = float(band * BAND_WIDTH - (start + offset))
        huey.put(key, start + len(episode_ids) - 1)
    return result


def enqueue_episodes(priorities_by_episode: dict[int, float]) -> None:
    """Queue the episodes with the priorities `priorities` gave them: in one write on
    SQLite and Redis (one write each took 64 s for 10,000 episodes on SQLite, on the
    2-core machine under load, and a submission's request waits for it)."""
    storage = huey.storage
    messages = [
        (huey.serialize_task(play_episode.s(episode_id, priority=priority)), priority)
        for episode_id, priority in priorities_by_episode.items()
    ]
    if huey.immediate or not isinstance(storage, (SqliteStorage, RedisPriorityQueue)):
        for episode_id, priority in priorities_by_episode.items():
            huey.enqueue(play_episode.s(episode_id, priority=priority))
    elif isinstance(storage, SqliteStorage):
        with storage.db(commit=True) as cursor:
            cursor.executemany(
                "insert into task (queue, data, priority) values (?, ?, ?)",
                [(storage.name, storage.to_blob(data), priority) for data, priority in messages],
            )
    else:
        # Huey's own layout: a microsecond time prefix keeps messages of one priority
        # in the order sent (and distinct); the score is the negated priority.
        start = int(time.time() * 1e6)
        pipeline = storage.conn.pipeline(transaction=False)
        for offset, (data, priority) in enumerate(messages):
            pipeline.zadd(storage.queue_key, {struct.pack(">Q", start + offset) + data: -priority})
        pipeline.execute()


@dataclass(frozen=True)
class Dequeued:
    episode_id: int
    band: int
    priority: float = 0.0

    @property
    def baseline(self) -> bool:
        return is_baseline_band(self.band)

    @property
    def resuming(self) -> bool:
        """An interrupted episode's message, ahead of those not started yet."""
        return self.band in (USER_RESUME, BASELINE_RESUME)


def dequeue_episode() -> Dequeued | None:
    """Take the next queued episode, or None when the queue is empty."""
    task = huey.dequeue()
    if task is None:
        return None
    if task.name != "play_episode" or not task.args:
        logger.warning("dropping unexpected queue message %r", task.name)
        return None
    band = band_of(task.priority)
    if band in (BASELINE, USER):
        # The band's virtual time moves on: a flow that comes after the band has
        # emptied starts at the tag served last, not before it.
        huey.put(f"fair-clock:{band}", _tag(task.priority, band))
    return Dequeued(int(task.args[0]), band, float(task.priority or 0))


def head_band() -> int | None:
    """The band of the message that would be taken next; None if the queue is empty."""
    priority = _highest_priority(0, math.inf)
    return None if priority is None else band_of(priority)


def pending_count() -> int:
    return huey.pending_count()


def messages_ahead(priority: float) -> int:
    """How many queued messages go before one of this priority that is in the queue.
    Those of the same priority (flows that joined at the same turn) count as ahead,
    though the ones sent after it go after it: the position errs late, by a few."""
    storage = huey.storage
    if isinstance(storage, SqliteStorage):
        rows = storage.sql(
            "select count(id) from task where queue = ? and priority >= ?", (storage.name, priority), results=True
        )
        at_or_above = int(rows[0][0])
    elif isinstance(storage, RedisPriorityQueue):
        at_or_above = int(storage.conn.zcount(storage.queue_key, "-inf", -priority))
    else:
        at_or_above = sum(1 for negated, _, _ in list(storage._queue) if -negated >= priority)
    return max(0, at_or_above - 1)


def pending_episode_ids(*, resume: bool = False) -> set[int]:
    """The episodes that have a message waiting in the queue; with `resume`, only those
    whose message goes ahead of the episodes of their kind not started yet."""
    pending = set()
    for message in huey.storage.enqueued_items():
        try:
            task = huey.deserialize_task(message)
        except HueyException:  # not ours; `dequeue_episode` drops it
            continue
        if task.name != "play_episode" or not task.args:
            continue
        if not resume or band_of(task.priority) in (BASELINE_RESUME, USER_RESUME):
            pending.add(int(task.args[0]))
    return pending


def last_turn_of(flow: Flow) -> int:
    """What `note_turn_of` noted for the flow last (arena.services.turns: the submission
    whose turn inside an account came last), or -1."""
    return _stored_tag(f"turn:{flow.key}")


def note_turn_of(flow: Flow, value: int) -> None:
    huey.put(f"turn:{flow.key}", value)


def _tag(priority: float, band: int) -> int:
    return int(band * BAND_WIDTH - priority)


def _stored_tag(key: str) -> int:
    value = huey.get(key, peek=True)
    return -1 if value is None else int(value)


def _virtual_time(band: int) -> int:
    """The tag of the band's next message, or, in an empty band, of the one served last."""
    head = _highest_priority((band - 1) * BAND_WIDTH, band * BAND_WIDTH)
    served = _stored_tag(f"fair-clock:{band}")
    return max(served, 0 if head is None else _tag(head, band))


def _highest_priority(above: float, up_to: float) -> float | None:
    """The highest priority of a queued message in (above, up_to], or None."""
    storage = huey.storage
    if isinstance(storage, SqliteStorage):
        rows = storage.sql(
            "select max(priority) from task where queue = ? and priority > ? and priority <= ?",
            (storage.name, above, up_to if up_to != math.inf else 1e300),
            results=True,
        )
        return rows[0][0]
    if isinstance(storage, RedisPriorityQueue):
        # Scores are the negated priorities: the lowest score in [-up_to, -above).
        found = storage.conn.zrangebyscore(
            storage.queue_key, -up_to if up_to != math.inf else "-inf", f"({-above}", start=0, num=1, withscores=True
        )
        return -found[0][1] if found else None
    if isinstance(storage, MemoryStorage):
        inside = [-negated for negated, _, _ in list(storage._queue) if above < -negated <= up_to]
        return max(inside, default=None)
    raise TypeError(f"no fair queue on a {type(storage).__name__}")
