"""A failed match's error as each reader may read it: in full for staff and for the owner
of the seat whose endpoint failed, as its kind in the arena's words for everyone else
(the rule arena.endpoints.public_errors applies to episodes and steps)."""

from __future__ import annotations

from arena.clients.errors import describe
from arena.endpoints.privacy import can_see_endpoint
from arena.matches.catalogue import GAME_SPECS

MATCH_SEAT_FAILED = "{seat}'s endpoint failed: {summary}"
MATCH_ENDPOINT_FAILED = "a model endpoint failed"

def public_match_error(match) -> str:
    """A failed match's error as readers other than the failing seat's owner and staff
    read it. The arena's own errors (no endpoint kind) are shown as stored."""
    if not match.error:
        return match.error
    info = describe(match.error_kind) if match.error_kind else None
    if info is not None and match.failed_seat is not None:
        spec = GAME_SPECS.get(match.game)
        seat = (spec.seat_names if spec else ("first", "second"))[match.failed_seat]
        return MATCH_SEAT_FAILED.format(seat=seat, summary=info.summary)
    if match.error.startswith(MATCH_ENDPOINT_FAILED):
        return MATCH_ENDPOINT_FAILED  # stored before the seat and kind were
    return match.error


def match_error_for(user, match) -> str:
    """A match's error as `user` may read it: in full for staff and for the owner of the
    seat whose endpoint failed (the first and second submissions loaded)."""
    if user is not None and user.is_authenticated and user.is_staff:
        return match.error
    if match.failed_seat is not None and match.error_kind:
        failing = match.first if match.failed_seat == 0 else match.second
        if can_see_endpoint(user, failing):
            return match.error
    return public_match_error(match)
