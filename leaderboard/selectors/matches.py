"""Reads of head-to-head matches for the ratings (leaderboard.boards.ratings): only
finished matches with a result count, and none of a submission the operators hid
(arena.moderation: hidden rows drop out of every rating)."""

from __future__ import annotations

from arena.models import Match, Moderated, Submission
from leaderboard.selectors.statements import kept_rows


def finished_results(game: str | None = None) -> list[tuple[int, int, float]]:
    """(first seat's submission id, second's, first's score) of every finished match of
    `game` (of every game when None), oldest first."""
    def values():
        matches = Match.objects.filter(status=Match.FINISHED, result__isnull=False)
        if game is not None:
            matches = matches.filter(game=game)
        matches = matches.exclude(first__moderation=Moderated.HIDDEN).exclude(second__moderation=Moderated.HIDDEN)
        return matches.order_by("id").values_list("first_id", "second_id", "result")

    # Every front page asks for them (the overall board's rating column): the statement
    # is kept (leaderboard.selectors.statements), a game's name one of its parameters.
    return [tuple(row) for row in kept_rows(Match, ("finished results", game), values)]


def games_played() -> list[str]:
    """The games with at least one finished match, by slug."""
    finished = Match.objects.filter(status=Match.FINISHED, result__isnull=False)
    return sorted(set(finished.values_list("game", flat=True)))


def _baselines_of_policy(policy: str):
    # A hidden baseline anchors nothing: its matches are not counted either.
    return Submission.objects.filter(kind=Submission.KIND_BASELINE, policy=policy).exclude(moderation=Moderated.HIDDEN)


def baseline_of_policy(policy: str) -> Submission | None:
    return _baselines_of_policy(policy).first()


def baseline_id_of_policy(policy: str) -> int | None:
    """The id of `baseline_of_policy`'s submission, without reading the submission."""
    return _baselines_of_policy(policy).values_list("pk", flat=True).first()


def head_to_head_entrants() -> list[Submission]:
    """The submissions that opted in to head-to-head play, but hidden ones: listed on the
    rating pages before their first finished match."""
    return list(Submission.objects.filter(head_to_head=True).exclude(moderation=Moderated.HIDDEN).order_by("id"))
