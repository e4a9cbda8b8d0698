"""BALROG's environments and tasks as its leaderboard names them, mapped to the arena's
task ids, and BALROG's statistics (BALROG §3, "Evaluation"). Plain Python, no Django.

BALROG's leaderboard has one column per environment in a fixed order (BabyAI,
Crafter, TextWorld, Baba Is AI, MiniHack, NetHack) and names tasks by its own ids
("BabyAI-MixedTrainLocal-v0/goto", "default", "env/goto_win", "MiniHack-Quest-Easy-v0");
each arena task class also names its BALROG task (`balrog_name`), which a test checks
against this table.
The arena plays (or imports) them as tasks of the suite "balrog": `arena_task` maps a
BALROG name to a task id with its options, `balrog_task` maps back, and
`environment_of` says which column a run counts in — also for task ids the arena has
no environment for yet (imported Baba Is AI, MiniHack and NetHack results).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterable


@dataclasses.dataclass(frozen=True)
class Environment:
    """One of BALROG's six environments: its key (folder and summary key) and title."""

    name: str
    title: str


BABYAI = Environment("babyai", "BabyAI")
CRAFTER = Environment("crafter", "Crafter")
TEXTWORLD = Environment("textworld", "TextWorld")
BABAISAI = Environment("babaisai", "Baba Is AI")
MINIHACK = Environment("minihack", "MiniHack")
NETHACK = Environment("nle", "NetHack")
# BALROG's order (the columns of its leaderboard and of Table 1 in the paper).
ENVIRONMENTS = (BABYAI, CRAFTER, TEXTWORLD, BABAISAI, MINIHACK, NETHACK)
# The environments with an image mode: BALROG's VLM leaderboard averages over these five
# (TextWorld is text only, BALROG §2), as each VLM submission's summary.json does.
IMAGE_MODE_ENVIRONMENTS = (BABYAI, CRAFTER, BABAISAI, MINIHACK, NETHACK)

# Tasks with a fixed name on both sides: BALROG's name → the arena's task id.
FIXED_TASKS: dict[Environment, dict[str, str]] = {
    BABYAI: {
        "BabyAI-MixedTrainLocal-v0/goto": "balrog/babyai-goto",
        "BabyAI-MixedTrainLocal-v0/pickup": "balrog/babyai-pickup",
        "BabyAI-MixedTrainLocal-v0/open": "balrog/babyai-open",
        "BabyAI-MixedTrainLocal-v0/putnext": "balrog/babyai-putnext",
        "BabyAI-MixedTrainLocal-v0/pick_up_seq_go_to": "balrog/babyai-pick-up-seq-go-to",
    },
    CRAFTER: {"default": "balrog/crafter"},
    TEXTWORLD: {
        "treasure_hunter": "balrog/textworld-treasure-hunter",
        "the_cooking_game": "balrog/textworld-cooking",
        "coin_collector": "balrog/textworld-coin-collector",
    },
    # The MiniHack tasks BALROG evaluates (BALROG §2, App. E).
    MINIHACK: {
        "MiniHack-MazeWalk-9x9-v0": "balrog/minihack-mazewalk-9x9",
        "MiniHack-MazeWalk-15x15-v0": "balrog/minihack-mazewalk-15x15",
        "MiniHack-Corridor-R3-v0": "balrog/minihack-corridor-r3",
        "MiniHack-CorridorBattle-Dark-v0": "balrog/minihack-corridorbattle-dark",
        "MiniHack-Quest-Easy-v0": "balrog/minihack-quest-easy",
        "MiniHack-Quest-Medium-v0": "balrog/minihack-quest-medium",
        "MiniHack-Boxoban-Medium-v0": "balrog/minihack-boxoban-medium",
        "MiniHack-Boxoban-Hard-v0": "balrog/minihack-boxoban-hard",
    },
    NETHACK: {"NetHackChallenge-v0": "balrog/nethack"},
}

# Baba Is AI: one arena task; BALROG's level family ("env/<family>") is its option.
BABAISAI_TASK = "balrog/babaisai"
BABAISAI_PREFIX = "env/"
LEVEL_OPTION = "level"

class UnknownTask(ValueError):
    """A BALROG environment or task name the catalogue cannot map."""


@dataclasses.dataclass(frozen=True)
class ArenaTask:
    task_id: str
    options: dict = dataclasses.field(default_factory=dict)


def environment_named(name: str) -> Environment:
    for environment in ENVIRONMENTS:
        if environment.name == name:
            return environment
    known = ", ".join(e.name for e in ENVIRONMENTS)
    raise UnknownTask(f"BALROG has no environment {name!r} (its environments: {known})")


# A MiniHack task outside BALROG's list (a newer BALROG may evaluate more) is imported
# as "balrog/minihack-<name>", lower-cased, "_" as "-", without the "MiniHack-" prefix.
MINIHACK_PREFIX = "balrog/minihack-"


def _other_minihack_task(balrog_name: str) -> ArenaTask:
    if not balrog_name.startswith("MiniHack-"):
        raise UnknownTask(f"MiniHack tasks are named MiniHack-<name>, not {balrog_name!r}")
    return ArenaTask(MINIHACK_PREFIX + balrog_name.lower().replace("_", "-").removeprefix("minihack-"))


def arena_task(environment: Environment, balrog_name: str) -> ArenaTask:
    """The arena task (id and options) of a BALROG task of `environment`."""
    if environment == MINIHACK and balrog_name not in FIXED_TASKS[MINIHACK]:
        return _other_minihack_task(balrog_name)
    if environment in FIXED_TASKS:
        task_id = FIXED_TASKS[environment].get(balrog_name)
        if task_id is None:
            known = ", ".join(FIXED_TASKS[environment])
            raise UnknownTask(f"{environment.title} has no task {balrog_name!r} in BALROG (its tasks: {known})")
        return ArenaTask(task_id)
    if environment == BABAISAI:
        level = balrog_name.removeprefix(BABAISAI_PREFIX)
        if not balrog_name.startswith(BABAISAI_PREFIX) or not level:
            raise UnknownTask(f"Baba Is AI tasks are named {BABAISAI_PREFIX}<level family>, not {balrog_name!r}")
        return ArenaTask(BABAISAI_TASK, {LEVEL_OPTION: level})
    raise UnknownTask(f"no task mapping for the environment {environment.name!r}")


def balrog_task(task_id: str, options: dict | None = None) -> tuple[Environment, str] | None:
    """The BALROG environment and task name of an arena task with its options; None for
    a task that is not one of BALROG's (or a MiniHack id whose exact name is unknown)."""
    options = options or {}
    for environment, tasks in FIXED_TASKS.items():
        for name, mapped in tasks.items():
            if mapped == task_id:
                return environment, name
    if task_id == BABAISAI_TASK and options.get(LEVEL_OPTION):
        return BABAISAI, BABAISAI_PREFIX + str(options[LEVEL_OPTION])
    return None


def environment_of(task_id: str, options: dict | None = None) -> Environment | None:
    """Which of BALROG's environments a run of this task (and options) counts in; None
    for a task of no BALROG environment."""
    found = balrog_task(task_id, options)
    if found is not None:
        return found[0]
    if task_id == BABAISAI_TASK:
        return BABAISAI
    if task_id.startswith(MINIHACK_PREFIX):
        return MINIHACK
    return None


# -- BALROG's statistics (BALROG §3, "Evaluation") -----------------------------------


@dataclasses.dataclass(frozen=True)
class Figure:
    """Progress in percent with its standard error over `episodes` episodes (None for
    no episode)."""

    mean: float | None
    stderr: float | None
    episodes: int

    def __init__(self, mean: float | None, stderr: float | None, episodes: int):
        # Set in the instance's dictionary rather than through object.__setattr__ one
        # call each, as the generated __init__ of a frozen class does: the front page's
        # overall board builds a few thousand figures (bench/read_pages.py).
        fields = self.__dict__
        fields["mean"], fields["stderr"], fields["episodes"] = mean, stderr, episodes


NO_EPISODES = Figure(None, None, 0)


def pooled_figure(sums: Iterable[dict]) -> Figure:
    """Progress over the pooled episodes of several runs, as BALROG computes a task's
    and an environment's figure: the mean, and the population standard deviation over
    √N. `sums` are the runs' folded progress (arena.metrics.fold: n, sum, sumsq), each
    episode's progress being 0–100."""
    n, total, total_sq = 0, 0.0, 0.0
    for entry in sums:
        n += int(entry.get("n", 0))
        total += float(entry.get("sum", 0.0))
        total_sq += float(entry.get("sumsq", 0.0))
    return pooled_figure_of(n, total, total_sq)


def pooled_figure_of(n: int, total: float, total_sq: float) -> Figure:
    """`pooled_figure` of sums already added up: `n` episodes, their progress's sum
    `total` and sum of squares `total_sq`."""
    if n == 0:
        return NO_EPISODES
    mean = total / n
    spread = total_sq - total * total / n
    # The sums carry a rounding error of about n·ε·Σx²: a spread below it is zero
    # (episodes that all made the same progress), not a tiny standard error.
    if spread <= 2 * n * sys.float_info.epsilon * total_sq:
        spread = 0.0
    return Figure(mean, math.sqrt(spread / n) / math.sqrt(n), n)


def average_figure(figures: Iterable[Figure]) -> Figure:
    """BALROG's overall figure: the mean of the environments' means, with the standard
    error √(Σ SE²) / n over the n environments."""
    scored = [f for f in figures if f.mean is not None]
    if not scored:
        return NO_EPISODES
    count = len(scored)
    # Lists rather than generators (the same values in the same order: the same sums);
    # the overall board averages a few hundred times per page.
    mean = math.fsum([f.mean for f in scored]) / count
    stderr = math.sqrt(math.fsum([(f.stderr or 0.0) ** 2 for f in scored])) / count
    return Figure(mean, stderr, sum([f.episodes for f in scored]))
