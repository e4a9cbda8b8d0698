"""The step writer lets a runner's overlapped writes (the step is needed again only
after the episode's next model call) wait a little for other episodes' steps, so that
they share a transaction; a write awaited at once, a runner that hurries, or a full
batch commits without waiting."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import pytest

from arena.play import stepwriter
from arena.play.stepwriter import MAX_BATCH, StepWriter


@pytest.fixture
def batches(monkeypatch):
    committed: list[list[int]] = []

    def steps_record(batch):
        committed.append([episode_id for episode_id, _, _ in batch])
        return [True] * len(batch)

    monkeypatch.setattr(stepwriter.step_writes, "steps_record", steps_record)
    return committed


@pytest.mark.asyncio
async def test_overlapped_writes_arriving_apart_share_one_transaction(batches):
    writer = StepWriter(gather_seconds=0.5)
    started = time.perf_counter()
    pending = []
    for episode_id in range(5):
        pending.append(asyncio.ensure_future(writer.write(episode_id, "w", None, may_wait=True)))
        await asyncio.sleep(0.01)  # replies come one at a time
    await asyncio.gather(*pending)
    assert batches == [[0, 1, 2, 3, 4]]
    assert time.perf_counter() - started >= 0.5


@contextlib.contextmanager
def _clock_stopped(loop: asyncio.AbstractEventLoop):
    """The loop's clock standing still: its timers never come due, while what other
    threads hand it (the database thread's results) still arrives."""
    now = loop.time()
    loop.time = lambda: now
    try:
        yield
    finally:
        del loop.time  # the class's clock again


# Real seconds after which a write still not committed is hurried, so that a writer that
# waits for company fails the test below rather than hang it.
RESCUE_SECONDS = 20


@pytest.mark.asyncio
async def test_without_gathering_each_write_arriving_apart_is_a_transaction(batches):
    loop = asyncio.get_running_loop()
    writer = StepWriter(gather_seconds=0)
    rescued = []

    def rescue(episode_id):
        rescued.append(episode_id)
        writer.hurry()

    # With the clock stopped, a writer that waited for company, however briefly, would
    # hold a lone write until something hurried it: only the rescue would.
    with _clock_stopped(loop):
        for episode_id in range(3):
            committed = writer.submit(episode_id, "w", None, may_wait=True)
            watchdog = threading.Timer(RESCUE_SECONDS, loop.call_soon_threadsafe, (rescue, episode_id))
            watchdog.start()
            try:
                # Apart: the next write comes once this one is committed, however slow
                # the machine (10 ms apart, a loaded one once committed two together).
                await committed
            finally:
                watchdog.cancel()
            if rescued:
                break
    assert rescued == []
    assert batches == [[0], [1], [2]]


@pytest.mark.asyncio
async def test_a_write_awaited_at_once_and_a_hurry_commit_without_waiting(batches):
    writer = StepWriter(gather_seconds=30)
    await asyncio.wait_for(writer.write(1, "w", None), 5)  # may_wait=False: as before
    overlapped = asyncio.ensure_future(writer.write(2, "w", None, may_wait=True))
    await asyncio.sleep(0.05)
    assert not overlapped.done()
    writer.hurry()  # the runner needs its step: what waits goes now
    await asyncio.wait_for(overlapped, 5)
    assert batches == [[1], [2]]


@pytest.mark.asyncio
async def test_a_full_batch_does_not_wait(batches):
    writer = StepWriter(gather_seconds=30)
    pending = [asyncio.ensure_future(writer.write(episode_id, "w", None, may_wait=True))
               for episode_id in range(MAX_BATCH)]
    await asyncio.wait_for(asyncio.gather(*pending), 5)
    assert batches == [list(range(MAX_BATCH))]


@pytest.mark.asyncio
async def test_a_submitted_step_settles_its_future_without_a_task_of_its_own(monkeypatch):
    from arena.services.steps import LeaseLost, StepNotStored

    refused = StepNotStored(3, 0, ValueError("no"))
    monkeypatch.setattr(stepwriter.step_writes, "steps_record", lambda batch: [True, False, refused])
    writer = StepWriter(gather_seconds=0.5)
    writer.submit(0, "w", None)  # starts the writer's own task
    await asyncio.sleep(0.6)
    tasks_before = len(asyncio.all_tasks())
    stored, lost, not_stored = (writer.submit(episode_id, "w", None, may_wait=True) for episode_id in (1, 2, 3))
    # The runner keeps these as its pending writes: no task is made for any of them.
    assert len(asyncio.all_tasks()) == tasks_before
    writer.hurry()
    assert await asyncio.wait_for(stored, 5) is None
    with pytest.raises(LeaseLost):
        await lost
    with pytest.raises(StepNotStored):
        await not_stored
