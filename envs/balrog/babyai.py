"""BALROG's five BabyAI-Text tasks (BALROG App. A): go to, pick up, open, put next to,
and pick up then go to, each one mission kind of BabyAI-Text's MixedTrainLocal level
(`envs.balrog.babyai_level`). The level is written on minigrid 3.2.0 (BALROG's Minigrid
fork is not on PyPI, and minigrid's releases have no such level) with the fork's order of
random draws: seeds 0–9 of every task give the game BALROG's code gives them, and random
actions, scripted replies and the expert play on as in BALROG
(tests/envs/balrog/test_reference_babyai.py, docs/fidelity/balrog.md).

The agent reads its mission in the instruction prompt (App. A.3) and, at every step, a
description of its partial view relative to itself (`envs.balrog.babyai_text`); the
"rgb" format adds the picture of that view as minigrid draws it. An episode scores 100
when the mission is accomplished and 0 otherwise (BALROG §3).

The expert is minigrid's `BabyAIBot`. The bot plans on what the agent has seen so far
and must be told every action actually taken (it is built to advise another player,
undoing that player's detours). Only the expert baseline reads its advice, and BALROG's
own evaluator runs no bot, so an episode starts the bot when the expert is first asked:
from the reset when nothing has been played yet, otherwise by playing the episode's
actions again on a fresh level of the same seed while telling the bot each one, as if it
had followed from the reset (a resumed episode replays its stored steps without it).
From then on it is told every executed action, whoever chose it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from minigrid.core.actions import Actions
from minigrid.core.constants import OBJECT_TO_IDX
from minigrid.utils.baby_ai_bot import BabyAIBot, DisappearedBoxError
from PIL import Image

from envs.balrog import babyai_level
from envs.balrog.babyai_level import MixedTrainLocalLevel
from envs.balrog.babyai_text import describe_encoded_view
from envs.balrog.protocol import OBSERVATION_COMING, BalrogTask, Outcome
from envs.core import ExpertPolicy, Observation, RandomLegalPolicy

# BALROG's action list, in its order (App. A.3), with the information BALROG's prompt
# gives of each action, in the arena's words. BALROG says "pick up" takes the object
# below the agent, while minigrid picks up the one in front of it: the prompt keeps
# BALROG's information, the task description says what minigrid does.
ACTION_DESCRIPTIONS = {
    "turn left": "turn to your left",
    "turn right": "turn to your right",
    "go forward": "take a single step forward",
    "pick up": "pick up the object below you",
    "drop": "drop the object you are holding",
    "toggle": "manipulate the object in front of you",
}
MINIGRID_ACTIONS = {
    "turn left": Actions.left,
    "turn right": Actions.right,
    "go forward": Actions.forward,
    "pick up": Actions.pickup,
    "drop": Actions.drop,
    "toggle": Actions.toggle,
}
ACTION_NAMES = {action: name for name, action in MINIGRID_ACTIONS.items()}
# BALROG's VLM image: the agent's view drawn at 16 pixels a cell (7×7 cells, 112×112).
TILE_PIXELS = 16
# The replay's picture of the whole level (the viewer's, never the agent's), at the
# agent's own 16 pixels a cell: minigrid draws new tiles supersampled, at a cost that
# grows with their area, and the player enlarges small pictures anyway.
WORLD_TILE_PIXELS = TILE_PIXELS

_DESCRIPTION = (
    "BabyAI-Text's MixedTrainLocal level (Carta et al. 2023) with BALROG's settings (App. A; no distractors, as "
    "in BALROG's config), its rules rewritten on "
    "minigrid 3.2.0: {layout} The agent sees 7×7 cells ahead of it, walls and closed doors hiding what "
    "lies behind them, and is told what it sees relative to itself ('a red key 1 step right and 1 step "
    "forward', 'a wall 3 steps left', 'You carry a blue ball'); the 'rgb' format adds the picture of "
    "that view. Actions: turn left, turn right, go forward, pick up, drop, toggle; any other output "
    "plays 'go forward' and the next observation says so (BALROG §3). Accomplishing the mission ends "
    "the episode with minigrid's reward (1 − 0.9 × steps used / step limit) and progress 100; the "
    "step limit is minigrid's for the level, {limit} steps, after which progress is 0. Missions naming "
    "a yellow box, red key, red door, green ball or grey door are held out, as in BabyAI-Text's "
    "training level. The prompt's action descriptions carry BALROG's information, including its 'pick up the "
    "object below you', although minigrid's 'pick up' and 'drop' act on the cell in front of the agent. "
    "Expert: minigrid's BabyAIBot."
)
_ONE_ROOM = (
    "one 8×8 room (6×6 floor), no distractors (BALROG's config sets num_dists to 0), holding"
)


class BabyAITask(BalrogTask):
    """One mission kind of MixedTrainLocal (BALROG App. A)."""

    # The spec row's game parameters: the mission kind (a key of _LAYOUTS) and BALROG's
    # name of the task, e.g. "BabyAI-MixedTrainLocal-v0/goto".
    kind: ClassVar[str]
    balrog_name: ClassVar[str]
    action_descriptions = ACTION_DESCRIPTIONS
    default_action = "go forward"
    baselines = {"random": RandomLegalPolicy, "expert": ExpertPolicy}
    # BALROG's released config (eval.num_episodes.babyai: 10), which its leaderboard
    # submissions play (the paper's App. A reports 25 seeds per task).
    paper_episodes = 10
    viewer_frames = True
    # A state seen again is found by its name (`picture_state`) before any drawing; two
    # different states drawn alike are rare, and digesting a picture's pixels (0.05 ms)
    # costs more than encoding it again (0.04 ms, the same bytes).
    pictures_repeat = False

    @classmethod
    def for_spec(cls, spec) -> type[BabyAITask]:
        task_cls = super().for_spec(spec)
        task_cls.description = _DESCRIPTION.format(layout=_LAYOUTS[task_cls.kind], limit=spec.max_steps)
        return task_cls

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._level = MixedTrainLocalLevel(self.kind)
        self._accomplished = False
        self._start_key = ""
        self._seed: int | None = None
        # Every action executed since the reset: what a bot started late is told.
        self._taken: list[Actions] = []
        # Whether the bot follows the episode (started by the first `expert_action`).
        self._bot_follows = False
        self._bot: BabyAIBot | None = None
        self._bot_advice: Actions | None = None
        # Set when a late bot's replay did not give back the episode's state: the
        # replay would fail again the same way, so later calls say so at once.
        self._replay_mismatch = False
        # minigrid's encoding of the agent's view now, which its reset and step return:
        # the description and the world picture's highlight are read from it.
        self._view = None

    # -- the game -------------------------------------------------------------------------
    def rules_text(self) -> str:
        return f"You are an agent in a simple navigation game. Your goal is to {self._level.mission}."

    def closing_text(self) -> str:
        return (
            f"{OBSERVATION_COMING}\n\n"
            "Tips:\n"
            "- Once the object you want to interact with or pick up is in front of you, you can use the "
            "'toggle' action to interact with it.\n"
            "- Repeating the same action again and again makes no sense if the observation does not change."
        )

    def _start(self, seed: int) -> Observation:
        obs, _ = self._level.reset(seed=seed)
        self._view = obs["image"]
        # minigrid sets the level's limit at reset, from its rooms and its mission.
        self.max_steps = self._level.max_steps
        self._accomplished = False
        self._start_key = f"{self.kind}|{self._level.mission}|{self._level.hash()}"
        self._seed = seed
        self._taken = []
        self._bot_follows = False
        self._bot = self._bot_advice = None
        self._replay_mismatch = False
        return self._observe()

    def _play(self, action: str) -> Outcome:
        taken = MINIGRID_ACTIONS[action]
        obs, reward, terminated, _, _ = self._level.step(taken)
        self._view = obs["image"]
        self._taken.append(taken)
        end_reason = None
        if terminated:
            self._accomplished = reward > 0
            end_reason = "mission accomplished" if self._accomplished else "mission failed"
        elif self._bot_follows:
            self._tell_bot(taken)
        return Outcome(observation=self._observe(), reward=float(reward), terminated=terminated, end_reason=end_reason)

    def _observe(self) -> Observation:
        text = "\n".join(describe_encoded_view(self._view, self._level.carrying))
        if self.format == "rgb":
            image = Image.fromarray(self._level.get_pov_render(tile_size=TILE_PIXELS)).convert("RGB")
            return Observation(text=text, image=image)
        return Observation(text=text)

    def world_picture(self) -> Image.Image:
        """minigrid's picture of the whole level, the agent's 7×7 view highlighted."""
        return Image.fromarray(full_render(self._level, WORLD_TILE_PIXELS, visible_in_view(self._view)))

    def picture_state(self) -> tuple:
        """What minigrid's full render depends on: every cell's encoding (minigrid's
        tile cache draws a cell by its encoding alone: kind, colour, door state), the
        agent's place and heading (they fix the highlighted view, through the cells'
        see-behind, which the encodings fix too) and what it carries (the view's own
        cell). Naming it costs about a hundredth of drawing the level."""
        level = self._level
        return (
            tuple(cell.encode() if cell is not None else None for cell in level.grid.grid),
            level.grid.width,
            tuple(level.agent_pos),
            level.agent_dir,
            level.carrying.encode() if level.carrying is not None else None,
        )

    def progress_percent(self) -> float:
        return 100.0 if self._accomplished else 0.0

    def initial_state_key(self) -> str:
        return self._start_key

    @property
    def mission(self) -> str:
        return self._level.mission

    # -- the expert -----------------------------------------------------------------------
    def expert_action(self) -> str:
        if not self._bot_follows:
            self._start_bot()
        if self._bot is None:
            # The bot gave up earlier in the episode; a new one plans from here, mapping
            # the room again from the current view. A new bot whose plan opens with a
            # pick-up cannot start with something in hand (minigrid's bot asserts empty
            # hands), hence the error below.
            self._bot = BabyAIBot(self._level)
            try:
                self._bot_advice = self._bot.replan()
            except (DisappearedBoxError, AssertionError) as error:
                self._bot = None
                raise RuntimeError(f"{self.id}: minigrid's BabyAI bot cannot advise from this state") from error
        if self._bot_advice not in ACTION_NAMES:
            # `done`: the bot's plan is empty although the mission is not accomplished.
            raise RuntimeError(f"{self.id}: minigrid's BabyAI bot has no action left for this state")
        return ACTION_NAMES[self._bot_advice]

    def _start_bot(self) -> None:
        """Start the bot as if it had followed the episode from its reset (see the module
        docstring): on the level itself when nothing has been played, otherwise on a
        fresh level of the same seed that plays the executed actions again, telling the
        bot each one as `_play` does, and then stands in for the level (in the same
        state: minigrid's steps draw no random numbers)."""
        if self._replay_mismatch:
            raise RuntimeError(f"{self.id}: replaying the episode's actions did not give back its state")
        if not self._taken:
            self._bot = BabyAIBot(self._level)
            self._bot_advice = self._bot.replan()
            self._bot_follows = True
            return
        level = MixedTrainLocalLevel(self.kind)
        level.reset(seed=self._seed)
        self._bot = BabyAIBot(level)
        self._bot_advice = self._bot.replan()
        for taken in self._taken:
            _, _, terminated, _, _ = level.step(taken)
            if not terminated:
                self._tell_bot(taken)
        if _level_state(level) != _level_state(self._level):
            # The episode goes on, on its own level, without the bot.
            self._bot = self._bot_advice = None
            self._replay_mismatch = True
            raise RuntimeError(f"{self.id}: replaying the episode's actions did not give back its state")
        self._level = level
        self._bot_follows = True

    def _tell_bot(self, taken: Actions) -> None:
        """Tell the bot the action just executed and keep its next advice. The bot gives
        up when another player opened a box (minigrid's boxes vanish when toggled) or
        left it in a state its plan did not foresee; the game goes on without it."""
        if self._bot is None:
            return
        try:
            self._bot_advice = self._bot.replan(taken)
        except (DisappearedBoxError, AssertionError):
            self._bot = None
            self._bot_advice = None


def _level_state(level) -> tuple:
    """What tells two levels' states apart: the cells, the agent, what it carries, the
    step count and the mission."""
    return (
        level.grid.encode().tobytes(),
        tuple(level.agent_pos),
        level.agent_dir,
        level.carrying.encode() if level.carrying is not None else None,
        level.step_count,
        level.mission,
    )


def visible_in_view(view: np.ndarray) -> np.ndarray:
    """minigrid's visibility mask of the agent's view (`gen_obs_grid`) from its encoding
    of that view: the encoding marks exactly the hidden cells "unseen" (index 0; an
    empty visible cell is "empty", index 1)."""
    return view[:, :, 0] != OBJECT_TO_IDX["unseen"]


def full_render(level, tile_size: int, vis_mask: np.ndarray | None = None) -> np.ndarray:
    """The pixels of minigrid's `get_full_render(highlight=True, tile_size)`, drawn by
    minigrid's own tiles (`Grid.render_tile` and its cache) put where minigrid's
    `Grid.render` puts them, with the highlighted cells worked out as minigrid does
    from the level's own visibility mask (`gen_obs_grid`, or `vis_mask` when the
    caller has it for the level's current state). minigrid spends most of a
    picture on numpy calls made for one cell at a time (an `array_equal` per cell, the
    view's coordinates as arrays): here they are plain integers, at about half the cost
    (bench/balrog_throughput.py; tests/envs/balrog/test_world_pictures.py holds the
    pixels equal through every kind of mission)."""
    if vis_mask is None:
        _, vis_mask = level.gen_obs_grid()
    visible = vis_mask.tolist()
    size = level.agent_view_size
    forward_x, forward_y = (int(v) for v in level.dir_vec)
    right_x, right_y = (int(v) for v in level.right_vec)
    agent_x, agent_y = (int(v) for v in level.agent_pos)
    # The world coordinates of the view's far left corner (minigrid's `top_left`).
    top_x = agent_x + forward_x * (size - 1) - right_x * (size // 2)
    top_y = agent_y + forward_y * (size - 1) - right_y * (size // 2)
    grid = level.grid
    width, height = grid.width, grid.height
    highlighted = set()
    for vis_j in range(size):
        for vis_i in range(size):
            if visible[vis_i][vis_j]:
                x = top_x - forward_x * vis_j + right_x * vis_i
                y = top_y - forward_y * vis_j + right_y * vis_i
                if 0 <= x < level.width and 0 <= y < level.height:
                    highlighted.add((x, y))
    render_tile = type(grid).render_tile
    cells = grid.grid
    agent_dir = level.agent_dir
    # Each cell's tile is minigrid's for its key (`render_tile` caches tiles by the
    # object's encoding, the agent's heading on it and the highlight): the few distinct
    # tiles are fetched once and laid out in one numpy gather.
    tile_of_key: dict = {}
    tiles = []
    layout = []
    for j in range(height):
        for i in range(width):
            cell = cells[j * width + i]
            on_agent = i == agent_x and j == agent_y
            key = (cell.encode() if cell is not None else None, agent_dir if on_agent else None,
                   (i, j) in highlighted)
            index = tile_of_key.get(key)
            if index is None:
                index = tile_of_key[key] = len(tiles)
                # minigrid's tiles are floats (its supersampling's mean), cast as
                # minigrid's own `Grid.render` casts them into its uint8 picture.
                tiles.append(render_tile(cell, agent_dir=key[1], highlight=key[2], tile_size=tile_size))
            layout.append(index)
    placed = np.stack(tiles).astype(np.uint8)[np.array(layout).reshape(height, width)]
    picture = placed.transpose(0, 2, 1, 3, 4).reshape(height * tile_size, width * tile_size, 3)
    return picture


# What each mission kind's level holds and asks, for its description (BALROG App. A).
_LAYOUTS = {
    babyai_level.GOTO: f"{_ONE_ROOM} one object; the mission is to go to it ('go to the red ball'), that is, to "
    "stand facing it.",
    babyai_level.PICKUP: f"{_ONE_ROOM} one object; the mission is to pick it up ('pick up a blue key').",
    babyai_level.OPEN: "two 8×8 rooms side by side joined by a locked yellow, green, blue or purple door; the agent "
    "starts in the room holding the door's key and no distractors (BALROG's num_dists 0). The mission is to open "
    "that door ('open the door' or 'open the green door'): pick up the key, face the door and toggle it.",
    babyai_level.PUTNEXT: f"{_ONE_ROOM} two objects; the mission is to put one object next to another ('put the "
    "red box next to a grey key'): carry it and drop it on a cell beside the other.",
    babyai_level.PICKUP_THEN_GOTO: f"{_ONE_ROOM} two objects; the mission is to pick up one object and then go to "
    "the other, said either way round ('pick up the blue key, then go to a red ball' or 'go to a red ball after "
    "you pick up the blue key').",
}
