"""Reading the agent's answer (the four fields of Ke et al. App. B) and scoring a
stated belief (App. A.1).

An answer has four fields, written as `key: value` lines (or as one JSON object):

    action: pick up the red wooden ball
    stop: no
    factor: colour and shape
    combination: red ball

Reading is forgiving: keys in any case, with or without markdown bullets, bold markers
or code fences; several fields on one line separated by ";"; "color" or "colour"; the
paper's own key wording ("Which factor influence reward?", "WINNING COMBINATION"); the
last occurrence of a field wins, so reasoning may come first. A reply with no field at
all is read as a bare action ("red ball") or, if it is just "stop", as a stop.

`canonical` writes an answer back as one line in the same format; reading a canonical
line gives the same answer again, which is what lets the arena replay an episode from
its stored executed actions.
"""

from __future__ import annotations

import dataclasses
import json
import re

from envs.infogather.hypotheses import FACTOR_ORDER
from envs.infogather.scene import NAME_ORDER, POOLS, PROPERTY_ALIASES, VALUE_ALIASES, Scene, SceneObject

ACTION, STOP, FACTOR, COMBINATION = "action", "stop", "factor", "combination"
UNSURE = "unsure"
NONE = "none"

_VALUE_PROPERTY = {value: prop for prop, values in POOLS.items() for value in values}
_WORD = re.compile(r"[a-z]+")
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*$")
_BULLET = re.compile(r"^[\s*\-•>#`_]*(?:\d+[.)]\s*)?[\s*\-•>#`_]*")
_KEY_SPLIT = re.compile(r"[:=?]")
_SEPARATOR = re.compile(r";|\s[*•]\s")
_YES = {"yes", "y", "true", "1", "stop"}
_NO = {"no", "n", "false", "0", "continue"}


@dataclasses.dataclass(frozen=True)
class Answer:
    action: str | None  # the action text as written (None: no action given)
    stop: bool
    factors: tuple[str, ...]  # properties named in the factor field, FACTOR_ORDER; () = unsure/missing
    values: tuple[str, ...]  # property values named in the combination field, NAME_ORDER
    found_fields: bool  # whether any field key was recognised


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _value_word(word: str) -> str | None:
    """Our word for a property value, allowing aliases and plurals; None if not a value."""
    for candidate in (word, word[:-2] if word.endswith("es") else None, word[:-1] if word.endswith("s") else None):
        if not candidate:
            continue
        candidate = VALUE_ALIASES.get(candidate, candidate)
        if candidate in _VALUE_PROPERTY:
            return candidate
    return None


def values_in(text: str) -> tuple[str, ...]:
    """The distinct property values a text names, in NAME_ORDER (colour, texture, shape)."""
    found = {v for v in (_value_word(w) for w in _words(text)) if v}
    return tuple(v for prop in NAME_ORDER for v in POOLS[prop] if v in found)


def factors_in(text: str) -> tuple[str, ...]:
    found = {PROPERTY_ALIASES[w] for w in _words(text) if w in PROPERTY_ALIASES}
    return tuple(prop for prop in FACTOR_ORDER if prop in found)


def _field_key(key: str) -> str | None:
    key = key.lower()
    if "factor" in key:
        return FACTOR
    if "stop" in key:
        return STOP
    if any(word in key for word in ("action", "pick", "command")):
        return ACTION
    if any(word in key for word in ("combination", "winning", "belief", "answer", "rule", "property", "target")):
        return COMBINATION
    return None


def _segments(text: str) -> list[str]:
    lines = [line for line in text.replace("\r", "\n").split("\n") if not _FENCE.match(line)]
    out = []
    for line in lines:
        # Several fields may share a line, separated by ";" or by " * " (App. B's layout).
        out.extend(_SEPARATOR.split(line.replace("**", "").replace("__", "")))
    return out


def _fields_from_lines(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for segment in _segments(text):
        cleaned = _BULLET.sub("", segment).strip()
        match = _KEY_SPLIT.search(cleaned)
        if not match or match.start() == 0 or match.start() > 60:
            continue
        field = _field_key(cleaned[: match.start()])
        if field is None:
            continue
        fields[field] = cleaned[match.end() :].lstrip(":=? ").strip()
    return fields


def _fields_from_json(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for match in re.finditer(r"\{[^{}]*\}", text, re.DOTALL):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for key, value in data.items():
            field = _field_key(str(key))
            if field is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            elif isinstance(value, (list, tuple)):
                value = " and ".join(str(v) for v in value)
            fields[field] = str(value)
    return fields


def _stop_flag(value: str) -> bool:
    words = _words(value)
    return bool(words) and words[0] in _YES


def _action_or_none(text: str) -> str | None:
    """None for an empty action or one that starts with the word "none"."""
    text = text.strip()
    return None if not text or _words(text)[:1] == [NONE] else text


def parse_answer(text: str) -> Answer:
    fields = _fields_from_json(text)
    fields.update(_fields_from_lines(text))
    if not fields:
        bare = " ".join(text.replace("`", " ").split())
        if bare.lower().strip(" .!") == "stop":
            return Answer(action=None, stop=True, factors=(), values=(), found_fields=False)
        return Answer(action=_action_or_none(bare), stop=False, factors=(), values=(), found_fields=False)
    action = _action_or_none(fields.get(ACTION, ""))
    factor_text = fields.get(FACTOR, "")
    factors = () if UNSURE in _words(factor_text) else factors_in(factor_text)
    return Answer(
        action=action,
        stop=_stop_flag(fields.get(STOP, "")),
        factors=factors,
        values=values_in(fields.get(COMBINATION, "")),
        found_fields=True,
    )


MAX_ACTION_CHARS = 160


def clean_action(action: str | None) -> str | None:
    """The action text as it is kept on the canonical line: no field separators or
    markdown, whitespace collapsed, at most MAX_ACTION_CHARS characters. The task reads
    the object from this text, so a replayed canonical line reads the same object."""
    if action is None:
        return None
    for mark in (";", "`", "*", "\n", "\r"):
        action = action.replace(mark, " ")
    action = " ".join(action.split())[:MAX_ACTION_CHARS].strip()
    return action or None


def factor_text(factors: tuple[str, ...]) -> str:
    return " and ".join(factors) if factors else UNSURE


def canonical(action: str | None, stop: bool, factors: tuple[str, ...], values: tuple[str, ...]) -> str:
    """One line in the answer format; parse_answer gives the same fields back."""
    return "; ".join(
        (
            f"action: {clean_action(action) or NONE}",
            f"stop: {'yes' if stop else 'no'}",
            f"factor: {factor_text(factors)}",
            f"combination: {' '.join(values) if values else UNSURE}",
        )
    )


def canonical_answer(answer: Answer) -> str:
    return canonical(answer.action, answer.stop, answer.factors, answer.values)


def resolve_object(action: str | None, scene: Scene) -> tuple[SceneObject | None, str]:
    """The scene object an action names, or None and the reason it names none.

    The action must name exactly one value of each of the scene's properties ("pick up
    the red ball", "Red Ball", "balls: red" all name the red ball); other words are
    ignored, and a value of a property the scene does not have is ignored too.
    """
    if not action:
        return None, "no object was named"
    named: dict[str, set[str]] = {}
    for word in _words(action):
        value = _value_word(word)
        if value is not None:
            named.setdefault(_VALUE_PROPERTY[value], set()).add(value)
    missing = [prop for prop in scene.properties if not named.get(prop)]
    if missing:
        return None, f"{action!r} does not name the object's {' and '.join(missing)}"
    several = [prop for prop in scene.properties if len(named[prop]) > 1]
    if several:
        return None, f"{action!r} names more than one {' and '.join(several)}"
    name = " ".join(next(iter(named[prop])) for prop in scene.properties)
    obj = scene.by_name().get(name)
    if obj is None:
        return None, f"there is no {name} in the room"
    return obj, ""


def belief_score(factors: tuple[str, ...], values: tuple[str, ...], rule_factors, rule_values) -> int:
    """1 if the stated belief is exactly the rule: the factor field names the rule's
    properties and the combination names the rule's values, nothing missing and nothing
    extra; 0 otherwise. (Stricter than App. A.1, which only asks that every target word
    appears, so that naming every value cannot score.)"""
    return int(set(factors) == set(rule_factors) and set(values) == set(rule_values))


def mentions_all(values: tuple[str, ...], rule_values) -> int:
    """App. A.1's own check: every target value is among the named values."""
    return int(set(rule_values) <= set(values))
