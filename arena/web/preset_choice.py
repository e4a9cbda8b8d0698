"""The paper preset against the submitter's own choices, shared by the submission form and
the API: a preset never overrides a setting the submitter chose. Where a suite played "as
in the paper" and a chosen setting disagree, the submission is refused with a message
naming the setting, the submitter's value and the preset's, and the submitter picks
(play that suite with their own settings, or take the preset's values).

The API's default is the form's: every chosen suite with a preset plays it, except a suite
whose preset a field the request sets explicitly would contradict (arena.protocol then
lists its runs apart, as custom).
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.protocol import setting_text
from envs.registry import get_task_class, suite_of

# The submission's fields a preset may fix (envs.suite.PRESET_STRATEGY_FIELDS, which are
# named as the submission names them), and the episodes per task.
EPISODES = "episodes_per_task"
LABELS = {
    EPISODES: "episodes per task", "num_demonstrations": "demonstration episodes",
    "show_legal_actions": "show legal actions", "chain_of_thought": "chain of thought",
    "answer_markers": "answer between markers", "history_window": "history window",
    "keep_reasoning": "keep reasoning", "self_correction": "self-correction", "reflection": "reflection",
    "temperature": "temperature", "max_tokens": "max tokens", "lenient_parsing": "lenient parsing",
}


def suites_with_preset(variants: Iterable[tuple[str, str]]) -> list[str]:
    """The suites of the chosen task variants that have a paper preset, in order."""
    suites = {suite.id: suite for suite in (suite_of(task_id) for task_id, _ in variants)}
    return [suite_id for suite_id, suite in suites.items() if suite.paper_preset is not None]


def conflicts(chosen: dict, suite_ids: Iterable[str], variants: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """{field: [message]} for each setting in `chosen` (the fields the submitter set, by
    name, with their values) that a suite of `suite_ids` played as in its paper would
    play otherwise; empty when the preset and the choices agree."""
    variants = list(variants)
    found: dict[str, list[str]] = {}
    for suite_id in suite_ids:
        suite = next((suite_of(task_id) for task_id, _ in variants if suite_of(task_id).id == suite_id), None)
        if suite is None or suite.paper_preset is None:
            continue
        preset = suite.paper_preset
        fixed = dict(preset.strategy)
        if chosen.get("chain_of_thought") and preset.chain_of_thought_strategy:
            fixed.update(preset.chain_of_thought_strategy)
        for name, value in chosen.items():
            if name in fixed and value != fixed[name]:
                found.setdefault(name, []).append(
                    f"{suite.title} as in the paper plays {LABELS.get(name, name)} {setting_text(fixed[name])}; "
                    f"you chose {setting_text(value)}."
                )
        if EPISODES in chosen:
            counts = sorted({
                preset.episodes_of(get_task_class(task_id)) for task_id, _ in variants if suite_of(task_id).id == suite_id
            })
            if counts != [chosen[EPISODES]]:
                plays = "/".join(f"{count:,}" for count in counts)
                found.setdefault(EPISODES, []).append(
                    f"{suite.title} as in the paper plays {plays} episodes per task; you chose {chosen[EPISODES]:,}."
                )
    return found


def conflicting_suites(chosen: dict, suite_ids: Iterable[str], variants) -> list[str]:
    """The suites of `suite_ids` whose preset contradicts a setting in `chosen`."""
    variants = list(variants)
    return [suite_id for suite_id in suite_ids if conflicts(chosen, [suite_id], variants)]


def how_to_choose(where: str) -> str:
    """The end of a conflict message: the two ways out, in the words of the form or the API."""
    if where == "form":
        return ("Untick “As in the paper” for that suite to play your settings (its rows are then listed apart "
                "as custom), or put the setting back to the preset's value.")
    return ("Send \"paper_protocol\": [] (or leave that suite out of it) to play your settings (its rows are then "
            "listed apart as custom), or leave the field out to play the preset's value.")
