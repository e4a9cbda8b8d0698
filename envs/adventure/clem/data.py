"""clembench's paper instances and the definitions they name (data, MIT licence;
envs/adventure/data/clembench/PROVENANCE.md).

`instance(experiment, index)` is one instance as clembench stores it; `definitions(…)`
gathers its entity, room, action and domain definitions, reading the ones it names by
file from the shipped definition files.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path

from envs.adventure.clem import pddl

# The instances' names for the player and the inventory, and the digits that end an
# instance's name ("apple1").
PLAYER = "player1"
INVENTORY = "inventory"
DIGITS = tuple("0123456789")

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "clembench"
SOURCE = {
    "repository": "clp-research/clembench",
    "commit": "91d234fc4433f4cd78bc0fddade5ca033753bf65",
    "path": "adventuregame/in/instances.json",
    "licence": "MIT",
}
# clembench's experiment names → the arena's task names, in the paper's order (§4.1).
EXPERIMENT_NAMES = {
    "home_deliver_three_basic_easy": "basic-easy",
    "home_deliver_three_basic_hard": "basic-hard",
    "home_deliver_three_basic_preexplore_easy": "preexplore-easy",
    "home_deliver_three_basic_preexplore_hard": "preexplore-hard",
    "home_deliver_three_basic_easy_invlimittwo": "limit-easy",
    "home_deliver_three_basic_hard_invlimittwo": "limit-hard",
    "new-words_home-delivery_easy_basic_easy": "synthetic-easy",
    "new-words_home-delivery_medium_basic_medium": "synthetic-medium",
    "new-words_created_basic_hard": "synthetic-hard",
}
# Mutable predicates of a domain read from a file that does not list them (clembench's default).
DEFAULT_MUTABLE = ("open", "closed", "at", "in", "on")


@functools.lru_cache(maxsize=1)
def _experiments() -> dict[str, list[dict]]:
    with (DATA_DIR / "instances.json").open(encoding="utf-8") as handle:
        data = json.load(handle)
    return {EXPERIMENT_NAMES[e["name"]]: e["game_instances"] for e in data["experiments"]}


def experiments() -> list[str]:
    return [name for name in EXPERIMENT_NAMES.values() if name in _experiments()]


def instances(experiment: str) -> list[dict]:
    try:
        return _experiments()[experiment]
    except KeyError:
        raise KeyError(f"no clembench AdventureGame experiment {experiment!r}") from None


def instance(experiment: str, index: int) -> dict:
    return instances(experiment)[index]


@functools.lru_cache(maxsize=1)
def _oracle_plans() -> dict:
    with (DATA_DIR / "oracle_plans.json").open(encoding="utf-8") as handle:
        return json.load(handle)["plans"]


def oracle_plan(experiment: str, index: int) -> list[str]:
    """A shortest solution from the start of the episode (after any pre-exploration),
    made by scripts/adventure_clembench_plans.py; the oracle replans if it goes astray."""
    return list(_oracle_plans()[experiment][index]["commands"])


def unsolvable(experiment: str, index: int) -> bool:
    """Whether no command sequence reaches every goal of the instance under clembench's
    rules (the plan search exhausted every state it could reach)."""
    return _oracle_plans()[experiment][index]["from"] == "unsolvable"


@functools.lru_cache(maxsize=None)
def _definition_file(name: str):
    with (DATA_DIR / "definitions" / name).open(encoding="utf-8") as handle:
        return json.load(handle)


@functools.lru_cache(maxsize=1)
def grammar_core() -> dict:
    with (DATA_DIR / "grammar_core.json").open(encoding="utf-8") as handle:
        return json.load(handle)


def _gather(items: list) -> list[dict]:
    gathered: list[dict] = []
    for item in items:
        if isinstance(item, str):
            loaded = _definition_file(item)
            gathered.extend(loaded if isinstance(loaded, list) else [loaded])
        else:
            gathered.append(item)
    return gathered


@dataclasses.dataclass(frozen=True)
class ActionDef:
    name: str  # clembench's type_name, e.g. "take" or a made-up verb
    grammar: str  # the Lark snippet: the rule and the verb words it accepts
    verbs: tuple[str, ...]  # the words that start the command
    pddl: pddl.Action
    mapping: tuple[tuple[str, tuple[str, ...]], ...]  # variable → where its value comes from
    parameter_failures: tuple[str, ...]  # failure type per mapped variable (type mismatch)
    precondition_failures: tuple[str, ...]  # failure type per precondition atom, in order
    epistemic: bool
    pragmatic: bool
    explanation: str


@dataclasses.dataclass(frozen=True)
class Definitions:
    entities: dict[str, dict]  # type name → attributes (repr_str, traits, hidden, possible_adjs)
    rooms: dict[str, dict]  # type name → attributes (repr_str)
    words: dict[str, str]  # surface words → type name (entities, then rooms)
    actions: dict[str, ActionDef]
    types: dict[str, list[str]]  # domain type → member types (traits included)
    supertypes: dict[str, list[str]]
    functions: tuple[tuple[str, str], ...]  # (function predicate, type it is defined for)
    mutable: tuple[str, ...]


def _verbs(grammar: str) -> tuple[str, ...]:
    terminal = grammar.split("\n", 1)[1]
    return tuple(re.findall(r'"([^"]+)"', terminal))


def _action_def(raw: dict) -> ActionDef:
    return ActionDef(
        name=raw["type_name"],
        grammar=raw["lark"],
        verbs=_verbs(raw["lark"]),
        pddl=pddl.action(raw["pddl"]),
        mapping=tuple((key.lstrip("?"), tuple(value)) for key, value in raw["pddl_parameter_mapping"].items()),
        parameter_failures=tuple(item[1] for item in raw["failure_feedback"]["parameters"]),
        precondition_failures=tuple(item[1] for item in raw["failure_feedback"]["precondition"]),
        epistemic=bool(raw.get("epistemic")),
        pragmatic=bool(raw.get("pragmatic")),
        explanation=raw.get("explanation", ""),
    )


@functools.lru_cache(maxsize=256)
def definitions(experiment: str, index: int) -> Definitions:
    raw = instance(experiment, index)
    entities, rooms, words = {}, {}, {}
    for entry in _gather(raw["entity_definitions"]):
        entities[entry["type_name"]] = {k: v for k, v in entry.items() if k != "type_name"}
        words[entry["repr_str"]] = entry["type_name"]
    for entry in _gather(raw["room_definitions"]):
        rooms[entry["type_name"]] = {k: v for k, v in entry.items() if k != "type_name"}
        words[entry["repr_str"]] = entry["type_name"]
    actions = {entry["type_name"]: _action_def(entry) for entry in _gather(raw["action_definitions"])}

    domain = raw["domain_definitions"][0]
    functions: list[tuple[str, str]] = []
    if isinstance(domain, str):
        loaded = _definition_file(domain)
        types, functions = pddl.domain_types(loaded["pddl_domain"])
        mutable = tuple(loaded.get("mutable_states", DEFAULT_MUTABLE))
    else:
        types = {kind: list(members) for kind, members in domain["types"].items()}
        mutable = tuple(p["predicate_id"] for p in domain.get("predicates", ()))
    for entity_type in types.get("entity", []):
        for trait in entities.get(entity_type, {}).get("traits", []):
            types.setdefault(trait, []).append(entity_type)
    supertypes: dict[str, list[str]] = {}
    for supertype, members in types.items():
        for member in members:
            supertypes.setdefault(member, []).append(supertype)
    return Definitions(entities, rooms, words, actions, types, supertypes, tuple(functions), mutable)
