"""Who sits at a match's seats: a model (the submission's endpoint), or an anchor
baseline (random legal moves, or an engine: arena.matches.anchors).

A model is asked for a move with LMAct's zero-shot prompt (arena.strategies.lmact: the
same preamble, "Observation:" block, legal-action list, chain-of-thought request and
answer parsing), the board in LMAct's layout for the game (arena.matches.games). An
answer that is not a legal move is answered with feedback and asked again, up to
MAX_ATTEMPTS answers in all; then the seat forfeits (the rule of Kaggle's Game Arena).
The call goes through the project's client path: the submission's provider client,
reasoning settings and timeouts (arena.play.agents.model.make_client), and the endpoint's
gate, which keeps the submission's concurrency cap (arena.clients.limits).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random

from django.conf import settings

from arena.clients.base import ModelCallError
from arena.endpoints.privacy import hide_endpoint
from arena.models import Submission
from arena.play.agents.model import make_client
from arena.play.pace import submission_gate
from arena.strategies.lmact_prompt import LMActPrompter, build_prefix, parse_action, parse_reasoning
from arena.strategies.shape import MessageShape, adapt
from envs.core import Observation

from arena.matches.anchors import anchor_move
from arena.matches.catalogue import MAX_ATTEMPTS
from arena.matches.games import TwoPlayerGame

FEEDBACK_QUOTE_CHARS = 40

# Said after LMAct's zero-shot preamble: the game, the opponent, the side and the turn.
GAME_INTRO = "The game is {game}, against another player; you play {side}, and it is your turn.\n\n"
ILLEGAL_FEEDBACK = (
    "{answer} is not a legal move in this position. A legal move is {hint}. "
    "You have {left} more {attempts} for this move; after that you forfeit the game. "
    "Answer again in the same format."
)


class SeatFailed(Exception):
    """The seat's endpoint gave no answer after all its retries: the match cannot be
    scored (it fails; it is neither a win nor a loss). Carries the kind of failure and
    the seat, for what readers other than the seat's owner are told (arena.endpoints.public_errors)."""

    def __init__(self, message: str, kind: str = "", seat: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.seat = seat


@dataclasses.dataclass
class Attempt:
    messages_added: list
    completion: str = ""
    reasoning: str = ""
    parsed_action: str = ""
    legal: bool = False
    feedback: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    reasoning_tokens: int | None = None
    latency_ms: float | None = None


@dataclasses.dataclass
class MoveAnswer:
    """A seat's move: the move played (None: the seat forfeits), with every attempt."""

    action: str | None
    observation: str
    messages: list = dataclasses.field(default_factory=list)
    attempts: list[Attempt] = dataclasses.field(default_factory=list)

    def total(self, name: str):
        values = [getattr(a, name) for a in self.attempts if getattr(a, name) is not None]
        return sum(values) if values else None


class BaselineSeat:
    """A baseline at the seat: its engine or policy (arena.matches.anchors) chooses the
    move. Its dice are seeded by the match and the ply, so a resumed match plays on as
    it would have."""

    is_model = False

    def __init__(self, submission: Submission, match_key: str):
        self.submission = submission
        self.match_key = match_key
        self._engines: dict = {}

    def _choose(self, game: TwoPlayerGame) -> str:
        dice = random.Random(f"h2h/{self.match_key}/{self.submission.policy}:{game.plies}")
        return anchor_move(self.submission.policy, game, dice, self._engines)

    async def move(self, game: TwoPlayerGame, seat: int) -> MoveAnswer:
        observation = game.observation(seat)
        action = await asyncio.to_thread(self._choose, game)
        return MoveAnswer(action=action, observation=observation, attempts=[Attempt([], parsed_action=action, legal=True)])

    async def aclose(self) -> None:
        for engine in self._engines.values():
            engine.close()


class ModelSeat:
    is_model = True

    def __init__(self, submission: Submission, client=None):
        self.submission = submission
        self.client = client or make_client(submission)
        self.shape = MessageShape.from_probe(submission.endpoint_probe)
        self.prompter = LMActPrompter(
            show_legal_actions=submission.show_legal_actions,
            chain_of_thought=submission.chain_of_thought,
            images=None,
            demonstrations=False,
        )

    def prompt(self, game: TwoPlayerGame, seat: int, legal: list[str]) -> tuple[str, str]:
        """The move's prompt and the observation in it."""
        observation = game.observation(seat)
        intro = GAME_INTRO.format(game=game.title, side=game.seat_names[seat])
        parts = build_prefix([], None) + [{"type": "text", "text": intro}]
        parts += self.prompter.trajectory_parts(0, Observation(text=observation), None)
        parts += self.prompter.tail_parts(legal)
        body = "".join(part["text"] for part in parts)
        return body, observation

    async def _call(self, messages: list[dict], seat: int):
        gate = submission_gate(self.submission)
        sent, _ = adapt(messages, self.shape)

        async def send():
            return await self.client.complete(sent)

        try:
            return await gate.call(self.client, send, settings.ARENA_MODEL_TIMEOUT_SECONDS)
        except ModelCallError as exc:
            raise SeatFailed(hide_endpoint(str(exc), self.submission.base_url), exc.kind or "", seat) from None

    async def move(self, game: TwoPlayerGame, seat: int) -> MoveAnswer:
        legal = list(game.legal_moves())
        text, observation = self.prompt(game, seat, legal)
        messages = [{"role": "user", "content": text}]
        answer = MoveAnswer(action=None, observation=observation, messages=list(messages))
        added = list(messages)
        for number in range(1, MAX_ATTEMPTS + 1):
            reply = await self._call(messages, seat)
            parsed = parse_action(reply.text, legal)
            attempt = Attempt(
                messages_added=added,
                completion=reply.text,
                reasoning=reply.reasoning or parse_reasoning(reply.text),
                parsed_action=parsed or "",
                legal=parsed in legal,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                reasoning_tokens=reply.reasoning_tokens,
                latency_ms=reply.latency_ms,
            )
            answer.attempts.append(attempt)
            if attempt.legal:
                answer.action = parsed
                return answer
            left = MAX_ATTEMPTS - number
            # The feedback quotes a short answer; a long one (a whole paragraph after
            # "Action:") is named, not repeated.
            shown = repr(parsed) if parsed and len(parsed) <= FEEDBACK_QUOTE_CHARS else "Your answer"
            attempt.feedback = ILLEGAL_FEEDBACK.format(
                answer=shown, hint=game.answer_hint(), left=left, attempts="attempt" if left == 1 else "attempts"
            ) if left else ""
            added = [{"role": "assistant", "content": reply.text}, {"role": "user", "content": attempt.feedback}]
            messages = messages + added
        return answer

    async def aclose(self) -> None:
        await self.client.aclose()


def seat_for(submission: Submission, match_key: str):
    if submission.is_baseline:
        return BaselineSeat(submission, match_key)
    return ModelSeat(submission)
