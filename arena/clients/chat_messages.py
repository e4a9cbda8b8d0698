"""Small readers of OpenAI-style chat messages, which the non-OpenAI clients convert
into their own formats: a message's content as text or as parts, the system text apart
from the turns, parts converted by kind, an image part's URL, a base64 data: URL's
media type and data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Converted = TypeVar("Converted")


def content_text(content: Any) -> str | None:
    """A message's content as text: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def content_parts(content: Any) -> list[dict]:
    """A message's content as a list of OpenAI-style parts (a string becomes one
    text part). Raises ValueError for anything else."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        return content
    if content is None:
        return []
    raise ValueError("message content must be a string or a list of parts")


def image_url_of(part: Mapping) -> str:
    """The URL of an ``image_url`` part (either ``{"url": ...}`` or a bare string)."""
    value = part.get("image_url")
    url = value.get("url") if isinstance(value, dict) else value
    if not isinstance(url, str) or not url:
        raise ValueError("an image_url part has no URL")
    return url


def split_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 data) of a ``data:<type>;base64,<data>`` URL; None if `url`
    is not a data URL. ValueError for a data URL that is not base64."""
    if not url.startswith("data:"):
        return None
    header, sep, data = url[5:].partition(",")
    if not sep:
        raise ValueError("a data: URL without a comma")
    fields = header.split(";")
    if "base64" not in (field.strip().lower() for field in fields[1:]):
        raise ValueError("only base64 data: URLs are supported for images")
    media_type = fields[0].strip().lower() or "application/octet-stream"
    return media_type, data.strip()


def plain_text(parts: list[dict], role: str) -> str:
    """The text of a message that may hold only text parts (a system message)."""
    if any(part.get("type") not in (None, "text") for part in parts):
        raise ValueError(f"a {role} message can only contain text parts")
    return "".join(part["text"] for part in parts if isinstance(part.get("text"), str))


def system_and_turns(messages: list[dict]) -> tuple[str, list[tuple[str, list[dict]]]]:
    """(the system text, each user or assistant message as (role, its parts)) of
    OpenAI-style chat messages, for the providers that take the system text apart from
    the conversation (Anthropic, Gemini). System and developer messages are joined by a
    blank line. ValueError for a message or role the conversion does not know."""
    system: list[str] = []
    turns: list[tuple[str, list[dict]]] = []
    for message in messages:
        if not isinstance(message, dict):
            raise ValueError("each message must be an object")
        role = message.get("role")
        parts = content_parts(message.get("content"))
        if role in ("system", "developer"):
            text = plain_text(parts, "system")
            if text:
                system.append(text)
        elif role in ("user", "assistant"):
            turns.append((role, parts))
        else:
            raise ValueError(f"unsupported message role {role!r}")
    return "\n\n".join(system), turns


def convert_parts(
    parts: list[dict], text: Callable[[str], Converted], image: Callable[[str], Converted]
) -> list[Converted]:
    """Each part in a provider's form: `text(its text)` for a text part (an empty one is
    left out: the providers refuse empty text), `image(its URL)` for an image part.
    ValueError for any other part."""
    converted: list[Converted] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text":
            value = part.get("text")
            if not isinstance(value, str):
                raise ValueError("a text part has no text")
            if value:
                converted.append(text(value))
        elif kind == "image_url":
            converted.append(image(image_url_of(part)))
        else:
            raise ValueError(f"unsupported content part type {kind!r}")
    return converted
