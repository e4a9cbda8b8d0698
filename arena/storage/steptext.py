"""A step's texts as stored: each once.

A step row used to hold several texts twice: the observation (in `observation_text` and
again inside the `prompt_added` part that shows it to the model), a chain-of-thought
completion (in `completion` and again, stripped, in `reasoning`), and in `calls` the
call's token counts and latency that the step's own columns repeat, with the same keys
spelt out in every row. The stored form leaves each out where the row holds it already;
`restore` puts everything back, so a Step read from the database (arena.models.Step
calls it for every row it loads) has exactly the values it had before:

- `prompt_added`: the first text part that contains the observation stores the text
  around it, with "observation_at" the offset where the observation goes (observations
  no longer than that key are left in place);
- `reasoning`: NULL when it is the completion, stripped (as chain-of-thought strategies
  record it);
- `calls`: a call with only the usual keys (CALL_KEYS) is stored with the marker key
  "~" listing the usual keys it lacks, and only the values that differ from
  CALL_DEFAULTS or, for a step's only call, from the step's own token counts and
  latency; it is read back with its keys in CALL_KEYS's order, the order the agents
  write them in (PostgreSQL's jsonb keeps no order anyway). Other calls are stored as
  given.

`to_store` is idempotent (a stored row stays as it is), and rows written in the plain
form (older rows, bulk imports, fixtures) read back unchanged: none of them has a NULL
reasoning, an "observation_at" part or a "~" call.
"""

from __future__ import annotations

OBSERVATION_AT = "observation_at"
SHORTEST_MARKED = len(f', "{OBSERVATION_AT}": 10000')
CALL_MARKER = "~"
CALL_KEYS = (
    "purpose", "tokens_in", "tokens_out", "cached_tokens_in", "cache_write_tokens_in", "reasoning_tokens", "latency_ms",
    "attempts", "http_status", "finish_reason", "completion",
)
CALL_DEFAULTS = {"purpose": "act", "attempts": 1, "http_status": 200, "finish_reason": "stop"}
# Usual keys a call has only when it has a value (reasoning models' calls): a call
# without one is not marked as lacking it, so older calls read back as they were.
OPTIONAL_CALL_KEYS = ("reasoning_tokens", "cache_write_tokens_in")
# Asked of every call stored, so made once: the usual keys as a set, and those a call
# is marked as lacking.
_CALL_KEY_SET = frozenset(CALL_KEYS)
_MARKED_WHEN_LACKING = tuple(key for key in CALL_KEYS if key not in ("completion", *OPTIONAL_CALL_KEYS))
# The step columns that a step's only call repeats.
STEP_TOTALS = ("tokens_in", "tokens_out", "cached_tokens_in", "latency_ms")


def to_store(fields: dict) -> dict:
    """`fields` (a step's values by field name, `calls` as arena.services.steps.calls_to_store
    leaves them) with prompt_added, reasoning and calls in their stored form."""
    stored = dict(fields)
    stored["prompt_added"] = prompt_to_store(fields["prompt_added"], fields["observation_text"])
    stored["reasoning"] = reasoning_to_store(fields["reasoning"], fields["completion"])
    stored["calls"] = calls_to_store(fields["calls"], fields)
    return stored


def restore(stored: dict) -> dict:
    """The inverse of `to_store`: a step's values as they were before storing."""
    values = dict(stored)
    values["prompt_added"] = prompt_restored(stored["prompt_added"], stored["observation_text"])
    values["reasoning"] = reasoning_restored(stored["reasoning"], stored["completion"])
    values["calls"] = calls_restored(stored["calls"], stored)
    return values


def restore_loaded(step) -> None:
    """Restore, in place, the stored fields a just-loaded Step holds. A field its query
    left out stays out; a column needed to restore one that was left out is loaded on
    demand (Django loads a deferred field when it is read)."""
    loaded = step.__dict__
    if _has_marked_part(loaded.get("prompt_added")):
        step.prompt_added = prompt_restored(loaded["prompt_added"], step.observation_text)
    if "reasoning" in loaded and loaded["reasoning"] is None:
        step.reasoning = reasoning_restored(None, step.completion)
    calls = loaded.get("calls")
    if isinstance(calls, list) and any(_is_dict(call) and CALL_MARKER in call for call in calls):
        step.calls = calls_restored(calls, {key: getattr(step, key) for key in STEP_TOTALS})


def prompt_to_store(parts: list, observation: str | None) -> list:
    # The marker costs about as much as a very short observation: those stay in place.
    if not observation or len(observation) <= SHORTEST_MARKED or not isinstance(parts, list) or _has_marked_part(parts):
        return parts
    for position, part in enumerate(parts):
        text = part.get("text") if _is_dict(part) and part.get("type") == "text" else None
        if not isinstance(text, str):
            continue
        at = text.find(observation)
        if at < 0:
            continue
        shortened = {key: (text[:at] + text[at + len(observation):] if key == "text" else value)
                     for key, value in part.items()}
        shortened[OBSERVATION_AT] = at
        return [*parts[:position], shortened, *parts[position + 1:]]
    return parts


def prompt_restored(parts: list, observation: str | None) -> list:
    if not _has_marked_part(parts):
        return parts
    restored = []
    for part in parts:
        if _is_dict(part) and OBSERVATION_AT in part:
            at, text = part[OBSERVATION_AT], part["text"]
            part = {key: (text[:at] + (observation or "") + text[at:] if key == "text" else value)
                    for key, value in part.items() if key != OBSERVATION_AT}
        restored.append(part)
    return restored


def reasoning_to_store(reasoning: str | None, completion: str) -> str | None:
    if reasoning and reasoning == (completion or "").strip():
        return None
    return reasoning


def reasoning_restored(reasoning: str | None, completion: str) -> str:
    return (completion or "").strip() if reasoning is None else reasoning


def calls_to_store(calls: list, step: dict) -> list:
    if not isinstance(calls, list):
        return calls
    return [_call_to_store(call, _defaults(step, len(calls))) for call in calls]


def calls_restored(calls: list, step: dict) -> list:
    if not isinstance(calls, list):
        return calls
    return [_call_restored(call, _defaults(step, len(calls))) for call in calls]


def _defaults(step: dict, count: int) -> dict:
    if count != 1:
        return CALL_DEFAULTS
    totals = {key: step.get(key) for key in STEP_TOTALS}
    # Compared as the database gives it back: a float column returns 5.0 for 5.
    if totals["latency_ms"] is not None:
        totals["latency_ms"] = float(totals["latency_ms"])
    return {**CALL_DEFAULTS, **totals}


def _call_to_store(call, defaults: dict):
    if not _is_dict(call) or CALL_MARKER in call:
        return call
    if not _CALL_KEY_SET.issuperset(call):
        return call  # a call with keys of its own is kept as given
    stored: dict = {CALL_MARKER: [key for key in _MARKED_WHEN_LACKING if key not in call]}
    for key, value in call.items():
        if not (key in defaults and _same(value, defaults[key])):
            stored[key] = value
    return stored


def _call_restored(call, defaults: dict):
    if not _is_dict(call) or CALL_MARKER not in call:
        return call
    lacking = set(call[CALL_MARKER])
    restored = {}
    for key in CALL_KEYS:
        if key in call:
            restored[key] = call[key]
        elif key in defaults and key not in lacking:
            restored[key] = defaults[key]
    return restored


def _same(value, default) -> bool:
    # 1 == True == 1.0 in Python; the stored JSON must not turn one into the other.
    return type(value) is type(default) and value == default


def _has_marked_part(parts) -> bool:
    return isinstance(parts, list) and any(_is_dict(part) and OBSERVATION_AT in part for part in parts)


def _is_dict(value) -> bool:
    return isinstance(value, dict)
