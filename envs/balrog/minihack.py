"""BALROG's eight MiniHack tasks (BALROG App. E): two mazes, two corridor levels, two
quests and two Boxoban difficulties, each a small NetHack level built by MiniHack 1.0.2
and played through NLE with the NetHack Language Wrapper's text (App. E.1).

As BALROG plays them: a random character unless the task fixes one (CorridorBattle and
Quest-Medium play a knight), no autopickup, 100 steps, the named actions the task's
MiniHack action space has (BALROG's list with a description of each), "north" for any
other output. An episode scores 100 when the hero reaches the goal — the staircase
down, or all four boulders on fountains in Boxoban — and 0 otherwise (BALROG §3).

The text format shows the message, the language observation, the cursor and the ASCII
map, with the inventory as short-term context (BALROG's text mode); the rgb format
shows the map drawn with NetHack's tiles instead of the ASCII map, with the statistics
and the inventory as short-term context (BALROG's vision-language mode).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from minihack.base import MH_FULL_ACTIONS
from minihack.envs import corridor, fightcorridor, mazewalk, skills_quest
from minihack.envs.boxohack import MOVE_ACTIONS as BOXOBAN_ACTIONS
from minihack.navigation import MOVE_ACTIONS
from nle.env.base import NLE

from envs.balrog import minihack_expert
from envs.balrog.minihack_boxoban import SeededBoxoban, boxoban_levels
from envs.balrog.nethack_common import ACTION_KEYS, MOVE_DESCRIPTIONS, OBSERVATION_KEYS, NetHackGameTask
from envs.balrog.protocol import HISTORY_COMING, Outcome
from envs.core import ExpertPolicy, NoExpert, Observation, RandomLegalPolicy

# What BALROG's MiniHack prompt says each action does (App. E.1), for the actions a
# task's MiniHack action space has.
MINIHACK_ACTIONS: dict[str, str] = {
    **MOVE_DESCRIPTIONS,
    "up": "go up the stairs",
    "down": "go down the stairs",
    "wait": "rest for one move, doing nothing",
    "more": "show more of the message",
    "apply": "apply (use) a tool",
    "close": "close a door next to you",
    "open": "open a door next to you",
    "eat": "eat something",
    "force": "force a lock",
    "kick": "kick an enemy, or a locked door or chest",
    "loot": "loot a box lying on the floor",
    "pickup": "pick up things where you stand, if there are any",
    "pray": "pray to the gods for help",
    "puton": "put on an accessory",
    "quaff": "quaff (drink) something",
    "search": "search for hidden doors and passages",
    "zap": "zap a wand",
}
_NAME_OF_KEY = {key: name for name, key in ACTION_KEYS.items()}


def named_actions(nle_actions) -> dict[str, str]:
    """The actions of a MiniHack action space that BALROG names, in its order, with
    their descriptions."""
    names = (_NAME_OF_KEY.get(int(action)) for action in nle_actions)
    return {name: MINIHACK_ACTIONS[name] for name in names if name in MINIHACK_ACTIONS}


# BALROG's goal sentence per kind of task: "corridor" for the names with "corridor",
# "quest" and "boxoban" likewise, "maze" for every other one (MazeWalk): BALROG tells a
# MazeWalk player only to get as far as possible, not that a staircase is the goal, and
# tells a Boxoban player nothing of symbols, counts or corners.
GOALS = {
    "maze": "Your goal is to get as far as you can in the game.",
    "corridor": "Your goal is to explore the level and get to the stairs down.",
    "quest": (
        "Your goal is to explore the level, fight monsters and find your way through rooms and mazes to finally "
        "reach the stairs down."
    ),
    "boxoban": (
        "You are playing Boxoban, a box-pushing game in the style of Sokoban. Your goal is to push the boulders "
        "onto the fountains on the map. You push a boulder by walking into it, provided nothing blocks it from "
        "behind."
    ),
}


class MiniHackTask(NetHackGameTask):
    """One MiniHack level of BALROG (App. E); which one is the spec row's game
    parameter `balrog_name`, a key of LEVELS."""

    balrog_name: ClassVar[str]
    goal: ClassVar[str]  # a key of GOALS
    default_action = "north"
    baselines = {"random": RandomLegalPolicy}
    # The MiniHack environment class and the options its task passes it.
    minihack_class: ClassVar[type[NLE]]
    minihack_options: ClassVar[dict] = {}

    @classmethod
    def for_spec(cls, spec) -> type[MiniHackTask]:
        """The level of the row: its MiniHack class, goal, actions and description."""
        task_cls = super().for_spec(spec)
        level = LEVELS[task_cls.balrog_name]
        task_cls.goal, task_cls.action_descriptions = level.goal, level.actions
        task_cls.description = _COMMON + level.about
        if level.minihack_class is not None:
            task_cls.minihack_class = level.minihack_class
        return task_cls

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._reached_goal = False
        self._explorer = minihack_expert.Explorer()

    def _make_env(self) -> NLE:
        return self.minihack_class(
            observation_keys=OBSERVATION_KEYS,
            character="@",
            autopickup=False,
            # The protocol applies BALROG's 100 steps; NLE's own limit would end the
            # game with "aborted" even on a step that reaches the goal.
            max_episode_steps=10**9,
            # BALROG's −0.01 for steps that take no game time changes only the reward:
            # progress is the goal reached (a final reward ≥ 1 in BALROG).
            penalty_step=0.0,
            penalty_time=0.0,
            savedir=None,
            fix_moon_phase=True,
            **self.minihack_options,
        )

    def rules_text(self) -> str:
        return "You are an agent playing MiniHack."

    def closing_text(self) -> str:
        return (
            f"{HISTORY_COMING}\n\n"
            "Tip: outputting the same action again and again is pointless if nothing changes.\n\n"
            f"{GOALS[self.goal]}"
        )

    # -- the game ----------------------------------------------------------------------
    def _start(self, seed: int) -> Observation:
        self._reset_game(seed)
        self._reached_goal = False
        self._explorer = minihack_expert.Explorer()
        return self._observation()

    def _play(self, action: str) -> Outcome:
        self._explorer.before_move(self.glyphs, self.hero_position(), action)
        reward, done, info = self._send(ACTION_KEYS[action])
        self._explorer.after_move(self.glyphs, self.hero_position())
        end_reason = None
        if done:
            self._reached_goal = info.get("end_status") == self.env.StepStatus.TASK_SUCCESSFUL
            end_reason = "reached the goal" if self._reached_goal else "died"
        return Outcome(observation=self._observation(), reward=float(reward), terminated=done, end_reason=end_reason)

    def hero_position(self) -> tuple[int, int]:
        return int(self.blstats[0]), int(self.blstats[1])

    def progress_percent(self) -> float:
        return 100.0 if self._reached_goal else 0.0

    def initial_state_key(self) -> str:
        if self._seed is None:
            raise RuntimeError("call reset(seed) first")
        return f"{self.balrog_name} seed {self._seed}"

    def expert_action(self) -> str:
        raise NoExpert(
            f"{self.id} has no expert: reaching its goal takes items and fights no planner here plays; "
            "its only built-in baseline is the random policy"
        )


_COMMON = (
    "A MiniHack level of BALROG (App. E), played for at most 100 steps through the NetHack Language "
    "Wrapper's text (written here from NLE's observations): the message, every creature, object and "
    "feature in sight with its distance and direction, the cursor and the ASCII map, with the inventory as "
    "short-term context; the rgb format draws the map with NetHack's 16×16 tiles and adds the statistics. "
    "Progress is 100 when the goal is reached, else 0. The seed fixes the level and the character "
    "(NetHack's random generators are seeded from it). Deviation: BALROG's −0.01 reward for steps that take "
    "no game time is left out (it changes the reward, not the progress). "
)


class MiniHackExplorerTask(MiniHackTask):
    """A level whose goal a breadth-first explorer reaches: the expert walks the
    shortest known path to the staircase, exploring what it has not seen."""

    baselines = {"random": RandomLegalPolicy, "expert": ExpertPolicy}

    def expert_action(self) -> str:
        return self._explorer.next_action(self.glyphs, self.hero_position(), self.legal_actions())


class MiniHackBoxobanTask(MiniHackTask):
    """A Boxoban level of MiniHack, of the row's `difficulty`."""

    difficulty: ClassVar[str]
    minihack_class = SeededBoxoban

    @property
    def minihack_options(self) -> dict:
        return {"difficulty": self.difficulty}

    def _before_reset(self, seed: int) -> None:
        levels = boxoban_levels(self.difficulty)
        self.env.level_index = seed % len(levels)

    def initial_state_key(self) -> str:
        return f"{super().initial_state_key()} level {self.env.level_index}"


_BOXOBAN = (
    "Boxoban {name}: push four boulders onto four fountains in a 10×10 Boxoban level (Guez et al. 2018), "
    "the map known from the start; four moves. The seed picks level seed mod {count} of {source}, instead "
    "of MiniHack's draw from Python's global random generator. MiniHack's reward: +0.1 per boulder put on a "
    "fountain, −0.001 a step, +1 for the last one."
)


@dataclasses.dataclass(frozen=True)
class Level:
    """What a MiniHack task of BALROG plays: the environment, BALROG's goal sentence
    (a key of GOALS), the actions its prompt names and the level in words."""

    minihack_class: type[NLE] | None  # None: the task class's own (Boxoban)
    goal: str
    actions: dict[str, str]
    about: str


_MAZE = (
    "a random {size} maze, lit but unmapped (only what is in sight shows), with the staircase down somewhere in "
    "it; eight compass moves. BALROG's prompt gives mazes only 'get as far as possible'; here it names the "
    "staircase. Expert: a breadth-first explorer."
)

# BALROG's MiniHack tasks (App. E) by BALROG's name.
LEVELS = {
    "MiniHack-MazeWalk-9x9-v0": Level(
        mazewalk.MiniHackMazeWalk9x9, "maze", named_actions(MOVE_ACTIONS), "MazeWalk 9×9: " + _MAZE.format(size="9×9")
    ),
    "MiniHack-MazeWalk-15x15-v0": Level(
        mazewalk.MiniHackMazeWalk15x15, "maze", named_actions(MOVE_ACTIONS),
        "MazeWalk 15×15: " + _MAZE.format(size="15×15"),
    ),
    "MiniHack-Corridor-R3-v0": Level(
        corridor.MiniHackCorridor3, "corridor", named_actions(corridor.NAVIGATE_ACTIONS),
        "Corridor-R3: three lit rooms at random places joined by random dark corridors, the hero in one and the "
        "staircase down in another; eight compass moves, open, kick and search. Expert: a breadth-first explorer.",
    ),
    "MiniHack-CorridorBattle-Dark-v0": Level(
        fightcorridor.MiniHackFightCorridorDark, "corridor", named_actions(MOVE_ACTIONS),
        "CorridorBattle-Dark: a knight in a small dark room, a corridor, and a large dark room where six giant rats "
        "wait before the staircase down; eight compass moves (walking into a rat attacks it). Expert: a "
        "breadth-first explorer that attacks whatever stands in its way.",
    ),
    "MiniHack-Quest-Easy-v0": Level(
        skills_quest.MiniHackQuestEasy, "quest", named_actions(MH_FULL_ACTIONS),
        "Quest-Easy: a river of lava between the hero and the staircase down, with a wand of cold and a frost horn "
        "to freeze it and two random monsters; MiniHack's full action space, of which BALROG names "
        f"{len(named_actions(MH_FULL_ACTIONS))} actions.",
    ),
    "MiniHack-Quest-Medium-v0": Level(
        skills_quest.MiniHackQuestMedium, "quest", named_actions(MH_FULL_ACTIONS),
        "Quest-Medium: a knight in a small room, a corridor to a large room held by six giant rats, and a river of "
        "lava before the staircase down, with a wand of cold and a frost horn to freeze it; MiniHack's full action "
        f"space, of which BALROG names {len(named_actions(MH_FULL_ACTIONS))} actions.",
    ),
    "MiniHack-Boxoban-Medium-v0": Level(
        None, "boxoban", named_actions(BOXOBAN_ACTIONS),
        _BOXOBAN.format(
            name="Medium",
            count=len(boxoban_levels("medium")),
            source="the first 1,000 medium levels of the validation set (MiniHack draws from the 450,000 of the "
            "training set, not shipped here)",
        ),
    ),
    "MiniHack-Boxoban-Hard-v0": Level(
        None, "boxoban", named_actions(BOXOBAN_ACTIONS),
        _BOXOBAN.format(name="Hard", count=len(boxoban_levels("hard")), source="the 3,332 hard levels"),
    ),
}
