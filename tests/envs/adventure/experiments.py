"""The AdventureGame task class of each experiment, as the registry hands them out."""

from envs.registry import tasks_of

TASK_CLASSES = {cls.experiment: cls for cls in tasks_of("adventure").values()}
