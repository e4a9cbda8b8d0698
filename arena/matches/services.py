"""Every write of the head-to-head room: queueing a round, claiming a match, storing
each move, and ending the match. Readers (the match page, ratings) see a match's moves
committed in order and a result only on a finished match."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena import page_generation
from arena.endpoints.privacy import hide_endpoint
from arena.live import publish
from arena.matches.games import HARNESS_VERSION, Ending
from arena.matches.models import Match, MatchMove
from arena.matches.seats import MoveAnswer
from arena.models import Submission


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


# Queued matches looked at per line when claiming one (another worker may take some first).
LOOKAHEAD = 20


class MatchLeaseLost(Exception):
    """The match was given to another worker (this one fell silent too long), or ended."""


def match_claim(match_id: int, worker: str) -> bool:
    """Take a queued match for `worker`; False if another worker has it or it ended."""
    now = timezone.now()
    taken = Match.objects.filter(pk=match_id, status=Match.QUEUED).update(
        status=Match.RUNNING, worker=worker, heartbeat_at=now, started_at=now
    )
    return bool(taken)


def _held(match_id: int, worker: str):
    return Match.objects.filter(pk=match_id, status=Match.RUNNING, worker=worker)


def matches_heartbeat(worker: str, match_ids) -> None:
    """The worker still plays these matches (called while it waits on slow models)."""
    Match.objects.filter(pk__in=list(match_ids), status=Match.RUNNING, worker=worker).update(heartbeat_at=timezone.now())


def release_stale_matches(stale_seconds: float) -> int:
    """Give back to the queue the running matches whose worker has been silent for
    `stale_seconds`; they resume after their stored moves. How many."""
    silent_since = timezone.now() - timedelta(seconds=stale_seconds)
    return Match.objects.filter(status=Match.RUNNING, heartbeat_at__lt=silent_since).update(
        status=Match.QUEUED, worker=""
    )


def release_matches(worker: str, match_ids) -> int:
    """Give `worker`'s matches back to the queue (the worker is stopping)."""
    return Match.objects.filter(pk__in=list(match_ids), status=Match.RUNNING, worker=worker).update(
        status=Match.QUEUED, worker=""
    )


def next_queued_match(worker: str, baselines_only_too: bool = True) -> Match | None:
    """The next queued match, claimed for `worker` (None when none is left): the oldest
    with a model at a seat first (a newly opted-in model's first match does not wait
    behind baselines playing each other), then, if `baselines_only_too`, one between two
    baselines, of the game with the fewest matches playing (a game of quick matches does
    not wait behind Stockfish's), the oldest of it."""
    queued = Match.objects.filter(status=Match.QUEUED).order_by("created_at", "id")
    with_model = ~Q(first__kind=Submission.KIND_BASELINE) | ~Q(second__kind=Submission.KIND_BASELINE)
    candidates = list(queued.filter(with_model).values_list("id", flat=True)[:LOOKAHEAD])
    if baselines_only_too:
        playing = Counter(Match.objects.filter(status=Match.RUNNING).values_list("game", flat=True))
        baseline_only = list(queued.exclude(with_model).values_list("id", "game")[:LOOKAHEAD])
        candidates += [match_id for match_id, game in sorted(baseline_only, key=lambda row: playing[row[1]])]
    for match_id in candidates:
        if match_claim(match_id, worker):
            return Match.objects.select_related("first", "second").get(pk=match_id)
    return None


def match_set_opening(match_id: int, worker: str, name: str, moves: list[str], start_board: str) -> None:
    if not _held(match_id, worker).update(opening=name[:200], opening_moves=moves, start_board=start_board):
        raise MatchLeaseLost(match_id)


def stored_moves(match_id: int) -> list[MatchMove]:
    """The moves an earlier attempt at this match stored, in order (its resume point)."""
    return list(MatchMove.objects.filter(match_id=match_id).order_by("index"))


def match_record_move(
    match_id: int, worker: str, index: int, seat: int, answer: MoveAnswer, board_after: str
) -> MatchMove:
    """Store one move with every attempt at it (a forfeit is stored too, without a move),
    if `worker` still holds the match."""
    last = answer.attempts[-1] if answer.attempts else None
    with transaction.atomic():
        if not _held(match_id, worker).update(num_moves=index + 1, heartbeat_at=timezone.now()):
            raise MatchLeaseLost(match_id)
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
        publish.publish_match_move_on_commit(match_id, index)
    return move


def match_finish(match_id: int, worker: str, ending: Ending) -> None:
    with transaction.atomic():
        _held(match_id, worker).update(
            status=Match.FINISHED, result=ending.first_score, end_reason=ending.reason[:200], finished_at=timezone.now()
        )
        # A result changes the ratings' pages and the overall leaderboard's rating column.
        page_generation.bump_on_commit()
        publish.publish_match_end_on_commit(match_id)


def match_fail(match_id: int, worker: str, error: str, kind: str = "", seat: int | None = None) -> None:
    """End a match that could not be played out; it carries no result. The error has
    both sides' endpoint addresses hidden whatever failed (a seat, or the arena's own
    code); a seat's endpoint failure is stored with its kind and seat, which is what
    readers other than that seat's owner and staff are shown (arena.endpoints.public_errors)."""
    urls = Match.objects.filter(pk=match_id).values_list("first__base_url", "second__base_url").first() or ()
    with transaction.atomic():
        _held(match_id, worker).update(
            status=Match.FAILED, error=hide_endpoint(error, *urls), error_kind=kind or "",
            failed_seat=seat if kind else None, finished_at=timezone.now(),
        )
        publish.publish_match_end_on_commit(match_id)
