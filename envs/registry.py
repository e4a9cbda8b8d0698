"""The catalogue of tasks: `make("lmact/gridworld", format="ascii")`."""

from __future__ import annotations

from envs.core import Task

_TASKS: dict[str, type[Task]] = {}


def register(cls: type[Task]) -> type[Task]:
    if cls.id in _TASKS:
        raise ValueError(f"task {cls.id} registered twice")
    _TASKS[cls.id] = cls
    return cls


_loaded = False


def _load_suites() -> None:
    # Importing a suite package registers its tasks.
    global _loaded
    import envs.adventure  # noqa: F401
    import envs.infogather  # noqa: F401
    import envs.lmact  # noqa: F401

    _loaded = True


def all_tasks() -> dict[str, type[Task]]:
    # A flag, not "is the catalogue empty": importing one suite directly must not stop
    # the others from loading.
    if not _loaded:
        _load_suites()
    return dict(_TASKS)


def get_task_class(task_id: str) -> type[Task]:
    tasks = all_tasks()
    try:
        return tasks[task_id]
    except KeyError:
        raise KeyError(f"unknown task {task_id!r}") from None


def make(task_id: str, format: str | None = None, **options) -> Task:
    task = get_task_class(task_id)(format)
    if options:
        task.configure(**options)
    return task
