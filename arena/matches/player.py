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
import time
import uuid

from django.conf import settings

from arena.matches import continuous, services
from arena.matches.games import Ending, new_game
from arena.matches.models import Match
from arena.matches.seats import MAX_ATTEMPTS, SeatFailed, seat_for
from arena.live import publish
from arena.play.dbthread import db

logger = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 0.2
HEARTBEAT_SECONDS = 10.0


async def play_match(match: Match, worker: str, on_move=None) -> None:
    """Play a claimed match to its end. A match given back by a silent worker resumes:
    its stored moves are played again on a fresh game (the rules are deterministic, so
    the position is the one left), and play goes on after them. `on_move(move)` is
    called after each stored move."""
    publish.bind_loop(asyncio.get_running_loop())
    game = seats = None
    try:
        game = await asyncio.to_thread(new_game, match.game, match.opening_seed)
        await db(services.match_set_opening, match.pk, worker, game.opening_name, game.opening_moves, game.position_text())
        stored = await db(services.stored_moves, match.pk)
        ending = _replay(game, stored)
        if ending is None:
            seats = [seat_for(match.first, f"match-{match.pk}"), seat_for(match.second, f"match-{match.pk}")]
            ending = await _play_moves(match, worker, game, seats, len(stored), on_move)
        await db(services.match_finish, match.pk, worker, ending)
    except services.MatchLeaseLost:
        logger.warning("match %s was given to another worker; %s stops playing it", match.pk, worker)
    except SeatFailed as failure:
        await db(
            services.match_fail, match.pk, worker, f"a model endpoint failed: {failure}", failure.kind, failure.seat
        )
    except Exception as exc:  # a bug or a broken engine must not take the worker down
        logger.exception("match %s crashed", match.pk)
        await db(services.match_fail, match.pk, worker, f"internal error while playing: {type(exc).__name__}: {exc}")
    finally:
        for seat in seats or ():
            await seat.aclose()
        if game is not None:
            game.close()


def _forfeit(game, seat: int) -> Ending:
    return Ending(0.0 if seat == 0 else 1.0, f"{game.seat_names[seat]} forfeits: {MAX_ATTEMPTS} illegal answers to one move")


def _replay(game, stored) -> Ending | None:
    """Play the stored moves again; the ending if they had ended the game."""
    for move in stored:
        if not move.action:
            return _forfeit(game, move.seat)
        game.play(move.action)
    return game.ending()


async def _play_moves(match: Match, worker: str, game, seats, index: int, on_move) -> Ending:
    while (ending := game.ending()) is None:
        seat = game.seat_to_move
        answer = await seats[seat].move(game, seat)
        if answer.action is not None:
            game.play(answer.action)
        move = await db(services.match_record_move, match.pk, worker, index, seat, answer, game.position_text())
        if on_move is not None:
            on_move(move)
        index += 1
        if answer.action is None:
            return _forfeit(game, seat)
    return ending


class MatchWorker:
    """Claims queued matches and plays up to `concurrency` of them at once.

    With `schedule_seconds` it also queues the next matches itself that often
    (arena.matches.continuous), so head-to-head play needs no operator. Matches between
    two baselines are taken only while `baselines_may_play()` says so: the episode
    worker beside it says no while a user's episode is queued or playing, so the
    baselines' engines never take the cores from a user's episode."""

    def __init__(self, concurrency: int = 4, name: str | None = None, on_move=None, *,
                 schedule_seconds: float = 0.0, baselines_may_play=None):
        self.concurrency = concurrency
        self.name = name or f"matches-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.on_move = on_move
        self.schedule_seconds = schedule_seconds
        self.baselines_may_play = baselines_may_play or (lambda: True)
        self.in_flight: dict[int, asyncio.Task] = {}
        self._stopping = asyncio.Event()
        self._next_schedule = 0.0

    def stop(self) -> None:
        """Take no more matches; those in play go back to the queue at once and resume
        after their stored moves (a chess game between slow models can take hours)."""
        self._stopping.set()

    async def serve(self, *, until_idle: bool = False) -> int:
        """Play matches until stopped (or, with until_idle, until none is queued and none
        is in play). How many were played."""
        await db(services.release_stale_matches, settings.ARENA_HEARTBEAT_STALE_SECONDS)
        housekeeping = asyncio.create_task(self._housekeeping())
        try:
            played = await self._claim_and_play(until_idle)
        finally:
            housekeeping.cancel()
        return played

    async def _housekeeping(self) -> None:
        """Beat the in-flight matches' hearts (a model may think for minutes) and give
        back the matches of workers that fell silent."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await db(services.matches_heartbeat, self.name, list(self.in_flight))
                await db(services.release_stale_matches, settings.ARENA_HEARTBEAT_STALE_SECONDS)
            except Exception:
                logger.exception("match worker housekeeping failed; will retry")

    async def _schedule_if_due(self) -> None:
        if not self.schedule_seconds or time.monotonic() < self._next_schedule:
            return
        self._next_schedule = time.monotonic() + self.schedule_seconds
        try:
            await db(continuous.schedule_due)
        except Exception:  # a scheduling bug must not stop the matches in play
            logger.exception("scheduling head-to-head matches failed; will retry")

    async def _wait_for_an_end_or_the_stop(self, timeout: float | None) -> None:
        """Until a match in play ends, the worker is told to stop, or `timeout` passes: a
        stop waited for the next schedule (5 s by default), or for a match to end."""
        stopping = asyncio.create_task(self._stopping.wait())
        try:
            await asyncio.wait([*self.in_flight.values(), stopping], timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()

    async def _claim_and_play(self, until_idle: bool) -> int:
        played = 0
        while not self._stopping.is_set():
            await self._schedule_if_due()
            if len(self.in_flight) >= self.concurrency:
                await self._wait_for_an_end_or_the_stop(self.schedule_seconds or None)
                continue
            match = await db(services.next_queued_match, self.name, self.baselines_may_play())
            if match is None:
                if until_idle and not self.in_flight:
                    break
                await asyncio.sleep(IDLE_POLL_SECONDS)
                continue
            if match.pk in self.in_flight:
                # Cancelled by a takedown while this worker's task for it waited on a model,
                # then queued again by a restore (arena.services.takedowns): that task holds
                # it again and plays on from the same position; a second one would store
                # every move twice.
                continue
            task = asyncio.create_task(play_match(match, self.name, self.on_move))
            self.in_flight[match.pk] = task
            task.add_done_callback(lambda _task, pk=match.pk: self.in_flight.pop(pk, None))
            played += 1
        if self.in_flight:
            if self._stopping.is_set():
                in_play = list(self.in_flight)
                for task in self.in_flight.values():
                    task.cancel()
                await asyncio.gather(*self.in_flight.values(), return_exceptions=True)
                await db(services.release_matches, self.name, in_play)
            else:
                await asyncio.gather(*self.in_flight.values(), return_exceptions=True)
        return played
