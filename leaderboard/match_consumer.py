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

from asgiref.sync import sync_to_async

from arena.live import publish
from arena.models import Match
from leaderboard.live_channel import CatchUpChannel, StoredAfter
from leaderboard.match_payloads import match_payload, moves_after
from leaderboard.selectors.match_replays import match_exists, match_or_404, match_status

BATCH = 200


class MatchConsumer(CatchUpChannel):
    id_kwarg = "match_id"
    item_type = "move"
    sent_start = False

    def exists(self, object_id: int) -> bool:
        return match_exists(object_id)

    def group_for(self, object_id: int) -> str:
        return publish.match_group(object_id)

    async def match_move(self, event):
        self.heard()
        await self.catch_up()

    async def match_ended(self, event):
        self.heard()
        await self.catch_up()

    async def before_items(self, items: list[dict]) -> None:
        if items and not self.sent_start:
            # The opening is stored before the first move: the viewer gets it now.
            self.sent_start = True
            await self.send_json({"type": "match", "match": await sync_to_async(_match_payload)(self.object_id)})

    def stored_after(self, object_id: int, last_sent: int) -> StoredAfter:
        ended = match_status(object_id) in Match.TERMINAL
        moves = moves_after(object_id, last_sent, limit=BATCH)
        return StoredAfter(ended, moves, len(moves) == BATCH)

    def end_message(self, object_id: int) -> dict:
        return {"type": "end", "match": _match_payload(object_id)}


def _match_payload(match_id: int) -> dict:
    return match_payload(match_or_404(match_id))
