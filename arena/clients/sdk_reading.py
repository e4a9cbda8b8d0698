"""What the model clients read from the vendors' SDKs and from the exceptions they raise:
an answer as an SDK type (`sdk_object`), the chain of causes an SDK wraps around the
transport's exception, a network failure in words that never quote an address."""

from __future__ import annotations

from typing import Any

import pydantic


class RedirectRefused(Exception):
    """A 3xx answer: the arena never follows one (every hop would need the guard)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def causes(exc: BaseException):
    """`exc` and the exceptions it was raised from (an SDK wraps the transport's)."""
    seen = 0
    while exc is not None and seen < 8:
        yield exc
        exc = exc.__cause__ or exc.__context__
        seen += 1


def sdk_object(model: type, data: dict) -> Any:
    """`data` as the SDK type `model` (a pydantic model of the openai or anthropic SDK).

    The SDKs' own reading (``parse()``) builds the object in pure Python without
    validating it: about 0.2 ms of CPU for a chat completion, as much as the rest of a
    step. pydantic's validator reads a well-formed answer into the same type twenty
    times faster; an answer a server left short of a required field (an id, a creation
    time: many OpenAI-compatible servers omit them) is built as the SDK builds it."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError:
        return model.construct(**data)


def network_problem(exc: Exception) -> str:
    """What went wrong on the network, without the address (an OS error message quotes
    the host and port it could not reach)."""
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    for words, said in (
        ("refused", "connection refused"),
        ("reset", "connection reset"),
        ("disconnect", "the server closed the connection without an answer"),
        ("without sending", "the server closed the connection without an answer"),
        ("closed", "the server closed the connection"),
        ("name or service", "the host name could not be resolved"),
        ("resolve", "the host name could not be resolved"),
        ("ssl", "the TLS handshake failed"),
        ("certificate", "the TLS certificate was refused"),
        ("unreachable", "the network is unreachable"),
    ):
        if words in lowered:
            return said
    return type(exc).__name__
