"""Slot affinity: on a local server an episode leases one slot of the endpoint's gate
for its whole life, so its calls are not interleaved with other episodes' and the
server's per-slot prompt cache survives (bench/slot_affinity.py measures it on a real
server)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from arena.clients.limits import EndpointGate


@dataclasses.dataclass
class Reply:
    latency_ms: float = 1.0


class Client:
    def set_timeout(self, seconds):
        pass


@pytest.mark.asyncio
async def test_holders_take_turns_whole_and_get_numbered_slots():
    gate = EndpointGate(2)
    order: list[tuple[str, int | None]] = []

    async def episode(name: str, calls: int):
        for _ in range(calls):
            async def send():
                order.append((name, gate.slot_of(name)))
                await asyncio.sleep(0.001)
                return Reply()
            await gate.call(Client(), send, 10.0, holder=name)
            await asyncio.sleep(0)  # the environment's step, during which others may run
        gate.release(name)

    await asyncio.gather(*(episode(name, 3) for name in ("a", "b", "c", "d")))
    # Two slots: a and b play first, each on its own slot; c and d start only when one
    # of them has finished, and take the slot it gave back.
    assert {slot for name, slot in order if name == "a"} == {0}
    assert {slot for name, slot in order if name == "b"} == {1}
    first_c = next(i for i, (name, _) in enumerate(order) if name == "c")
    assert first_c >= 5 and order[first_c][1] in (0, 1)
    assert sorted(name for name, _ in order) == sorted("aaabbbcccddd")
    # With one slot, four episodes never interleave.
    gate, order = EndpointGate(1), []
    await asyncio.gather(*(episode(name, 3) for name in ("a", "b", "c", "d")))
    names = [name for name, _ in order]
    assert all(len(set(names[i:i + 3])) == 1 for i in range(0, 12, 3)) and len(set(names)) == 4
    assert all(slot == 0 for _, slot in order)
    assert gate.waiting == 0 and gate.slot_of("a") is None


@pytest.mark.asyncio
async def test_a_released_holder_that_never_called_changes_nothing():
    gate = EndpointGate(1)
    gate.release("never-called")
    assert await gate.lease("x") == 0
    gate.release("x")
    assert await gate.lease("y") == 0
