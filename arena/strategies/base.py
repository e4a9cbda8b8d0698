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
from typing import Protocol

from arena.strategies.context import ContextBudget, Prompt


class ImageStore(Protocol):
    """Where a strategy's images live (arena.play.runner keeps one per episode): each
    observation's image is stored once as a PNG named by its SHA-256, which prompt parts
    refer to, and its bytes are handed back for the data URL sent to the model."""

    def sha(self, observation) -> str:
        """Store the observation's image (a live frame, or a pool observation's PNG) and
        return the PNG's SHA-256."""

    def png(self, sha: str) -> bytes:
        """The bytes of the PNG stored under `sha`."""


class Strategy(Protocol):
    """How one episode's prompts are built and its completions read."""

    # What `messages` leaves out first when the prompt outgrows the context window.
    dropped_unit: str
    # Set when fewer demonstrations went into the prompt than the run asked for.
    demonstrations_capped: dict | None

    def begin(self, task, observation, images: ImageStore) -> tuple[list, list[int]]:
        """Assemble the frozen prefix; returns it and the demonstrations' seeds. `images`
        stores the episode's images and serves their bytes for the rest of it."""

    def prepare(self, index: int, observation, previous_action: str | None, legal: Sequence[str]) -> list:
        """What step `index` adds to the prompt (stored on the step)."""

    def messages(self, prompt_added: list, budget: ContextBudget | None = None) -> Prompt:
        """The messages of the current step, fitted to `budget`."""

    def parse(self, completion: str) -> tuple[str | None, str]:
        """The action text and the reasoning in a completion."""

    def record(self, completion: str, action: str | None) -> None:
        """Learn the reply (strategies whose prompt holds earlier replies)."""

    def forced_action(self, index: int) -> str | None:
        """Teacher forcing (LMAct replay control): the action to execute instead."""

    def conversation(self) -> list[dict] | None:
        """Every turn so far, for Reflexion; None where the protocol has no turns."""


class ContentConverter:
    """Prompt parts → OpenAI-style content parts; images become data URLs, encoded once
    from the bytes `images` holds."""

    def __init__(self, images: ImageStore):
        self._images = images
        self._data_urls: dict[str, str] = {}

    def convert(self, parts: Sequence[dict]) -> list[dict]:
        content = []
        for part in parts:
            if part["type"] == "text":
                content.append({"type": "text", "text": part["text"]})
            else:
                sha = part["sha"]
                if sha not in self._data_urls:
                    self._data_urls[sha] = "data:image/png;base64," + base64.b64encode(self._images.png(sha)).decode()
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
