"""Plays head-to-head matches: one match from its opening to its end, and a worker
loop that claims queued matches and plays several at once on one asyncio loop.

Every move is committed (arena.matches.services) before the next is asked for, so the
match page replays a running match up to its latest move and a live viewer is sent
each move as it is stored. A failing endpoint fails its match with the reason (no
result is recorded for it) and never the worker.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid

from arena.matches import services
from arena.matches.games import Ending, new_game
from arena.matches.models import Match
from arena.matches.seats import MAX_ATTEMPTS, SeatFailed, seat_for
from arena.live import publish
from arena.play.dbthread import db

logger = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 0.2


async def play_match(match: Match, on_move=None) -> None:
    """Play a claimed match to its end. `on_move(move)` is called after each stored move
    (the live path)."""
    publish.bind_loop(asyncio.get_running_loop())
    game = seats = None
    try:
        game = await asyncio.to_thread(new_game, match.game, match.opening_seed)
        await db(services.match_set_opening, match.pk, game.opening_name, game.opening_moves, game.position_text())
        seats = [seat_for(match.first, f"match-{match.pk}"), seat_for(match.second, f"match-{match.pk}")]
        ending = await _play_moves(match, game, seats, on_move)
        await db(services.match_finish, match.pk, ending)
    except SeatFailed as failure:
        await db(services.match_fail, match.pk, f"a model endpoint failed: {failure}")
    except Exception as exc:  # a bug or a broken engine must not take the worker down
        logger.exception("match %s crashed", match.pk)
        await db(services.match_fail, match.pk, f"internal error while playing: {type(exc).__name__}: {exc}")
    finally:
        for seat in seats or ():
            await seat.aclose()
        if game is not None:
            game.close()


async def _play_moves(match: Match, game, seats, on_move) -> Ending:
    index = 0
    while (ending := game.ending()) is None:
        seat = game.seat_to_move
        answer = await seats[seat].move(game, seat)
        if answer.action is not None:
            game.play(answer.action)
        move = await db(services.match_record_move, match.pk, index, seat, answer, game.position_text())
        if on_move is not None:
            on_move(move)
        index += 1
        if answer.action is None:
            loser = game.seat_names[seat]
            return Ending(0.0 if seat == 0 else 1.0, f"{loser} forfeits: {MAX_ATTEMPTS} illegal answers to one move")
    return ending


class MatchWorker:
    """Claims queued matches and plays up to `concurrency` of them at once."""

    def __init__(self, concurrency: int = 4, name: str | None = None, on_move=None):
        self.concurrency = concurrency
        self.name = name or f"matches-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.on_move = on_move
        self.in_flight: set[asyncio.Task] = set()
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def serve(self, *, until_idle: bool = False) -> int:
        """Play matches until stopped (or, with until_idle, until none is queued and none
        is in play). How many were played."""
        played = 0
        while not self._stopping.is_set():
            if len(self.in_flight) >= self.concurrency:
                await asyncio.wait(self.in_flight, return_when=asyncio.FIRST_COMPLETED)
                continue
            match = await db(services.next_queued_match, self.name)
            if match is None:
                if until_idle and not self.in_flight:
                    break
                await asyncio.sleep(IDLE_POLL_SECONDS)
                continue
            task = asyncio.create_task(play_match(match, self.on_move))
            self.in_flight.add(task)
            task.add_done_callback(self.in_flight.discard)
            played += 1
        if self.in_flight:
            await asyncio.gather(*self.in_flight, return_exceptions=True)
        return played
