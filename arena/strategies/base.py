"""What every prompting strategy provides, and the shared part → message conversion.

A strategy owns one episode's prompt: `begin` assembles the frozen prefix once,
`prepare` returns what a step adds (stored on the step as `prompt_added`), `messages`
turns the prompt into chat messages for the client, `parse` turns the completion into
the action text handed to the task, and `record` learns the reply (for strategies whose
prompt includes earlier replies).

Prompt parts are JSON-able dicts: {"type": "text", "text"} or {"type": "image", "sha"},
with an optional "section" saying where they belong.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from arena.images import read_png


class ContentConverter:
    """Prompt parts → OpenAI-style content parts; images become data URLs, encoded once."""

    def __init__(self):
        self._data_urls: dict[str, str] = {}

    def convert(self, parts: Sequence[dict]) -> list[dict]:
        content = []
        for part in parts:
            if part["type"] == "text":
                content.append({"type": "text", "text": part["text"]})
            else:
                sha = part["sha"]
                if sha not in self._data_urls:
                    self._data_urls[sha] = "data:image/png;base64," + base64.b64encode(read_png(sha)).decode()
                content.append({"type": "image_url", "image_url": {"url": self._data_urls[sha]}})
        return content


def as_message_content(content: list[dict]):
    """A plain string when there are no images (every server accepts it), else parts
    with neighbouring text merged."""
    if all(part["type"] == "text" for part in content):
        return "".join(part["text"] for part in content)
    merged: list[dict] = []
    for part in content:
        if part["type"] == "text" and merged and merged[-1]["type"] == "text":
            merged[-1] = {"type": "text", "text": merged[-1]["text"] + part["text"]}
        else:
            merged.append(part)
    return merged
