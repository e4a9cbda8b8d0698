"""AdventureGame's experiments (AdventureGame §4.1), one task each: the spec table the
registry reads (envs.spec). Every row plays envs.adventure.tasks.AdventureTask on its
experiment's instances; the limit is the game's 50 turns (§3.2)."""

from envs.spec import TaskSpec

_EXPERIMENTS = (
    ("basic-easy", "Basic, easy"),
    ("basic-hard", "Basic, hard"),
    ("limit-easy", "Inventory limit, easy"),
    ("limit-hard", "Inventory limit, hard"),
    ("preexplore-easy", "Pre-exploration, easy"),
    ("preexplore-hard", "Pre-exploration, hard"),
    ("synthetic-easy", "Synthetic words, easy"),
    ("synthetic-medium", "Synthetic words, medium"),
    ("synthetic-hard", "Synthetic words, hard"),
)

TASKS = tuple(
    TaskSpec(
        id=f"adventure/{experiment}", entry_point="envs.adventure.tasks:AdventureTask",
        title=f"AdventureGame: {title}", max_steps=50, formats=("text",), game={"experiment": experiment},
    )
    for experiment, title in _EXPERIMENTS
)
