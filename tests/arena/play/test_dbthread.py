"""The worker's database thread: calls in the order they are handed over, a claim
(`db_first`) ahead of every call still waiting, and a failing call failing only itself."""

import asyncio
import threading

import pytest

from arena.play.dbthread import db, db_first, db_future


@pytest.mark.asyncio
async def test_a_call_handed_over_first_runs_before_every_call_still_waiting():
    ran: list[str] = []
    release = threading.Event()
    busy = db_future(lambda: (release.wait(10), ran.append("running"))[1])
    await asyncio.sleep(0.05)  # the thread is inside the first call
    waiting = [db_future(ran.append, name) for name in ("batch 1", "finish", "batch 2")]
    claim = asyncio.ensure_future(db_first(ran.append, "claim"))
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(busy, claim, *waiting)
    assert ran == ["running", "claim", "batch 1", "finish", "batch 2"]


@pytest.mark.asyncio
async def test_a_failing_call_fails_only_its_own_caller():
    def refuse():
        raise ValueError("refused")

    failing = db_future(refuse)
    after = db_future(lambda: "stored")
    with pytest.raises(ValueError, match="refused"):
        await failing
    assert await after == "stored"
    assert await db(lambda: threading.current_thread().name) == await db_first(lambda: threading.current_thread().name)
