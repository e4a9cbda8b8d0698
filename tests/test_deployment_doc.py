"""docs/deployment.md's table of limits says what the settings really default to: every
number of the table is checked against config/settings.py read with a clean environment."""

import re
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _limit_rows() -> list[tuple[list[str], list[int]]]:
    text = (ROOT / "docs" / "deployment.md").read_text()
    table = text.split("## Limits on every door", 1)[1].split("\n\n| door |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((re.findall(r"`(ARENA_[A-Z_]+)`", cells[2]), [int(n) for n in re.findall(r"\d+", cells[3])]))
    return rows


def test_every_limit_in_the_deployment_doc_is_the_settings_default(monkeypatch):
    rows = _limit_rows()
    names = [name for settings_named, _ in rows for name in settings_named]
    for name in names:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ARENA_PRODUCTION", raising=False)
    defaults = runpy.run_path(str(ROOT / "config" / "settings.py"))
    assert len(rows) == 11
    for settings_named, numbers in rows:
        assert [defaults[name] for name in settings_named] == numbers, settings_named
