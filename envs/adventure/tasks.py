"""The nine AdventureGame experiments as arena tasks (AdventureGame §3–4).

`reset(seed)` plays instance `seed % 16` of the experiment, so seeds 0–15 cover its 16
instances and larger seeds repeat them. By default (setting `instances`, "clembench")
the instances are clembench's own 144 paper instances, played by clembench's rules
(`envs.adventure.clem`); "arena" plays this project's generated worlds
(fixtures/adventure/instances.json) with its own engine instead — easier worlds, one
verb per action, `put` only from the inventory — kept as a labelled option. The game is free text: the model's whole reply goes to
`step`, which reads only its first line and aborts the episode unless it starts with
">". `instructions` (set by `reset`) is the system prompt with the instance's goal;
the first observation is the description of the starting room, followed, in the
pre-exploration experiments, by the injected `go` turns and their feedback (also
available as chat turns from `initial_messages()`). Each later observation is the
game's feedback to the last command.
"""

from __future__ import annotations

from typing import ClassVar

from envs.adventure import fixture, prompts
from envs.adventure.clem import data as clem_data
from envs.adventure.clem import play as clem_play
from envs.adventure.clem.game import ClemGame
from envs.adventure.actions import command_text
from envs.adventure.baselines import BASELINES
from envs.adventure.engine import PROMPT_SYMBOL, TURN_LIMIT, Game, first_line
from envs.adventure.facts import View, World
from envs.adventure.generator import INSTANCES_PER_EXPERIMENT
from envs.adventure.metrics import episode_metrics
from envs.adventure.planner import plan
from envs.core import Observation, StepResult, Task


def well_formed_commands(world: World, state) -> list[str]:
    """Commands that make sense in the current room (not all of them succeed): the
    candidates of the random baseline. Without the leading ">"."""
    view = View(world, state)
    here = view.player_room
    things = sorted(view.things_here(), key=world.name)
    floor = view.floor_here()
    exits = sorted(world.neighbours(here), key=world.name)
    commands = [command_text(world, "go", (room,)) for room in exits]
    for entity in things:
        if world.is_("movable", entity):
            commands.append(command_text(world, "take", (entity,)))
    receptacles = [e for e in things if world.is_("receptacle", e)] + ([floor] if floor else [])
    for carried in view.inventory:
        for target in receptacles:
            prep = "in" if world.is_("container", target) else "on"
            commands.append(command_text(world, "put", (carried, target), prep))
    for entity in things:
        if world.is_("container", entity):
            commands.append(command_text(world, "open" if entity in view.closed else "close", (entity,)))
    for entity in things + view.inventory:
        kind = world.kind_of.get(entity)
        for verb in sorted(world.kinds.get(kind, {})) if kind else ():
            commands.append(command_text(world, verb, (entity,)))
    for entity in things + view.inventory:
        commands.append(command_text(world, "examine", (entity,)))
    commands.append(command_text(world, "examine", ("inventory",)))
    commands.append(command_text(world, "look"))
    commands.append(command_text(world, "done"))
    return commands


def _goal_words(world, goal) -> str:
    """("on", "peach", "chair") -> "peach on chair"."""
    predicate, *terms = goal
    names = [world.name(term) if term in world.names else term for term in terms]
    return f"{names[0]} {predicate} {' '.join(names[1:])}" if len(names) >= 2 else " ".join([predicate, *names])


INSTANCE_SOURCES = ("clembench", "arena")


class AdventureTask(Task):
    score_range = (0.0, 1.0)
    baselines = BASELINES
    # one episode per instance
    baseline_episodes = INSTANCES_PER_EXPERIMENT
    # clembench shows no command list (it would give the made-up words away) and keeps
    # the whole conversation (AdventureGame §3.2).
    chat_show_legal_actions = False
    chat_history_window = TURN_LIMIT + 10
    # Which instances are played: clembench's paper instances under clembench's rules
    # (the paper's protocol), or this project's generated worlds and engine.
    settings: ClassVar[dict[str, tuple]] = {"instances": INSTANCE_SOURCES}
    experiment: ClassVar[str]  # the spec row's game parameter: "basic-easy", …

    @classmethod
    def for_spec(cls, spec) -> type[AdventureTask]:
        """One experiment (AdventureGame §4.1): its description and clembench's prompt
        template come with it."""
        task_cls = super().for_spec(spec)
        task_cls.description = _COMMON + _DETAILS[task_cls.experiment]
        task_cls.instructions = clem_play.template_text(task_cls.experiment)
        return task_cls

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self.game: Game | ClemGame | None = None
        self.instance_source = INSTANCE_SOURCES[0]
        self._plan: list[str] | None = None

    def configure(self, **options) -> None:
        super().configure(**options)
        if "instances" in options:
            self.instance_source = options["instances"]

    @property
    def clembench(self) -> bool:
        return self.instance_source == "clembench"

    # -- protocol ----------------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.seed = seed
        self.index = seed % INSTANCES_PER_EXPERIMENT
        self._plan = None
        if self.clembench:
            self.instance = clem_data.instance(self.experiment, self.index)
            self.game = ClemGame(self.experiment, self.index)
            self.initial_room = self.game.room_description()
            # The paper's pre-exploration (§4.1.3): the instance's own `visiting_commands`,
            # played as earlier turns that do not count.
            if self.experiment.startswith("preexplore"):
                self.game.preexplore(self.instance["visiting_commands"])
            self.instructions = clem_play.instructions(self.instance)
            return Observation(text=self.initial_observation_text())
        self.instance = fixture.instances(self.experiment)[self.index]
        self.world = fixture.world(self.experiment, self.index)
        self.game = Game(self.world)
        self.initial_room = self.game.room_description()
        self.game.preexplore(self.instance["preexploration"])
        self._visited = {record_room for record_room in self._rooms_seen_in_preexploration()}
        self.instructions = prompts.instructions(self.experiment, self.instance["goal"], self.instance["new_words"])
        return Observation(text=self.initial_observation_text())

    def _step(self, action_text: str) -> StepResult:
        game = self._game()
        record = game.reply(action_text or "")
        info = {"turn": record.to_json(), **self.state_info()}
        if game.finished:
            info["metrics"] = self.episode_metrics()
        # The game's own 50-turn rule (AdventureGame §3.2) aborts the episode, which then
        # counts as not played; it coincides with the step limit, and is reported as a
        # truncation like it.
        turn_limit = game.end_reason is not None and game.end_reason.startswith("aborted: turn limit")
        return StepResult(
            observation=Observation(text=record.feedback),
            reward=1.0 if game.outcome == "success" else 0.0,
            terminated=game.finished and not turn_limit,
            truncated=turn_limit,
            legal=record.success,
            executed_action=record.reply,
            end_reason=game.end_reason,
            info=info,
        )

    def _rooms_seen_in_preexploration(self) -> set[str]:
        # The starting room and every room the injected pre-exploration walked through.
        game = self._game()
        rooms = {game.view.player_room}
        state = game.world.initial
        for fact in state:
            if fact[0] == "at" and fact[1] == "player":
                rooms.add(fact[2])
        for record in game.preexploration:
            for fact in record.to_json().get("added", []):
                if fact and fact[0] == "at" and fact[1] == "player":
                    rooms.add(fact[2])
        return rooms

    def state_info(self) -> dict:
        """What the replay page shows beside the transcript: the current room, the
        inventory, each goal and whether it holds now, and the rooms seen so far with
        the passages between them (a small map)."""
        game = self._game()
        if self.clembench:
            return clem_play.state_info(game)
        world, view = game.world, game.view
        self._visited.add(view.player_room)
        met = set(world.goal_facts_met(game.state))
        return {
            "room": world.name(view.player_room),
            "inventory": [world.name(entity) for entity in view.inventory],
            "goals": [
                {"text": _goal_words(world, goal), "achieved": goal in met}
                for goal in world.goals
            ],
            "visited": sorted(world.name(room) for room in self._visited),
            "passages": sorted(
                [world.name(a), world.name(b)] for a, b in world.exits if a < b and a in self._visited and b in self._visited
            ),
        }

    def legal_actions(self) -> list[str]:
        """No list is part of the game (the player models the action space itself,
        §3.2); this is a list of well-formed commands for the random baseline."""
        game = self._game()
        if game.finished:
            return []
        if self.clembench:
            return [f"{PROMPT_SYMBOL} {text}" for text, _ in clem_play.candidate_commands(game.world)]
        return [f"{PROMPT_SYMBOL} {c}" for c in well_formed_commands(self.world, game.state)]

    def initial_state_key(self) -> str:
        self._game()
        return f"{self.id}#{self.index}"

    def expert_action(self) -> str:
        """The next command of an optimal solution, then "done". On clembench's
        instances: the stored solution (the instance's own where it wins under clembench's
        rules, else a shortest one found by search); after any deviation, a new plan from
        the current state. On the arena's worlds: the instance's solution, replanned likewise."""
        game = self._game()
        done_so_far = [t.command for t in game.turns]
        if self.clembench:
            if self._plan is None or done_so_far != self._plan[: len(done_so_far)]:
                self._plan = done_so_far + self._clem_plan(game)
            following = self._plan[len(done_so_far)] if len(done_so_far) < len(self._plan) else "done"
            return f"{PROMPT_SYMBOL} {following}"
        path = self.instance["optimal_commands"]
        if done_so_far == path[: len(done_so_far)] and len(done_so_far) < len(path):
            return f"{PROMPT_SYMBOL} {path[len(done_so_far)]}"
        return f"{PROMPT_SYMBOL} {plan(self.world, game.state)[0]}"

    def _clem_plan(self, game: ClemGame) -> list[str]:
        if not game.turns:
            return clem_data.oracle_plan(self.experiment, self.index)
        return clem_play.plan(game.world)

    def episode_metrics(self) -> dict:
        game = self._game()
        if self.clembench:
            # clembench's optimal number of turns counts the solution's commands, not "done"
            return episode_metrics(game, self.experiment, self.index, int(self.instance["optimal_turns"]))
        commands = self.instance["optimal_commands"]
        optimal = len(commands) - (1 if commands and commands[-1] == "done" else 0)
        return episode_metrics(game, self.experiment, self.index, optimal)

    @classmethod
    def extract_action(cls, completion: str) -> str | None:
        """The reply's first line, the only one the game reads (AdventureGame §3.2: a
        command on a line starting with ">"); `step` checks the ">" itself. What follows
        it (a model's explanations) is not the action."""
        return first_line(completion)

    # -- prompts -----------------------------------------------------------------------
    def initial_observation_text(self) -> str:
        parts = [self.initial_room]
        for record in self._game().preexploration:
            parts.append(f"{record.reply}\n{record.feedback}")
        return "\n\n".join(parts)

    def initial_messages(self) -> list[dict]:
        """The start of the conversation as chat turns: the instructions with the
        starting room appended, then each pre-exploration command and its feedback."""
        game = self._game()
        messages = [{"role": "user", "content": f"{self.instructions}\n\n{self.initial_room}"}]
        for record in game.preexploration:
            messages.append({"role": "assistant", "content": record.reply})
            messages.append({"role": "user", "content": record.feedback})
        return messages

    @property
    def turns(self) -> list[dict]:
        """The per-turn records of the episode so far."""
        return [t.to_json() for t in self._game().turns]

    def _game(self) -> Game | ClemGame:
        if self.game is None:
            raise RuntimeError("call reset(seed) first")
        return self.game


_COMMON = (
    "Home delivery text adventure (AdventureGame §3–4, App. C–D), on clembench's own 16 instances of the "
    "experiment, played by clembench's rules. The model reads the room it is in and answers with one command "
    "on a line starting with '>' — the instance's verbs and their synonyms (take, grab, pick, get; put, place, "
    "drop, leave; go, enter, move …; examine, check …), '> done' when it thinks the goal is reached. `put` needs "
    "the object only in the room. Only the first line of a reply counts; a reply that does not start with '>' "
    "aborts the episode, and so does reaching 50 turns (checked before 'done'). 'done' scores a success if all "
    "goal facts held at some point after an action (clembench keeps it), otherwise a loss. Metrics: played, "
    "quality (successes over all episodes, as the paper's tables), clembench's code score (partial goal credit), "
    "goal success rate, turns against the instance's optimal number (without 'done'), epistemic and pragmatic "
    "actions. Seed s plays instance s mod 16. Differences from clembench: the prompt and every feedback text "
    "are this project's wording of the same information; room descriptions always list what lies in a closed "
    "container (clembench does in most runs, depending on Python's string hashing); leading blank space "
    "before '>' is ignored. Setting instances=arena plays this project's generated worlds and engine instead "
    "(easier worlds, one verb per action, put only from the inventory). See docs/fidelity/adventure.md. "
)
_HOME = (
    "The house has six rooms (kitchen, pantry, hallway, living room, broom closet, bedroom) joined by "
    "passages; the player can only walk between connected rooms. "
)
_DETAILS = {
    "basic-easy": _HOME + "Easy: three objects to be put on one target, lying in the open one to four rooms away.",
    "basic-hard": _HOME + "Hard: one to three of the three objects start inside closed containers, and the "
    "goals name different targets, mostly one of them inside a container.",
    "limit-easy": _HOME + "The easy instances, with an inventory of at most two objects (the prompt says so).",
    "limit-hard": _HOME + "The hard instances, with an inventory of at most two objects (the prompt says so).",
    "preexplore-easy": _HOME + "The easy instances, with the instance's own 'visiting' go-commands and their "
    "answers played before the first turn as earlier turns (AdventureGame §4.1.3); they do not count. "
    "clembench's released game master does not play them; the paper describes them.",
    "preexplore-hard": _HOME + "The hard instances, with the instance's own 'visiting' go-commands played "
    "before the first turn as earlier turns (AdventureGame §4.1.3); they do not count.",
    "synthetic-easy": _HOME + "Easy world; some objects, a room and one verb renamed with made-up words, the "
    "verb explained in the prompt (whose example still reads '> open cupboard').",
    "synthetic-medium": _HOME + "Hard world; more objects, rooms and three verbs renamed, the verbs listed in the "
    "prompt without explanation.",
    "synthetic-hard": "Four rooms, ten objects and six state-changing verbs all made-up words, the standard "
    "verbs take/put/open/close unknown; an object's states show only when it is examined.",
}
