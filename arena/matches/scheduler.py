"""Scheduling a round: who plays whom next, on which openings.

The players of a game are the model submissions that opted in (`head_to_head`) and
have budget left, and the anchors: the random legal-move baseline, and for chess
Stockfish at skill level 0. The choice of pairs is one function,
`pairs_for_round(game, players, results)`, so a rating-aware rule can replace it: it
prefers the pairs whose outcome is least known, those that have played each other
least, then those whose score against each other is closest to even.

Every pair chosen plays `openings_per_pair` openings, each twice with colours
swapped (arena.matches.services.queue_pair); within a round every pair plays the
same openings.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

from django.db.models import Max, Q, Sum

from arena.matches import services
from arena.matches.games import GAMES
from arena.matches.models import Match, MatchMove
from arena.matches.seats import RANDOM_POLICY, STOCKFISH_POLICY
from arena.models import Submission
from arena.services.submissions import baseline_submission

ANCHOR_NAMES = {RANDOM_POLICY: "Random legal moves", STOCKFISH_POLICY: "Stockfish level 0 (one node)"}


def pairs_for_round(
    game: str, players: Sequence[int], results: Sequence[tuple[int, int, float]], *, per_player: int = 2
) -> list[tuple[int, int]]:
    """The pairs of `players` (submission ids) to play next at `game`, given the
    finished `results` (first id, second id, first's score). Pairs are ranked by how
    little is known about them, fewest games played first, then the score closest to
    even; each player is given at most `per_player` pairs."""
    games_between: dict[frozenset, int] = defaultdict(int)
    score_of_lower: dict[frozenset, float] = defaultdict(float)
    for first, second, score in results:
        key = frozenset((first, second))
        games_between[key] += 1
        score_of_lower[key] += score if first < second else 1.0 - score

    def uncertainty_rank(pair: tuple[int, int]):
        key = frozenset(pair)
        played = games_between[key]
        evenness = abs(score_of_lower[key] / played - 0.5) if played else 0.0
        return played, evenness, pair

    chosen: list[tuple[int, int]] = []
    load: dict[int, int] = defaultdict(int)
    for a, b in sorted(itertools.combinations(sorted(set(players)), 2), key=uncertainty_rank):
        if load[a] < per_player and load[b] < per_player:
            chosen.append((a, b))
            load[a] += 1
            load[b] += 1
    return chosen


def anchors(game: str) -> list[Submission]:
    policies = [RANDOM_POLICY] + ([STOCKFISH_POLICY] if game == "chess" else [])
    return [baseline_submission(policy, ANCHOR_NAMES[policy]) for policy in policies]


def _tokens_spent(submission: Submission) -> int:
    """Tokens a submission's seats have used in all its matches."""
    spent = MatchMove.objects.filter(
        Q(match__first=submission, seat=0) | Q(match__second=submission, seat=1)
    ).aggregate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    return (spent["tokens_in"] or 0) + (spent["tokens_out"] or 0)


def within_budget(submission: Submission) -> bool:
    """A model keeps playing until its matches have spent its per-run token budget."""
    budget = submission.budget_tokens_per_run
    return budget is None or _tokens_spent(submission) < budget


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


def schedule_round(game: str, *, openings_per_pair: int = 1, per_player: int = 2) -> list[Match]:
    """Queue the next round of `game`; the matches queued (none when fewer than two
    players can play)."""
    if game not in GAMES:
        raise ValueError(f"unknown head-to-head game {game!r}; known: {', '.join(GAMES)}")
    players = {s.pk: s for s in opted_in_models() + anchors(game)}
    round_number = (Match.objects.filter(game=game).aggregate(last=Max("round"))["last"] or 0) + 1
    pairs = pairs_for_round(game, list(players), finished_results(game), per_player=per_player)
    seeds = [(round_number - 1) * openings_per_pair + k for k in range(openings_per_pair)]
    queued: list[Match] = []
    for a, b in pairs:
        for seed in seeds:
            queued += services.queue_pair(game, players[a], players[b], seed, round_number)
    return queued
