"""Recorded vendor exchanges (tests/arena/clients/recorded) and the client the runner
would build for them.

`recording(name)` loads one file of recorded exchanges; `replies(...)` picks the
responses a ReplayServer plays back; `runner_client(...)` builds the model client the way
the runner does (arena.play.agents.model.make_client, from a submission's fields), pointed at
the replay server; `shape(value)` is a JSON value's structure (keys and types, no
values), to compare the arena's requests with the recorded ones; `camel(value)` its
keys as Gemini's protobuf JSON reads them either way.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from arena.models import Submission
from arena.play.agents.model import make_client

RECORDED = pathlib.Path(__file__).resolve().parents[1] / "arena" / "clients" / "recorded"
KEY = "sk-recorded-replay-0123456789abcdef"


def recording(name: str) -> dict:
    """The recorded exchanges in ``recorded/<name>.json`` (with their ``source``)."""
    return json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))


def exchange(name: str, index: int = 0) -> dict:
    return recording(name)["exchanges"][index]


def replies(name: str, *indexes: int) -> list[dict]:
    """The recorded responses of `name` (all of them, or those at `indexes`)."""
    exchanges = recording(name)["exchanges"]
    chosen = [exchanges[i] for i in indexes] if indexes else exchanges
    return [e["response"] for e in chosen]


def runner_client(provider: str, base_url: str, model: str, *, max_tokens: int = 2048,
                  temperature: float = 0.0, reasoning_effort: str = "",
                  thinking_budget_tokens: int | None = None):
    """The client arena.play.agents.model.make_client builds for a submission with these
    fields (nothing is saved). Loopback must be allowed (the `allow_loopback` fixture)."""
    submission = Submission(
        name="Recorded replay", provider=provider, base_url=base_url, model=model,
        max_tokens=max_tokens, temperature=temperature, reasoning_effort=reasoning_effort,
        thinking_budget_tokens=thinking_budget_tokens,
    )
    submission.set_api_key(KEY)
    return make_client(submission)


def shape(value: Any) -> Any:
    """`value`'s structure: objects keep their keys, lists the shapes of their items
    (each distinct shape once, in order), everything else becomes its JSON type name."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        shapes: list = []
        for item in value:
            item_shape = shape(item)
            if item_shape not in shapes:
                shapes.append(item_shape)
        return shapes
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "string"


def camel(value: Any) -> Any:
    """`value` with every snake_case key in lowerCamelCase. Gemini's API reads JSON by
    protobuf's mapping, which takes a field by either name ("mime_type" or "mimeType"),
    and its SDK sends some of each: a request is compared by meaning, not spelling."""
    if isinstance(value, dict):
        return {_camel_key(key): camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


# A 1x1 PNG, as the strategies send pictures: a base64 data URL in an image_url part.
PNG_DATA_URL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def image_question(text: str, system: str | None = None) -> list[dict]:
    """Chat messages as the arena's strategies build them: an optional system message,
    then one user message with a text part and an image part."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
    ]})
    return messages
