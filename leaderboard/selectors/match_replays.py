"""Reads of head-to-head matches for their pages, their replay and their live channel:
one match with its seats, its moves after an index, and the list of recent matches.
A match of a submission the operators hid is taken down with it, as its episodes are
(arena.moderation): 404 and left out of the list for everyone but staff."""

from __future__ import annotations

from django.db.models import Q
from django.shortcuts import get_object_or_404

from arena.models import Match, MatchMove, Moderated
from arena.moderation import is_staff


def _shown_to(viewer, matches):
    """`matches` without those of a hidden submission, but for staff; `viewer` None is
    anyone (the live channel, which everyone shares)."""
    if is_staff(viewer):
        return matches
    return matches.exclude(Q(first__moderation=Moderated.HIDDEN) | Q(second__moderation=Moderated.HIDDEN))


def match_or_404(pk: int, viewer=None) -> Match:
    return get_object_or_404(_shown_to(viewer, Match.objects.select_related("first", "second")), pk=pk)


def match_exists(pk: int) -> bool:
    """Whether the match is there for anyone (the live channel has no user)."""
    return _shown_to(None, Match.objects.filter(pk=pk)).exists()


def match_status(pk: int) -> str:
    """The match's status; raises Match.DoesNotExist."""
    return Match.objects.values_list("status", flat=True).get(pk=pk)


def match_moves_after(match_id: int, after_index: int, limit: int = 500) -> list[MatchMove]:
    """The match's moves after `after_index`, in order, at most `limit`."""
    return list(MatchMove.objects.filter(match_id=match_id, index__gt=after_index).order_by("index")[:limit])


def recent_matches(game: str | None = None, submission_id: int | None = None, limit: int = 200,
                   viewer=None) -> list[Match]:
    """The latest matches `viewer` may see, newest first, of one game and/or one submission."""
    matches = _shown_to(viewer, Match.objects.select_related("first", "second"))
    if game:
        matches = matches.filter(game=game)
    if submission_id:
        matches = matches.filter(Q(first_id=submission_id) | Q(second_id=submission_id))
    return list(matches.order_by("-created_at", "-id")[:limit])
