"""Shipped baseline figures carry the harness version they were played under, worked out
from their own provenance (scripts/stamp_baseline_figures.py), never assumed."""

import json
from pathlib import Path

from envs import harness
from envs.registry import get_suite
from scripts.stamp_baseline_figures import FIGURES, played_version

LMACT = get_suite("lmact")
ENGINES = {"ale-py": "0.12.1", "chess": "1.11.2", "dm-control": "1.0.50", "mujoco": "3.17.0", "numpy": "2.4.6"}


def _entry(engines: dict, commit: str = "") -> dict:
    return {"task": "lmact/tictactoe", "harness_version": harness.BEFORE_VERSIONING,
            "made_by": {"engines": engines, "arena_commit": commit}}


def test_the_version_comes_from_the_engines_recorded():
    version = played_version(_entry({**ENGINES, "pillow": "13.0.0"}), LMACT)
    expected = harness.engines_digest({**ENGINES, "pillow": "13.0.0"})
    assert version == f"v1+{expected}"
    assert played_version(_entry({**ENGINES, "pillow": "12.0.0"}), LMACT) != version


def test_an_engine_neither_recorded_nor_pinned_leaves_the_entry_unstamped():
    assert played_version(_entry(ENGINES, commit="0" * 40), LMACT) is None
    assert played_version(_entry(ENGINES), LMACT) is None


def test_every_shipped_entry_says_which_harness_played_it():
    for path in sorted(Path(FIGURES).glob("*.json")):
        for entry in json.loads(path.read_text())["runs"]:
            stamp = harness.Stamp.parse(entry["harness_version"])
            assert stamp.protocol is not None, (path.name, entry["task"], entry["harness_version"])
            # A stamp worked out later must agree with what the entry's provenance says.
            if "harness_version_source" in entry["made_by"]:
                suite = get_suite(entry["task"].split("/", 1)[0])
                entry = {**entry, "harness_version": harness.BEFORE_VERSIONING}
                assert played_version(entry, suite) == stamp.value
