"""The endpoint probe for synchronous code (a form's clean(), a management command):
`probe_endpoint` (arena.probe.run) run to its end on a loop of its own."""

from __future__ import annotations

import asyncio
import concurrent.futures

from arena.clients.urlguard import GuardedTransport
from arena.probe.result import ProbeResult
from arena.probe.run import probe_endpoint


def probe_endpoint_sync(
    *,
    provider: str,
    base_url: str,
    api_key: str,
    model: str,
    stated_context_window: int | None = None,
    allow_loopback: bool = False,
    timeout_seconds: float = 10.0,
    transport: GuardedTransport | None = None,
    endpoint_busy: bool = False,
) -> ProbeResult:
    """`probe_endpoint` for synchronous code, e.g. a form's clean().

    Where no event loop runs in this thread (a WSGI request, a sync view under ASGI,
    which Django runs in a worker thread, a management command) the probe gets a loop
    of its own. Where one does run (sync code called from a coroutine), a second loop
    cannot start in this thread, so the probe runs in a short-lived thread instead; the
    caller blocks either way, as synchronous code does.
    """
    options = dict(
        provider=provider,
        base_url=base_url,
        api_key=api_key,
        model=model,
        stated_context_window=stated_context_window,
        allow_loopback=allow_loopback,
        timeout_seconds=timeout_seconds,
        transport=transport,
        endpoint_busy=endpoint_busy,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(probe_endpoint(**options))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe") as pool:
        return pool.submit(lambda: asyncio.run(probe_endpoint(**options))).result()
