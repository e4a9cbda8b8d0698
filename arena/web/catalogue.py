"""What a submission can choose, read from the suites' and tasks' descriptors: the suites
in their order with their one-line description and paper preset, each with its tasks,
formats, step limits, settings (the paper's value first) and the options every run
sweeps, with their values (a submission may play some of them only). The submission form lays its task choice out from it and
`GET /api/submissions/catalogue/` returns it, so both offer the same thing."""

from __future__ import annotations

import dataclasses

from arena.protocol import setting_text
from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, tasks_of
from envs.suite import PaperPreset


@dataclasses.dataclass(frozen=True)
class TaskSetting:
    name: str  # the key in task_settings, e.g. "silent_invalid_actions"
    label: str  # "Silent invalid actions"
    values: tuple  # the first is the paper's


@dataclasses.dataclass(frozen=True)
class CatalogueTask:
    id: str
    title: str
    formats: tuple[str, ...]
    image_formats: tuple[str, ...]
    max_steps: int
    settings: tuple[TaskSetting, ...]
    runs_per_format: int  # one per combination of the swept options
    swept: str  # the swept options in words, "" when there are none
    # The swept options with their values: a submission may play some values only.
    sweeps: tuple[TaskSetting, ...]
    paper_episodes: int | None  # under the suite's preset, when the suite has one

    def to_json(self) -> dict:
        return {
            "id": self.id, "title": self.title, "formats": list(self.formats),
            "image_formats": list(self.image_formats), "max_steps": self.max_steps,
            "settings": {s.name: {"label": s.label, "values": list(s.values), "paper": s.values[0]} for s in self.settings},
            "runs_per_format": self.runs_per_format, "swept_options": self.swept,
            "sweeps": {s.name: {"label": s.label, "values": list(s.values)} for s in self.sweeps},
            "paper_episodes": self.paper_episodes,
        }


@dataclasses.dataclass(frozen=True)
class CatalogueSuite:
    id: str
    title: str
    description: str
    paper: str
    preset: PaperPreset | None
    tasks: tuple[CatalogueTask, ...]

    def to_json(self) -> dict:
        preset = None
        if self.preset is not None:
            preset = {
                "summary": self.preset.summary, "episodes": self.preset.episodes,
                "strategy": dict(self.preset.strategy),
                "chain_of_thought_strategy": dict(self.preset.chain_of_thought_strategy),
            }
        return {
            "id": self.id, "title": self.title, "description": self.description, "paper": self.paper,
            "paper_preset": preset, "tasks": [task.to_json() for task in self.tasks],
        }


def submission_catalogue() -> list[CatalogueSuite]:
    """Every suite in its order, with its tasks in theirs."""
    return [
        CatalogueSuite(
            id=suite.id, title=suite.title, description=suite.description, paper=suite.paper,
            preset=suite.paper_preset,
            tasks=tuple(_task(task_cls, suite.paper_preset) for task_cls in tasks_of(suite.id).values()),
        )
        for suite in all_suites().values()
    ]


def _task(task_cls, preset: PaperPreset | None) -> CatalogueTask:
    runs = 1
    for values in task_cls.variant_options.values():
        runs *= len(values)
    return CatalogueTask(
        id=task_cls.id, title=task_cls.title, formats=tuple(task_cls.formats),
        image_formats=tuple(fmt for fmt in task_cls.formats if fmt in IMAGE_FORMATS),
        max_steps=task_cls.max_steps,
        settings=tuple(TaskSetting(name, words(name).capitalize(), tuple(values)) for name, values in task_cls.settings.items()),
        runs_per_format=runs, swept=swept_options_text(task_cls),
        sweeps=tuple(
            TaskSetting(name, words(name).capitalize(), tuple(values)) for name, values in task_cls.variant_options.items()
        ),
        paper_episodes=preset.episodes_of(task_cls) if preset else None,
    )


def words(option_name: str) -> str:
    """An option's name as words: "num_colours" → "colours"."""
    return option_name.removeprefix("num_").replace("_", " ")


def swept_options_text(task_cls) -> str:
    """What a run of every combination of the task's options means, in words:
    "plays 16 runs: 8 numbers of colours (3–10) × guided reasoning off/on"."""
    if not task_cls.variant_options:
        return ""
    parts, runs = [], 1
    for name, values in task_cls.variant_options.items():
        runs *= len(values)
        if set(values) == {False, True}:
            parts.append(f"{words(name)} off/on")
        elif all(isinstance(v, int) for v in values) and list(values) == list(range(values[0], values[0] + len(values))):
            parts.append(f"{len(values)} numbers of {words(name)} ({values[0]}–{values[-1]})")
        else:
            parts.append(f"{len(values)} values of {words(name)} ({', '.join(map(setting_text, values))})")
    return f"plays {runs} runs: " + " × ".join(parts)
