"""One episode on a clembench instance under clembench's game-master rules
(AdventureGame §3.2, §4.2):

- a reply must start with ">" (leading white space ignored, as the model backends strip
  replies), else the episode is aborted; only its first line is the command;
- the command goes through the parsing and resolution phases (`commands`, `world`);
- the goals are compared after every action that succeeded; once all of them held, the
  game counts as finished for good, even if a later action undoes one;
- after each turn the turn limit (the instance's `max_turns`, 50) is checked *before*
  "done": a "done" on the 50th turn ends the episode as aborted;
- "done" ends the episode: a success if the game was finished, else lost.

Pre-exploration commands are played before the first turn and are not counted.
"""

from __future__ import annotations

from envs.adventure.clem import commands, data, texts
from envs.adventure.clem.commands import ParseFailure
from envs.adventure.clem.world import World, fact_text
from envs.adventure.engine import PROMPT_SYMBOL, TurnRecord, first_line

ABORT_FORMAT = "aborted: reply did not start with >"


class ClemGame:
    def __init__(self, experiment: str, index: int):
        self.experiment = experiment
        self.index = index
        self.instance = data.instance(experiment, index)
        self.world = World(experiment, index)
        self.turn_limit = int(self.instance["max_turns"])
        self.turns: list[TurnRecord] = []
        self.preexploration: list[TurnRecord] = []
        self.finished = False
        self.all_goals_held = False
        self.outcome: str | None = None
        self.end_reason: str | None = None
        self.goals_achieved: list[tuple] = []
        self._last_goals: frozenset = frozenset()
        self._known = self.world.perceived()
        self.visited = {self.world.player_room()}  # rooms the player has been in

    # -- descriptions ------------------------------------------------------------------
    def room_description(self) -> str:
        return texts.room_description(self.world)

    # -- one command -------------------------------------------------------------------
    def execute(self, command: str, reply: str | None = None, turn: int | None = None) -> TurnRecord:
        world = self.world
        parsed = commands.parse(world, command)
        epistemic = pragmatic = False
        added: list = []
        removed: list = []
        if isinstance(parsed, ParseFailure):
            detail = dict(parsed.detail)
            if "entity" in detail:
                detail["entity_words"] = world.type_words(detail["entity"])
            success, action, failure = False, None, parsed.fail_type
            feedback = texts.parse_failure_text(parsed.fail_type, detail)
        else:
            definition = world.definitions.actions[parsed["type"]]
            epistemic, pragmatic = definition.epistemic, definition.pragmatic
            resolution = world.resolve(parsed)
            action = resolution.action
            if resolution.success:
                success, failure = True, None
                added, removed = resolution.added, resolution.removed
                feedback = texts.success_text(world, resolution, parsed)
                self._last_goals = world.goals_met()
            else:
                success, failure = False, resolution.fail_type
                feedback = texts.resolution_failure_text(resolution)
        gain, observed = self._track(removed, epistemic)
        self.visited.add(world.player_room())
        return TurnRecord(
            turn=len(self.turns) + 1 if turn is None else turn,
            reply=reply if reply is not None else f"{PROMPT_SYMBOL} {command}",
            command=command.strip(),
            action=action,
            success=success,
            failure=failure,
            feedback=feedback,
            removed=sorted([fact_text(f)] for f in removed if f),
            added=sorted([fact_text(f)] for f in added if f),
            observed=sorted([fact_text(f)] for f in observed),
            epistemic=epistemic,
            pragmatic=pragmatic,
            epistemic_gain=gain,
            goals_met=len(self._last_goals),
        )

    def _track(self, removed: list, epistemic: bool) -> tuple[int, set]:
        """clembench's exploration tracking: what the player has come to know, less the
        facts the action itself removed; an epistemic action's gain is what it added."""
        before = set(self._known)
        self._known |= self.world.perceived() - before
        for fact in removed:
            self._known.discard(fact)
        new = self._known - before
        return (len(new) if epistemic else 0), new

    # -- the protocol ------------------------------------------------------------------
    def preexplore(self, commands_: list[str]) -> list[TurnRecord]:
        for command in commands_:
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
            record = TurnRecord(len(self.turns) + 1, line, "", None, False, "format",
                                "The game is aborted: your reply did not start with >.",
                                [], [], [], False, False, 0, len(self._last_goals))
            self.turns.append(record)
            self._finish("aborted", ABORT_FORMAT)
            return record
        record = self.execute(line[len(PROMPT_SYMBOL):].strip(), reply=line)
        self.turns.append(record)
        if record.success and self._last_goals == self.world.goals:
            self.all_goals_held = True
        if len(self.turns) >= self.turn_limit:
            record.feedback += f" The game is over: the limit of {self.turn_limit} turns has been reached."
            self._finish("aborted", f"aborted: turn limit of {self.turn_limit} reached")
        elif record.success and record.action == "done":
            goals = len(self.world.goals)
            if self.all_goals_held:
                self._finish("success", f"success: all {goals} goals achieved")
            else:
                self._finish("lost", f"lost: {len(self._last_goals)} of {goals} goals achieved")
        return record

    def _finish(self, outcome: str, reason: str) -> None:
        self.finished = True
        self.outcome = outcome
        self.end_reason = reason
        self.goals_achieved = sorted(self._last_goals)
