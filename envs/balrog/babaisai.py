"""Baba Is AI in BALROG (BALROG App. D): puzzles whose rules are blocks on the grid that
the player pushes to break rules and make new ones (Cloos et al. 2024).

One task plays the 40 puzzle families BALROG evaluates (App. D: "Agents are tested on
40 different puzzle levels"). The episode's seed picks the family, the seed modulo 40
over the sorted names, and the level within it; the `level` setting keeps a run to one
family, which is how BALROG's per-family results map onto this task. An episode scores
100 when the level is won within 100 moves and 0 otherwise (BALROG §3).

Baba Is AI (nacloos/baba-is-ai) is not on any package registry, so the engine
(`babaisai_engine`), the level generator (`babaisai_levels`) and the observation
(`babaisai_text`) are written here to behave as it and BALROG's wrapper do: the levels
are the package's for the same seed, and its recorded episodes replay step for step
(`tests/envs/balrog/test_reference_babaisai.py`). The picture (`babaisai_render`) and
the expert's search (`babaisai_expert`) are the arena's own.
"""

from __future__ import annotations

import hashlib
from typing import ClassVar

from envs.balrog import babaisai_expert
from envs.balrog.babaisai_levels import FAMILY_NAMES, Puzzle, draw, family_of_seed, seeded
from envs.balrog.babaisai_render import render
from envs.balrog.babaisai_text import observation_text, restart_text
from envs.balrog.protocol import BalrogTask, Outcome
from envs.core import ExpertPolicy, Observation, RandomLegalPolicy

IDLE = "idle"
# BALROG's actions in its order (App. D.3), described in our words.
ACTION_DESCRIPTIONS = {
    IDLE: "wait one step",
    "up": "take a single step up",
    "right": "take a single step to the right",
    "down": "take a single step down",
    "left": "take a single step to the left",
}
LEVEL_SETTING = "level"
ALL_LEVELS = "all"

_DESCRIPTION = (
    "Baba Is AI (BALROG App. D; Cloos et al. 2024): grid puzzles after the game Baba Is You, whose rules are "
    "blocks on the grid. Three blocks in a row or a column, NOUN IS PROPERTY, make a rule (BABA IS YOU, "
    "KEY IS WIN, WALL IS STOP); the player moves whatever is YOU, pushes rule blocks, is stopped by STOP "
    "objects and the border, and wins by stepping onto an object that is WIN. One task plays BALROG's 40 "
    "puzzle families (goto_win, make_win, two_room-break_stop-make_win, two_room-make_you, "
    "two_room-make_wall_win… each with its distractor objects and blocks): the seed picks the family (seed "
    "modulo 40 over the sorted names) and the level, and the 'level' setting keeps a run to one family; the "
    "task page shows the success per family. 100 moves at most; a win scores progress 100 and the reward "
    "1 − 0.9 × moves / 100. Actions: idle, up, right, down, left; any other output plays 'idle' and the next "
    "observation says so. The text is BALROG's wrapper's, word for word: the active rules and the top thing "
    "of each cell with its offset from the player ('3 step up' included); the rgb format adds a picture of "
    "the grid. Baba Is AI is not on any package registry, so its engine and level generator are rewritten "
    "here to match it: a seed's level is the package's level for that seed, and the package's recorded "
    "episodes replay step for step. A move that leaves no YOU object on the map starts the next level of "
    "the same family, as BALROG's wrapper does. Expert: a weighted A* search over the engine's states that "
    "walks freely and branches on pushes."
)


class BabaIsAITask(BalrogTask):
    # BALROG's environment "babaisai" names its tasks env/<family>.
    balrog_name: ClassVar[str] = "env"
    # BALROG's released config (eval.num_episodes.babaisai: 3), which its leaderboard
    # submissions play: 3 episodes for each of the 40 level families (the paper's App. D
    # reports 5); here the seed picks the family, so 120 episodes play each family 3 times.
    paper_episodes = 120
    settings: ClassVar[dict[str, tuple]] = {**BalrogTask.settings, LEVEL_SETTING: (ALL_LEVELS, *FAMILY_NAMES)}
    description = _DESCRIPTION
    action_descriptions = ACTION_DESCRIPTIONS
    default_action = IDLE
    baselines = {"random": RandomLegalPolicy, "expert": ExpertPolicy}
    blocking = True
    viewer_frames = True
    rate_breakdown = tuple((f"solved_{family}", family) for family in FAMILY_NAMES)
    rate_breakdown_title = "Success per level family"

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self.level_choice = ALL_LEVELS
        self.puzzle: Puzzle | None = None
        self.state: tuple[int, ...] = ()
        self.won = False
        self.restarts = 0
        # The draws of levels: a restart takes the next level from the same generator.
        self._rng = seeded(0)
        # The moves since the level (re)started, which the reward counts as the package does.
        self._moves_on_level = 0
        # The expert's plan: (state the move is planned from, move), next move first.
        self._plan: list[tuple[tuple[int, ...], str]] = []
        self._hopeless: set[tuple[int, ...]] = set()

    def configure(self, **options) -> None:
        super().configure(**options)
        if LEVEL_SETTING in options:
            self.level_choice = options[LEVEL_SETTING]

    def rules_text(self) -> str:
        return "Baba Is You is a puzzle game in which you can change the rules of each level."

    def closing_text(self) -> str:
        # BALROG's tips, no more: nothing about the edges of the map or the reading
        # direction of a rule.
        return (
            "Tips:\n"
            "- Look at the level carefully and note every object and text block in it.\n"
            "- Find the rules in force: they are made of text blocks in the form \"[Subject] IS [Property]\" "
            "(for example \"BABA IS YOU\").\n"
            "- Think about how moving text blocks around can change rules or make new ones.\n"
            "- Keep in mind that only objects or text not defined as \"STOP\" (or a similar immovable "
            "property) can be moved.\n"
            "- The goal is usually to reach an object defined as \"WIN\", though this can change.\n"
            "- Be creative about how changed rules can alter the properties and behaviour of objects in "
            "unexpected ways.\n"
            "- When stuck, try breaking existing rules apart or forming entirely new ones.\n"
            "- Sometimes the solution is to turn yourself into another object or to change what counts as the "
            "win condition."
        )

    # -- the game -------------------------------------------------------------------------
    @property
    def family(self) -> str:
        return self.puzzle.family if self.puzzle else ""

    def _start(self, seed: int) -> Observation:
        family = family_of_seed(seed) if self.level_choice == ALL_LEVELS else self.level_choice
        self._rng = seeded(seed)
        self.puzzle = Puzzle(family, seed, draw(family, self._rng))
        self.state = self.puzzle.level.start
        self.won = False
        self.restarts = 0
        self._moves_on_level = 0
        self._plan = []
        self._hopeless = set()
        return self._observe()

    def _play(self, action: str) -> Outcome:
        level = self.puzzle.level
        before = self.state
        self._moves_on_level += 1
        won = False
        if action != IDLE:
            self.state, won = level.move(before, action)
        if self._plan and self._plan[0] == (before, action):
            self._plan.pop(0)
        restarted = level.observer(self.state) is None
        observation = self._restart() if restarted else self._observe()
        info = {"restarted": True} if restarted else {}
        if won:
            self.won = True
            reward = 1.0 - 0.9 * self._moves_on_level / self.max_steps
            return Outcome(observation=observation, reward=reward, terminated=True, end_reason="won", info=info)
        return Outcome(observation=observation, info=info)

    def _restart(self) -> Observation:
        """BALROG's wrapper resets the environment when it finds no YOU object on the map,
        which draws the family's next level from the same generator."""
        left_behind, broken = self.puzzle.level, self.state
        self.puzzle = Puzzle(self.puzzle.family, self.puzzle.seed, draw(self.puzzle.family, self._rng))
        self.state = self.puzzle.level.start
        self.restarts += 1
        self._moves_on_level = 0
        self._plan, self._hopeless = [], set()
        return self._observation(restart_text(left_behind, broken, self.puzzle.level))

    def _observe(self) -> Observation:
        return self._observation(observation_text(self.puzzle.level, self.state))

    def _observation(self, text: str) -> Observation:
        image = render(self.puzzle.level, self.state) if self.format == "rgb" else None
        return Observation(text=text, image=image)

    def world_picture(self):
        """The arena's own drawing of the puzzle (the rgb format's picture)."""
        return None if self.puzzle is None else render(self.puzzle.level, self.state)

    def progress_percent(self) -> float:
        return 100.0 if self.won else 0.0

    def episode_metrics(self) -> dict:
        metrics = {**super().episode_metrics(), "level": self.family, "restarts": self.restarts}
        if self.puzzle:
            # Only this family's rate counts this episode (envs.core.Task.rate_breakdown).
            metrics[f"solved_{self.family}"] = self.won
        return metrics

    def initial_state_key(self) -> str:
        if self.puzzle is None:
            raise RuntimeError("call reset(seed) first")
        level = self.puzzle.level
        layout = ";".join(
            f"{'rule ' if thing.block else ''}{thing.name}@{cell}" for thing, cell in zip(level.things, level.start)
        )
        return f"{self.family}|{hashlib.sha256(layout.encode()).hexdigest()[:16]}"

    # -- the expert -----------------------------------------------------------------------
    def expert_action(self) -> str:
        """The next move of a plan to win from the current state, planning again when the
        state is not the one the plan expected; "idle" when no plan is found."""
        if self.puzzle is None:
            raise RuntimeError("call reset(seed) first")
        if not self._plan or self._plan[0][0] != self.state:
            self._plan = self._plan_from(self.state)
        return self._plan[0][1] if self._plan else IDLE

    def _plan_from(self, state: tuple[int, ...]) -> list[tuple[tuple[int, ...], str]]:
        if state in self._hopeless:
            return []
        level = self.puzzle.level
        moves = babaisai_expert.plan(level, state)
        if not moves:
            # Unsolvable from here, or past the search's budget: not searched again.
            self._hopeless.add(state)
            return []
        planned = []
        for move in moves:
            planned.append((state, move))
            state = level.step(state, move)
        return planned
