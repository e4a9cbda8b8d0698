"""What the player reads, in this project's words: the same facts as clembench's
interpreter gives at each point (which things, states, places and failures it names),
not its sentences."""

from __future__ import annotations

from envs.adventure.clem.world import World
from envs.adventure.clem.resolution import Resolution
from envs.adventure.clem.data import INVENTORY


def _listing(names: list[str]) -> str:
    items = [f"a {name}" for name in names]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def room_description(world: World) -> str:
    here = world.player_room()
    parts = [f"You are now in the {world.words(here)}."]
    visible = world.visible_here()
    if visible:
        parts.append(f"Here you see {_listing([world.words(v) for v in visible])}.")
    for thing in visible:
        name = world.words(thing)
        for fact in sorted(f for f in world.state if len(f) >= 2 and f[1] == thing):
            if fact[0] in ("open", "closed"):
                parts.append(f"The {name} is {fact[0]}.")
            elif fact[0] == "in":
                parts.append(f"The {name} is inside the {world.words(fact[2])}.")
            elif fact[0] == "on":
                parts.append(f"The {name} sits on the {world.words(fact[2])}.")
    exits = [world.words(room) for room in world.exits()]
    if exits:
        parts.append(f"From here you can go to {_listing(exits)}.")
    return " ".join(parts)


def inventory_description(world: World) -> str:
    carried = world.carried()
    if not carried:
        return "You are carrying nothing."
    return f"You are carrying {_listing([world.words(c) for c in carried])}."


def _contents(world: World, holder: str, predicate: str) -> list[str]:
    return sorted(world.words(f[1]) for f in world.state if len(f) == 3 and f[0] == predicate and f[2] == holder)


def container_contents(world: World, container: str) -> str:
    name = world.words(container)
    inside = _contents(world, container, "in")
    if not inside:
        return f"There is nothing in the {name}."
    return f"Inside the {name} you find {_listing(inside)}."


def _base_words(world: World, instance: str) -> str:
    kind = instance
    while kind.endswith(tuple("0123456789")):
        kind = kind[:-1]
    return world.type_words(kind)


def entity_description(world: World, kind: str) -> str:
    """The answer to examining an entity type: its name, what can be done with it, where
    it is, what it holds and its states."""
    if kind == INVENTORY:
        return inventory_description(world)
    entity = next((f[1] for f in sorted(world.state) if f[0] == "type" and f[2] == kind), "")
    name = world.type_words(kind)
    parts = [f"It is a {world.words(entity) if entity else ''}."]
    facts = sorted((f for f in world.state if len(f) >= 2 and f[1] == entity), key=str)
    mutable = world.definitions.mutable
    for fact in facts:
        predicate = fact[0]
        if predicate == "text":
            parts.append("Something is written on it.")
        if predicate == "openable":
            state = next((f[0] for f in facts if f[0] in ("open", "closed")), "")
            parts.append(f"The {name} can be opened or shut; it is {state} now.")
        if predicate == "takeable":
            parts.append(f"The {name} can be taken.")
        if predicate == "needs_support":
            holder = next((f for f in facts if f[0] in ("on", "in")), None)
            if holder is not None:
                target = holder[2]
                if target == INVENTORY:
                    where = "inventory"
                elif _base_words(world, target).endswith("floor") or target.rstrip("0123456789").endswith("floor"):
                    where = "floor"
                elif target.rstrip("0123456789").endswith("ceiling"):
                    where = "ceiling"
                else:
                    where = _base_words(world, target)
                parts.append(f"The {name} is {'inside' if holder[0] == 'in' else 'on'} the {where}.")
        if predicate == "container":
            if ("closed", entity) in world.state:
                parts.append(f"The {name} is closed, so you cannot see what is inside.")
            else:
                inside = sorted(_base_words(world, f[1]) for f in world.state if len(f) == 3 and f[0] == "in" and f[2] == entity)
                parts.append(f"Inside the {name} you find {_listing(inside)}." if inside else f"Nothing is inside the {name}.")
        if predicate == "support":
            above = sorted(_base_words(world, f[1]) for f in world.state if len(f) == 3 and f[0] == "on" and f[2] == entity)
            parts.append(f"On the {name} you see {_listing(above)}." if above else f"Nothing is on the {name}.")
        if mutable and predicate in mutable and predicate != "at":
            parts.append(f"The {name} is {predicate}.")
    return " ".join(parts)


_PARSE_TEXTS = {
    "lark_exception": "That command makes no sense to me.",
    "malformed_command": "That command makes no sense to me.",
    "undefined_action": "That command makes no sense to me.",
}


def parse_failure_text(fail_type: str, detail: dict) -> str:
    if fail_type in _PARSE_TEXTS:
        return _PARSE_TEXTS[fail_type]
    if fail_type == "undefined_action_verb":
        return f"There is no action '{detail['verb']}' that I know of."
    if fail_type == "undefined_repr_str":
        return f"The word '{detail['words']}' means nothing to me."
    if fail_type == "undefined_argument_type":
        return f"I have no idea what a '{detail['words']}' would be."
    if fail_type == "manipulating_room":
        if detail["verb"] == "open":
            return f"The '{detail['room']}' is a room: there is no need to open it."
        if detail["verb"] == "put":
            return f"The '{detail['room']}' is a room: you cannot put it anywhere."
        return f"The '{detail['room']}' is a room: you cannot {detail['verb']} it."
    if fail_type == "taking_from_inventory":
        if "entity" in detail:
            return f"You are carrying the {detail['entity_words']} already."
        return "What is in your inventory needs no taking."
    if fail_type == "other_room_argument":
        return f"You are not in the {detail['room']}."
    raise ValueError(f"no text for parse failure {fail_type!r}")


_TYPE_PHRASES = {"receptacle": "a receptacle", "room": "a room", "player": "a player", "inventory": "an inventory",
                 "entity": "an entity", "movable": "movable", "openable": "openable", "takeable": "takeable"}


def resolution_failure_text(resolution: Resolution) -> str:
    detail = resolution.detail
    if detail.get("kind") == "none":
        return "That is not possible."
    if detail.get("kind") == "type":
        kind = detail["type"]
        phrase = _TYPE_PHRASES.get(kind, f"{kind[:-5]}-able" if kind.endswith("_able") else kind)
        return f"That does not work: the {detail['words']} is not {phrase}."
    predicate, negated, names = detail["predicate"], detail["negated"], detail["names"]
    first = names[0] if names else ""
    if predicate == "at" and negated:
        return f"You are in the {first} already."
    if predicate in ("at", "accessible"):
        if not names:
            return "Something is wrong with the game state."
        return f"There is no {first} in sight here."
    if predicate == "exit":
        return f"There is no way to a {first} from here."
    if predicate == "in" and len(detail["atom"]) == 3 and detail["atom"][2] == INVENTORY:
        return f"You are carrying the {first} already."
    if predicate in ("<", "<=", ">", ">=", "="):
        return "You cannot carry more than two objects at a time."
    if predicate == "on":
        return f"The {first} does not sit on the {names[1]}."
    if predicate == "in":
        return f"The {first} is not inside the {names[1]}."
    if predicate == "support":
        return f"The {first} is no surface to put things on."
    if predicate == "container":
        return f"The {first} is nothing to put things into."
    if predicate == "type":
        return "Something is wrong with the game state."
    return f"The {first} isn't {predicate}."


def success_text(world: World, resolution: Resolution, parsed: dict) -> str:
    action, names = resolution.action, resolution.names
    if action in ("go", "look"):
        return room_description(world)
    if action == "done":
        return "You decide that you are done."
    if action == "examine":
        return entity_description(world, parsed["arg1"])
    if action == "take":
        return f"You pick up the {names['e']}. {inventory_description(world)}"
    if action == "put":
        prep = parsed.get("prep") or next((f[0] for f in resolution.added if f[0] in ("in", "on")), "")
        return f"You place the {names['e']} {prep} the {names['t']}."
    if action == "open":
        opened = next(f[1] for f in resolution.added if f[0] == "open")
        return f"You open the {names['e']}. {container_contents(world, opened)}"
    if action == "close":
        return f"You shut the {names['e']}: it is closed now."
    # a made-up state verb (synthetic words, hard): the states it brought about
    subject = names.get("e", "")
    states = [f[0] for f in resolution.added if len(f) == 2]
    return f"The {subject} is {' and '.join(states)} now."
