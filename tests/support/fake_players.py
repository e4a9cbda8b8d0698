"""Fake model servers with scripted strength, for head-to-head matches.

Each answers from the legal moves listed in the first user message of the request
(arena.strategies.lmact's list after "legal"), so an answer after the illegal-move
feedback still knows the position's moves:

    "first"      always the first legal move listed
    "last"       always the last one
    "illegal"    never a legal move (it forfeits its first move after the retries)
    "recovering" an illegal answer first, then, after the feedback, the first legal move
    "expert"     at tic-tac-toe, LMAct's minimax expert's move for the grid in the prompt
                 (it never loses); elsewhere the first legal move
"""

from __future__ import annotations

import time
import re
from typing import Any

from envs.lmact import tictactoe

from tests.support.fake_openai import FakeOpenAIServer, legal_moves, message_text

STYLES = ("first", "last", "illegal", "recovering")
ALL_STYLES = STYLES + ("expert",)
# A row of LMAct's annotated tic-tac-toe grid: "b X . O".
_GRID_ROW = re.compile(r"^([abc]) ([XO.]) ([XO.]) ([XO.])$", re.M)


class ScriptedPlayer(FakeOpenAIServer):
    def __init__(self, style: str, answer_seconds: float = 0.0, **kwargs):
        if style not in ALL_STYLES:
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
        move = moves[0] if self.style in ("first", "recovering", "expert") else moves[-1]
        rows = _GRID_ROW.findall(users[0])
        if self.style == "expert" and len(rows) == 3:
            board = "".join(mark.lower() for _, *marks in rows for mark in marks)
            move = tictactoe.expert_move(board)
        return f"Reasoning: the {self.style} move listed.\nAction: {move}", f"{self.style}: thinking about {move}"

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        if text is None and isinstance(body, dict):
            text, reasoning = self._answer(body.get("messages", []))
            time.sleep(self.answer_seconds)
        return super().completion(body, text, reasoning)
