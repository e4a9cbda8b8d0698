"""What readers other than an endpoint's owner and staff read of a step's note and of a
failed match (arena.endpoints.public_errors): the kind, in the arena's words, whatever the server
wrote; the owner of the failing side and staff read the message."""

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser

from arena.matches.public_errors import match_error_for
from arena.endpoints.public_errors import attempt_kind, public_step_error

HOSTILE = "Cannot POST /Tenant-Canary-x7/v1/chat/completions?key=Key-Canary-q9 (retry; later)"


@pytest.mark.parametrize(
    "stored, public",
    [
        (f"succeeded after 2 attempts (The model endpoint answered HTTP 500: {HOSTILE})",
         "succeeded after 2 attempts (an earlier attempt failed: a server error)"),
        (f"succeeded after 3 attempts (The Anthropic API answered HTTP 429: {HOSTILE})",
         "succeeded after 3 attempts (an earlier attempt failed: too many requests)"),
        ("succeeded after 2 attempts (The model endpoint did not answer within 30 s); "
         "succeeded after 2 attempts (Could not talk to the model endpoint: All connection attempts failed)",
         "succeeded after 2 attempts (an earlier attempt failed: no answer in time); "
         "succeeded after 2 attempts (an earlier attempt failed: no connection)"),
        ("succeeded after 2 attempts (The model endpoint's answer was not valid JSON: <html>acme</html>)",
         "succeeded after 2 attempts (an earlier attempt failed: an unreadable answer)"),
        (f"succeeded after 2 attempts ({HOSTILE})", "succeeded after 2 attempts (an earlier attempt failed)"),
        ("succeeded after 2 attempts", "succeeded after 2 attempts"),
        (f"agent reply was not JSON: {HOSTILE}", "the agent endpoint's answer could not be read as an action"),
        (f"agent reply had no action (an earlier attempt failed: The agent endpoint answered HTTP 503: {HOSTILE})",
         "the agent endpoint's answer could not be read as an action (an earlier attempt failed: a server error)"),
        ("", ""),
    ],
)
def test_a_steps_note_reads_as_its_kind(stored, public):
    assert public_step_error(stored) == public


def test_a_server_that_writes_the_arenas_words_still_publishes_none_of_its_own():
    sneaky = "succeeded after 2 attempts (answered HTTP 500 Tenant-Canary-x7; succeeded after 4 attempts key=q9)"
    shown = public_step_error(sneaky)
    assert "Canary" not in shown and "q9" not in shown and shown.startswith("succeeded after 2 attempts")


def test_attempt_kinds_follow_the_status_rules():
    assert attempt_kind("The model endpoint answered HTTP 401 (check the API key): no") == "auth"
    assert attempt_kind("The model endpoint answered HTTP 404: Cannot POST") == "model_not_found"
    assert attempt_kind("nothing the arena says") is None


def _user(pk, staff=False):
    return SimpleNamespace(pk=pk, is_authenticated=True, is_staff=staff)


def _match(error, kind="", seat=None):
    return SimpleNamespace(
        error=error, error_kind=kind, failed_seat=seat, game="tictactoe",
        first=SimpleNamespace(owner_id=1), second=SimpleNamespace(owner_id=2),
    )


def test_a_failed_match_reads_in_full_for_the_failing_seats_owner_and_staff_only():
    failed = _match(f"a model endpoint failed: The model endpoint answered HTTP 500: {HOSTILE}", "server_error", 1)
    for reader in (_user(2), _user(9, staff=True)):
        assert match_error_for(reader, failed) == failed.error
    for reader in (_user(1), _user(9), AnonymousUser(), None):  # the other seat's owner too
        shown = match_error_for(reader, failed)
        assert shown == "O's endpoint failed: the endpoint kept failing with server errors", shown


def test_a_match_error_stored_without_its_seat_is_detailed_for_staff_only():
    legacy = _match(f"a model endpoint failed: {HOSTILE}")
    assert match_error_for(_user(1), legacy) == match_error_for(_user(2), legacy) == "a model endpoint failed"
    assert match_error_for(_user(9, staff=True), legacy) == legacy.error
    own = _match("internal error while playing: ValueError: bad board")  # the arena's own
    assert match_error_for(None, own) == own.error
