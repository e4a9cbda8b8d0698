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

from typing import ClassVar

from minihack.base import MH_FULL_ACTIONS
from minihack.envs import corridor, fightcorridor, mazewalk, skills_quest
from minihack.envs.boxohack import MOVE_ACTIONS as BOXOBAN_ACTIONS
from minihack.navigation import MOVE_ACTIONS
from nle.env.base import NLE

from envs.balrog import minihack_expert
from envs.balrog.minihack_boxoban import SeededBoxoban, boxoban_levels
from envs.balrog.nethack_common import ACTION_KEYS, MOVE_DESCRIPTIONS, OBSERVATION_KEYS, NetHackGameTask
from envs.balrog.protocol import Outcome
from envs.core import ExpertPolicy, NoExpert, Observation, PromptSize, RandomLegalPolicy
from envs.registry import register

STEP_LIMIT = 100  # BALROG's minihack max_episode_steps

# What BALROG's MiniHack prompt says each action does (App. E.1), for the actions a
# task's MiniHack action space has.
MINIHACK_ACTIONS: dict[str, str] = {
    **MOVE_DESCRIPTIONS,
    "up": "climb the stairs up",
    "down": "climb the stairs down",
    "wait": "rest for one move and do nothing",
    "more": "show the rest of a message",
    "apply": "use a tool",
    "close": "close a door next to you",
    "open": "open a door next to you",
    "eat": "eat something",
    "force": "force open a lock",
    "kick": "kick a monster, a locked door or a box",
    "loot": "open a box lying on the floor",
    "pickup": "pick up what lies where you stand",
    "pray": "pray to the gods for help",
    "puton": "put on a ring or an amulet",
    "quaff": "drink something",
    "search": "search next to you for hidden doors and passages",
    "zap": "zap a wand",
}
_NAME_OF_KEY = {key: name for name, key in ACTION_KEYS.items()}


def named_actions(nle_actions) -> dict[str, str]:
    """The actions of a MiniHack action space that BALROG names, in its order, with
    their descriptions."""
    names = (_NAME_OF_KEY.get(int(action)) for action in nle_actions)
    return {name: MINIHACK_ACTIONS[name] for name in names if name in MINIHACK_ACTIONS}


GOALS = {
    "maze": "Your goal is to find the staircase down (>) in the maze and step onto it.",
    "corridor": "Your goal is to explore the level and reach the staircase down (>).",
    "quest": (
        "Your goal is to explore the level, fight monsters, and navigate rooms and mazes to ultimately reach "
        "the staircase down (>)."
    ),
    "boxoban": (
        "You are playing Boxoban, a box-pushing puzzle like Sokoban. Your goal is to push the four boulders "
        "(`) onto the four fountains ({). You push a boulder by walking into it, as long as nothing is behind "
        "it; a boulder pushed into a corner can no longer be moved out."
    ),
}


class MiniHackTask(NetHackGameTask):
    """One MiniHack level of BALROG (App. E)."""

    balrog_name: ClassVar[str]
    goal: ClassVar[str]  # a key of GOALS
    max_steps = STEP_LIMIT
    default_action = "north"
    baselines = {"random": RandomLegalPolicy}
    # The MiniHack environment class and the options its task passes it.
    minihack_class: ClassVar[type[NLE]]
    minihack_options: ClassVar[dict] = {}

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
        return (
            "You are an agent playing MiniHack, a small level of the game NetHack seen from above.\n\n"
            "Each turn you read the game's last message, what you see around you with its distance and "
            "direction, where the cursor is and the map drawn in ASCII characters (@ is you).\n\n"
            "Tip: there is no point in repeating an action when nothing changes.\n\n"
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


@register
class MiniHackMazeWalk9x9(MiniHackExplorerTask):
    id = "balrog/minihack-mazewalk-9x9"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=611, per_step=262, answer=2),
        "rgb": PromptSize(first=1203, per_step=86, answer=2),
    }
    typical_steps = 100.0
    title = "MiniHack: maze 9×9"
    balrog_name = "MiniHack-MazeWalk-9x9-v0"
    goal = "maze"
    minihack_class = mazewalk.MiniHackMazeWalk9x9
    action_descriptions = named_actions(MOVE_ACTIONS)
    description = _COMMON + (
        "MazeWalk 9×9: a random 9×9 maze, lit but unmapped (only what is in sight shows), with the staircase "
        "down somewhere in it; eight compass moves. BALROG's prompt gives mazes only 'get as far as possible'; "
        "here it names the staircase. Expert: a breadth-first explorer."
    )


@register
class MiniHackMazeWalk15x15(MiniHackExplorerTask):
    id = "balrog/minihack-mazewalk-15x15"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=608, per_step=268, answer=2),
        "rgb": PromptSize(first=1199, per_step=82, answer=2),
    }
    typical_steps = 100.0
    title = "MiniHack: maze 15×15"
    balrog_name = "MiniHack-MazeWalk-15x15-v0"
    goal = "maze"
    minihack_class = mazewalk.MiniHackMazeWalk15x15
    action_descriptions = named_actions(MOVE_ACTIONS)
    description = _COMMON + (
        "MazeWalk 15×15: a random 15×15 maze, lit but unmapped (only what is in sight shows), with the "
        "staircase down somewhere in it; eight compass moves. BALROG's prompt gives mazes only 'get as far as "
        "possible'; here it names the staircase. Expert: a breadth-first explorer."
    )


@register
class MiniHackCorridorR3(MiniHackExplorerTask):
    id = "balrog/minihack-corridor-r3"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=747, per_step=330, answer=2),
        "rgb": PromptSize(first=1255, per_step=98, answer=2),
    }
    typical_steps = 100.0
    title = "MiniHack: corridor (3 rooms)"
    balrog_name = "MiniHack-Corridor-R3-v0"
    goal = "corridor"
    minihack_class = corridor.MiniHackCorridor3
    action_descriptions = named_actions(corridor.NAVIGATE_ACTIONS)
    description = _COMMON + (
        "Corridor-R3: three lit rooms at random places joined by random dark corridors, the hero in one and "
        "the staircase down in another; eight compass moves, open, kick and search. Expert: a breadth-first "
        "explorer."
    )


@register
class MiniHackCorridorBattleDark(MiniHackExplorerTask):
    id = "balrog/minihack-corridorbattle-dark"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=566, per_step=238, answer=2),
        "rgb": PromptSize(first=1182, per_step=94, answer=2),
    }
    typical_steps = 86.5
    title = "MiniHack: corridor battle (dark)"
    balrog_name = "MiniHack-CorridorBattle-Dark-v0"
    goal = "corridor"
    minihack_class = fightcorridor.MiniHackFightCorridorDark
    action_descriptions = named_actions(MOVE_ACTIONS)
    description = _COMMON + (
        "CorridorBattle-Dark: a knight in a small dark room, a corridor, and a large dark room where six giant "
        "rats wait before the staircase down; eight compass moves (walking into a rat attacks it). Expert: a "
        "breadth-first explorer that attacks whatever stands in its way."
    )


@register
class MiniHackQuestEasy(MiniHackTask):
    id = "balrog/minihack-quest-easy"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=1052, per_step=393, answer=2),
        "rgb": PromptSize(first=1522, per_step=115, answer=2),
    }
    typical_steps = 62.5
    title = "MiniHack: quest (easy)"
    balrog_name = "MiniHack-Quest-Easy-v0"
    goal = "quest"
    minihack_class = skills_quest.MiniHackQuestEasy
    action_descriptions = named_actions(MH_FULL_ACTIONS)
    description = _COMMON + (
        "Quest-Easy: a river of lava between the hero and the staircase down, with a wand of cold and a frost "
        "horn to freeze it and two random monsters; MiniHack's full action space, of which BALROG names "
        f"{len(named_actions(MH_FULL_ACTIONS))} actions."
    )


@register
class MiniHackQuestMedium(MiniHackTask):
    id = "balrog/minihack-quest-medium"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=885, per_step=354, answer=2),
        "rgb": PromptSize(first=1476, per_step=122, answer=2),
    }
    typical_steps = 68.5
    title = "MiniHack: quest (medium)"
    balrog_name = "MiniHack-Quest-Medium-v0"
    goal = "quest"
    minihack_class = skills_quest.MiniHackQuestMedium
    action_descriptions = named_actions(MH_FULL_ACTIONS)
    description = _COMMON + (
        "Quest-Medium: a knight in a small room, a corridor to a large room held by six giant rats, and a "
        "river of lava before the staircase down, with a wand of cold and a frost horn to freeze it; "
        f"MiniHack's full action space, of which BALROG names {len(named_actions(MH_FULL_ACTIONS))} actions."
    )


class MiniHackBoxobanTask(MiniHackTask):
    difficulty: ClassVar[str]
    goal = "boxoban"
    minihack_class = SeededBoxoban
    action_descriptions = named_actions(BOXOBAN_ACTIONS)

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


@register
class MiniHackBoxobanMedium(MiniHackBoxobanTask):
    id = "balrog/minihack-boxoban-medium"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=956, per_step=537, answer=1),
        "rgb": PromptSize(first=1408, per_step=252, answer=1),
    }
    typical_steps = 100.0
    title = "MiniHack: Boxoban (medium)"
    balrog_name = "MiniHack-Boxoban-Medium-v0"
    difficulty = "medium"
    description = _COMMON + _BOXOBAN.format(
        name="Medium",
        count=len(boxoban_levels("medium")),
        source="the first 1,000 medium levels of the validation set (MiniHack draws from the 450,000 of the "
        "training set, not shipped here)",
    )


@register
class MiniHackBoxobanHard(MiniHackBoxobanTask):
    id = "balrog/minihack-boxoban-hard"
    # Measured by bench/prompt_sizes.py (the preview's token estimate).
    prompt_sizes = {
        "text": PromptSize(first=908, per_step=527, answer=1),
        "rgb": PromptSize(first=1360, per_step=242, answer=1),
    }
    typical_steps = 100.0
    title = "MiniHack: Boxoban (hard)"
    balrog_name = "MiniHack-Boxoban-Hard-v0"
    difficulty = "hard"
    description = _COMMON + _BOXOBAN.format(
        name="Hard", count=len(boxoban_levels("hard")), source="the 3,332 hard levels"
    )
