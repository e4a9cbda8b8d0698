"""The worker process: pulls episodes from the queue and plays many at once.

One asyncio loop, at most `concurrency` episodes playing, taken in the queue's fair
order (arena.queue). An episode gives its place to the next one as soon as its agent
makes no more calls (the runner says so before the episode's last writes): its finish
waits for the database thread while the next episode's first model call is under way,
and the worker still tracks it until it ends (stop, heartbeats, the end of `serve`).
Baseline episodes are played only while no user's episode is waiting or in play, and
those in play make way when a user's episode comes. Besides playing, it beats
its own heart (Worker row, for /healthz), the hearts of episodes that are waiting on a
slow model call, and recovers what workers that died left behind: the reaper re-queues
their running episodes, and queued episodes whose message they took with them are sent
again (arena.play.requeue). It does so when it starts, too, so a worker restarted after a
crash resumes the interrupted episodes first.

A model's or agent's endpoint takes a few calls at once (the submission's concurrent
requests, arena.clients.limits), and an episode keeps its turn there until its model
work is over. So
the worker holds at most ENDPOINT_HOLD_FACTOR episodes per turn of one endpoint (one
tenant's use of it, arena.endpoints.tenancy: a stranger's episodes never count against yours): those
playing and as many ready for the next free turn. An episode taken beyond that goes
back to the queue behind its submission's others, instead of waiting inside the worker
in a place another submission's episode needs: a slow one-slot server with hundreds of
episodes queued used to fill all of a worker's places, and the next user's first
episode waited for one of them to end.

A worker full of one submission's episodes that are playing (a fast endpoint's long
NetHack or TextAtari episodes) would still keep the next user's first episode waiting
until one of them ends. So while it is full it looks, every NEWCOMER_CHECK_SECONDS, for a
user's submission with episodes queued and none playing; then it takes messages off the
queue (at most NEWCOMER_LOOKAHEAD, the others given back behind their flows) until it
finds that submission's episode, and starts it in one of NEWCOMER_PLACES places beyond
its concurrency. After that first episode, the fair queue shares the places as they free.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import socket
import time
import uuid

from asgiref.sync import sync_to_async
from django.conf import settings

from arena import queue
from arena.play.loading import episode_endpoint
from arena.selectors import Endpoint, newcomer_waiting, submission_playing
from arena.services.episodes import episodes_heartbeat, reap_stale_episodes, worker_heartbeat, worker_stopped
from arena.services.runs import episode_turn_given_back
from arena.services.turns import turn_of_account
from arena.play import requeue
from arena.runtime.memory import keep_freed_memory
from arena.play.runner import EpisodeRunner
from envs.registry import all_tasks

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10.0
REAP_SECONDS = 30.0
IDLE_POLL_SECONDS = 0.2
# Episodes of one endpoint held at most, per call it takes at once (module docstring).
ENDPOINT_HOLD_FACTOR = 2
# When the queue's head is all episodes of busy endpoints, the worker waits this long
# (or until one of its episodes ends) before taking again, rather than cycling them.
GIVE_BACK_PAUSE_SECONDS = 1.0
# A newcomer's first episode while the worker is full (module docstring).
NEWCOMER_CHECK_SECONDS = 2.0
NEWCOMER_LOOKAHEAD = 8
NEWCOMER_PLACES = 4
# Episodes in flight at most, per place: those playing and those in their database finish.
FINISHING_FACTOR = 2


class Worker:
    def __init__(self, concurrency: int | None = None, name: str | None = None, runner: EpisodeRunner | None = None):
        self.concurrency = concurrency or settings.ARENA_WORKER_CONCURRENCY
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.runner = runner or EpisodeRunner(self.name)
        # Every episode until its runner returns, its database finish included: stop,
        # the heartbeats and the end of `serve` wait for these.
        self.in_flight: dict[int, asyncio.Task] = {}
        # Those whose agent may still call its endpoint: they take the worker's places.
        self.playing: set[int] = set()
        self.baselines_in_flight: set[int] = set()
        self.endpoint_of: dict[int, str] = {}  # episode playing -> its endpoint's key (arena.endpoints.tenancy)
        self._stopping = asyncio.Event()
        self._place_freed = asyncio.Event()
        self._next_newcomer_check = 0.0
        self._user_episode_queued = False  # as of the loop's latest look at the queue's head

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
        given_back_in_a_row = 0
        try:
            while not self._stopping.is_set():
                self._place_freed.clear()  # a place freed from here on ends the next wait at once
                full = self._full()
                # One hop off the loop for the queue's head and, with a place free, the
                # episode taken (four hops took ~16 ms of a place's idle time per episode).
                head, taken = await sync_to_async(_look_and_take, thread_sensitive=False)(
                    take=not full, users_in_flight=self._users_in_flight()
                )
                self._user_episode_queued = head is not None and not queue.is_baseline_band(head)
                if self._user_episode_queued:
                    self._baselines_give_way()
                if full:
                    if not await self._start_a_newcomer():
                        await self._wait_for_a_place(IDLE_POLL_SECONDS)
                    continue
                if taken is None:
                    if head is not None:
                        # Baselines are played only while no user's episode is: never
                        # ahead of one, nor taking the cores from one.
                        await self._wait_for_a_place(IDLE_POLL_SECONDS)
                    elif until_idle and not self.in_flight:
                        # Idle means nothing is left behind by a dead worker either.
                        if not await sync_to_async(recover_lost_episodes)():
                            break
                    else:
                        await self._wait_for_a_place(IDLE_POLL_SECONDS)
                    continue
                dequeued, endpoint = taken
                key = self._place_at(endpoint)
                if key is False:
                    await self._give_back(dequeued)
                    given_back_in_a_row += 1
                    if given_back_in_a_row > 1:
                        await self._wait_for_a_place(GIVE_BACK_PAUSE_SECONDS)
                    continue
                given_back_in_a_row = 0
                self._start(dequeued, key)
            if self.in_flight:
                await asyncio.gather(*self.in_flight.values(), return_exceptions=True)
        finally:
            housekeeping.cancel()
            await sync_to_async(worker_stopped)(self.name)

    def _place_at(self, endpoint: Endpoint | None) -> str | None | bool:
        """The key of the endpoint the episode plays through, its tenant's (None: a
        baseline's, none), or False when the worker already holds as many of that
        tenant's episodes there as it should (module docstring)."""
        if endpoint is None:
            return None
        held = sum(1 for key in self.endpoint_of.values() if key == endpoint.key)
        if held >= ENDPOINT_HOLD_FACTOR * max(1, endpoint.max_concurrent_requests):
            return False
        return endpoint.key

    async def _start_a_newcomer(self) -> bool:
        """Start the first episode of a user's submission that has none playing, beyond
        the worker's concurrency (module docstring); whether one was started."""
        now = time.monotonic()
        if now < self._next_newcomer_check or len(self.playing) >= self.concurrency + NEWCOMER_PLACES:
            return False
        self._next_newcomer_check = now + NEWCOMER_CHECK_SECONDS
        # This worker's episodes count as playing before their claim is written: at
        # start-up, a submission whose first episodes were just taken is no newcomer.
        playing_here = frozenset(self.playing)
        if not await sync_to_async(newcomer_waiting, thread_sensitive=False)(playing_here):
            return False
        for _ in range(NEWCOMER_LOOKAHEAD):
            dequeued = await sync_to_async(queue.dequeue_episode, thread_sensitive=False)()
            if dequeued is None:
                return False
            if not dequeued.baseline and not await sync_to_async(submission_playing, thread_sensitive=False)(
                dequeued.episode_id, playing_here
            ):
                endpoint = self._place_at(await sync_to_async(_endpoint_of, thread_sensitive=False)(dequeued))
                if endpoint is not False:
                    logger.info("episode %d starts beyond the worker's places: its submission had none playing",
                                dequeued.episode_id)
                    self._start(dequeued, endpoint)
                    return True
            await self._give_back(dequeued)
        return False

    async def _give_back(self, dequeued: queue.Dequeued) -> None:
        """The episode's message back in the queue, behind its flow's others."""
        await sync_to_async(episode_turn_given_back, thread_sensitive=False)(
            dequeued.episode_id, resume=dequeued.resuming
        )

    def _full(self) -> bool:
        """Whether every place is taken by an episode whose agent may still call its
        endpoint; episodes in their database finish are bounded apart, so that a
        stalled database cannot pile up finished episodes in memory."""
        return len(self.playing) >= self.concurrency or len(self.in_flight) >= FINISHING_FACTOR * self.concurrency

    async def _wait_for_a_place(self, timeout: float) -> None:
        """Until an episode's model work is over or an episode ends (or `timeout`)."""
        try:
            async with asyncio.timeout(timeout):
                await self._place_freed.wait()
        except TimeoutError:
            pass

    def _start(self, dequeued: queue.Dequeued, endpoint: str | None = None) -> None:
        episode_id = dequeued.episode_id
        self.playing.add(episode_id)
        task = asyncio.create_task(
            self.runner.run(episode_id, model_work_over=functools.partial(self._model_work_over, episode_id))
        )
        self.in_flight[episode_id] = task
        if dequeued.baseline:
            self.baselines_in_flight.add(episode_id)
        if endpoint:
            self.endpoint_of[episode_id] = endpoint

        def done(_task, eid=episode_id):
            self.in_flight.pop(eid, None)
            self.baselines_in_flight.discard(eid)
            self._model_work_over(eid)  # a runner that never claimed the episode says nothing

        task.add_done_callback(done)

    def _model_work_over(self, episode_id: int) -> None:
        """The episode's agent calls no more: its place and its endpoint's hold go to
        the next episode while its last writes wait for the database thread."""
        self.playing.discard(episode_id)
        self.endpoint_of.pop(episode_id, None)
        self._place_freed.set()

    def _users_in_flight(self) -> bool:
        return len(self.in_flight) > len(self.baselines_in_flight)

    def users_busy(self) -> bool:
        """Whether a user's episode is queued or playing here: baseline work (episodes,
        and matches between baselines) waits meanwhile."""
        return self._user_episode_queued or self._users_in_flight()

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
        # being mapped afresh by the kernel (arena.runtime.memory).
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


def _look_and_take(*, take: bool, users_in_flight: bool) -> tuple[int | None, tuple | None]:
    """The band of the queue's head and, if `take` and the head may start now, the
    episode taken with its endpoint: (dequeued, endpoint or None) or None."""
    head = queue.head_band()
    if not take or head is None or (queue.is_baseline_band(head) and users_in_flight):
        return head, None
    dequeued = queue.dequeue_episode()
    if dequeued is None:
        return None, None
    # The account's turn goes to its submissions in turn (arena.services.turns).
    dequeued = turn_of_account(dequeued)
    return head, (dequeued, _endpoint_of(dequeued))


def _endpoint_of(dequeued: queue.Dequeued) -> Endpoint | None:
    return None if dequeued.baseline else episode_endpoint(dequeued.episode_id)


def recover_lost_episodes() -> int:
    """Queue again what dead workers left: running episodes gone silent (resumed ahead
    of the backlog) and queued ones whose message they took. How many were queued."""
    reaped = reap_stale_episodes()
    return reaped["requeued"] + requeue.requeue_lost_messages()
