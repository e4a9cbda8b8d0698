"""Crafter in BALROG (BALROG App. B): the open-ended survival game of Hafner (2021),
played through the language observation of Wu et al. (2023) (`envs.balrog.crafter_text`).

An episode is crafter 1.8.3's 64×64 world with a 9×9 view, 2,000 steps at most
(BALROG's `max_episode_steps`), ending early when the player dies. The reward is
crafter's: +1 for each achievement unlocked the first time, plus the change in health
divided by 10. Progress is the share of the 22 achievements unlocked (BALROG §3).
"""

from __future__ import annotations

import pickle
from typing import ClassVar

from envs.balrog import crafter_noise  # noqa: I001 (before crafter: imports opensimplex uncompiled)
import crafter
from PIL import Image

from envs.balrog import crafter_text
from envs.balrog.protocol import HISTORY_COMING, BalrogTask, Outcome
from envs.core import NoExpert, Observation, RandomLegalPolicy

# BALROG's action names, in crafter's action order, with crafter's name for each.
ACTIONS: dict[str, str] = {
    "Noop": "noop",
    "Move West": "move_left",
    "Move East": "move_right",
    "Move North": "move_up",
    "Move South": "move_down",
    "Do": "do",
    "Sleep": "sleep",
    "Place Stone": "place_stone",
    "Place Table": "place_table",
    "Place Furnace": "place_furnace",
    "Place Plant": "place_plant",
    "Make Wood Pickaxe": "make_wood_pickaxe",
    "Make Stone Pickaxe": "make_stone_pickaxe",
    "Make Iron Pickaxe": "make_iron_pickaxe",
    "Make Wood Sword": "make_wood_sword",
    "Make Stone Sword": "make_stone_sword",
    "Make Iron Sword": "make_iron_sword",
}
ACTION_INDEX = {name: crafter.constants.actions.index(crafter_name) for name, crafter_name in ACTIONS.items()}

# What the instruction prompt says of each action: the facts BALROG's descriptions give
# (what it does, what a craft needs nearby and in the inventory).
ACTION_DESCRIPTIONS: dict[str, str] = {
    "Noop": "do nothing",
    "Move West": "move west over flat ground",
    "Move East": "move east over flat ground",
    "Move North": "move north over flat ground",
    "Move South": "move south over flat ground",
    "Do": "multi-purpose action: collect material, drink from a lake, hit a creature in front of you",
    "Sleep": "sleep when your energy level is below its maximum",
    "Place Stone": "place a stone in front of you",
    "Place Table": "place a table",
    "Place Furnace": "place a furnace",
    "Place Plant": "place a plant",
    "Make Wood Pickaxe": "craft a wood pickaxe with a table nearby and wood in the inventory",
    "Make Stone Pickaxe": "craft a stone pickaxe with a table nearby and wood and stone in the inventory",
    "Make Iron Pickaxe": (
        "craft an iron pickaxe with a table and a furnace nearby and wood, coal and iron in the inventory"
    ),
    "Make Wood Sword": "craft a wood sword with a table nearby and wood in the inventory",
    "Make Stone Sword": "craft a stone sword with a table nearby and wood and stone in the inventory",
    "Make Iron Sword": "craft an iron sword with a table and a furnace nearby and wood, coal and iron in the inventory",
}

# Crafter's 22 achievements in the order BALROG's prompt lists them.
ACHIEVEMENTS = (
    "collect_wood",
    "place_table",
    "eat_cow",
    "collect_sapling",
    "collect_drink",
    "make_wood_pickaxe",
    "make_wood_sword",
    "place_plant",
    "defeat_zombie",
    "collect_stone",
    "place_stone",
    "eat_plant",
    "defeat_skeleton",
    "make_stone_pickaxe",
    "make_stone_sword",
    "wake_up",
    "place_furnace",
    "collect_coal",
    "collect_iron",
    "make_iron_pickaxe",
    "make_iron_sword",
    "collect_diamond",
)

# BALROG renders crafter's frame at 256×256 pixels. Every format draws the same frame:
# at night crafter's renderer draws noise from the world's random generator, as many
# numbers as the frame has pixels, so a different size would make creatures move
# differently and the same seed play out differently from one format to another.
FRAME_SIZE = (256, 256)
from envs.balrog.specs import CRAFTER_STEP_LIMITS as STEP_LIMITS  # noqa: E402


class SeededCrafterEnv(crafter.Env):
    """crafter.Env whose episodes depend on the seed and the actions alone.

    Every 10 steps crafter balances the creatures of each chunk of the map, and to
    despawn one it draws an index into the chunk's set of objects. A set of objects
    iterates in the order of their memory addresses, so the same seed and actions
    despawned different creatures from one run to the next. Handing crafter each chunk's
    objects sorted by position (a cell holds one object at most) removes that.
    """

    def _balance_chunk(self, chunk, objs):
        in_a_fixed_order = sorted(objs, key=lambda obj: (int(obj.pos[0]), int(obj.pos[1])))
        super()._balance_chunk(chunk, in_a_fixed_order)

    def _obs(self):
        """No frame from `reset` and `step`: the task draws the one it shows
        (CrafterTask._observation), and crafter's own drawing here was never looked at.

        The drawing has one effect on the game: below half light crafter's renderer
        (LocalView._noise) takes as many numbers from the world's random generator as
        its local view has pixels, and those numbers decide where creatures spawn and how
        they move. The same numbers are taken here, so the game goes on as if the frame
        had been drawn, for about half the cost of a step."""
        if self._world.daylight < 0.5:
            unit = self._size // self._view
            self._world.random.uniform(32, 127, tuple(self._local_view._grid * unit))
        return None


def started_env(seed: int) -> SeededCrafterEnv:
    """The Env of an episode of `seed` as the task starts it: a fresh Env (crafter seeds
    the world with hash((seed, resets so far)), so only a new Env makes the same world
    for the same seed whatever was played before; a hash of integers is the same in every
    64-bit CPython process, PYTHONHASHSEED only salts strings), reset, and one noop in:
    BALROG's wrapper plays one noop right after crafter's reset and shows the observation
    that follows it, so the first view is one world tick in. length=None: the protocol
    applies the step limit."""
    crafter_noise.compile_noise()
    env = SeededCrafterEnv(area=(64, 64), view=crafter_text.VIEW, size=FRAME_SIZE, length=None, seed=seed)
    env.reset()
    env.step(ACTION_INDEX["Noop"])
    return env


def started_env_pickled(seed: int) -> bytes:
    """`started_env(seed)` pickled, for CrafterTask.reset_built: built in another
    process, the Env comes back whole, its world, creatures, textures and random
    generator's state (about 90 kB, a millisecond to load against some 0.1 s of world
    generation, most of it crafter's Python around the compiled noise)."""
    return pickle.dumps(started_env(seed), protocol=pickle.HIGHEST_PROTOCOL)


def achievement_title(achievement: str) -> str:
    """crafter's "make_wood_pickaxe" as the prompt names it: "Make Wood Pickaxe"."""
    return achievement.replace("_", " ").title()


class CrafterTask(BalrogTask):
    balrog_name: ClassVar[str] = "default"
    description = (
        "Crafter (BALROG App. B): a procedurally generated 2D survival game where the agent gathers materials, "
        "crafts tools, eats, drinks, sleeps and fights to unlock up to 22 achievements in at most 2,000 steps. "
        "Progress is the share of achievements unlocked. The text describes the nearest thing of each kind in the "
        "9×7 view with its distance and direction and what the agent faces; status and inventory are short-term "
        "context. The rgb format adds crafter's 256×256 frame. The seed fixes the world, and the same seed and "
        "actions replay the same episode: unlike crafter 1.8.3 itself, which of a chunk's creatures despawns no "
        "longer depends on memory addresses."
    )
    action_descriptions = ACTION_DESCRIPTIONS
    default_action = "Noop"
    # Crafter's summed reward: every achievement once (+22) and the health lost from 9
    # to 0 at worst (−0.9).
    score_range = (-0.9, float(len(ACHIEVEMENTS)))
    baselines = {"random": RandomLegalPolicy}
    blocking = True
    # crafter's world and drawing are Python and numpy: they compute, never wait.
    cpu_bound = True
    viewer_frames = True
    # BALROG's released config (eval.num_episodes.crafter: 10) and App. B's 10 seeds.
    paper_episodes = 10
    # The task page's per-achievement unlock rates (BALROG App. B.1, Fig. 4).
    rate_breakdown = tuple((f"unlocked_{name}", achievement_title(name)) for name in ACHIEVEMENTS)
    rate_breakdown_title = "Achievement unlock rates"

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._env: SeededCrafterEnv | None = None
        self._seed: int | None = None
        self._frame = None  # crafter's latest frame, drawn by every step whatever the format
        self._built: bytes | None = None  # the started Env for the next `_start` (reset_built)

    def configure(self, **options) -> None:
        super().configure(**options)
        if "max_steps" in options:
            self.max_steps = options["max_steps"]

    # BALROG's Crafter prompt says the listed actions are the only valid ones.
    actions_lead = "Below are the only valid actions in the game, each followed by a short description of what it does:"

    def rules_text(self) -> str:
        return "You are an agent playing Crafter."

    def closing_text(self) -> str:
        achievements = "\n".join(
            f"{number}. {achievement_title(name)}" for number, name in enumerate(ACHIEVEMENTS, start=1)
        )
        return (
            f"Here are the achievements you can unlock in the game:\n{achievements}\n\n"
            f"{HISTORY_COMING}\n"
            "Your goal is to go as far as you can by completing all the achievements."
        )

    # -- the game ----------------------------------------------------------------------
    def _start(self, seed: int) -> Observation:
        built, self._built = self._built, None
        env = started_env(seed) if built is None else pickle.loads(built)
        if env._seed != seed:
            raise ValueError(f"a world built for seed {env._seed} handed to the episode of seed {seed}")
        self._env = env
        self._seed = seed
        return self._observation()

    def start_builder(self, seed: int):
        # World generation is a random episode's longest stretch of CPU in one go.
        return started_env_pickled, (seed,)

    def reset_built(self, seed: int, built: bytes) -> Observation:
        self._built = built
        try:
            return self.reset(seed)
        finally:
            self._built = None

    def _play(self, action: str) -> Outcome:
        before = self._unlocked()
        _no_frame, reward, dead, _info = self._env.step(ACTION_INDEX[action])
        newly_unlocked = sorted(self._unlocked() - before)
        return Outcome(
            observation=self._observation(),
            reward=float(reward),
            terminated=bool(dead),
            end_reason="died" if dead else None,
            info={"unlocked": newly_unlocked},
        )

    def _observation(self) -> Observation:
        # BALROG's wrapper draws the frame a second time for its image, and at night
        # crafter's drawing adds noise drawn from the world's own random generator: the
        # second drawing moves the world's randomness on, so creatures spawn and move as
        # in BALROG only if it is drawn here too (the first night differs otherwise).
        # Crafter's first drawing, inside its step, only takes its numbers
        # (SeededCrafterEnv._obs).
        frame = self._env.render()
        self._frame = frame
        text = crafter_text.surroundings_text(self._env)
        context = crafter_text.status_text(self._env)
        image = Image.fromarray(frame) if self.format == "rgb" else None
        return Observation(text=text, image=image, context=context)

    def world_picture(self) -> Image.Image | None:
        """The frame crafter drew for this step (its local view and inventory)."""
        return None if self._frame is None else Image.fromarray(self._frame)

    def world_pixels(self):
        # The frame as crafter drew it, without a PIL image in between.
        return self._frame

    # The light changes at every step (and the night's noise with it), so a picture
    # seen again is rare: looking for one cost more than encoding it.
    pictures_repeat = False

    def _unlocked(self) -> set[str]:
        return {name for name, count in self._env._player.achievements.items() if count > 0}

    # -- progress and metrics ----------------------------------------------------------
    def progress_percent(self) -> float:
        if self._env is None:
            return 0.0
        return 100.0 * len(self._unlocked()) / len(ACHIEVEMENTS)

    def episode_metrics(self) -> dict:
        unlocked = sorted(self._unlocked()) if self._env is not None else []
        # One 0/1 metric per achievement as well, so each run keeps its unlock rates.
        flags = {f"unlocked_{name}": name in unlocked for name in ACHIEVEMENTS}
        return {**super().episode_metrics(), "achievements": unlocked, **flags}

    def initial_state_key(self) -> str:
        if self._seed is None:
            raise RuntimeError("call reset(seed) first")
        # The seed alone fixes the world (a fresh Env per episode).
        return f"crafter world {self._seed}"

    def expert_action(self) -> str:
        raise NoExpert(
            "Crafter has no expert: BALROG gives no demonstrations for it and no planner plays it; "
            "its only built-in baseline is the random policy"
        )
