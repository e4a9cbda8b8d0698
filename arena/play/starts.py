"""Processes that build the start of an episode for games whose start computes long in
the interpreter (`Task.start_builder`: crafter generates its 64×64 world cell by cell in
Python around compiled noise, envs/balrog/crafter_noise.py: a few tenths of a second of
CPU, 0.9 s when the noise was interpreted too).

A worker plays all its episodes in one interpreter, whose lock lets one thread compute
at a time: a world generated there holds up every other episode's step for as long.
Generated in a process of its own, it takes another core instead, and the task starts
from it (`Task.reset_built`), state for state as `reset` would have built it.

Nothing depends on these processes: if one cannot start, dies or fails, the episode's
task builds its start itself, as it always did, and a broken pool is replaced at the
next start. The pool is made at the first start that needs it and lives as long as the
worker (concurrent.futures ends its processes when the interpreter exits).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from arena.play.simulators import cores

logger = logging.getLogger(__name__)

# Whether workers build starts in these processes; the bench switches it off for its row.
enabled = True

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
# CPU seconds the processes spent building starts that came back (the bench adds them to
# the worker's own: `time.process_time` sees one process).
_cpu_seconds = 0.0


def _timed(function, args):
    started = time.process_time()
    built = function(*args)
    return built, time.process_time() - started


def _leave_interrupts_to_the_worker() -> None:
    # Ctrl-C in `make serve`'s terminal reaches every process of its group: the worker
    # ends these processes itself on its way out, and each interrupted one printed a
    # KeyboardInterrupt traceback over the shutdown.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _get_pool() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            # Spawned, not forked: the worker has threads (the database's, the
            # simulators'), and a fork copies their locks in whatever state they are.
            _pool = ProcessPoolExecutor(
                max_workers=cores(), mp_context=multiprocessing.get_context("spawn"),
                initializer=_leave_interrupts_to_the_worker,
            )
        return _pool


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


async def built(task, seed: int):
    """What `task.start_builder(seed)`'s function returns, built in a start process;
    None when the task builds its own start, the pool is off, or the process failed (the
    caller then resets the task as usual)."""
    builder = task.start_builder(seed) if enabled else None
    if builder is None:
        return None
    function, args = builder
    pool = None
    try:
        pool = _get_pool()
        result, cpu = await asyncio.get_running_loop().run_in_executor(pool, _timed, function, args)
    except Exception as exc:  # a start process that died or failed must not fail the episode
        logger.warning("%s: the start of seed %s was not built in a start process (%s: %s); the task builds it",
                       task.id, seed, type(exc).__name__, exc)
        if pool is not None and isinstance(exc, (BrokenProcessPool, RuntimeError)):
            _discard(pool)  # a process died (or the pool was shut down): the next start makes a new one
        return None
    global _cpu_seconds
    _cpu_seconds += cpu
    return result


def cpu_seconds() -> float:
    """CPU seconds the start processes spent on the starts they built so far."""
    return _cpu_seconds


def shutdown() -> None:
    """End the start processes (tests; a new pool is made at the next start)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
