"""Where a Worker's CPU goes, per step: the event loop's thread, the database thread and
the others (asyncio's default executor, where blocking tasks step), and within them the
task's step, the replay's world picture, the step writer's transactions, the claim and
load, and the finish of each episode. Each is timed by its own thread's CPU clock
(`time.thread_time`) around the call, in the same run of `full_runner` whose figures
bench/balrog_throughput.py prints with `--split`.
"""

from __future__ import annotations

import collections
import functools
import time
from contextlib import contextmanager


@contextmanager
def _timed(owner, name: str, label: str, spent: collections.Counter):
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - started

    setattr(owner, name, timed)
    try:
        yield
    finally:
        setattr(owner, name, function)


def cpu_split(task_id: str, episodes: int, options: dict, in_flight: int, full_runner,
              first_seed: int = 0) -> tuple[int, dict]:
    """Steps played and CPU milliseconds per step by part (see the module's docstring),
    on seeds from `first_seed` (seeds not played before in the process: new pictures)."""
    from contextlib import ExitStack

    from arena.play import dbthread, loading, runner, starts, step_records
    from arena.services import steps
    from envs.registry import get_task_class

    spent: collections.Counter = collections.Counter()
    task_class = get_task_class(task_id)
    parts = (
        (task_class, "step", "task step (the raw loop's work)"),
        (step_records.ViewerFrames, "at", "world picture (draw, encode, file)"),
        (task_class, "viewer_png", "  of which drawn and encoded"),
        (step_records, "write_png_bytes", "  of which the file (hash, write)"),
        (steps, "steps_record", "step writer's transactions"),
        (loading, "claim_and_load", "claim and load (per episode)"),
        (runner, "episode_finish", "finish and aggregates (per episode)"),
    )
    with ExitStack() as stack:
        for owner, name, label in parts:
            stack.enter_context(_timed(owner, name, label, spent))
        db_started = dbthread._executor.submit(time.thread_time).result()
        loop_started, process_started, built_started = time.thread_time(), time.process_time(), starts.cpu_seconds()
        played, *_ = full_runner(task_id, episodes, options, in_flight, first_seed=first_seed)
        loop = time.thread_time() - loop_started
        process = time.process_time() - process_started
        built = starts.cpu_seconds() - built_started
        database = dbthread._executor.submit(time.thread_time).result() - db_started
    split = {
        "process": process, "event loop thread": loop, "database thread": database,
        "other threads": process - loop - database, "start processes (beside the process)": built, **spent,
    }
    return played, {label: 1000 * seconds / played for label, seconds in split.items()}
