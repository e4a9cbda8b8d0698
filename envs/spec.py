"""A task's catalogue entry apart from its game, as gymnasium's EnvSpec is apart from
its environment.

Each suite declares its tasks in one table, `envs/<suite>/specs.py`: a tuple of
`TaskSpec` rows naming, per task, its id, title, step limit, observation formats,
settings, the game class that plays it (the entry point, "module:Class", imported only
when the task is first used, so reading the table loads no game) and the row's
parameters of that game. Tasks that differ only in data (MiniHack's levels, BabyAI's
missions, AdventureGame's experiments) are rows over one class. What was measured
about a task (its prompt sizes, its typical episode length) is in
envs/data/measured.json, written by bench/prompt_sizes.py, and read through the spec.

Plain Python: neither this module nor a spec table imports a game, Django or
`envs.registry`; the registry reads the tables (envs.registry.SUITE_TABLES).
"""

from __future__ import annotations

import dataclasses
import importlib
from types import MappingProxyType
from typing import Mapping

from envs.measured import PromptSize, measured


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """One row of a suite's spec table."""

    id: str  # "balrog/minihack-mazewalk-9x9": <suite>/<name>
    # The game class: "envs.balrog.minihack:MiniHackExplorerTask", or the class itself.
    entry_point: str | type
    title: str  # "MiniHack: maze 9×9"
    max_steps: int  # the step limit a run plays unless a setting changes it
    formats: tuple[str, ...]  # observation formats, the first is the default
    # Options a run may set besides the game's own (Task.settings); the first value of
    # each is the paper's protocol. A task plays the game's settings and these.
    settings: Mapping[str, tuple] = dataclasses.field(default_factory=dict)
    # The row's parameters of the game class (gymnasium's kwargs), set on the class the
    # registry hands out: which level, mission or experiment this row plays.
    game: Mapping[str, object] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if "/" not in self.id:
            raise ValueError(f"task {self.id}: a task id is <suite>/<name>")
        if not self.formats:
            raise ValueError(f"task {self.id}: a task has at least one observation format")
        if self.max_steps < 1:
            raise ValueError(f"task {self.id}: the step limit is at least 1")
        limits = self.settings.get("max_steps")
        if limits is not None and limits[0] != self.max_steps:
            raise ValueError(f"task {self.id}: the max_steps setting's first value is the step limit, {self.max_steps}")
        reserved = sorted(set(self.game) & _SPEC_ATTRIBUTES)
        if reserved:
            raise ValueError(f"task {self.id}: {', '.join(reserved)} are the spec's own fields, not game parameters")
        object.__setattr__(self, "formats", tuple(self.formats))
        object.__setattr__(self, "settings", _frozen(self.settings))
        object.__setattr__(self, "game", _frozen(self.game))

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]

    # -- measured (envs/data/measured.json, written by bench/prompt_sizes.py) -----------
    @property
    def prompt_sizes(self) -> dict[str, PromptSize]:
        """Per observation format, how large the task's prompts are (the submission
        preview's token estimate); a format without a figure is left out of it."""
        return measured(self.id).prompt_sizes

    @property
    def typical_steps(self) -> float | None:
        """The mean episode length the preview plays (None: the step limit)."""
        return measured(self.id).typical_steps

    def game_class(self) -> type:
        """The entry point's class, imported now."""
        if not isinstance(self.entry_point, str):
            return self.entry_point
        module_name, _, class_name = self.entry_point.partition(":")
        if not class_name:
            raise ValueError(f"task {self.id}: entry point {self.entry_point!r} is not 'module:Class'")
        return getattr(importlib.import_module(module_name), class_name)


# Attributes a task class takes from its spec row (Task.for_spec), never from `game`.
_SPEC_ATTRIBUTES = frozenset({"spec", "id", "suite", "title", "max_steps", "formats", "settings"})
