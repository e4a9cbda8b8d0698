"""Reading the generated instances (fixtures/adventure/instances.json)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from envs.adventure.facts import World

FIXTURE_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "adventure" / "instances.json"


@functools.lru_cache(maxsize=1)
def load_all() -> dict:
    with FIXTURE_PATH.open(encoding="utf-8") as handle:
        return json.load(handle)


def instances(experiment: str) -> list[dict]:
    try:
        return load_all()["experiments"][experiment]
    except KeyError:
        raise KeyError(f"no AdventureGame experiment {experiment!r}") from None


@functools.lru_cache(maxsize=256)
def world(experiment: str, index: int) -> World:
    return World.from_json(instances(experiment)[index]["world"])
