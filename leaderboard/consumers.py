"""The live channel: /ws/episodes/<id>/ (catch-up pattern, DESIGN §3).

On connect the consumer joins the episode's group *before* reading what is stored, so
a step committed in between is announced to it; it then sends every stored step, each
new step as it is committed, and an end-of-episode message. Steps go out as the steps
API lists them (leaderboard.serializers.step_page): long texts cut, read in batches of
bounded size. It remembers the last index
it sent and always reads steps from the database with a greater index, so interleaving
notifications and catch-up reads can neither skip nor repeat a step.

In embedded mode the worker is another process and the in-memory channel layer cannot
reach this one, so the consumer also looks for new steps every ARENA_LIVE_POLL_SECONDS;
with Redis the notifications arrive at once and the poll is only a safety net.
"""

from __future__ import annotations

import asyncio

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from arena.live import episode_group
from arena.models import Episode
from leaderboard.serializers import episode_payload, step_page

BATCH = 200


class EpisodeConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.episode_id = int(self.scope["url_route"]["kwargs"]["episode_id"])
        self.last_sent = -1
        self.ended = False
        self.lock = asyncio.Lock()
        self.poller = None
        if not await sync_to_async(Episode.objects.filter(pk=self.episode_id).exists)():
            await self.close(code=4404)
            return
        self.group = episode_group(self.episode_id)
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

    async def step_committed(self, event):
        await self.catch_up()

    async def episode_ended(self, event):
        await self.catch_up()

    async def _poll(self):
        while not self.ended:
            await asyncio.sleep(settings.ARENA_LIVE_POLL_SECONDS)
            await self.catch_up()

    async def catch_up(self):
        async with self.lock:
            if self.ended:
                return
            while True:
                status, page = await sync_to_async(_status_and_steps)(self.episode_id, self.last_sent)
                for step in page.results:
                    await self.send_json({"type": "step", "step": step})
                    self.last_sent = step["index"]
                if not page.more:
                    break
            if status in Episode.TERMINAL:
                # The status is read before the steps, so every step is already sent.
                payload = await sync_to_async(episode_payload)(self.episode_id)
                await self.send_json({"type": "end", "episode": payload})
                self.ended = True
                await self.close()


def _status_and_steps(episode_id: int, after_index: int):
    status = Episode.objects.values_list("status", flat=True).get(pk=episode_id)
    return status, step_page(episode_id, after_index, max_steps=BATCH)
