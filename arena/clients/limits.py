"""How hard a worker may press one endpoint, and how long it waits for it.

A local model server often has one slot (or a few): thirty-two episodes calling it at
once queue inside the server, and the last in line times out although the server is
healthy. So every endpoint gets, per worker process and per tenant (arena.endpoints.tenancy: one
owner's submissions to one URL), a limit on calls in flight (the
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
says which slot, which llama.cpp's server is told (`id_slot`), so each episode's prefix
stays cached in its own slot; the episodes beyond the limit wait their turn in the
worker, as calls beyond it always did. Slot numbers belong to the server, not to a
gate: two tenants of one server (two accounts, each with its own gate) take their
numbers from one `ServerSlots`, so that no two holders in this worker are given the
same slot and evict each other's cache (each gate numbering from 0 sent the first
episode of each account to slot 0). A holder whose number is past the server's slots
is not pinned: the server chooses (arena.play.agents).

Pace by the server. The submission's figure is a cap, not a fixed pace: the in-flight
limit follows the endpoint (additive increase, multiplicative decrease, as TCP does):

* every attempt that answers 2xx counts; after `limit` of them in a row the limit grows
  by one, up to the cap;
* an attempt answered 429 (or 529, Anthropic's "overloaded", or 503) or timed out
  halves the limit (at least 1), at most once per `DECREASE_INTERVAL_SECONDS` so that
  one burst of failures counts once;
* ``Retry-After`` on such an answer, and rate-limit headers saying nothing is left
  (``x-ratelimit-remaining-requests`` / ``-tokens`` of OpenAI and the servers copying
  it, ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining``)
  pause every new call through the gate until the reset they give;
* the last figures the server sent are kept for the submission page
  (`EndpointGate.pace`), which `on_change` receives when they change.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import re
import statistics
import time
import weakref
from collections.abc import Callable, Mapping
from datetime import datetime

from arena.clients.base import parse_retry_after

MAX_TIMEOUT_SECONDS = 1800.0
RECENT_CALLS = 50  # latencies kept per endpoint
DECREASE_INTERVAL_SECONDS = 1.0
# Statuses that say "too much, slow down".
BACK_OFF_STATUSES = frozenset({429, 503, 529})
# How often `on_change` hears of new header figures when nothing else changed.
PUBLISH_INTERVAL_SECONDS = 5.0
# The longest pause a header may impose (a reset an hour away is a daily quota: the
# retries' own backoff and the episode's failure say more than a silent wait).
MAX_PAUSE_SECONDS = 300.0

# (remaining, what it counts, reset, limit) headers: OpenAI's (and the servers copying
# it) for requests and tokens, Anthropic's for requests, tokens, input and output tokens.
_REMAINING_HEADERS = tuple(
    (f"x-ratelimit-remaining-{what}", what, f"x-ratelimit-reset-{what}", f"x-ratelimit-limit-{what}")
    for what in ("requests", "tokens")
) + tuple(
    (f"anthropic-ratelimit-{name}-remaining", name.replace("-", " "), f"anthropic-ratelimit-{name}-reset",
     f"anthropic-ratelimit-{name}-limit")
    for name in ("requests", "tokens", "input-tokens", "output-tokens")
)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def reset_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds until a rate-limit reset: OpenAI's durations ("1s", "6m0s", "20ms"),
    plain seconds, or Anthropic's RFC 3339 time. None when unreadable."""
    if not value:
        return None
    value = value.strip()
    parts = _DURATION_PART.findall(value)
    if parts and "".join(number + unit for number, unit in parts) == value:
        return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _count(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class ServerSlots:
    """The slot numbers of one model server in use on one event loop, by holder: the
    lowest number no holder has, whichever tenant's gate it leases through."""

    def __init__(self):
        self._numbers: dict[object, int] = {}

    def take(self, holder: object) -> int:
        taken = set(self._numbers.values())
        number = next(n for n in range(len(taken) + 1) if n not in taken)
        self._numbers[holder] = number
        return number

    def give_back(self, holder: object) -> None:
        self._numbers.pop(holder, None)


class EndpointGate:
    """The in-flight limit and latency record of one endpoint, on one event loop."""

    def __init__(
        self, limit: int, on_change: Callable[[dict], None] | None = None, server_slots: ServerSlots | None = None
    ):
        self.cap = max(1, int(limit))
        self.limit = self.cap
        self.in_flight = 0
        self.waiting = 0
        self.on_change = on_change
        self._latencies: collections.deque[float] = collections.deque(maxlen=RECENT_CALLS)
        self._changed = asyncio.Event()
        self._paused_until = 0.0  # time.monotonic()
        self._successes = 0
        self._last_decrease = float("-inf")
        self._last_published = float("-inf")
        self.backoffs = 0
        self.server_figures: dict[str, dict] = {}
        self.pause_reason = ""
        self._leases: dict[object, int] = {}  # holder -> its slot number
        # Shared with the other tenants' gates of the same server (gate_for).
        self._server_slots = server_slots if server_slots is not None else ServerSlots()
        self._queue: collections.deque[object] = collections.deque()  # callers waiting, first come first

    # --- slots -------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def slot(self):
        await self._acquire()
        try:
            yield
        finally:
            self.in_flight -= 1
            self._changed.set()

    async def _acquire(self) -> None:
        """Wait for room, in the order the callers came: an episode whose call has just
        ended and that asks again without yielding to the loop goes behind those already
        waiting, instead of taking the freed room before they wake (which kept one
        episode on a 1-slot endpoint while the others starved)."""
        ticket = object()
        self._queue.append(ticket)
        self.waiting += 1
        try:
            # One event loop: nothing runs between the check and the increment.
            while True:
                now = time.monotonic()
                if self._queue[0] is ticket and now >= self._paused_until and self.in_flight < self.limit:
                    self._queue.popleft()
                    self.in_flight += 1
                    if self._queue:
                        self._changed.set()  # the next in line may fit too
                    return
                self._changed.clear()
                pause = self._paused_until - now if self._paused_until > now else None
                try:
                    await asyncio.wait_for(self._changed.wait(), pause)
                except TimeoutError:
                    pass
        except BaseException:
            if ticket in self._queue:
                self._queue.remove(ticket)
                self._changed.set()
            raise
        finally:
            self.waiting -= 1

    async def call(self, client, send, base_timeout: float, holder: object = None):
        """`send()` (a coroutine function calling `client`) in a slot of this endpoint,
        with the client's timeout adapted first, every attempt's answer observed, and
        the answer's latency recorded. With a `holder`, in the slot it leases (see the
        module docstring)."""
        if holder is not None:
            await self.lease(holder)
            reply = await self._send(client, send, base_timeout)
        else:
            async with self.slot():
                reply = await self._send(client, send, base_timeout)
        self.record(reply.latency_ms)
        return reply

    async def _send(self, client, send, base_timeout: float):
        client.set_timeout(self.timeout(base_timeout))
        client.observer = self.observe
        return await send()

    async def lease(self, holder: object) -> int:
        """The slot `holder` leases, taken first (waiting for one) if it has none."""
        if holder in self._leases:
            return self._leases[holder]
        await self._acquire()
        number = self._leases[holder] = self._server_slots.take(holder)
        return number

    def set_cap(self, cap: int) -> None:
        """Follow a new cap (gate_for): a limit at the old cap moves to the new one, a
        limit the server made back off stays where it is unless the new cap is lower."""
        cap = max(1, int(cap))
        if cap == self.cap:
            return
        self.limit = cap if self.limit == self.cap else min(self.limit, cap)
        self.cap = cap
        self._changed.set()  # a raised cap lets waiting callers in

    def slot_of(self, holder: object) -> int | None:
        return self._leases.get(holder)

    def release(self, holder: object) -> None:
        """Give back the slot `holder` leases, if it has one."""
        if self._leases.pop(holder, None) is not None:
            self._server_slots.give_back(holder)
            self.in_flight -= 1
            self._changed.set()

    # --- pace by the server ----------------------------------------------------------

    def observe(self, status: int | None, headers: Mapping[str, str] | None, timed_out: bool = False) -> None:
        """What one attempt met: its HTTP status and headers, or a timeout."""
        now = time.monotonic()
        before = (self.limit, self._paused_until)
        if timed_out or status in BACK_OFF_STATUSES:
            self._back_off(now)
            retry_after = parse_retry_after(headers.get("retry-after")) if headers is not None else None
            if retry_after:
                self._pause(now, retry_after, f"the server asked to retry after {retry_after:g} s")
        elif status is not None and 200 <= status < 300:
            self._successes += 1
            if self._successes >= self.limit and self.limit < self.cap:
                self.limit += 1
                self._successes = 0
                self._changed.set()
        if headers is not None:
            self._read_rate_limits(now, headers)
        if (self.limit, self._paused_until) != before or now - self._last_published >= PUBLISH_INTERVAL_SECONDS:
            self._publish(now)

    def _back_off(self, now: float) -> None:
        self._successes = 0
        if now - self._last_decrease < DECREASE_INTERVAL_SECONDS:
            return
        self._last_decrease = now
        self.backoffs += 1
        self.limit = max(1, self.limit // 2)

    def _pause(self, now: float, seconds: float, reason: str) -> None:
        until = now + min(seconds, MAX_PAUSE_SECONDS)
        if until > self._paused_until:
            self._paused_until = until
            self.pause_reason = reason

    def _read_rate_limits(self, now: float, headers: Mapping[str, str]) -> None:
        # Most answers carry none of these headers: look each name up only if the
        # answer has it (a lookup in httpx's headers scans them all).
        present = {str(name).lower() for name in headers.keys()}
        for remaining_header, what, reset_header, limit_header in _REMAINING_HEADERS:
            if remaining_header not in present:
                continue
            remaining = _count(headers.get(remaining_header))
            if remaining is None:
                continue
            reset = reset_seconds(headers.get(reset_header))
            self.server_figures[what] = {
                "remaining": remaining, "limit": _count(headers.get(limit_header)), "reset_seconds": reset,
            }
            if remaining <= 0 and reset:
                self._pause(now, reset, f"the server's {what} allowance is used up until it resets")

    # --- what the submission page shows ------------------------------------------------

    @property
    def paused_for(self) -> float:
        return max(0.0, self._paused_until - time.monotonic())

    def pace(self) -> dict:
        return {
            "limit": self.limit,
            "cap": self.cap,
            "in_flight": self.in_flight,
            "waiting": self.waiting,
            "backoffs": self.backoffs,
            "paused_seconds": round(self.paused_for, 1),
            "pause_reason": self.pause_reason if self.paused_for else "",
            "server": dict(self.server_figures),
            "at": time.time(),
        }

    def _publish(self, now: float) -> None:
        self._last_published = now
        if self.on_change is not None:
            self.on_change(self.pace())

    # --- latency -----------------------------------------------------------------------

    def record(self, latency_ms: float | None) -> None:
        if latency_ms is not None and latency_ms >= 0:
            self._latencies.append(latency_ms / 1000.0)

    def timeout(self, base_seconds: float) -> float:
        if len(self._latencies) < 3:
            return base_seconds
        p90 = statistics.quantiles(self._latencies, n=10)[-1]
        return min(MAX_TIMEOUT_SECONDS, max(base_seconds, 2 * self.cap * p90))


# Gates per event loop (tests and management commands run several loops in one process;
# an asyncio primitive belongs to one loop), then per endpoint key; servers' slot
# numbers per loop, then per server.
_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_servers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def gate_for(
    endpoint: str, limit: int, on_change: Callable[[dict], None] | None = None, server: str | None = None
) -> EndpointGate:
    """The gate of `endpoint` on the running loop. Callers sharing the key share the gate,
    under the limit the latest caller gives (a tenant's new submission with fewer
    concurrent requests, for a server with fewer slots, is not held to the 4 its earlier
    submission gave for as long as the worker runs), so the key names one tenant's use of a URL
    (arena.endpoints.tenancy), never the URL alone: a stranger's limit, 429s and pauses must not
    set another tenant's pace. Gates given the same `server` (arena.endpoints.tenancy.server_key)
    number its slots together (module docstring); without one a gate numbers its own."""
    loop = asyncio.get_running_loop()
    gates = _gates.setdefault(loop, {})
    gate = gates.get(endpoint)
    if gate is None:
        slots = _servers.setdefault(loop, {}).setdefault(server, ServerSlots()) if server is not None else None
        gate = gates[endpoint] = EndpointGate(limit, on_change, slots)
    else:
        gate.set_cap(limit)
    return gate
