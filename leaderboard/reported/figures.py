"""Figures the suites' papers report for their own models ("reported (paper)").

They ship as data, one file per suite under fixtures/reported/ (the schema is in
fixtures/reported/README.md), each figure naming the table or figure it comes from.
They are shown beside the arena's measured rows as reference rows and chart markers,
never ranked and never counted in a best or an average: they were played elsewhere,
under the paper's protocol, and nobody here can replay them.

A file is checked strictly when first read: an unknown task id, a figure without a
table/figure/section reference, a value off its declared scale or an unknown key is an
error naming the file and the entry, so a bad edit fails at start-up and in the tests
rather than showing a wrong number.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from pathlib import Path

from django.conf import settings

from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, all_tasks, get_suite

REPORTED_DIR = Path(settings.BASE_DIR) / "fixtures" / "reported"

# A source must point into the paper: "Table 2", "Table A5", "Fig. 3", "Figure 4", "§4.2".
SOURCE_REFERENCE = re.compile(r"\b(?:Tables?\s+[A-Z]?\d+|Figs?\.\s*[A-Z]?\d+|Figures?\s+[A-Z]?\d+)|§\s*\d")

TOP_KEYS = {"suite", "source", "protocol", "metrics", "omitted", "entries"}
REQUIRED_TOP_KEYS = {"suite", "source", "metrics", "omitted", "entries"}
ENTRY_KEYS = {
    "source", "model", "task", "tasks", "environment", "format", "variant", "scenario", "agent",
    "value", "stderr", "ci", "metric", "notes",
}
REQUIRED_ENTRY_KEYS = {"source", "model", "value", "metric"}


class ReportedFiguresError(ValueError):
    """A reported-figures file that does not follow the schema."""


@dataclasses.dataclass(frozen=True)
class Paper:
    short: str  # "BALROG": how the pages cite it
    title: str
    authors: str

    @property
    def anchor(self) -> str:
        return "paper-" + re.sub(r"[^a-z0-9]+", "-", self.short.lower()).strip("-")


@dataclasses.dataclass(frozen=True)
class Scale:
    metric: str  # the suite's metric (envs.suite.Metric.name) the figure is a value of
    description: str
    low: float | None
    high: float | None


@dataclasses.dataclass(frozen=True)
class ReportedFigure:
    suite: str
    paper: Paper
    source: str  # "BALROG Table 4 (App. A.2)"
    model: str  # as the paper writes it
    tasks: tuple[str, ...]  # the arena tasks the figure is about (several: an average over them)
    metric: str
    scale: Scale
    value: float
    stderr: float | None = None
    ci: tuple[float, float] | None = None
    environment: str = ""
    format: str = ""
    variant: tuple[tuple[str, object], ...] = ()
    scenario: str = ""
    agent: str = ""
    notes: str = ""

    @property
    def is_image(self) -> bool:
        return self.format in IMAGE_FORMATS

    @property
    def setting(self) -> str:
        """What the paper's model was asked with, in words, for the variant column."""
        words = [self.format] if self.format else []
        options = dict(self.variant)
        if "num_demonstrations" in options:
            n = options["num_demonstrations"]
            words.append(f"{n} demonstration{'s' if n != 1 else ''}")
        if options.get("show_legal_actions"):
            words.append("legal actions shown")
        if options.get("chain_of_thought"):
            words.append("chain of thought")
        words.extend(word for word in (self.scenario, self.agent) if word)
        if len(self.tasks) > 1:
            words.append(f"average over {len(self.tasks)} tasks")
        return " · ".join(words) or "as in the paper"


@dataclasses.dataclass(frozen=True)
class ReportedSet:
    suite: str
    paper: Paper
    protocol: str
    omitted: tuple[dict, ...]  # figures of the paper not shipped, each with why
    figures: tuple[ReportedFigure, ...]


def _fail(where: str, message: str):
    raise ReportedFiguresError(f"{where}: {message}")


def _number(value, where: str, name: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        _fail(where, f"{name} must be a number, not {value!r}")
    return float(value)


def _scales(doc: dict, where: str, metric_names: set[str]) -> dict[str, Scale]:
    scales = {}
    if not isinstance(doc.get("metrics"), dict):
        _fail(where, '"metrics" must map a key to {"name", "scale", "min", "max"}')
    for key, spec in doc["metrics"].items():
        if not isinstance(spec, dict) or spec.get("name") not in metric_names:
            _fail(where, f"metric {key!r} must name one of the suite's metrics: {', '.join(sorted(metric_names))}")
        if not isinstance(spec.get("scale"), str) or not spec["scale"].strip():
            _fail(where, f"metric {key!r} must say its scale in words")
        low = _number(spec.get("min"), where, f"metric {key!r} min", optional=True)
        high = _number(spec.get("max"), where, f"metric {key!r} max", optional=True)
        scales[key] = Scale(spec["name"], spec["scale"], low, high)
    return scales


def _entry(raw, index: int, suite: str, paper: Paper, scales: dict[str, Scale], where: str) -> ReportedFigure:
    if not isinstance(raw, dict):
        _fail(where, f"entry {index} must be an object")
    where = f"{where}, entry {index} ({raw.get('model', '?')})"
    unknown = sorted(set(raw) - ENTRY_KEYS)
    if unknown:
        _fail(where, f"unknown keys {', '.join(unknown)}")
    missing = sorted(REQUIRED_ENTRY_KEYS - set(raw))
    if missing:
        _fail(where, f"missing {', '.join(missing)}")
    source = raw["source"]
    if not isinstance(source, str) or not SOURCE_REFERENCE.search(source):
        _fail(where, f'the source {source!r} must name its table or figure ("Table 2", "Fig. 3", "§4.2")')
    if ("task" in raw) == ("tasks" in raw):
        _fail(where, 'give either "task" (one arena task) or "tasks" (the tasks a figure averages over)')
    tasks = (raw["task"],) if "task" in raw else tuple(raw["tasks"] or ())
    known = all_tasks()
    for task_id in tasks:
        if task_id not in known or not str(task_id).startswith(f"{suite}/"):
            _fail(where, f"no task {task_id!r} in the suite {suite}")
    if not tasks:
        _fail(where, '"tasks" is empty')
    scale = scales.get(raw["metric"])
    if scale is None:
        _fail(where, f"metric {raw['metric']!r} is not declared in \"metrics\"")
    value = _number(raw["value"], where, "value")
    if (scale.low is not None and value < scale.low) or (scale.high is not None and value > scale.high):
        _fail(where, f"value {value} is off the scale of {raw['metric']} ({scale.description})")
    stderr = _number(raw.get("stderr"), where, "stderr", optional=True)
    if stderr is not None and stderr < 0:
        _fail(where, "stderr must not be negative")
    ci = raw.get("ci")
    if ci is not None:
        if not isinstance(ci, list) or len(ci) != 2:
            _fail(where, "ci must be [low, high]")
        ci = (_number(ci[0], where, "ci low"), _number(ci[1], where, "ci high"))
    fmt = raw.get("format", "")
    if fmt and any(fmt not in known[task_id].formats for task_id in tasks):
        _fail(where, f"format {fmt!r} is not a format of {', '.join(tasks)}")
    variant = raw.get("variant", {})
    if not isinstance(variant, dict):
        _fail(where, "variant must be an object of run settings")
    for key in ("model", "environment", "scenario", "agent", "notes"):
        if not isinstance(raw.get(key, ""), str):
            _fail(where, f"{key} must be text")
    return ReportedFigure(
        suite=suite, paper=paper, source=source, model=raw["model"], tasks=tasks, metric=scale.metric,
        scale=scale, value=value, stderr=stderr, ci=ci, environment=raw.get("environment", ""), format=fmt,
        variant=tuple(sorted(variant.items())), scenario=raw.get("scenario", ""), agent=raw.get("agent", ""),
        notes=raw.get("notes", ""),
    )


def parse(doc, suite: str, where: str) -> ReportedSet:
    """Check one suite's file (already read as JSON) and build its figures."""
    if not isinstance(doc, dict):
        _fail(where, "the file must hold one object")
    unknown = sorted(set(doc) - TOP_KEYS)
    missing = sorted(REQUIRED_TOP_KEYS - set(doc))
    if unknown or missing:
        _fail(where, f"unknown keys: {', '.join(unknown) or 'none'}; missing: {', '.join(missing) or 'none'}")
    if doc["suite"] != suite:
        _fail(where, f"the file is for the suite {doc['suite']!r}, not {suite!r}")
    source = doc["source"]
    if not isinstance(source, dict) or not all(isinstance(source.get(k), str) for k in ("short", "title", "authors")):
        _fail(where, '"source" must give the paper\'s "short" name, "title" and "authors"')
    paper = Paper(source["short"], source["title"], source["authors"])
    metric_names = {metric.name for metric in get_suite(suite).metrics}
    scales = _scales(doc, where, metric_names)
    omitted = doc["omitted"]
    if not isinstance(omitted, list) or not all(isinstance(o, dict) and o.get("source") and o.get("why") for o in omitted):
        _fail(where, '"omitted" lists the figures left out, each with its "source" and "why"')
    if not isinstance(doc["entries"], list):
        _fail(where, '"entries" must be a list')
    figures = tuple(_entry(raw, i, suite, paper, scales, where) for i, raw in enumerate(doc["entries"]))
    return ReportedSet(suite, paper, doc.get("protocol", ""), tuple(omitted), figures)


@functools.cache
def reported_set(suite: str) -> ReportedSet | None:
    """The suite's shipped figures (None when it ships no file), read and checked once."""
    path = REPORTED_DIR / f"{suite}.json"
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ReportedFiguresError(f"fixtures/reported/{path.name}: not JSON ({error})") from None
    return parse(doc, suite, f"fixtures/reported/{path.name}")


def all_reported() -> list[ReportedSet]:
    return [found for suite in all_suites() if (found := reported_set(suite)) is not None]


def figures_for_task(task_id: str, mode: str = "") -> list[ReportedFigure]:
    """The figures about a task (an environment average counts for each of its tasks),
    in the LLM or VLM mode when a mode filter is set."""
    found = reported_set(task_id.split("/", 1)[0])
    if found is None:
        return []
    figures = [figure for figure in found.figures if task_id in figure.tasks]
    if mode == "llm":
        figures = [figure for figure in figures if not figure.is_image]
    elif mode == "vlm":
        figures = [figure for figure in figures if figure.is_image]
    return figures
