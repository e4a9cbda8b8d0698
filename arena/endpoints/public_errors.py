"""What readers other than an endpoint's owner and staff are told when a step or a match
met the endpoint's failures: the kind of failure in the arena's words, never the
endpoint's own message (arena.endpoints.privacy.public_error does the same for an
episode's error). The owner and staff read the message as stored, its address hidden.

A step's error is a note, not a failure: a model call that succeeded after retries
("succeeded after 2 attempts (The model endpoint answered HTTP 500: …)", one note per
call of the step) or an agent endpoint's answer that could not be read as an action.
Steps store no kind, and the clients' notes give none, so the kind of an earlier
attempt is read from the arena's own wording around the server's text (an HTTP status,
"did not answer within", "Could not talk to"); a wording it does not know gives "an
earlier attempt failed" and nothing more. Whatever a server writes, the public form is
made of the arena's words and the attempt count only.

A match's error names the seat whose endpoint failed and the kind (Match.error_kind,
Match.failed_seat): that seat's owner and staff read the message; everyone else, the
other seat's owner included, reads "<seat>'s endpoint failed: <kind>" ("white's
endpoint failed: the endpoint kept failing with server errors"). An error
stored before the seat was recorded is detailed for staff only.
"""

from __future__ import annotations

import re

from arena.clients.errors import ErrorKind, classify_status, describe
from arena.endpoints.privacy import can_see_endpoint

# The note arena/play/agents/model.py writes for a call that needed retries, one per call of the step.
_RETRY_NOTE = re.compile(r"(?:^|; )succeeded after (\d{1,3}) attempts")
# The agent endpoint client's note of an earlier failed attempt after its verdict.
_EARLIER_ATTEMPT = " (an earlier attempt failed: "
# The arena's own wordings of a failed attempt (arena.clients.http), in order of trust.
_HTTP_STATUS = re.compile(r"\banswered HTTP ([1-5]\d\d)\b")
_TIMED_OUT = re.compile(r"\bdid not (?:finish answering|answer) within\b")
_NO_CONNECTION = re.compile(r"^\(?(?:Could not talk to the|The request to the )")
_UNREADABLE = re.compile(
    r"not valid JSON|with an empty body|JSON but not an object|could not be decoded|nested too deeply"
)
# An earlier attempt's kind as a short phrase (retried attempts are of these kinds).
_ATTEMPT_WORDS = {
    ErrorKind.RATE_LIMITED: "too many requests",
    ErrorKind.SERVER_ERROR: "a server error",
    ErrorKind.TIMEOUT: "no answer in time",
    ErrorKind.CONNECTION: "no connection",
    ErrorKind.BAD_ANSWER: "an unreadable answer",
}


def attempt_kind(message: str) -> ErrorKind | None:
    """The kind of one failed attempt, read from the arena's wording of it."""
    status = _HTTP_STATUS.search(message)
    if status is not None:
        return classify_status(int(status.group(1)), message)
    if _TIMED_OUT.search(message):
        return ErrorKind.TIMEOUT
    if _NO_CONNECTION.search(message):
        return ErrorKind.CONNECTION
    if _UNREADABLE.search(message):
        return ErrorKind.BAD_ANSWER
    return None


def _earlier_attempt(message: str) -> str:
    kind = attempt_kind(message)
    words = _ATTEMPT_WORDS.get(kind) or (describe(kind).summary if kind else "")
    return f"an earlier attempt failed: {words}" if words else "an earlier attempt failed"


def public_step_error(error: str) -> str:
    """A step's error as readers other than the owner and staff read it (module
    docstring)."""
    if not error:
        return error
    notes = list(_RETRY_NOTE.finditer(error))
    if notes and notes[0].start() == 0:
        shown = []
        for note, following in zip(notes, [*notes[1:], None]):
            problem = error[note.end(): following.start() if following else len(error)].strip()
            attempts = int(note.group(1))
            shown.append(f"succeeded after {attempts} attempts" + (f" ({_earlier_attempt(problem)})" if problem else ""))
        return "; ".join(shown)
    # An agent endpoint's answer that was no action, perhaps after a failed attempt.
    verdict, _, earlier = error.partition(_EARLIER_ATTEMPT)
    shown = "the agent endpoint's answer could not be read as an action"
    return shown + (f" ({_earlier_attempt(earlier)})" if earlier else "")


def step_error_for(user, step_error: str, submission) -> str:
    """A step's error as `user` may read it."""
    return step_error if can_see_endpoint(user, submission) else public_step_error(step_error)
