"""Small readers of OpenAI-style chat messages, which the non-OpenAI clients convert
into their own formats: a message's content as text or as parts, an image part's URL,
a base64 data: URL's media type and data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
