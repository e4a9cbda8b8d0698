"""Head-to-head that runs itself: the worker asks, every few seconds and for each game,
which pairs should play next and queues them (docs/head_to_head.md, "Scheduling").

Which pairs is the ratings' choice (arena.matches.ratings.pairs_for_round: the pairs
whose result would teach the ratings the most), among the pairs that may play now:

- a model is offered while it has room: its queued and running matches, two more
  included, within its endpoint's concurrent requests (at least the two games of one
  pair). While the submission's own episodes are queued or playing it gets one pair at
  a time, so its matches take at most two of the endpoint's turns from them; every call
  goes through the endpoint's gate, which keeps the submission's cap;
- the matches of one owner's models together stay within ARENA_H2H_MATCHES_PER_USER;
- a model whose matches failed FAILURES_BEFORE_PAUSE times in the last PAUSE_MINUTES
  (its endpoint down) waits out the pause instead of failing a match every few seconds;
- a pair with a match queued or playing in this game is not queued again, and a pair
  that has finished ARENA_H2H_PAIR_GAMES games of it is done: baselines stop playing
  each other once their ratings are settled, and a model meets each opponent that
  many times at most;
- baseline-only matches of one game are queued ANCHOR_BACKLOG at a time, so a model's
  match never waits behind a long line of them (the match worker takes models' first).
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from arena.matches import scheduler, services
from arena.matches.games import GAMES
from arena.matches.models import Match
from arena.matches.ratings import pairs_for_round
from arena.models import Episode, Submission

logger = logging.getLogger(__name__)

PAIR_MATCHES = 2  # the two colour-swapped games of one opening
ANCHOR_BACKLOG = 2
FAILURES_BEFORE_PAUSE = 3
PAUSE_MINUTES = 10
OPEN = (Match.QUEUED, Match.RUNNING)


def _open_matches() -> list[tuple[str, int, int]]:
    return list(Match.objects.filter(status__in=OPEN).values_list("game", "first_id", "second_id"))


def _episodes_active(submission_ids) -> set[int]:
    return set(
        Episode.objects.filter(
            run__submission_id__in=list(submission_ids), status__in=(Episode.QUEUED, Episode.RUNNING)
        )
        .values_list("run__submission_id", flat=True)
        .distinct()
    )


def _paused(submission_ids) -> set[int]:
    """The models whose matches kept failing lately (their endpoint is down)."""
    since = timezone.now() - timedelta(minutes=PAUSE_MINUTES)
    failed = Counter()
    rows = Match.objects.filter(status=Match.FAILED, finished_at__gte=since).filter(
        Q(first_id__in=list(submission_ids)) | Q(second_id__in=list(submission_ids))
    ).values_list("first_id", "second_id", "failed_seat")
    for first, second, seat in rows:
        # A match fails for the seat whose endpoint gave no answer (failed_seat); one
        # that failed otherwise counts against both seats.
        failed.update((first, second) if seat is None else ((first, second)[seat],))
    return {pk for pk, count in failed.items() if count >= FAILURES_BEFORE_PAUSE}


def models_with_room(open_matches) -> list[Submission]:
    """The opted-in models that may be given one more pair now (module docstring)."""
    models = scheduler.opted_in_models()
    if not models:
        return []
    in_play = Counter()
    for _game, first, second in open_matches:
        in_play.update((first, second))
    active = _episodes_active(m.pk for m in models)
    paused = _paused(m.pk for m in models)
    by_owner = Counter()
    for model in models:
        by_owner[model.owner_id] += in_play[model.pk]
    offered = []
    for model in models:
        room = PAIR_MATCHES if model.pk in active else max(PAIR_MATCHES, model.max_concurrent_requests)
        owner_cap = settings.ARENA_H2H_MATCHES_PER_USER
        owner_room = model.owner_id is None or by_owner[model.owner_id] + PAIR_MATCHES <= owner_cap
        if model.pk not in paused and in_play[model.pk] + PAIR_MATCHES <= room and owner_room:
            offered.append(model)
            # Held for it: the owner's next model is offered only if both may get a pair.
            if model.owner_id is not None:
                by_owner[model.owner_id] += PAIR_MATCHES
    return offered


def schedule_game(game: str, models: list[Submission], open_matches) -> list[Match]:
    """Queue the pairs of `game` that should play next among those that may (module
    docstring); the matches queued."""
    anchor_players = scheduler.anchors(game)
    anchor_ids = {anchor.pk for anchor in anchor_players}
    players = {s.pk: s for s in models + anchor_players}
    busy = {frozenset((first, second)) for g, first, second in open_matches if g == game}
    anchor_only_open = sum(
        1 for g, first, second in open_matches if g == game and first in anchor_ids and second in anchor_ids
    )
    results = scheduler.finished_results(game)
    played = Counter(frozenset((first, second)) for first, second, _ in results)

    def allowed(a, b) -> bool:
        pair = frozenset((a, b))
        if pair in busy or played[pair] >= settings.ARENA_H2H_PAIR_GAMES:
            return False
        return not (a in anchor_ids and b in anchor_ids and anchor_only_open >= ANCHOR_BACKLOG)

    ids = list(players)
    if not any(allowed(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]):
        return []  # nothing may play: skip the fit
    pairs = pairs_for_round(game, ids, results, allowed=allowed)
    if not pairs:
        return []
    round_number = scheduler.next_round(game)
    queued: list[Match] = []
    for a, b in pairs:
        queued += services.queue_pair(game, players[a], players[b], round_number - 1, round_number)
    return queued


def schedule_due() -> list[Match]:
    """One pass over every game: the matches queued."""
    queued: list[Match] = []
    for game in GAMES:
        open_matches = _open_matches()
        queued += schedule_game(game, models_with_room(open_matches), open_matches)
    if queued:
        logger.info("queued %d head-to-head matches", len(queued))
    return queued
