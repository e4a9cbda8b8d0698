#!/usr/bin/env python
"""Stamp shipped baseline figures made before harness versions existed with the version
they were played under, worked out from what their provenance recorded.

A figure's version is its suite's protocol version and a digest of the versions of the
suite's engine packages (envs.harness). Entries written before versions existed carry
"before-versioning", although their `made_by` says which engines played them and at
which commit of the arena. This script takes each engine's version from `made_by`, and
an engine `made_by` did not list from the requirements pinned at that commit; an entry
whose engines cannot all be read that way keeps "before-versioning". The protocol is
the suite's first declared one (v1 covers every play made before versions existed: a
suite whose protocol changed since must raise it, which marks these entries older).

    scripts/stamp_baseline_figures.py [--check]

--check writes nothing and exits 1 when an entry could be stamped.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs import harness  # noqa: E402  (after the path is set)
from envs.registry import get_suite  # noqa: E402

FIGURES = ROOT / "fixtures" / "baseline_figures"
FIRST_PROTOCOL = 1
STAMPED_NOTE = (
    "harness version stamped after the fact (scripts/stamp_baseline_figures.py) from the engine versions "
    "recorded here and the requirements pinned at arena_commit"
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_at(commit: str) -> dict[str, str]:
    """The `name==version` pins of requirements.txt at `commit` ({} if unreadable)."""
    try:
        text = subprocess.run(
            ["git", "show", f"{commit}:requirements.txt"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    pins = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*==\s*([^\s;#]+)", line)
        if match:
            pins[_canonical(match.group(1))] = match.group(2)
    return pins


def played_version(entry: dict, suite) -> str | None:
    """The version the entry was played under, or None when its engines are not known."""
    made_by = entry.get("made_by") or {}
    recorded = {_canonical(name): version for name, version in (made_by.get("engines") or {}).items()}
    pins = None
    versions = {}
    for package in suite.engine_packages:
        version = recorded.get(_canonical(package))
        if version is None:
            if pins is None:
                pins = pinned_at(made_by.get("arena_commit", "")) if made_by.get("arena_commit") else {}
            version = pins.get(_canonical(package))
        if version is None:
            return None
        versions[package] = version
    return harness.version_string(FIRST_PROTOCOL, harness.engines_digest(versions))


def stamp_file(path: Path) -> int:
    data = json.loads(path.read_text())
    stamped = 0
    for entry in data["runs"]:
        if entry.get("harness_version") != harness.BEFORE_VERSIONING:
            continue
        version = played_version(entry, get_suite(entry["task"].split("/", 1)[0]))
        if version is None:
            continue
        entry["harness_version"] = version
        entry.setdefault("made_by", {})["harness_version_source"] = STAMPED_NOTE
        stamped += 1
    if stamped:
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")  # as scripts/baseline_figures.py writes it
    return stamped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if an entry could be stamped")
    args = parser.parse_args()
    total = 0
    for path in sorted(FIGURES.glob("*.json")):
        if args.check:
            data = json.loads(path.read_text())
            count = sum(
                1 for entry in data["runs"]
                if entry.get("harness_version") == harness.BEFORE_VERSIONING
                and played_version(entry, get_suite(entry["task"].split("/", 1)[0])) is not None
            )
        else:
            count = stamp_file(path)
        print(f"{path.name}: {count} entries {'could be stamped' if args.check else 'stamped'}")
        total += count
    return 1 if args.check and total else 0


if __name__ == "__main__":
    sys.exit(main())
