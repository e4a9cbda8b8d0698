"""Texts the game answers with: room descriptions, entity descriptions, the result
of a successful action and one message per kind of failure.

Success messages describe the resulting state rather than repeating the verb, so a
player of the synthetic-word experiments learns what an unknown verb does from the
feedback (AdventureGame §4.1.4, §5.3).
"""

from __future__ import annotations

from envs.adventure.domain import INVENTORY, PLAYER
from envs.adventure.facts import View, World

# Failure kinds, grouped by the phase in which the interpreter notices them.
PARSE_FAILURES = ("empty_command", "unknown_verb", "unknown_entity", "malformed")
RESOLUTION_FAILURES = (
    "entity_not_here",
    "not_reachable",
    "not_a_room",
    "already_here",
    "no_passage",
    "not_takeable",
    "already_carried",
    "inventory_full",
    "not_carried",
    "not_receptacle",
    "wrong_preposition",
    "container_closed",
    "not_openable",
    "already_open",
    "already_closed",
    "not_applicable",
    "wrong_state",
    "already_state",
)
# A reply that does not start with ">" (the episode is aborted).
PROTOCOL_FAILURES = ("format",)
FAILURES = PROTOCOL_FAILURES + PARSE_FAILURES + RESOLUTION_FAILURES


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def with_article(word: str) -> str:
    return f"{article(word)} {word}"


def join_words(words: list[str]) -> str:
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _things(world: World, entities: list[str]) -> str:
    # Sorted by the words shown, so the order reveals nothing a renamed word hides.
    return join_words([with_article(name) for name in sorted(world.name(e) for e in entities)])


def describe_adjectives(world: World, view: View, entity: str) -> str | None:
    adjectives = sorted(world.adjectives[s] for s in view.states.get(entity, ()))
    if not adjectives:
        return None
    return f"The {world.name(entity)} is {join_words(adjectives)}."


def describe_receptacle(world: World, view: View, entity: str, in_room: bool) -> str | None:
    """What a room description (in_room) or `examine` says about furniture or a floor."""
    name = world.name(entity)
    contents = view.contents(entity)
    if world.is_("container", entity):
        if entity in view.closed:
            return f"The {name} is closed."
        if contents:
            return f"The {name} is open; inside it you see {_things(world, contents)}."
        return f"The {name} is open and empty."
    if contents:
        return f"On the {name} you see {_things(world, contents)}."
    return None if in_room else f"There is nothing on the {name}."


def describe_room(world: World, view: View) -> str:
    here = view.player_room
    parts = [f"You are in the {world.name(here)}."]
    things = sorted(view.things_here(), key=world.name)
    furniture = [e for e in things if world.is_("receptacle", e)]
    loose = [e for e in things if not world.is_("receptacle", e) and e not in view.holder]
    listed = furniture + loose
    details = []
    for entity in furniture:
        line = describe_receptacle(world, view, entity, in_room=True)
        if line:
            details.append(line)
    floor = view.floor_here()
    if floor is not None:
        line = describe_receptacle(world, view, floor, in_room=True)
        if line:
            details.append(line)
    for entity in things:
        line = describe_adjectives(world, view, entity)
        if line:
            details.append(line)
    if listed:
        parts.append(f"You see {_things(world, listed)}.")
    elif not details:
        parts.append("There is nothing of interest here.")
    parts.extend(details)
    exits = [f"the {name}" for name in sorted(world.name(room) for room in world.neighbours(here))]
    if exits:
        parts.append(f"From here you can go to {join_words(exits)}.")
    else:
        parts.append("There is no way out of here.")
    return " ".join(parts)


def describe_inventory(world: World, view: View) -> str:
    if not view.inventory:
        return "You are not carrying anything."
    return f"You are carrying {_things(world, view.inventory)}."


def describe_entity(world: World, view: View, entity: str) -> str:
    """The answer to `examine`."""
    if entity == INVENTORY:
        return describe_inventory(world, view)
    if entity == PLAYER:
        return f"That is you. {describe_inventory(world, view)}"
    if world.is_("room", entity):
        return describe_room(world, view)
    name = world.name(entity)
    if world.is_("receptacle", entity) or world.is_("floor", entity):
        return describe_receptacle(world, view, entity, in_room=False)
    parts = []
    if view.carried(entity):
        parts.append(f"You are carrying the {name}.")
    elif entity in view.holder:
        prep, holder = view.holder[entity]
        parts.append(f"The {name} is {prep} the {world.name(holder)}.")
    adjectives = describe_adjectives(world, view, entity)
    if adjectives:
        parts.append(adjectives)
    if not parts:
        parts.append(f"There is nothing special about the {name}.")
    return " ".join(parts)


def success_text(world: World, before: View, after: View, action: str, args: tuple[str, ...], prep: str | None) -> str:
    if action in ("go", "look"):
        return describe_room(world, after)
    if action == "examine":
        return describe_entity(world, after, args[0])
    if action == "done":
        return "You end the game."
    if action == "take":
        return f"The {world.name(args[0])} is now in your inventory."
    if action == "put":
        return f"The {world.name(args[0])} is now {prep} the {world.name(args[1])}."
    if action == "open":
        name = world.name(args[0])
        contents = after.contents(args[0])
        if contents:
            return f"The {name} is now open. Inside it you see {_things(world, contents)}."
        return f"The {name} is now open. It is empty."
    if action == "close":
        return f"The {world.name(args[0])} is now closed."
    # A state-changing verb of the synthetic-word experiments.
    entity = args[0]
    new_states = sorted(after.states.get(entity, set()) - before.states.get(entity, set()))
    adjectives = join_words([world.adjectives[s] for s in new_states])
    return f"The {world.name(entity)} is now {adjectives}."


def failure_text(world: World, failure: str, detail: dict) -> str:
    """One sentence per kind of failure; `detail` carries the words to name."""

    def n(key: str) -> str:
        value = detail[key]
        return world.name(value) if value in world.names else value

    if failure == "empty_command":
        return "You wrote no action after the >. What do you want to do?"
    if failure == "unknown_verb":
        return f"I don't know how to '{detail['verb']}'."
    if failure == "unknown_entity":
        return f"I don't know what '{detail['words']}' means here."
    if failure == "malformed":
        verb = detail["verb"]
        if detail.get("missing") == "target":
            return f"Where do you want to {verb} the {n('entity')}?"
        if detail.get("missing") == "entity":
            return f"What do you want to {verb}?"
        return f"I can't make sense of '{detail['text']}'."
    if failure == "entity_not_here":
        if world.is_("room", detail["entity"]):
            return f"You are not in the {n('entity')}."
        return f"You don't see any {n('entity')} here."
    if failure == "not_reachable":
        return f"You can't get at the {n('entity')}: the {n('holder')} is closed."
    if failure == "not_a_room":
        return f"The {n('entity')} is not a place you can go to."
    if failure == "already_here":
        return f"You are already in the {n('entity')}."
    if failure == "no_passage":
        return f"There is no passage from the {n('here')} to the {n('entity')}."
    if failure == "not_takeable":
        return f"The {n('entity')} can't be carried around."
    if failure == "already_carried":
        return f"You already have the {n('entity')}."
    if failure == "inventory_full":
        return (
            f"You can't carry the {n('entity')}: you already carry {detail['limit']} objects, "
            f"which is as many as you can hold."
        )
    if failure == "not_carried":
        return f"You are not carrying the {n('entity')}."
    if failure == "not_receptacle":
        return f"You can't put anything {detail['prep']} the {n('entity')}."
    if failure == "wrong_preposition":
        right = "in" if detail["prep"] == "on" else "on"
        return f"Things go {right} the {n('entity')}, not {detail['prep']} it."
    if failure == "container_closed":
        return f"The {n('entity')} is closed."
    if failure == "not_openable":
        return f"The {n('entity')} is not something that opens or closes."
    if failure == "already_open":
        return f"The {n('entity')} is already open."
    if failure == "already_closed":
        return f"The {n('entity')} is already closed."
    if failure == "not_applicable":
        return f"You can't {detail['verb']} the {n('entity')}."
    if failure == "wrong_state":
        return f"Nothing happens: the {n('entity')} would have to be {world.adjectives[detail['needs']]} first."
    if failure == "already_state":
        return f"The {n('entity')} is already {world.adjectives[detail['state']]}."
    raise ValueError(f"no text for failure {failure!r}")
