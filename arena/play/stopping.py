"""A stopping worker's episodes: each is given back to the queue (StopRequested) at its
next step boundary, or at once while it waits on its endpoint (EndpointWaits).

Waiting is where a stop would hang: a model server killed mid-episode leaves its calls
to time out (ARENA_MODEL_TIMEOUT_SECONDS, 120 s by default) and be retried with
back-off, or connections refused and retried, and the episodes beyond the endpoint's
concurrency wait for a turn behind them. A stop cancels those waits; the step waited
for is not played, so nothing of it is stored, and it is played when the episode resumes
from its last stored step."""

from __future__ import annotations

import asyncio


class StopRequested(Exception):
    """The worker is stopping, or the episode gives way to a user's (a baseline's): it
    stops at a step boundary, or in the wait for its endpoint's answer, every step it
    played committed, and is given back to the queue (episode_release)."""


class EndpointWaits:
    """The episodes of one runner waiting on their endpoint, which `interrupt` ends."""

    def __init__(self) -> None:
        self.interrupting = False
        self._tasks: dict[int, asyncio.Task] = {}
        self._interrupted: set[int] = set()

    def interrupt(self) -> None:
        """End every wait now and every later one at its start, each as StopRequested."""
        self.interrupting = True
        for episode_id, task in self._tasks.items():
            if episode_id not in self._interrupted:
                self._interrupted.add(episode_id)
                task.cancel()

    async def wait(self, episode_id: int, waiting):
        """`waiting` (a coroutine calling the episode's endpoint) awaited, or
        StopRequested if the runner is interrupted first."""
        if self.interrupting:
            waiting.close()
            raise StopRequested(episode_id)
        task = asyncio.current_task()
        self._tasks[episode_id] = task
        try:
            return await waiting
        except asyncio.CancelledError:
            if episode_id not in self._interrupted:
                raise  # cancelled by someone else: the worker's process is going down
            task.uncancel()
            raise StopRequested(episode_id) from None
        finally:
            del self._tasks[episode_id]
            self._interrupted.discard(episode_id)
