"""Threads for the simulators whose steps compute in the interpreter (`Task.cpu_bound`),
and the thread that encodes and stores their replay pictures.

A blocking task's step leaves the event loop for a thread, so other episodes go on
meanwhile. asyncio's default executor has up to four more threads than the machine has
cores, which suits steps that wait (a Stockfish search, a TextWorld interpreter: other
processes). A step that computes in Python (crafter's world and drawing) holds the
interpreter's lock instead, and more such threads than cores only take the lock from
one another: on a 2-core machine six Crafter steps at once spent about a millisecond
per step more in the kernel handing the lock around than two did. These run on as many
threads as the process may use cores.

A replay picture's encoding is mostly zlib's deflate, which runs without the
interpreter's lock: handed to a thread of its own (`encoding`), it runs beside the next
step's Python instead of in front of it. One thread keeps each episode's pictures in the
order they were taken (arena.play.runner._ViewerFrames).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import os
from concurrent.futures import ThreadPoolExecutor


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_executor = ThreadPoolExecutor(max_workers=_cores(), thread_name_prefix="arena-sim")
_pictures = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-pictures")


async def computing(function, *args):
    """`function(*args)` on one of the simulators' threads, with the caller's context
    variables, as asyncio.to_thread runs it on the default executor."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, function, *args)
    return await loop.run_in_executor(_executor, call)


def encoding(function, *args) -> concurrent.futures.Future:
    """`function(*args)` on the pictures' thread, after every call handed to it before;
    callable from any thread."""
    return _pictures.submit(function, *args)
