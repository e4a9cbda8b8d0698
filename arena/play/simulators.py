"""Threads for the simulators whose steps compute in the interpreter (`Task.cpu_bound`).

A blocking task's step leaves the event loop for a thread, so other episodes go on
meanwhile. asyncio's default executor has up to four more threads than the machine has
cores, which suits steps that wait (a Stockfish search, a TextWorld interpreter: other
processes). A step that computes in Python (crafter's world and drawing) holds the
interpreter's lock instead, and more such threads than cores only take the lock from
one another: on a 2-core machine six Crafter steps at once spent about a millisecond
per step more in the kernel handing the lock around than two did. These run on as many
threads as the process may use cores.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
from concurrent.futures import ThreadPoolExecutor


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_executor = ThreadPoolExecutor(max_workers=cores(), thread_name_prefix="arena-sim")


async def computing(function, *args):
    """`function(*args)` on one of the simulators' threads, with the caller's context
    variables, as asyncio.to_thread runs it on the default executor."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, function, *args)
    return await loop.run_in_executor(_executor, call)
