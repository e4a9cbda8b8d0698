"""One thread for the worker's database work.

Django's ORM is synchronous. The runner hands every database call to this single
thread: it is cheaper per call than asgiref's `sync_to_async` (which the runner would
otherwise pay once per step), keeps one connection per worker process, and serialises
writes, which is what SQLite wants anyway.

Calls run in the order they are handed over, except those handed over with `db_first`:
they go before every call still waiting (a claim an idle place waits for, ahead of
other episodes' finishes and step batches, which nobody waits for yet).
"""

import asyncio
import concurrent.futures
import functools
import itertools
import queue
import threading

FIRST, IN_TURN = 0, 1


class _DatabaseThread(concurrent.futures.Executor):
    """A one-thread executor whose calls wait in a priority queue (FIFO within one)."""

    def __init__(self, name: str):
        self._name = name
        self._calls: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> concurrent.futures.Future:
        return self.submit_with(IN_TURN, fn, *args, **kwargs)

    def submit_with(self, priority: int, fn, /, *args, **kwargs) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if self._thread is None:
                # A daemon: the worker awaits its calls before it ends, and a thread left
                # waiting for calls must not hold the interpreter's exit.
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()
            self._calls.put((priority, next(self._order), future, fn, args, kwargs))
        return future

    def _serve(self) -> None:
        while True:
            _, _, future, fn, args, kwargs = self._calls.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)
            del future, fn, args, kwargs  # nothing of a call outlives it while the thread waits


_executor = _DatabaseThread("arena-db-0")


async def db(func, *args, **kwargs):
    return await db_future(func, *args, **kwargs)


def db_future(func, *args, **kwargs) -> asyncio.Future:
    """`db` started now and awaited later: the future its call settles."""
    return asyncio.get_running_loop().run_in_executor(_executor, functools.partial(func, *args, **kwargs))


async def db_first(func, *args, **kwargs):
    """`db`, run before every call still waiting for the thread (module docstring)."""
    return await asyncio.wrap_future(_executor.submit_with(FIRST, func, *args, **kwargs))
