"""Finished head-to-head matches made directly (no play), for the rating pages' tests:
scripted players of known strength, their results drawn from a seeded generator."""

from __future__ import annotations

import numpy as np
from django.utils import timezone

from arena.models import Match, Submission


def model(name: str, **fields) -> Submission:
    return Submission.objects.create(
        name=name, kind=Submission.KIND_MODEL, model=f"{name.lower()}-model", head_to_head=True, **fields
    )


def random_baseline() -> Submission:
    return Submission.objects.create(name="Random", kind=Submission.KIND_BASELINE, policy="random")


def finished(game: str, first: Submission, second: Submission, result: float, **fields) -> Match:
    now = timezone.now()
    return Match.objects.create(
        game=game, first=first, second=second, result=result, status=Match.FINISHED, started_at=now,
        finished_at=now, end_reason="scripted", num_moves=9, **fields,
    )


def play_scripted(game: str, truth: dict[Submission, float], count: int, seed: int) -> None:
    """`count` finished matches of `game` between random pairs of `truth`'s submissions,
    each scored as Bradley–Terry with these Elo-scale ratings implies (some of the
    expected score as draws)."""
    rng = np.random.default_rng(seed)
    players = list(truth)
    matches = []
    now = timezone.now()
    for _ in range(count):
        i, j = rng.choice(len(players), 2, replace=False)
        first, second = players[i], players[j]
        expected = 1 / (1 + 10 ** ((truth[second] - truth[first]) / 400))
        draw = 0.4 * min(expected, 1 - expected)
        u = rng.random()
        result = 1.0 if u < expected - draw / 2 else 0.5 if u < expected + draw / 2 else 0.0
        matches.append(Match(game=game, first=first, second=second, result=result, status=Match.FINISHED,
                             started_at=now, finished_at=now, end_reason="scripted"))
    Match.objects.bulk_create(matches)
