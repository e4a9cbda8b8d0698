"""The interpreter and the game protocol (AdventureGame §3.2).

`Game.execute(command_text)` runs one command (no protocol): parse, resolve, update
the state, write the feedback, and record the turn. `Game.reply(reply_text)` applies
the protocol around it:

- the reply, after leading whitespace, must start with ">" — otherwise the episode
  is aborted;
- only the first line of the reply is the command;
- the player has `TURN_LIMIT` (50) turns; a turn that reaches the limit without
  ending the game aborts the episode;
- "done" ends the episode; the goal facts are evaluated then, and only then (an
  aborted episode is evaluated in its final state, for the goal success rate).

Every turn is recorded: the reply, the command, the facts removed and added, the
facts the player newly observed, the failure if any, the action's epistemic and
pragmatic labels (Table 5) and its epistemic gain (the number of newly observed facts
that the action did not itself create).
"""

from __future__ import annotations

import dataclasses

from envs.adventure import feedback
from envs.adventure.actions import action_type, resolve
from envs.adventure.facts import Fact, View, World, facts_to_lists, perceived
from envs.adventure.parser import ParseFailure, parse

TURN_LIMIT = 50
PROMPT_SYMBOL = ">"
ABORT_FORMAT = "aborted: reply did not start with >"
ABORT_TURNS = f"aborted: turn limit of {TURN_LIMIT} reached"
NOTHING: frozenset = frozenset()


@dataclasses.dataclass
class TurnRecord:
    turn: int  # 1-based; pre-exploration turns are numbered 0
    reply: str  # the first line of the reply as received
    command: str  # the command after ">", whitespace trimmed
    action: str | None  # resolved action id, None if the command did not parse
    success: bool
    failure: str | None
    feedback: str
    removed: list[list[str]]
    added: list[list[str]]
    observed: list[list[str]]  # newly observed facts
    epistemic: bool
    pragmatic: bool
    epistemic_gain: int
    goals_met: int  # goal facts that hold after the turn (for the record only)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def first_line(reply: str) -> str:
    stripped = reply.lstrip()
    return stripped.split("\n", 1)[0].rstrip("\r").strip()


class Game:
    def __init__(self, world: World, turn_limit: int = TURN_LIMIT):
        self.world = world
        self.turn_limit = turn_limit
        self.state = world.initial
        self.known: frozenset[Fact] = perceived(world, self.state)
        self.turns: list[TurnRecord] = []
        self.preexploration: list[TurnRecord] = []
        self.finished = False
        self.outcome: str | None = None  # "success" | "lost" | "aborted"
        self.end_reason: str | None = None
        self.goals_achieved: list[Fact] = []

    # -- reading the state -------------------------------------------------------------
    @property
    def view(self) -> View:
        return View(self.world, self.state)

    def room_description(self) -> str:
        return feedback.describe_room(self.world, self.view)

    # -- one command -------------------------------------------------------------------
    def execute(self, command: str, reply: str | None = None, turn: int | None = None) -> TurnRecord:
        if self.finished:
            raise RuntimeError("the game is over")
        world = self.world
        parsed = parse(world, command)
        if isinstance(parsed, ParseFailure):
            text = feedback.failure_text(world, parsed.failure, parsed.detail)
            return self._record(turn, reply, command, None, False, parsed.failure, text, NOTHING, NOTHING)
        before_state = self.state
        outcome = resolve(world, before_state, parsed, self.known)
        if not outcome.success:
            text = feedback.failure_text(world, outcome.failure, outcome.detail)
            return self._record(turn, reply, command, parsed.action, False, outcome.failure, text, NOTHING, NOTHING)
        after_state = outcome.apply(before_state)
        text = feedback.success_text(
            world, View(world, before_state), View(world, after_state), outcome.action, outcome.args, outcome.prep
        )
        self.state = after_state
        return self._record(turn, reply, command, outcome.action, True, None, text, outcome.removed, outcome.added)

    def _record(self, turn, reply, command, action, success, failure, text, removed, added) -> TurnRecord:
        now_perceived = perceived(self.world, self.state)
        observed = now_perceived - self.known
        self.known = self.known | now_perceived
        gain = len(observed - added)
        kind = action_type(action) if action else None
        record = TurnRecord(
            turn=len(self.turns) + 1 if turn is None else turn,
            reply=reply if reply is not None else f"{PROMPT_SYMBOL} {command}",
            command=command.strip(),
            action=action,
            success=success,
            failure=failure,
            feedback=text,
            removed=facts_to_lists(removed),
            added=facts_to_lists(added),
            observed=facts_to_lists(observed),
            epistemic=bool(kind and kind.epistemic),
            pragmatic=bool(kind and kind.pragmatic),
            epistemic_gain=gain,
            goals_met=len(self.world.goal_facts_met(self.state)),
        )
        return record

    # -- the protocol ------------------------------------------------------------------
    def preexplore(self, commands: list[str]) -> list[TurnRecord]:
        """Play commands as if the player had typed them before the game proper
        (§4.1.3); they do not count towards the turn limit."""
        for command in commands:
            record = self.execute(command, turn=0)
            if not record.success:
                raise ValueError(f"pre-exploration command {command!r} failed: {record.feedback}")
            self.preexploration.append(record)
        return self.preexploration

    def reply(self, reply_text: str) -> TurnRecord:
        if self.finished:
            raise RuntimeError("the game is over")
        line = first_line(reply_text)
        if not line.startswith(PROMPT_SYMBOL):
            text = "The game is aborted: your reply did not start with >."
            record = self._record(None, line, "", None, False, "format", text, NOTHING, NOTHING)
            self.turns.append(record)
            self._finish("aborted", ABORT_FORMAT)
            return record
        command = line[len(PROMPT_SYMBOL):].strip()
        record = self.execute(command, reply=line)
        self.turns.append(record)
        if record.success and record.action == "done":
            met = self._finish_by_done()
            record.goals_met = met
        elif len(self.turns) >= self.turn_limit:
            record.feedback += f" The game is over: the limit of {self.turn_limit} turns has been reached."
            self._finish("aborted", f"aborted: turn limit of {self.turn_limit} reached")
        return record

    def _finish_by_done(self) -> int:
        goals = self.world.goals
        achieved = self.world.goal_facts_met(self.state)
        if len(achieved) == len(goals):
            self._finish("success", f"success: all {len(goals)} goals achieved")
        else:
            self._finish("lost", f"lost: {len(achieved)} of {len(goals)} goals achieved")
        return len(achieved)

    def _finish(self, outcome: str, reason: str) -> None:
        self.finished = True
        self.outcome = outcome
        self.end_reason = reason
        # Goals count as they stand when the episode ends, never as they were before.
        self.goals_achieved = self.world.goal_facts_met(self.state)
