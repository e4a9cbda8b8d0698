"""What every live channel does, whatever it streams (an episode's steps, a match's moves):
join the object's group *before* reading what is stored, so nothing committed in between
is missed; send what is stored; then read again on each announcement, and only after
ARENA_LIVE_POLL_SECONDS without one (a lost announcement) on its own. A subclass says how
to find its object and group, how to read the items stored after the last one sent, and
what its end message holds (docs/design.md §3)."""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import random

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from arena.live import publish


@dataclasses.dataclass
class StoredAfter:
    """One catch-up read: the object's status, read *before* the items, so an ended
    object's items are all in this read or an earlier one; and the items stored after
    the last one sent (each a dict with its "index"), at most a batch of them."""

    ended: bool
    items: list[dict]
    more: bool


class CatchUpChannel(AsyncJsonWebsocketConsumer, abc.ABC):
    #: The URL route's keyword naming the object ("episode_id", "match_id").
    id_kwarg = ""
    #: The message type each stored item goes out as ("step", "move").
    item_type = ""

    @abc.abstractmethod
    def exists(self, object_id: int) -> bool:
        ...

    @abc.abstractmethod
    def group_for(self, object_id: int) -> str:
        ...

    @abc.abstractmethod
    def stored_after(self, object_id: int, last_sent: int) -> StoredAfter:
        """Read (on the database thread) what is stored after item `last_sent`."""
        ...

    @abc.abstractmethod
    def end_message(self, object_id: int) -> dict:
        """Read (on the database thread) the message that closes the channel."""
        ...

    async def before_items(self, items: list[dict]) -> None:
        """Called before a read's items are sent; a channel may send something first."""

    async def catch_up(self) -> None:
        """Send what is stored after the last thing sent; end the channel once the object
        has ended. Callers do not hold `self.lock`: it is taken inside."""
        async with self.lock:
            if self.ended:
                return
            while True:
                read = await sync_to_async(self.stored_after)(self.object_id, self.last_sent)
                await self.before_items(read.items)
                for item in read.items:
                    await self.send_json({"type": self.item_type, self.item_type: item})
                    self.last_sent = item["index"]
                if not read.more:
                    break
            if read.ended:
                await self.send_json(await sync_to_async(self.end_message)(self.object_id))
                self.ended = True
                await self.close()

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
