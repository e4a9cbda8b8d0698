"""The infogather tasks (Ke et al. §3.1): the spec table the registry reads (envs.spec).

The step limit is the budget of the default scene (3 colours, 3 shapes, 3 textures):
one step per object, plus one (envs.infogather.tasks.default_budget); a run with
another number of colours gets that scene's budget when the task is configured."""

from envs.spec import TaskSpec

TASKS = (
    TaskSpec(
        id="infogather/single-feature", entry_point="envs.infogather.tasks:SingleFeature",
        title="Information gathering: single feature", max_steps=3 * 3 + 1, formats=("text",),
    ),
    TaskSpec(
        id="infogather/conjunction", entry_point="envs.infogather.tasks:Conjunction",
        title="Information gathering: conjunction", max_steps=3 * 3 * 3 + 1, formats=("text",),
    ),
)
