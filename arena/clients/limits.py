"""How hard a worker may press one endpoint, and how long it waits for it.

A local model server often has one slot (or a few): thirty-two episodes calling it at
once queue inside the server, and the last in line times out although the server is
healthy. So every endpoint gets, per worker process, a limit on calls in flight (the
submission's "concurrent requests"; episodes beyond it wait in the worker, heartbeat
going, without a clock running against them) and a per-call timeout that adapts to the
latency the endpoint has shown:

    timeout = max(operator's timeout, 2 × in-flight limit × p90 of recent latencies)

capped at `MAX_TIMEOUT_SECONDS`. The factor covers the calls queued ahead inside the
server (at most the in-flight limit) with room to spare; a server that slows down
under load gets more time rather than a retry storm.

Slot affinity. A local server (llama.cpp's, llama-cpp-python's, Ollama, LM Studio)
keeps its prompt cache per slot: episodes taking turns on one slot throw the cache away
at every call, and each prompt is read again from its first token (on a 1-slot server
with 20 episodes queued, 3 of 785 prompt tokens came from the cache). Calls made with a
`holder` (an episode) therefore lease a slot for the holder's whole life: its first call
takes one, its later calls go straight through, `release` gives it back. The lease
says which slot (0..limit-1), which llama.cpp's server is told (`id_slot`), so each
episode's prefix stays cached in its own slot; the episodes beyond the limit wait their
turn in the worker, as calls beyond it always did.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import statistics
import weakref

MAX_TIMEOUT_SECONDS = 1800.0
RECENT_CALLS = 50  # latencies kept per endpoint


class EndpointGate:
    """The in-flight limit and latency record of one endpoint, on one event loop."""

    def __init__(self, limit: int):
        self.limit = max(1, int(limit))
        self._semaphore = asyncio.Semaphore(self.limit)
        self._latencies: collections.deque[float] = collections.deque(maxlen=RECENT_CALLS)
        self.waiting = 0
        self._leases: dict[object, int] = {}  # holder -> its slot number

    @contextlib.asynccontextmanager
    async def slot(self):
        self.waiting += 1
        try:
            await self._semaphore.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self._semaphore.release()

    async def call(self, client, send, base_timeout: float, holder: object = None):
        """`send()` (a coroutine function calling `client`) in a slot of this endpoint,
        with the client's timeout adapted first and the answer's latency recorded. With
        a `holder`, in the slot it leases (see the module docstring)."""
        if holder is not None:
            await self.lease(holder)
            client.set_timeout(self.timeout(base_timeout))
            reply = await send()
        else:
            async with self.slot():
                client.set_timeout(self.timeout(base_timeout))
                reply = await send()
        self.record(reply.latency_ms)
        return reply

    async def lease(self, holder: object) -> int:
        """The slot `holder` leases, taken first (waiting for one) if it has none."""
        if holder in self._leases:
            return self._leases[holder]
        self.waiting += 1
        try:
            await self._semaphore.acquire()
        finally:
            self.waiting -= 1
        taken = set(self._leases.values())
        number = next(n for n in range(self.limit) if n not in taken)
        self._leases[holder] = number
        return number

    def slot_of(self, holder: object) -> int | None:
        return self._leases.get(holder)

    def release(self, holder: object) -> None:
        """Give back the slot `holder` leases, if it has one."""
        if self._leases.pop(holder, None) is not None:
            self._semaphore.release()

    def record(self, latency_ms: float | None) -> None:
        if latency_ms is not None and latency_ms >= 0:
            self._latencies.append(latency_ms / 1000.0)

    def timeout(self, base_seconds: float) -> float:
        if len(self._latencies) < 3:
            return base_seconds
        p90 = statistics.quantiles(self._latencies, n=10)[-1]
        return min(MAX_TIMEOUT_SECONDS, max(base_seconds, 2 * self.limit * p90))


# Gates per event loop (tests and management commands run several loops in one process;
# an asyncio primitive belongs to one loop), then per endpoint key.
_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def gate_for(endpoint: str, limit: int) -> EndpointGate:
    """The gate of `endpoint` (its base URL) on the running loop. Submissions sharing an
    endpoint share its gate: the first one's limit applies."""
    loop = asyncio.get_running_loop()
    gates = _gates.setdefault(loop, {})
    gate = gates.get(endpoint)
    if gate is None:
        gate = gates[endpoint] = EndpointGate(limit)
    return gate
