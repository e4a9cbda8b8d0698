"""Every write of the head-to-head room: queueing a round, claiming a match, storing
each move, and ending the match. Readers (the match page, ratings) see a match's moves
committed in order and a result only on a finished match."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from arena.live import publish
from arena.matches.games import HARNESS_VERSION, Ending
from arena.matches.models import Match, MatchMove
from arena.matches.seats import MoveAnswer


def queue_pair(game: str, a, b, opening_seed: int, round_number: int) -> list[Match]:
    """Both games of one opening between `a` and `b`: each plays the first seat once."""
    pair_key = f"{game}:{round_number}:{min(a.pk, b.pk)}-{max(a.pk, b.pk)}:{opening_seed}"
    with transaction.atomic():
        return [
            Match.objects.create(
                game=game, first=first, second=second, opening_seed=opening_seed, pair_key=pair_key,
                round=round_number, harness_version=HARNESS_VERSION,
            )
            for first, second in ((a, b), (b, a))
        ]


def match_claim(match_id: int, worker: str) -> bool:
    """Take a queued match for `worker`; False if another worker has it or it ended."""
    taken = Match.objects.filter(pk=match_id, status=Match.QUEUED).update(
        status=Match.RUNNING, worker=worker, started_at=timezone.now()
    )
    return bool(taken)


def next_queued_match(worker: str) -> Match | None:
    """The oldest queued match, claimed for `worker` (None when none is left)."""
    for match_id in Match.objects.filter(status=Match.QUEUED).order_by("created_at", "id").values_list("id", flat=True)[:20]:
        if match_claim(match_id, worker):
            return Match.objects.select_related("first", "second").get(pk=match_id)
    return None


def match_set_opening(match_id: int, name: str, moves: list[str], start_board: str) -> None:
    Match.objects.filter(pk=match_id).update(opening=name[:200], opening_moves=moves, start_board=start_board)


def match_record_move(match_id: int, index: int, seat: int, answer: MoveAnswer, board_after: str) -> MatchMove:
    """Store one move with every attempt at it (a forfeit is stored too, without a move)."""
    last = answer.attempts[-1] if answer.attempts else None
    with transaction.atomic():
        move = MatchMove.objects.create(
            match_id=match_id,
            index=index,
            seat=seat,
            observation=answer.observation,
            messages=answer.messages,
            completion=last.completion if last else "",
            reasoning=last.reasoning if last else "",
            parsed_action=(last.parsed_action if last else "")[:200],
            action=answer.action or "",
            legal=answer.action is not None,
            attempts=[vars(attempt) for attempt in answer.attempts],
            num_attempts=len(answer.attempts),
            tokens_in=answer.total("tokens_in"),
            tokens_out=answer.total("tokens_out"),
            reasoning_tokens=answer.total("reasoning_tokens"),
            latency_ms=answer.total("latency_ms"),
            board_after=board_after,
        )
        Match.objects.filter(pk=match_id).update(num_moves=index + 1)
        publish.publish_match_move_on_commit(match_id, index)
    return move


def match_finish(match_id: int, ending: Ending) -> None:
    with transaction.atomic():
        Match.objects.filter(pk=match_id, status=Match.RUNNING).update(
            status=Match.FINISHED, result=ending.first_score, end_reason=ending.reason[:200], finished_at=timezone.now()
        )
        publish.publish_match_end_on_commit(match_id)


def match_fail(match_id: int, error: str) -> None:
    """End a match that could not be played out; it carries no result."""
    with transaction.atomic():
        Match.objects.filter(pk=match_id).exclude(status__in=Match.TERMINAL).update(
            status=Match.FAILED, error=error, finished_at=timezone.now()
        )
        publish.publish_match_end_on_commit(match_id)
