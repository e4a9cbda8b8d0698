"""The worker process: pulls episodes from the queue and plays many at once.

One asyncio loop, at most `concurrency` episodes in flight, taken in the queue's fair
order (arena.queue); baseline episodes are played only while no user's episode is
waiting or in play, and those in play make way when a user's episode comes. Besides playing, it beats
its own heart (Worker row, for /healthz), the hearts of episodes that are waiting on a
slow model call, and recovers what workers that died left behind: the reaper re-queues
their running episodes, and queued episodes whose message they took with them are sent
again (arena.play.requeue). It does so when it starts, too, so a worker restarted after a
crash resumes the interrupted episodes first.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
import uuid

from asgiref.sync import sync_to_async
from django.conf import settings

from arena import queue
from arena.services.episodes import episodes_heartbeat, reap_stale_episodes, worker_heartbeat, worker_stopped
from arena.play import requeue
from arena.memory import keep_freed_memory
from arena.play.runner import EpisodeRunner
from envs.registry import all_tasks

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10.0
REAP_SECONDS = 30.0
IDLE_POLL_SECONDS = 0.2


class Worker:
    def __init__(self, concurrency: int | None = None, name: str | None = None, runner: EpisodeRunner | None = None):
        self.concurrency = concurrency or settings.ARENA_WORKER_CONCURRENCY
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.runner = runner or EpisodeRunner(self.name)
        self.in_flight: dict[int, asyncio.Task] = {}
        self.baselines_in_flight: set[int] = set()
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """Take no more episodes, and give the ones in play back to the queue at their
        next step boundary (a long episode would otherwise hold a Ctrl-C or a deploy for
        minutes, or hours at TextAtari's 100,000 steps)."""
        self._stopping.set()
        self.runner.request_stop()

    async def serve(self, *, until_idle: bool = False) -> None:
        """Play episodes until stopped (or, with until_idle, until the queue is empty and
        nothing is in flight — used by tests and benchmarks)."""
        await sync_to_async(self._on_start)()
        housekeeping = asyncio.create_task(self._housekeeping())
        try:
            while not self._stopping.is_set():
                head = await sync_to_async(queue.head_band, thread_sensitive=False)()
                if head is not None and not queue.is_baseline_band(head):
                    self._baselines_give_way()
                full = len(self.in_flight) >= self.concurrency
                # Baselines are played only while no user's episode is: never ahead of
                # one, nor taking the cores from one.
                baselines_wait = head is not None and queue.is_baseline_band(head) and self._users_in_flight()
                if full or baselines_wait:
                    await asyncio.wait(self.in_flight.values(), timeout=IDLE_POLL_SECONDS, return_when=asyncio.FIRST_COMPLETED)
                    continue
                dequeued = await sync_to_async(queue.dequeue_episode, thread_sensitive=False)()
                if dequeued is None:
                    if until_idle and not self.in_flight:
                        # Idle means nothing is left behind by a dead worker either.
                        if not await sync_to_async(recover_lost_episodes)():
                            break
                        continue
                    await asyncio.sleep(IDLE_POLL_SECONDS)
                    continue
                self._start(dequeued)
            if self.in_flight:
                await asyncio.gather(*self.in_flight.values(), return_exceptions=True)
        finally:
            housekeeping.cancel()
            await sync_to_async(worker_stopped)(self.name)

    def _start(self, dequeued: queue.Dequeued) -> None:
        episode_id = dequeued.episode_id
        task = asyncio.create_task(self.runner.run(episode_id))
        self.in_flight[episode_id] = task
        if dequeued.baseline:
            self.baselines_in_flight.add(episode_id)

        def done(_task, eid=episode_id):
            self.in_flight.pop(eid, None)
            self.baselines_in_flight.discard(eid)

        task.add_done_callback(done)

    def _users_in_flight(self) -> bool:
        return len(self.in_flight) > len(self.baselines_in_flight)

    def _baselines_give_way(self) -> None:
        """A user's episode waits: the baseline episodes in play go back to the queue at
        their next step boundary (to resume after the users' episodes)."""
        waiting = self.baselines_in_flight - self.runner.giving_way
        if waiting:
            logger.info("%d baseline episodes make way for a user's episode", len(waiting))
            self.runner.request_give_way(waiting)

    def _on_start(self) -> None:
        # Import every suite now rather than inside the first episode.
        all_tasks()
        # Everything loaded so far lives as long as the process: keep the cyclic
        # collector from rescanning it at every collection.
        gc.freeze()
        # A simulator's per-step arrays reuse the memory of the step before instead of
        # being mapped afresh by the kernel (arena.memory).
        keep_freed_memory()
        worker_heartbeat(self.name, socket.gethostname(), os.getpid(), 0)
        recover_lost_episodes()

    async def _housekeeping(self) -> None:
        since_reap = 0.0  # `_on_start` has just recovered
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            since_reap += HEARTBEAT_SECONDS
            try:
                await sync_to_async(worker_heartbeat)(
                    self.name, socket.gethostname(), os.getpid(), len(self.in_flight)
                )
                await sync_to_async(episodes_heartbeat)(self.name, list(self.in_flight))
                if since_reap >= REAP_SECONDS:
                    since_reap = 0.0
                    await sync_to_async(recover_lost_episodes)()
            except Exception:
                logger.exception("worker housekeeping failed; will retry")


def recover_lost_episodes() -> int:
    """Queue again what dead workers left: running episodes gone silent (resumed ahead
    of the backlog) and queued ones whose message they took. How many were queued."""
    reaped = reap_stale_episodes()
    return reaped["requeued"] + requeue.requeue_lost_messages()
