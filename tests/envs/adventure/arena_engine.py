"""The arena's own generated worlds and engine (the `instances="arena"` setting), which
these older tests exercise; clembench's instances are the default (test_clembench_*)."""

from tests.envs.adventure.experiments import TASK_CLASSES


def arena_task(experiment: str):
    task = TASK_CLASSES[experiment]()
    task.configure(instances="arena")
    return task
