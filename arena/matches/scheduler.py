"""Scheduling a round: who plays whom next, on which openings.

The players of a game are the model submissions that opted in (`head_to_head`) and
have budget left, and the game's baselines (arena.matches.anchors): random legal
moves, and engines of known strength. Which pairs play is the ratings' choice,
`arena.matches.ratings.pairs_for_round(game, players, results)`: the pairs whose
result is expected to teach the ratings the most (docs/ratings.md, "Pair choice"),
each player at most once; `per_player` passes of it give each player up to that many
opponents in one round.

Every pair chosen plays `openings_per_pair` openings, each twice with colours
swapped (arena.matches.services.queue_pair); within a round every pair plays the
same openings.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Max, Q, Sum

from arena.matches import services
from arena.matches.games import GAMES
from arena.matches.models import Match, MatchMove
from arena.matches.ratings import pairs_for_round
from arena.matches.anchors import anchors_of
from arena.models import Submission
from arena.services.submissions import baseline_submission


def round_pairs(
    game: str, players: Sequence[int], results: Sequence[tuple[int, int, float]], *, per_player: int = 1, allowed=None,
):
    """The round's pairs: `per_player` passes of the rating's pair choice
    (`arena.matches.ratings.pairs_for_round`, each player at most once per pass). Before
    each further pass the pairs already chosen count as drawn games, so the choice moves
    on to the pairs that are then the least known; a pair is never chosen twice."""
    chosen: list[tuple[int, int]] = []
    seen: set[frozenset] = set()
    assumed = list(results)
    for _ in range(per_player):
        fresh = [
            pair for pair in pairs_for_round(game, players, assumed, allowed=allowed) if frozenset(pair) not in seen
        ]
        for a, b in fresh:
            seen.add(frozenset((a, b)))
            assumed += [(a, b, 0.5), (b, a, 0.5)]
        chosen += fresh
    return chosen


def anchors(game: str) -> list[Submission]:
    """The game's baselines (arena.matches.anchors), their submissions made on first use."""
    return [baseline_submission(anchor.policy, anchor.name) for anchor in anchors_of(game)]


def _tokens_spent(submission: Submission) -> tuple[int, int]:
    """Tokens in and out a submission's seats have used in all its matches."""
    spent = MatchMove.objects.filter(
        Q(match__first=submission, seat=0) | Q(match__second=submission, seat=1)
    ).aggregate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    return spent["tokens_in"] or 0, spent["tokens_out"] or 0


def within_budget(submission: Submission) -> bool:
    """A model keeps playing until its matches have spent its per-run budget: tokens, or
    USD at its prices. Moves do not record prompt-cache hits, so the cost counts every
    input token at the full input price (it can only stop a model early, never late)."""
    tokens_budget, usd_budget = submission.budget_tokens_per_run, submission.budget_usd_per_run
    if tokens_budget is None and usd_budget is None:
        return True
    tokens_in, tokens_out = _tokens_spent(submission)
    if tokens_budget is not None and tokens_in + tokens_out >= tokens_budget:
        return False
    cost = submission.cost_usd(tokens_in, tokens_out)
    return usd_budget is None or cost is None or cost < float(usd_budget)


def opted_in_models() -> list[Submission]:
    """Model submissions that opted in and can play: not hidden, not imported (no
    endpoint), not an agent endpoint (it speaks the suites' step protocol, not a chat),
    with budget left."""
    candidates = (
        Submission.objects.filter(head_to_head=True)
        .exclude(kind=Submission.KIND_BASELINE)
        .exclude(provider=Submission.PROVIDER_AGENT)
        .order_by("pk")
    )
    return [s for s in candidates if not s.is_hidden and not s.is_imported and within_budget(s)]


def finished_results(game: str) -> list[tuple[int, int, float]]:
    return list(
        Match.objects.filter(game=game, status=Match.FINISHED, result__isnull=False).values_list(
            "first_id", "second_id", "result"
        )
    )


def next_round(game: str) -> int:
    return (Match.objects.filter(game=game).aggregate(last=Max("round"))["last"] or 0) + 1


def schedule_round(game: str, *, openings_per_pair: int = 1, per_player: int = 1) -> list[Match]:
    """Queue the next round of `game`; the matches queued (none when fewer than two
    players can play)."""
    if game not in GAMES:
        raise ValueError(f"unknown head-to-head game {game!r}; known: {', '.join(GAMES)}")
    players = {s.pk: s for s in opted_in_models() + anchors(game)}
    round_number = next_round(game)
    pairs = round_pairs(game, list(players), finished_results(game), per_player=per_player)
    seeds = [(round_number - 1) * openings_per_pair + k for k in range(openings_per_pair)]
    queued: list[Match] = []
    for a, b in pairs:
        for seed in seeds:
            queued += services.queue_pair(game, players[a], players[b], seed, round_number)
    return queued
