"""What a suite is lives in its package under envs/ (envs.suite.Suite); the arena,
the leaderboard, the templates and the settings ask the descriptor and never test a
suite's or a task's id themselves."""

import re
from pathlib import Path

import pytest

from envs.registry import all_suites

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("arena", "leaderboard", "templates", "config", "static/js")
SUFFIXES = {".py", ".html", ".js", ".txt"}
# The registered suites and the ones announced in the design brief.
SUITE_IDS = sorted(set(all_suites()) | {"balrog", "textatari"})
SUITE = "(?:" + "|".join(SUITE_IDS) + ")"
QUOTE = "[\"']"
CHECKS = {
    "a prefix test on a task id": rf"startswith\(\s*{QUOTE}{SUITE}(?:/|{QUOTE})",
    "a prefix lookup on a task id": rf"__(?:i?startswith|i?contains)\s*=\s*{QUOTE}{SUITE}",
    "a comparison with a suite id": rf"[=!]==?\s*{QUOTE}{SUITE}{QUOTE}|{QUOTE}{SUITE}{QUOTE}\s*[=!]==?",
    "a membership test on suite ids": rf"\bin\s*[\(\[\{{]\s*{QUOTE}{SUITE}{QUOTE}",
    "a table keyed on task ids": rf"{QUOTE}{SUITE}/[\w-]+{QUOTE}\s*:",
    "a table keyed on suite ids": rf"^\s*{QUOTE}{SUITE}{QUOTE}\s*:",
    "a page link with a fixed suite": rf"{QUOTE}leaderboard:(?:suite|task){QUOTE}\s+{QUOTE}{SUITE}{QUOTE}",
}


def offences(text: str) -> list[str]:
    """The kinds of suite-identity checks a line of source makes."""
    return [kind for kind, pattern in CHECKS.items() if re.search(pattern, text)]


def _checked_files():
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "migrations" not in path.parts:
                yield path


def test_no_code_outside_envs_decides_by_a_suite_or_task_id():
    found = []
    for path in _checked_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for kind in offences(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {kind}: {line.strip()}")
    assert not found, "ask the suite descriptor (envs.registry.suite_of / get_suite) instead:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'if run.task.startswith("lmact/"):',
        "runs.filter(task__startswith='adventure/')",
        'return (cls.blocking, cls.suite != "lmact", task_id)',
        '{% if task.suite == "infogather" %}',
        'if (episode.suite === "balrog") {',
        'if suite in ("infogather", "adventure"):',
        '    "infogather/single-feature": "infogather",',
        '    "adventure": "clemscore, quality, % played and goal rate",',
        "{% url 'leaderboard:suite' 'lmact' %}",
    ],
)
def test_the_boundary_check_recognises_a_suite_identity_test(line):
    assert offences(line)


@pytest.mark.parametrize(
    "line",
    [
        "if suite_of(run.task).frozen_prefix:",
        'help_text=\'Task and format, e.g. "lmact/gridworld:ascii".\'',
        'R.register("infogather", {',
        "{% url 'leaderboard:suite' suite.id %}",
    ],
)
def test_the_boundary_check_leaves_examples_and_renderer_names_alone(line):
    assert not offences(line)
