"""Fake model servers with scripted strength, for head-to-head matches.

Each answers from the legal moves listed in the first user message of the request
(arena.strategies.lmact's list after "legal"), so an answer after the illegal-move
feedback still knows the position's moves:

    "first"      always the first legal move listed
    "last"       always the last one
    "illegal"    never a legal move (it forfeits its first move after the retries)
    "recovering" an illegal answer first, then, after the feedback, the first legal move
"""

from __future__ import annotations

import time
from typing import Any

from tests.support.fake_openai import FakeOpenAIServer, legal_moves, message_text

STYLES = ("first", "last", "illegal", "recovering")


class ScriptedPlayer(FakeOpenAIServer):
    def __init__(self, style: str, answer_seconds: float = 0.0, **kwargs):
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}")
        super().__init__(**kwargs)
        self.style = style
        # A model that takes its time: a match stays live long enough to be watched.
        self.answer_seconds = answer_seconds

    def _answer(self, messages: list[dict]) -> tuple[str, str]:
        users = [message_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        moves = legal_moves(users[0]) if users else []
        if self.style == "illegal" or (self.style == "recovering" and len(users) == 1) or not moves:
            return "Action: Zz9", f"{self.style}: I will try a move that does not exist."
        move = moves[0] if self.style in ("first", "recovering") else moves[-1]
        return f"Reasoning: the {self.style} move listed.\nAction: {move}", f"{self.style}: thinking about {move}"

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        if text is None and isinstance(body, dict):
            text, reasoning = self._answer(body.get("messages", []))
            time.sleep(self.answer_seconds)
        return super().completion(body, text, reasoning)
