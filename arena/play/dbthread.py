"""One thread for the worker's database work.

Django's ORM is synchronous. The runner hands every database call to this single
thread: it is cheaper per call than asgiref's `sync_to_async` (which the runner would
otherwise pay once per step), keeps one connection per worker process, and serialises
writes, which is what SQLite wants anyway.
"""

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-db")


async def db(func, *args, **kwargs):
    return await db_future(func, *args, **kwargs)


def db_future(func, *args, **kwargs) -> asyncio.Future:
    """`db` started now and awaited later: the future its call settles (the thread runs
    calls in the order they are handed to it)."""
    return asyncio.get_running_loop().run_in_executor(_executor, functools.partial(func, *args, **kwargs))
