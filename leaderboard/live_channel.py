"""What every live channel does, whatever it streams (an episode's steps, a match's moves):
join the object's group *before* reading what is stored, so nothing committed in between
is missed; send what is stored; then read again on each announcement, and only after
ARENA_LIVE_POLL_SECONDS without one (a lost announcement) on its own. A subclass says how
to find its object and group, and what a catch-up read sends (docs/design.md §3)."""

from __future__ import annotations

import abc
import asyncio
import random

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from arena.live import publish


class CatchUpChannel(AsyncJsonWebsocketConsumer, abc.ABC):
    #: The URL route's keyword naming the object ("episode_id", "match_id").
    id_kwarg = ""

    @abc.abstractmethod
    def exists(self, object_id: int) -> bool:
        ...

    @abc.abstractmethod
    def group_for(self, object_id: int) -> str:
        ...

    @abc.abstractmethod
    async def catch_up(self) -> None:
        """Send what is stored after the last thing sent; end the channel once the object
        has ended. Callers do not hold `self.lock`: it is taken inside."""
        ...

    async def connect(self):
        self.object_id = int(self.scope["url_route"]["kwargs"][self.id_kwarg])
        self.last_sent = -1
        self.ended = False
        self.lock = asyncio.Lock()
        self.poller = None
        self.heard_at = 0.0
        if not await sync_to_async(self.exists)(self.object_id):
            await self.close(code=4404)
            return
        publish.listen()
        self.group = self.group_for(self.object_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.catch_up()
        if not self.ended:
            self.poller = asyncio.create_task(self._poll())

    async def disconnect(self, code):
        if self.poller is not None:
            self.poller.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        # The channel is one-way; clients have nothing to say.
        return

    def heard(self) -> None:
        """An announcement came: the poll need not read for another interval."""
        self.heard_at = asyncio.get_running_loop().time()

    async def _poll(self):
        loop = asyncio.get_running_loop()
        while not self.ended:
            interval = settings.ARENA_LIVE_POLL_SECONDS
            # Spread out, so the viewers of one object do not all read at once.
            await asyncio.sleep(interval * random.uniform(0.75, 1.25))
            if loop.time() - self.heard_at >= interval:
                await self.catch_up()
