"""What went wrong with an endpoint, by kind, in words a submitter can act on.

Real model servers fail in a handful of recognisable ways. Each kind decides two things:
whether asking again can help (a rate limit or a crashed worker may pass; a context
window that is too small or a text-only model will not), and what the run page tells the
submitter to do about it.

Servers say "this image cannot be seen" and "this prompt is too long" in many words and
with different statuses (llama.cpp answers an image it cannot see with HTTP 500,
OpenRouter with 404, OpenAI and vLLM with 400), so `is_image_refusal` and
`is_context_exceeded` go by the message and use the status only to rule out answers
that are not errors. The phrases are the ones real servers send (llama.cpp, vLLM,
OpenAI, OpenRouter, Ollama, Anthropic, Gemini, DeepSeek, Groq, TGI); the tests hold a
sample of each. The endpoint probe uses them too.
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
    SPEND_LIMIT = "spend_limit"
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
    ErrorKind.SPEND_LIMIT: KindInfo(
        "the endpoint's account has reached its spend limit or has no credit left",
        "raise the account's spend limit or add credit in the provider's console (waiting minutes will not lift "
        "it), then re-queue the failed episodes",
        transient=False, ends_run=True,
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

# An image part the model cannot take. Specific phrases first; the two general patterns
# catch "<image words> ... not supported/enabled/allowed" and "does not support ... images".
_IMAGE_REFUSAL = re.compile(
    "|".join(
        (
            r"image input is not supported",  # llama.cpp without a vision projector (HTTP 500)
            r"mmproj",  # llama.cpp's hint that names the missing projector
            r"missing data required for image input",  # Ollama, text-only model
            r"no endpoints found that support image input",  # OpenRouter (HTTP 404)
            r"image_url is only supported by certain models",  # OpenAI, text-only model
            r"not a multi-?modal model",  # vLLM and gateways in front of it
            r"non-multi-?modal|text-only model",
            r"unknown variant .{0,2}image_url",  # servers that only know text parts (DeepSeek)
            r"content must be a string",  # servers that only take string content (Groq)
            r"image input modality is not enabled",  # Gemini API, text-only model
            r"\b(?:images?|image_url|image inputs?|vision|multi-?modal(?: input)?|content parts?)\b"
            r"[^.]{0,60}?\b(?:is|are)\s+not\s+(?:supported|enabled|allowed|available)",
            r"\b(?:does|do)\s*(?:not|n't)\s+(?:support|accept|allow|handle)\b[^.]{0,40}?"
            r"\b(?:images?|image inputs?|image_url|vision|multi-?modal)",
        )
    ),
    re.IGNORECASE,
)

# A prompt (plus the answer it asks for) beyond the model's context window.
_CONTEXT_EXCEEDED = re.compile(
    "|".join(
        (
            r"exceed_context_size_error",  # llama.cpp's error type
            r"exceeds the available context size",  # llama.cpp's message
            r"context_length_exceeded",  # OpenAI's and Groq's error code
            r"maximum context length",  # OpenAI, vLLM, OpenRouter, DeepSeek, Mistral
            r"is longer than the maximum model length",  # vLLM: "The decoder prompt (length N) ..."
            r"longer than the model's context length",  # SGLang
            r"prompt is too long",  # Anthropic
            r"input length and `?max_tokens`? exceed context limit",  # Anthropic
            r"input is too long",  # Amazon Bedrock
            r"exceeds the maximum number of tokens",  # Gemini: "The input token count (N) exceeds ..."
            r"exceeds the context window",  # OpenAI's Responses API
            r"maximum prompt length is",  # xAI
            r"context size has been exceeded",  # LM Studio
            r"`?inputs`? tokens \+ `?max_new_tokens`? must be",  # Text Generation Inference
            r"reduce the length of the messages",
        )
    ),
    re.IGNORECASE,
)


def _is_error_status(status: int | None) -> bool:
    """An HTTP error status, or None when the caller only has the message."""
    return status is None or status >= 400


def is_image_refusal(status: int | None, message: str) -> bool:
    """Whether an error says the model (or server) does not take image input.

    `status` is the HTTP status (None if unknown); `message` the error text, either the
    server's own or a client's wording around it. A 2xx or 3xx is never a refusal.
    """
    if not _is_error_status(status) or not message:
        return False
    return _IMAGE_REFUSAL.search(message) is not None


def is_context_exceeded(status: int | None, message: str) -> bool:
    """Whether an error says the request does not fit the model's context window.

    A 429 is never one: rate-limit messages about tokens per minute ("Request too large
    for ... tokens per min") look similar but mean "wait", not "shorten".
    """
    if not _is_error_status(status) or status == 429 or not message:
        return False
    return _CONTEXT_EXCEEDED.search(message) is not None


# The window a "context exceeded" message states: llama.cpp "exceeds the available context
# size (4096 tokens)", vLLM/OpenAI "maximum context length is 4096 tokens", Anthropic
# "… > 200000 maximum".
_WINDOW_IN_MESSAGE = re.compile(
    r"available context size \((\d+) tokens\)|maximum context length is (\d+)|> (\d+) maximum"
    r"|context (?:length|window|size) (?:is|of) (\d+)",
    re.IGNORECASE,
)


def window_in_message(message: str) -> int | None:
    """The context window a server's "too long" message states, if it states one."""
    match = _WINDOW_IN_MESSAGE.search(message or "")
    if not match:
        return None
    value = int(next(group for group in match.groups() if group))
    return value if value > 0 else None


# An account out of money or past its spend limit, which lifts when the month (or the
# contract) turns or someone pays, never within a run's retries. Anthropic's API errors
# page: a 400 "You have reached your specified (workspace) API usage limits" for a limit
# the organisation set, a 400 "Your credit balance is too low"; a 429 like a rate limit
# but with ``error.details.error_code`` enforced_spend_limit_reached (the tier's monthly
# cap) or contract_spend_limit_reached, which the Anthropic client quotes in its message.
# HTTP 402 (Payment Required: OpenRouter's "insufficient credits", Anthropic's
# billing_error) says the same whatever the words.
_SPEND_LIMIT = re.compile(
    r"spend_limit_reached|reached your specified (?:workspace )?API usage limits|credit balance is too low",
    re.IGNORECASE,
)

_MODEL_PATTERNS = re.compile(r"model .*(not found|does not exist)|no such model|unknown model|model_not_found", re.I)


def classify_status(status: int, message: str) -> ErrorKind:
    """The kind of a non-2xx answer."""
    if is_image_refusal(status, message):
        return ErrorKind.IMAGES_UNSUPPORTED
    if is_context_exceeded(status, message):
        return ErrorKind.CONTEXT_EXCEEDED
    if status == 402 or _SPEND_LIMIT.search(message or ""):
        return ErrorKind.SPEND_LIMIT
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
