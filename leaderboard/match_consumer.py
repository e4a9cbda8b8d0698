"""The live channel of a head-to-head match: /ws/matches/<id>/.

As the episode channel does (leaderboard.consumers), it joins the match's group before
reading what is stored, sends every stored move, then each new one as it is announced
(arena.live.publish.publish_match_move), and an end message once the match has ended.
Every announcement makes it read the moves after the last one it sent, so moves are
neither missed nor sent twice; a slow poll covers a lost announcement.

Messages: {"type": "match", "match": …} once the match has started (its opening is
known by its first move), {"type": "move", "move": …} and {"type": "end", "match": …}, the dicts of
leaderboard.match_payloads (what the match page and its JSON show).
"""

from __future__ import annotations

import asyncio
import random

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from arena.live import publish
from arena.models import Match
from leaderboard.match_payloads import match_payload, moves_after
from leaderboard.selectors.match_replays import match_exists, match_or_404, match_status

BATCH = 200


class MatchConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.last_sent = -1
        self.ended = False
        self.sent_start = False
        self.heard_at = 0.0
        self.lock = asyncio.Lock()
        self.poller = None
        if not await sync_to_async(match_exists)(self.match_id):
            await self.close(code=4404)
            return
        publish.listen()
        self.group = publish.match_group(self.match_id)
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
        return  # one-way

    async def match_move(self, event):
        self.heard_at = asyncio.get_running_loop().time()
        await self.catch_up()

    async def match_ended(self, event):
        self.heard_at = asyncio.get_running_loop().time()
        await self.catch_up()

    async def _poll(self):
        """Read only after ARENA_LIVE_POLL_SECONDS without an announcement (one was lost)."""
        loop = asyncio.get_running_loop()
        while not self.ended:
            interval = settings.ARENA_LIVE_POLL_SECONDS
            await asyncio.sleep(interval * random.uniform(0.75, 1.25))  # viewers spread out
            if loop.time() - self.heard_at >= interval:
                await self.catch_up()

    async def catch_up(self):
        async with self.lock:
            if self.ended:
                return
            while True:
                status, moves = await sync_to_async(_status_and_moves)(self.match_id, self.last_sent)
                if moves and not self.sent_start:
                    # The opening is stored before the first move: the viewer gets it now.
                    self.sent_start = True
                    await self.send_json({"type": "match", "match": await sync_to_async(_match_payload)(self.match_id)})
                for move in moves:
                    await self.send_json({"type": "move", "move": move})
                    self.last_sent = move["index"]
                if len(moves) < BATCH:
                    break
            if status in Match.TERMINAL:
                # The status was read before the moves, so every move is already sent.
                payload = await sync_to_async(_match_payload)(self.match_id)
                await self.send_json({"type": "end", "match": payload})
                self.ended = True
                await self.close()


def _status_and_moves(match_id: int, after_index: int):
    status = match_status(match_id)
    return status, moves_after(match_id, after_index, limit=BATCH)


def _match_payload(match_id: int) -> dict:
    return match_payload(match_or_404(match_id))
