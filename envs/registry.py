"""The catalogue of suites and tasks: `make("lmact/gridworld", format="ascii")`,
`suite_of("lmact/gridworld")`.

It is read from the suites' declarations, not filled by importing games: each suite
package holds its descriptor (`envs/<suite>/__init__.py`: SUITE, an envs.suite.Suite)
and its spec table (`envs/<suite>/specs.py`: TASKS, envs.spec.TaskSpec rows). A new
suite adds its package to SUITE_TABLES. Game modules are imported when the catalogue is
first read (each row's entry point); nothing in a suite imports this module to
register itself, so `envs` has no import cycle (tests/envs/test_envs_imports.py).
"""

from __future__ import annotations

import importlib

from envs.core import IMAGE_FORMATS, Task
from envs.spec import TaskSpec
from envs.suite import Suite

# The suites' packages, each with SUITE in its __init__ and TASKS in its specs module.
SUITE_TABLES = ("envs.adventure", "envs.balrog", "envs.infogather", "envs.lmact", "envs.textatari")

_TASKS: dict[str, type[Task]] = {}
_SUITES: dict[str, Suite] = {}


def task_class(spec: TaskSpec) -> type[Task]:
    """The task class of a spec row: its entry point's game with the row's values."""
    game = spec.game_class()
    if not (isinstance(game, type) and issubclass(game, Task)):
        raise TypeError(f"task {spec.id}: entry point {spec.entry_point!r} is not an envs.core.Task")
    return game.for_spec(spec)


def catalogue(declarations) -> tuple[dict[str, Suite], dict[str, type[Task]]]:
    """Suites and task classes by id from (Suite, spec rows) pairs, refusing an id
    declared twice and a row in another suite's table."""
    suites: dict[str, Suite] = {}
    tasks: dict[str, type[Task]] = {}
    for suite, specs in declarations:
        if suite.id in suites:
            raise ValueError(f"suite {suite.id} declared twice")
        suites[suite.id] = suite
        for spec in specs:
            if spec.id in tasks:
                raise ValueError(f"task {spec.id} declared twice")
            if spec.suite != suite.id:
                raise ValueError(f"task {spec.id} is in the spec table of suite {suite.id!r}")
            tasks[spec.id] = task_class(spec)
    return suites, tasks


def _load_suites() -> None:
    global _loaded
    suites, tasks = catalogue(
        (importlib.import_module(package).SUITE, importlib.import_module(f"{package}.specs").TASKS)
        for package in SUITE_TABLES
    )
    _SUITES.update(suites)
    _TASKS.update(tasks)
    _loaded = True


_loaded = False


def all_tasks() -> dict[str, type[Task]]:
    if not _loaded:
        _load_suites()
    return dict(_TASKS)


def all_suites() -> dict[str, Suite]:
    """Every suite by id, in the suites' display order."""
    if not _loaded:
        _load_suites()
    return {suite.id: suite for suite in sorted(_SUITES.values(), key=lambda s: (s.order, s.id))}


def get_suite(suite_id: str) -> Suite:
    # Looked up in place, not in a copy: the boards ask for every run's suite, thousands
    # of times per page.
    if not _loaded:
        _load_suites()
    try:
        return _SUITES[suite_id]
    except KeyError:
        raise KeyError(f"unknown suite {suite_id!r}") from None


def get_task_class(task_id: str) -> type[Task]:
    if not _loaded:
        _load_suites()
    try:
        return _TASKS[task_id]
    except KeyError:
        raise KeyError(f"unknown task {task_id!r}") from None


def suite_of(task_id: str) -> Suite:
    """The suite a task belongs to (KeyError for an unknown task)."""
    return get_suite(get_task_class(task_id).suite)


def tasks_of(suite_id: str) -> dict[str, type[Task]]:
    """The suite's tasks by id, in the order of its spec table (the order its pages
    list them)."""
    return {task_id: cls for task_id, cls in all_tasks().items() if cls.suite == suite_id}


def replay_renderer(task_id: str, fmt: str) -> str:
    """Which replay-player renderer (static/js/renderers*.js) draws an episode of this
    task in this observation format: "image" for image formats, else the task's own
    renderer or its suite's. Episodes of a task no longer in the catalogue replay as text."""
    if fmt in IMAGE_FORMATS:
        return "image"
    cls = all_tasks().get(task_id)
    if cls is None:
        return "text"
    return cls.renderer or get_suite(cls.suite).renderer


def make(task_id: str, format: str | None = None, **options) -> Task:
    task = get_task_class(task_id)(format)
    if options:
        task.configure(**options)
    return task
