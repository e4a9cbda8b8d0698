"""The endpoint probe for synchronous code (a form's clean(), a management command):
`probe_endpoint` (arena.probe.run) run to its end on a loop of its own."""

from __future__ import annotations

import asyncio
import concurrent.futures

from arena.probe.result import ProbeResult
from arena.probe.run import probe_endpoint


def probe_endpoint_sync(**options) -> ProbeResult:
    """`probe_endpoint` (the same keyword arguments) for synchronous code, e.g. a form's clean().

    Where no event loop runs in this thread (a WSGI request, a sync view under ASGI,
    which Django runs in a worker thread, a management command) the probe gets a loop
    of its own. Where one does run (sync code called from a coroutine), a second loop
    cannot start in this thread, so the probe runs in a short-lived thread instead; the
    caller blocks either way, as synchronous code does.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(probe_endpoint(**options))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe") as pool:
        return pool.submit(lambda: asyncio.run(probe_endpoint(**options))).result()
