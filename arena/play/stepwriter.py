"""Group commit for the steps of all episodes a worker is playing.

Every runner hands its step to the writer and waits until it is committed (a step is
never published or built upon before that). The writer takes whatever steps are
waiting — one, or dozens when many episodes are in flight — and commits them in one
transaction on the database thread. A step the database refuses fails only the
runner that wrote it (StepNotStored, see arena.services.steps.steps_record); the others of its
batch are committed all the same.

A runner does not wait for its step's commit at once: the write overlaps the episode's
next model call, and the runner needs it only when that call has returned
(`write(..., may_wait=True)`, then `hurry` before awaiting it). Such writes wait up to
GATHER_SECONDS for the steps of other episodes to share their transaction: an idle
worker's replies come one at a time, and a transaction of its own for each step cost
more than the rest of its write. A write that is awaited at once, a runner that hurries,
or a full batch ends the wait.
"""

from __future__ import annotations

import asyncio

from arena.services import steps as step_writes
from arena.play.dbthread import db

MAX_BATCH = 128
# The longest a runner's overlapped step waits for company before its commit (and its
# live announcement): well under a model call, far under what a viewer notices.
GATHER_SECONDS = 0.05


class StepWriter:
    def __init__(self, gather_seconds: float = GATHER_SECONDS):
        self.gather_seconds = gather_seconds
        self._queue: asyncio.Queue | None = None
        self._hurry: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _ensure_started(self) -> asyncio.Queue:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._loop is not loop:
            self._loop = loop
            self._queue = asyncio.Queue()
            self._hurry = asyncio.Event()
            self._task = loop.create_task(self._drain())
        return self._queue

    async def write(self, episode_id: int, worker: str, record: step_writes.StepRecord, *,
                    may_wait: bool = False) -> None:
        """Wait until the step is committed; LeaseLost if the worker no longer holds the
        episode, StepNotStored if the database refused this step. `may_wait`: the
        caller awaits this later and calls `hurry` first (see the module's doc)."""
        await self.submit(episode_id, worker, record, may_wait=may_wait)

    def submit(self, episode_id: int, worker: str, record: step_writes.StepRecord, *,
               may_wait: bool = False) -> asyncio.Future:
        """`write` without a task of its own: the future its commit settles (None, or
        LeaseLost, or StepNotStored). The runner keeps it as the step's pending write;
        wrapping a coroutine around it cost a task and its loop callbacks per step."""
        future = asyncio.get_running_loop().create_future()
        queue = self._ensure_started()
        queue.put_nowait((episode_id, worker, record, future))
        if not may_wait or queue.qsize() >= MAX_BATCH:
            self._hurry.set()
        return future

    def hurry(self) -> None:
        """Commit the waiting steps now: a runner needs its step."""
        if self._hurry is not None:
            self._hurry.set()

    async def _drain(self) -> None:
        queue, hurry = self._queue, self._hurry
        while True:
            batch = [await queue.get()]
            if self.gather_seconds > 0 and not hurry.is_set():
                try:
                    async with asyncio.timeout(self.gather_seconds):
                        await hurry.wait()
                except TimeoutError:
                    pass
            hurry.clear()
            while len(batch) < MAX_BATCH and not queue.empty():
                batch.append(queue.get_nowait())
            try:
                results = await db(step_writes.steps_record, [item[:3] for item in batch])
            except BaseException as exc:
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
                if not isinstance(exc, Exception):
                    raise
                continue
            for (episode_id, *_, future), stored in zip(batch, results):
                if future.done():
                    continue
                if isinstance(stored, step_writes.StepNotStored):
                    future.set_exception(stored)
                elif not stored:
                    future.set_exception(step_writes.LeaseLost(episode_id))
                else:
                    future.set_result(None)
