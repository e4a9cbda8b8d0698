"""Group commit for the steps of all episodes a worker is playing.

Every runner hands its step to the writer and waits until it is committed (a step is
never published or built upon before that). The writer takes whatever steps are
waiting — one, or dozens when many episodes are in flight — and commits them in one
transaction on the database thread. A step the database refuses fails only the
runner that wrote it (StepNotStored, see arena.services.steps.steps_record); the others of its
batch are committed all the same.
"""

from __future__ import annotations

import asyncio

from arena.services import steps as step_writes
from arena.play.dbthread import db

MAX_BATCH = 128


class StepWriter:
    def __init__(self):
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _ensure_started(self) -> asyncio.Queue:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._loop is not loop:
            self._loop = loop
            self._queue = asyncio.Queue()
            self._task = loop.create_task(self._drain())
        return self._queue

    async def write(self, episode_id: int, worker: str, record: step_writes.StepRecord) -> None:
        """Wait until the step is committed; LeaseLost if the worker no longer holds the
        episode, StepNotStored if the database refused this step."""
        future = asyncio.get_running_loop().create_future()
        self._ensure_started().put_nowait((episode_id, worker, record, future))
        if not await future:
            raise step_writes.LeaseLost(episode_id)

    async def _drain(self) -> None:
        queue = self._queue
        while True:
            batch = [await queue.get()]
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
            for (*_, future), stored in zip(batch, results):
                if future.done():
                    continue
                if isinstance(stored, step_writes.StepNotStored):
                    future.set_exception(stored)
                else:
                    future.set_result(stored)
