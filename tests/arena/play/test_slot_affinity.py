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


@pytest.mark.asyncio
async def test_tenants_of_one_server_number_its_slots_together():
    from arena.clients.limits import gate_for
    from arena.endpoints.tenancy import server_key

    server = server_key("http://GPU7.example:8080/v1")
    alice = gate_for("owner-1 http://gpu7.example:8080/v1", 2, server=server)
    stranger = gate_for("owner-2 http://gpu7.example:8080/v1", 2, server=server_key("http://gpu7.example:8080/other/"))
    elsewhere = gate_for("owner-3 http://gpu8.example:8080/v1", 2, server=server_key("http://gpu8.example:8080/v1"))
    assert [await alice.lease("a1"), await stranger.lease("s1"), await alice.lease("a2")] == [0, 1, 2]
    assert await elsewhere.lease("e1") == 0  # another server numbers its own
    alice.release("a1")
    assert await stranger.lease("s2") == 0  # the number given back, to whichever tenant comes
    assert alice.slot_of("a2") == 2 and stranger.slot_of("s1") == 1


def test_a_servers_key_is_its_scheme_host_and_port():
    from arena.endpoints.tenancy import server_key

    assert server_key("http://GPU7.example:8080/v1?key=x") == server_key("http://gpu7.example:8080/") == (
        "http://gpu7.example:8080"
    )
    assert server_key("https://api.openai.com/v1") == "https://api.openai.com:443"
    assert server_key("http://gpu7.example:8081/v1") != server_key("http://gpu7.example:8080/v1")
