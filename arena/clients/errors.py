"""What went wrong with an endpoint, by kind, in words a submitter can act on.

Real model servers fail in a handful of recognisable ways. Each kind decides two things:
whether asking again can help (a rate limit or a crashed worker may pass; a context
window that is too small or a text-only model will not), and what the run page tells the
submitter to do about it.

The message samples these rules are tested against come from real servers: llama.cpp's
server ("the request exceeds the available context size", "image input is not
supported"), vLLM and OpenAI ("maximum context length is N tokens",
"context_length_exceeded"), Anthropic ("prompt is too long") and Gemini ("exceeds the
maximum number of tokens").
"""

from __future__ import annotations

import dataclasses
import enum
import re


class ErrorKind(enum.StrEnum):
    CONTEXT_EXCEEDED = "context_exceeded"
    IMAGES_UNSUPPORTED = "images_unsupported"
    AUTH = "auth"
    MODEL_NOT_FOUND = "model_not_found"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    URL_REFUSED = "url_refused"
    BAD_REQUEST = "bad_request"
    BAD_ANSWER = "bad_answer"


@dataclasses.dataclass(frozen=True)
class KindInfo:
    summary: str  # what happened, as one clause ("the model does not accept images")
    fix: str  # what the submitter can do about it
    # Asking again later may succeed (retried with backoff inside one call).
    transient: bool
    # Every other episode of the run would meet the same wall: end them at once
    # instead of letting each discover it (and burn retries) on its own.
    ends_run: bool


KINDS: dict[ErrorKind, KindInfo] = {
    ErrorKind.CONTEXT_EXCEEDED: KindInfo(
        "the prompt did not fit in the model's context window",
        "state the server's real context window on the submission, or serve the model with a larger one",
        transient=False, ends_run=False,
    ),
    ErrorKind.IMAGES_UNSUPPORTED: KindInfo(
        "the model does not accept images",
        "submit a task list without rgb formats, or a vision-language model (for llama.cpp: start it with --mmproj)",
        transient=False, ends_run=True,
    ),
    ErrorKind.AUTH: KindInfo(
        "the endpoint refused the API key",
        "edit the submission's API key, then re-queue the failed episodes",
        transient=False, ends_run=True,
    ),
    ErrorKind.MODEL_NOT_FOUND: KindInfo(
        "the endpoint does not know the model name",
        "edit the submission's model name (or base URL), then re-queue the failed episodes",
        transient=False, ends_run=True,
    ),
    ErrorKind.RATE_LIMITED: KindInfo(
        "the endpoint kept answering 'too many requests'",
        "lower the submission's concurrent requests, or raise the endpoint's rate limit, then re-queue",
        transient=True, ends_run=False,
    ),
    ErrorKind.SERVER_ERROR: KindInfo(
        "the endpoint kept failing with server errors",
        "check the server's log; re-queue the failed episodes once it is healthy",
        transient=True, ends_run=False,
    ),
    ErrorKind.TIMEOUT: KindInfo(
        "the endpoint did not answer in time",
        "lower the submission's concurrent requests (a local server with one slot queues them), then re-queue",
        transient=True, ends_run=False,
    ),
    ErrorKind.CONNECTION: KindInfo(
        "the arena could not connect to the endpoint",
        "check that the server is running and reachable at the base URL, then re-queue",
        transient=True, ends_run=False,
    ),
    ErrorKind.URL_REFUSED: KindInfo(
        "the endpoint's address is not one the arena may call",
        "use a public http(s) address (loopback only where the operator allows it)",
        transient=False, ends_run=True,
    ),
    ErrorKind.BAD_REQUEST: KindInfo(
        "the endpoint rejected the request",
        "check that the endpoint speaks the chosen provider's protocol and accepts the generation settings",
        transient=False, ends_run=False,
    ),
    ErrorKind.BAD_ANSWER: KindInfo(
        "the endpoint's answers could not be read",
        "check that the endpoint speaks the chosen provider's protocol",
        transient=False, ends_run=False,
    ),
}

_CONTEXT_PATTERNS = re.compile(
    r"exceeds? the available context size|exceed_context_size|context[ _]length[ _]exceeded"
    r"|maximum context length|context window|prompt is too long|too many tokens"
    r"|exceeds the maximum number of tokens|input is too long|longer than the model'?s? context"
    r"|reduce the length of the (messages|prompt)|n_ctx",
    re.IGNORECASE,
)
_IMAGE_PATTERNS = re.compile(
    r"image input is not supported|does not support (content parts of type )?image|image_url is not supported"
    r"|not a multimodal model|images? (are|is) not supported|vision is not supported|mmproj"
    r"|does not support (vision|images|multimodal)|unsupported content( part)? type",
    re.IGNORECASE,
)
_MODEL_PATTERNS = re.compile(r"model .*(not found|does not exist)|no such model|unknown model|model_not_found", re.I)


def is_context_exceeded(status: int | None, message: str) -> bool:
    """A prompt longer than the server's context window (llama.cpp answers 400; some
    gateways wrap it in a 413 or a 500)."""
    return status in (None, 400, 413, 422, 500) and bool(_CONTEXT_PATTERNS.search(message or ""))


def is_image_refusal(status: int | None, message: str) -> bool:
    """A text-only model refusing an image part (llama.cpp answers 500, vLLM 400)."""
    return status in (None, 400, 415, 422, 500, 501) and bool(_IMAGE_PATTERNS.search(message or ""))


def classify_status(status: int, message: str) -> ErrorKind:
    """The kind of a non-2xx answer."""
    if is_image_refusal(status, message):
        return ErrorKind.IMAGES_UNSUPPORTED
    if is_context_exceeded(status, message):
        return ErrorKind.CONTEXT_EXCEEDED
    if status in (401, 403):
        return ErrorKind.AUTH
    if status == 404 or (status == 400 and _MODEL_PATTERNS.search(message or "")):
        return ErrorKind.MODEL_NOT_FOUND
    if status == 429:
        return ErrorKind.RATE_LIMITED
    if status == 408:
        return ErrorKind.TIMEOUT
    if status >= 500:
        return ErrorKind.SERVER_ERROR
    return ErrorKind.BAD_REQUEST


def describe(kind: ErrorKind | str | None) -> KindInfo | None:
    try:
        return KINDS[ErrorKind(kind)]
    except ValueError:
        return None


def ends_run(kind: ErrorKind | str | None) -> bool:
    info = describe(kind)
    return bool(info and info.ends_run)
