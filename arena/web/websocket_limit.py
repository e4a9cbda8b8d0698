"""At most ARENA_WEBSOCKETS_PER_ADDRESS websockets open at once per client address,
across every web process: an ASGI middleware in front of the live channels.

Each open websocket holds one of the address's numbered slots, a key of the shared cache
taken with `cache.add` (atomic: of two handshakes racing for a slot, one gets it). The
slot expires SLOT_SECONDS after its last renewal, and is renewed while the socket is
open, so the slots of a web process that died free themselves within that time. A
handshake that finds every slot taken is refused (HTTP 403) before any consumer runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache

from arena.web.throttles import scope_address

SLOT_SECONDS = 60
RENEW_EVERY_SECONDS = SLOT_SECONDS / 3


def take_slot(address: str) -> str | None:
    """The key of a free slot, now held, or None when the address holds every slot."""
    digest = hashlib.sha256(address.encode()).hexdigest()
    for number in range(settings.ARENA_WEBSOCKETS_PER_ADDRESS):
        key = f"websocket-slot:{digest}:{number}"
        if cache.add(key, 1, timeout=SLOT_SECONDS):
            return key
    return None


class OpenSocketLimit:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        slot = await sync_to_async(take_slot)(scope_address(scope))
        if slot is None:
            await receive()  # the handshake's websocket.connect
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return None
        renewing = asyncio.create_task(self._renew(slot))
        try:
            return await self.app(scope, receive, send)
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            await sync_to_async(cache.delete)(slot)

    @staticmethod
    async def _renew(slot: str) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY_SECONDS)
            await sync_to_async(cache.touch)(slot, SLOT_SECONDS)
