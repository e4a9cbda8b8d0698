"""The protocol a run was played under, in one place for every leaderboard row, table and
API row: its suite's paper preset (envs.suite.PaperPreset) or custom settings, with the
temperature, output-token limit, episodes and reply parsing it played.

A run is **comparable** when it played its suite's preset: every setting the preset fixes
(its strategy, and its chain-of-thought variant where it has one) has the preset's value,
and it plays at least the preset's number of episodes (fewer play only some of its seeds). Custom runs are listed apart and never ranked
against comparable ones. Built-in baselines are reference rows (no model, so no generation
settings), never ranked; imported results were played under their paper's own harness by
its authors (BALROG's leaderboard folders), and are comparable.

The answer is worked out from what the run stored (its variant and episode count), not
from a flag, so a run stays classified by what it played.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from arena.variant import Variant
from envs.registry import get_task_class, suite_of

PRESET, CUSTOM, BASELINE, IMPORTED = "preset", "custom", "baseline", "imported"
# Settings a preset fixes whose value a run without it takes from its submission.
_GENERATION = ("temperature", "max_tokens")


@dataclasses.dataclass(frozen=True)
class Protocol:
    """One run's protocol."""

    kind: str  # PRESET, CUSTOM, BASELINE or IMPORTED
    temperature: float | None
    max_tokens: int | None
    episodes: int
    lenient_parsing: bool
    # For a custom run: each setting that departs from its suite's preset, in words,
    # e.g. "temperature 0 (preset 1)"; "no paper preset" for a suite without one.
    differences: tuple[str, ...] = ()

    @property
    def comparable(self) -> bool:
        return self.kind in (PRESET, IMPORTED)


def run_protocol(run) -> Protocol:
    """The protocol of `run` (its submission read for the generation settings)."""
    submission = run.submission
    episodes = int(run.num_episodes)
    if submission.is_baseline:
        return Protocol(BASELINE, None, None, episodes, False)
    variant = Variant.of(run)
    if submission.is_imported:
        return Protocol(IMPORTED, variant.temperature, variant.max_tokens, episodes, variant.lenient_parsing)
    temperature, max_tokens = variant.generation(submission)
    key = (run.task, id(variant), episodes, temperature, max_tokens)
    cached = _custom_differences.get(key)
    if cached is None or cached[0] is not variant:
        cached = _custom_differences[key] = (variant, _differences(run.task, variant, episodes, temperature, max_tokens))
        if len(_custom_differences) > 4096:  # a page's runs share a few hundred keys
            _custom_differences.clear()
            _custom_differences[key] = cached
    differences = cached[1]
    kind = CUSTOM if differences else PRESET
    return Protocol(kind, temperature, max_tokens, episodes, variant.lenient_parsing, differences)


# Worked out once per (task, variant object, episodes, generation): a board's thousand
# runs share a few hundred; the variant is kept so that its id stays its own.
_custom_differences: dict[tuple, tuple[Variant, tuple[str, ...]]] = {}


def _differences(task: str, variant: Variant, episodes: int, temperature, max_tokens) -> tuple[str, ...]:
    try:
        suite, task_cls = suite_of(task), get_task_class(task)
    except KeyError:
        return ("a task no longer in the catalogue",)
    preset = suite.paper_preset
    if preset is None:
        return ("no paper preset",)
    fixed = dict(preset.strategy)
    if variant.chain_of_thought and preset.chain_of_thought_strategy:
        fixed.update(preset.chain_of_thought_strategy)
    played = {"temperature": temperature, "max_tokens": max_tokens}
    differences = []
    for name, wanted in fixed.items():
        value = played[name] if name in _GENERATION else getattr(variant, name)
        if value != wanted:
            differences.append(f"{_words(name)} {setting_text(value)} (preset {setting_text(wanted)})")
    # Fewer episodes than the preset's play fewer of its seeds (AdventureGame's seed s is
    # instance s mod 16; BALROG's Baba Is AI cycles its levels): not the same sample.
    wanted_episodes = preset.episodes_of(task_cls)
    if episodes < wanted_episodes:
        differences.append(f"{episodes} episode{'s' if episodes != 1 else ''} (preset {wanted_episodes})")
    return tuple(differences)


def _words(name: str) -> str:
    return {"num_demonstrations": "demonstrations", "max_tokens": "max tokens"}.get(name, name.replace("_", " "))


def setting_text(value) -> str:
    """A setting's value as a row and a form message write it: on/off, 1, 8,192."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclasses.dataclass(frozen=True)
class RowProtocol:
    """The protocol of the runs behind one leaderboard row, stated on the row."""

    kind: str  # PRESET, CUSTOM, BASELINE or IMPORTED (CUSTOM if any run is custom)
    temperatures: tuple
    max_tokens: tuple
    episodes: tuple[int, ...]
    lenient_parsing: tuple[bool, ...]
    differences: tuple[str, ...]

    @property
    def comparable(self) -> bool:
        return self.kind in (PRESET, IMPORTED)

    @property
    def label(self) -> str:
        return {PRESET: "paper preset", CUSTOM: "custom", BASELINE: "baseline", IMPORTED: "imported"}[self.kind]

    @property
    def text(self) -> str:
        """The protocol in one line: "paper preset · temperature 1 · 8,192 max tokens ·
        5–120 episodes per run · strict parsing"."""
        if self.kind == BASELINE:
            return f"baseline policy, no model · {_episodes_per_run(self.episodes)}"
        if self.kind == IMPORTED:
            parts = ["imported: played under the paper's own harness by its authors (comparable)"]
        else:
            parts = [self.label]
        if self.temperatures:
            parts.append(f"temperature {'/'.join(setting_text(float(t)) for t in self.temperatures)}")
        if self.max_tokens:
            parts.append(f"{'/'.join(setting_text(int(m)) for m in self.max_tokens)} max tokens")
        if self.episodes and self.kind != IMPORTED:
            parts.append(_episodes_per_run(self.episodes))
        if self.lenient_parsing:
            parts.append(" and ".join("lenient parsing" if lenient else "strict parsing" for lenient in self.lenient_parsing))
        text = " · ".join(parts)
        if self.differences:
            text += " — differs from the preset: " + "; ".join(self.differences)
        return text


    def to_json(self) -> dict:
        """The API's "protocol" of a row."""
        return {
            "kind": self.kind, "comparable": self.comparable, "temperatures": list(self.temperatures),
            "max_tokens": list(self.max_tokens), "episodes_per_run": list(self.episodes),
            "parsing": ["lenient" if lenient else "strict" for lenient in self.lenient_parsing],
            "differences_from_preset": list(self.differences), "text": self.text,
        }


def _episodes_per_run(values: tuple[int, ...]) -> str:
    return f"{_span(values)} episode{'' if set(values) == {1} else 's'} per run"


def _span(values: tuple[int, ...]) -> str:
    if not values:
        return "0"
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def row_protocol(runs: Iterable) -> RowProtocol:
    """The protocol of a row's runs: preset only when every run played its preset."""
    protocols = [run_protocol(run) for run in runs]
    kinds = {protocol.kind for protocol in protocols}
    if not kinds:
        kind = PRESET
    elif kinds == {BASELINE}:
        kind = BASELINE
    elif kinds == {IMPORTED}:
        kind = IMPORTED
    elif CUSTOM in kinds:
        kind = CUSTOM
    else:
        kind = PRESET if PRESET in kinds else sorted(kinds)[0]
    return RowProtocol(
        kind=kind,
        temperatures=tuple(sorted({p.temperature for p in protocols if p.temperature is not None})),
        max_tokens=tuple(sorted({p.max_tokens for p in protocols if p.max_tokens is not None})),
        episodes=tuple(sorted({p.episodes for p in protocols})),
        lenient_parsing=tuple(sorted({p.lenient_parsing for p in protocols if p.kind != BASELINE})),
        differences=tuple(dict.fromkeys(d for p in protocols for d in p.differences)),
    )


def is_comparable(run) -> bool:
    """Whether `run` may be ranked with the comparable rows (a baseline counts with them
    as an unranked reference row)."""
    return run_protocol(run).kind != CUSTOM
