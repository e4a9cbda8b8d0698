"""A run's variant: what changes what the model sees and how it is asked.

Stored on `Run.variant` as JSON (so a run stays interpretable when its submission
changes); read everywhere through `Variant.of(run)`, which holds the one set of defaults
and the one way of describing a variant in words.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any


# The fields `Variant.from_dict` converts, and to what.
_NORMALISED = {
    "num_demonstrations": int, "history_window": int, "show_legal_actions": bool, "chain_of_thought": bool,
    "answer_markers": bool, "keep_reasoning": bool, "self_correction": bool, "replay_control": bool,
    "temperature": float, "max_tokens": int, "lenient_parsing": bool,
}


@functools.cache
def _field_names(cls) -> frozenset[str]:
    return frozenset(field.name for field in dataclasses.fields(cls))


@dataclasses.dataclass(frozen=True)
class Variant:
    format: str = ""
    # The task's own options (e.g. infogather's number of colours).
    options: dict = dataclasses.field(default_factory=dict)
    num_demonstrations: int = 0
    show_legal_actions: bool = True
    chain_of_thought: bool = False
    # BALROG's robust agents: the answer between explicit markers (arena.strategies.history).
    answer_markers: bool = False
    # Multi-turn suites: observations kept in the conversation (BALROG §3: 16).
    history_window: int = 16
    # Earlier replies kept whole rather than reduced to their action.
    keep_reasoning: bool = True
    self_correction: bool = False
    reflection: str = "none"  # "none", "recent" or "best" (TextAtari §3.2)
    # LMAct's replay-control experiment (LMAct App. C.2).
    replay_control: bool = False
    # Generation settings a paper preset fixes for its runs (BALROG's config samples at
    # temperature 1.0 with up to 8,192 output tokens); None plays the submission's own.
    temperature: float | None = None
    max_tokens: int | None = None
    # BALROG's agents read a reply strictly (arena.strategies.answers); the lenient
    # reading (any case of "ACTION:", spaces trimmed, the last marker, the whole reply
    # as a fallback) is an option that a run must ask for.
    lenient_parsing: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Variant":
        data = data or {}
        known = _field_names(cls)
        values = {name: value for name, value in data.items() if name in known and value is not None}
        # Older rows and hand-made JSON may hold numbers as strings or floats. Normalised
        # before the one construction (a board reads a thousand runs' variants).
        if "options" in values:
            values["options"] = dict(values["options"] or {})
        for name, kind in _NORMALISED.items():
            if name in values:
                values[name] = kind(values[name])
        if "history_window" in values:
            values["history_window"] = max(1, values["history_window"])
        return cls(**values)

    @classmethod
    def of(cls, run) -> "Variant":
        """The variant of a run (read once per run object)."""
        cached = run.__dict__.get("_variant")
        if cached is None or cached[0] is not run.variant:
            cached = (run.variant, cls.from_dict(run.variant))
            run.__dict__["_variant"] = cached
        return cached[1]

    @property
    def plays_in_order(self) -> bool:
        """Reflexion carries lessons from one episode to the next: one at a time."""
        return self.reflection != "none"

    def options_label(self) -> list[str]:
        parts = []
        for name, value in self.options.items():
            words = name.replace("num_", "").replace("_", " ")
            if value is True:
                parts.append(words)
            elif value is not False:
                parts.append(f"{value} {words}")
        return parts

    def prompt_flags(self) -> list[str]:
        """What sets the prompt apart from the default one, besides the demonstrations
        (a scaling curve is one line per such setting)."""
        flags = ["CoT"] if self.chain_of_thought else []
        if self.answer_markers:
            flags.append("robust")
        if not self.show_legal_actions:
            flags.append("no legal list")
        return flags

    def strategy_label(self) -> list[str]:
        parts = ["CoT" if self.chain_of_thought else "naive", f"{self.num_demonstrations} demos"]
        if self.answer_markers:
            parts.insert(0, "robust")
        if not self.show_legal_actions:
            parts.append("no legal list")
        if self.self_correction:
            parts.append("self-correction")
        if self.plays_in_order:
            parts.append(f"reflexion ({self.reflection})")
        if self.replay_control:
            parts.append("replay control")
        if self.lenient_parsing:
            parts.append("lenient parsing")
        if self.temperature is not None:
            parts.append(f"temperature {self.temperature:g}")
        if self.max_tokens is not None:
            parts.append(f"{self.max_tokens} max tokens")
        return parts

    def generation(self, submission) -> tuple[float, int]:
        """The temperature and output-token limit a run's calls use: the variant's when
        it fixes them (a paper preset), else the submission's."""
        temperature = submission.temperature if self.temperature is None else self.temperature
        max_tokens = submission.max_tokens if self.max_tokens is None else self.max_tokens
        return temperature, max_tokens

    def label(self, *, baseline: bool = False) -> str:
        """Format, options and (for model runs) prompt strategy, in a few words."""
        parts = [self.format, *self.options_label()]
        if not baseline:
            parts += self.strategy_label()
        return " · ".join(p for p in parts if p)
