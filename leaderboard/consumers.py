"""The live channel: /ws/episodes/<id>/ (catch-up pattern, docs/design.md §3).

On connect the consumer joins the episode's group *before* reading what is stored, so
a step committed in between is announced to it; it then sends every stored step, each
new step as it is committed, and an end-of-episode message. Steps go out as the steps
API lists them (leaderboard.serializers.step_page): long texts cut, read in batches of
bounded size. It remembers the last index it sent.

A step's announcement usually carries the step itself, rendered once by the publisher
(arena.live.frame: the same preview this consumer sends after a read); when it is the
very next index the consumer sends it on without touching the database. Otherwise — a
gap, an announcement without the step, the end — it reads the steps after the last one
it sent, so interleaving announcements and catch-up reads can neither skip nor repeat a
step.

Announcements reach every web process in both modes (through Redis, or through the
embedded mode's signal, arena.live.signal); a slow poll is only a safety net for one
that was lost. It reads the database only after ARENA_LIVE_POLL_SECONDS without any
announcement: while steps flow, a lost one shows as a gap in the next. A web process
runs all its consumers' reads on one thread, so a hundred viewers polling in step
would hold up each other's live steps for as long as their reads take together.
"""

from __future__ import annotations

from arena.live import publish
from arena.models import Episode
from leaderboard.selectors.episodes import episode_exists, episode_status
from leaderboard.live_channel import CatchUpChannel, StoredAfter
from leaderboard.serializers import episode_payload, step_page

BATCH = 200


class EpisodeConsumer(CatchUpChannel):
    id_kwarg = "episode_id"
    item_type = "step"

    def exists(self, object_id: int) -> bool:
        return episode_exists(object_id)

    def group_for(self, object_id: int) -> str:
        return publish.episode_group(object_id)

    async def dispatch(self, message):
        # Channels closes stale database connections, on the process's one database
        # thread, before handling any message. A step that travels with its
        # announcement needs no database; for a hundred viewers that hop per message
        # cost more than sending the step and made the viewers wait on each other.
        if message["type"] == "step.committed" and "frame" in message:
            await self.step_committed(message)
        else:
            await super().dispatch(message)

    async def step_committed(self, event):
        self.heard()
        index = event["index"]
        async with self.lock:
            if self.ended or index <= self.last_sent:
                return  # already sent
            frame = event.get("frame")
            if frame is not None and index == self.last_sent + 1:
                await self.send(text_data=frame)
                self.last_sent = index
                return
        await self.catch_up()

    async def episode_ended(self, event):
        self.heard()
        await self.catch_up()

    def stored_after(self, object_id: int, last_sent: int) -> StoredAfter:
        ended = episode_status(object_id) in Episode.TERMINAL
        page = step_page(object_id, last_sent, max_steps=BATCH)
        return StoredAfter(ended, page.results, page.more)

    def end_message(self, object_id: int) -> dict:
        return {"type": "end", "episode": episode_payload(object_id)}
