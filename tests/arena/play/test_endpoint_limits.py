"""One endpoint is never sent more calls at once than its submission allows, and slow
endpoints get more time instead of timeouts."""

import asyncio

from arena.clients.limits import MAX_TIMEOUT_SECONDS, EndpointGate, gate_for


async def _most_in_flight(gate: EndpointGate, calls: int) -> int:
    """The most of `calls` concurrent 10 ms calls that were inside the gate at once."""
    in_flight, peak = 0, 0

    async def call():
        nonlocal in_flight, peak
        async with gate.slot():
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1

    await asyncio.gather(*(call() for _ in range(calls)))
    return peak


def test_no_more_calls_are_in_flight_than_the_limit():
    async def main():
        gate = gate_for("http://127.0.0.1:8080/v1", 2)
        peak = await _most_in_flight(gate, 10)
        return peak, gate_for("http://127.0.0.1:8080/v1", 64) is gate

    peak, shared = asyncio.run(main())
    assert peak == 2
    assert shared  # a second submission on the same server shares its gate


def test_a_later_submissions_concurrent_requests_apply_to_the_shared_gate():
    """One owner's two submissions to one 1-slot server, the first with the form's 4
    concurrent requests, the second with 1: the second's episodes get 1 call in flight,
    not the first one's 4 for as long as the worker runs; raising it lets more in."""

    async def main():
        url = "http://127.0.0.1:8081/v1"
        first = gate_for(url, 4)
        assert await _most_in_flight(first, 8) == 4
        second = gate_for(url, 1)
        lowered = await _most_in_flight(second, 8)
        raised = await _most_in_flight(gate_for(url, 3), 8)
        return second is first, lowered, raised

    shared, lowered, raised = asyncio.run(main())
    assert shared and lowered == 1 and raised == 3


def test_the_timeout_grows_with_the_latency_the_endpoint_has_shown():
    gate = EndpointGate(limit=4)
    assert gate.timeout(120.0) == 120.0  # no measurements yet: the operator's setting
    for _ in range(10):
        gate.record(30_000.0)  # a one-slot server taking 30 s per call
    assert gate.timeout(120.0) == 240.0  # 2 × 4 in flight × 30 s
    for _ in range(50):
        gate.record(600_000.0)
    assert gate.timeout(120.0) == MAX_TIMEOUT_SECONDS


def test_callers_take_turns_in_the_order_they_came():
    """An episode whose call has ended and that asks again without yielding to the loop
    (nothing else to await between two calls) goes behind the ones already waiting: on
    a 1-slot endpoint the episodes take turns instead of one keeping it."""

    async def main():
        gate = EndpointGate(limit=1)
        order = []

        async def episode(name: str, calls: int):
            for _ in range(calls):
                async with gate.slot():
                    order.append(name)
                    await asyncio.sleep(0.01)
                # straight to the next call, no await in between

        await asyncio.gather(episode("a", 3), episode("b", 3), episode("c", 3))
        return order, gate.in_flight

    order, in_flight = asyncio.run(main())
    assert order == ["a", "b", "c"] * 3
    assert in_flight == 0


def test_a_caller_cancelled_while_waiting_leaves_the_line():
    async def main():
        gate = EndpointGate(limit=1)
        got = []

        async def call(name: str, hold: float):
            async with gate.slot():
                got.append(name)
                await asyncio.sleep(hold)

        first = asyncio.create_task(call("first", 0.05))
        await asyncio.sleep(0)
        cancelled = asyncio.create_task(call("cancelled", 0.0))
        last = asyncio.create_task(call("last", 0.0))
        await asyncio.sleep(0.01)
        cancelled.cancel()
        await asyncio.gather(first, last, return_exceptions=True)
        return got, gate.in_flight

    got, in_flight = asyncio.run(main())
    assert got == ["first", "last"] and in_flight == 0
