"""The shape of the messages an endpoint accepts, and the adaptation of a prompt to it.

The strategies build the faithful conversation of their paper: a system message where
the protocol has one, two user messages in a row where it has them (BALROG §3 puts the
instructions and the first observation in separate user turns), text as a plain string
unless an image goes with it. Not every server takes all of that: llama-cpp-python's
server and any chat template that adds strings to `message['content']` refuse content
parts; Gemma's official template has no system role and, like Mistral's, raises on two
consecutive messages of one role. The probe (arena.probe.run) finds out, with one
one-token request each, and stores the findings with the submission.

`adapt` turns the strategy's messages into the ones sent:

* the system text is folded into the first user message (ahead of it, a blank line
  between) when the endpoint refuses a system message;
* consecutive messages of one role are merged into one (a blank line between texts),
  BALROG's `alternate_roles` client option, when the endpoint refuses them.

What it did is recorded on the step (`Adaptation.record`), and `apply_record` does the
same to the messages rebuilt from the stored steps: the replay shows what was sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# Between the texts that folding or merging joins into one message.
JOINER = "\n\n"


@dataclasses.dataclass(frozen=True)
class MessageShape:
    """What the probe found; None where it could not tell (the faithful shape is then
    sent, as before the probe asked)."""

    content_parts: bool | None = None
    system_role: bool | None = None
    consecutive_roles: bool | None = None

    @classmethod
    def from_probe(cls, probe: dict | None) -> MessageShape:
        found = (probe or {}).get("message_shape") or {}
        return cls(**{field.name: found.get(field.name) for field in dataclasses.fields(cls)})

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def fold_system(self) -> bool:
        return self.system_role is False

    @property
    def merge_roles(self) -> bool:
        return self.consecutive_roles is False


def adapt(messages: list[dict], shape: MessageShape) -> tuple[list[dict], dict | None]:
    """The messages to send to an endpoint of this shape, and what was changed (None
    when nothing was: the record is only stored on steps that were adapted)."""
    return _adapted(messages, fold_system=shape.fold_system, merge_roles=shape.merge_roles)


def adaptation(messages: list[dict], shape: MessageShape) -> dict | None:
    """`adapt`'s record alone: None at once for a shape that changes nothing (most
    endpoints), without copying the messages to find that out."""
    if not (shape.fold_system or shape.merge_roles):
        return None
    return adapt(messages, shape)[1]


def apply_record(messages: list[dict], record: dict | None) -> list[dict]:
    """The messages as sent, from the ones a strategy rebuilt and the step's record."""
    if not record:
        return messages
    adapted, _ = _adapted(messages, fold_system=bool(record.get("system_folded")),
                          merge_roles=bool(record.get("merged")))
    return adapted


def _adapted(messages: list[dict], *, fold_system: bool, merge_roles: bool) -> tuple[list[dict], dict | None]:
    record: dict = {}
    result = [dict(message) for message in messages]
    if fold_system:
        system = [m for m in result if m["role"] == "system"]
        if system:
            result = [m for m in result if m["role"] != "system"]
            text = JOINER.join(_text_of(m["content"]) for m in system)
            first_user = next((m for m in result if m["role"] == "user"), None)
            if first_user is None:
                result.insert(0, {"role": "user", "content": text})
            else:
                first_user["content"] = _joined(text, first_user["content"])
            record["system_folded"] = True
    if merge_roles:
        merged: list[dict] = []
        count = 0
        for message in result:
            if merged and merged[-1]["role"] == message["role"]:
                merged[-1]["content"] = _joined(merged[-1]["content"], message["content"])
                count += 1
            else:
                merged.append(message)
        if count:
            record["merged"] = count
            result = merged
    return result, (record or None)


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def _joined(first, second):
    """Two message contents as one, a blank line between: a string when both are
    strings, else content parts with neighbouring texts joined."""
    if isinstance(first, str) and isinstance(second, str):
        return first + JOINER + second
    joined: list[dict] = []
    for part in [*_as_parts(first), {"type": "text", "text": JOINER}, *_as_parts(second)]:
        if part.get("type") == "text" and joined and joined[-1].get("type") == "text":
            joined[-1] = {**joined[-1], "text": joined[-1]["text"] + part["text"]}
        else:
            joined.append(part)
    return joined


def _as_parts(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [dict(part) for part in content]
