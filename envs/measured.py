"""Measured figures of the tasks, read from envs/data/measured.json, which
bench/prompt_sizes.py writes: per task and observation format the size of its prompts
(PromptSize), and the mean episode length the submission preview plays (None: the
step limit). They describe the prompts the arena sends, so they are measured, never
written by hand; a task or format without a figure is left out of the preview's
estimate, and the preview says so."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

MEASURED_PATH = Path(__file__).resolve().parent / "data" / "measured.json"


@dataclasses.dataclass(frozen=True)
class PromptSize:
    """How large a task's prompts are in one observation format, measured from the
    prompts the arena sends (bench/prompt_sizes.py: the random baseline's episodes
    through the real runner and strategy, tokens counted by arena.strategies.tokens, images by
    OpenAI's tile rule). The submission preview estimates tokens from it."""

    first: int  # tokens of an episode's first prompt (instructions, first observation)
    per_step: int  # tokens each earlier step adds while the prompt keeps it
    answer: int  # tokens of the action alone, a naive answer
    per_demonstration: int = 0  # tokens of one expert demonstration episode (LMAct)


@dataclasses.dataclass(frozen=True)
class Measured:
    """One task's measured figures."""

    prompt_sizes: dict[str, PromptSize]
    typical_steps: float | None = None


NOTHING_MEASURED = Measured(prompt_sizes={})


@functools.cache
def _table() -> dict[str, Measured]:
    raw = json.loads(MEASURED_PATH.read_text())
    return {
        task_id: Measured(
            prompt_sizes={fmt: PromptSize(**size) for fmt, size in entry["prompt_sizes"].items()},
            typical_steps=entry.get("typical_steps"),
        )
        for task_id, entry in raw["tasks"].items()
    }


def measured(task_id: str) -> Measured:
    """The task's figures; a task never measured has none."""
    return _table().get(task_id, NOTHING_MEASURED)


def write_measured(figures: dict[str, Measured], path: Path = MEASURED_PATH) -> None:
    """Merge `figures` (task id -> Measured) into the data file, keeping the other
    tasks' figures; the bench script's only way of recording what it measured."""
    raw = json.loads(path.read_text()) if path.exists() else {"tasks": {}}
    for task_id, entry in figures.items():
        raw["tasks"][task_id] = {
            "prompt_sizes": {fmt: dataclasses.asdict(size) for fmt, size in entry.prompt_sizes.items()},
            "typical_steps": entry.typical_steps,
        }
    path.write_text(_dumps(raw))
    _table.cache_clear()


def _dumps(raw: dict) -> str:
    """The file's text: one line per task, sorted, so that a new measurement shows in a
    diff as the lines of the tasks it changed."""
    lines = [f" {json.dumps(task_id)}: {json.dumps(entry)}" for task_id, entry in sorted(raw["tasks"].items())]
    return "{\n" + f' "about": {json.dumps(raw.get("about", ""))},\n "tasks": {{\n' + ",\n".join(" " + line for line in lines) + "\n }\n}\n"
