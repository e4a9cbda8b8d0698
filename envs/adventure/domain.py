"""The home domain of the delivery games (AdventureGame §4.1.1, App. C).

Entity ids are stable identifiers used in facts; the words a player reads and types
are kept apart in `NAMES` so that the synthetic-word experiments can swap them.
Every room also gets its own floor (a support named "floor"); the floor, the player
and the inventory keep their English names in every experiment (App. C).
"""

from __future__ import annotations

ROOMS: tuple[str, ...] = ("kitchen", "pantry", "hallway", "living_room", "broom_closet", "bedroom")

# Pairs of rooms that may be joined by a passage (App. C lists, per room, the rooms
# it can be next to; the lists are read as undirected edges).
ROOM_LINKS: tuple[tuple[str, str], ...] = (
    ("kitchen", "pantry"),
    ("kitchen", "living_room"),
    ("kitchen", "hallway"),
    ("pantry", "hallway"),
    ("hallway", "living_room"),
    ("hallway", "broom_closet"),
    ("bedroom", "living_room"),
    ("bedroom", "hallway"),
)

# Receptacles: what kind of receptacle, and the rooms it may stand in.
SUPPORTS: dict[str, tuple[str, ...]] = {
    "table": ("kitchen", "living_room"),
    "side_table": ("living_room", "bedroom"),
    "counter": ("kitchen",),
    "shelf": ("kitchen", "pantry", "living_room"),
    "chair": ("living_room",),
    "bed": ("bedroom",),
    "couch": ("living_room",),
}
CONTAINERS: dict[str, tuple[str, ...]] = {
    "refrigerator": ("kitchen", "pantry"),
    "cupboard": ("kitchen",),
    "wardrobe": ("bedroom",),
    "freezer": ("pantry",),
}

# Movable objects and the rooms they may start in.
MOVABLES: dict[str, tuple[str, ...]] = {
    "potted_plant": ("living_room", "hallway", "bedroom"),
    "broom": ("broom_closet",),
    "mop": ("broom_closet",),
    "sandwich": ("kitchen", "pantry"),
    "apple": ("kitchen", "pantry"),
    "banana": ("kitchen", "pantry"),
    "orange": ("kitchen", "pantry"),
    "peach": ("kitchen", "pantry"),
    "plate": ("kitchen",),
    "book": ("living_room", "bedroom"),
    "pillow": ("bedroom",),
}
# Objects that are usually found standing on the floor rather than on furniture.
FLOOR_OBJECTS = frozenset({"potted_plant", "broom", "mop"})

NAMES: dict[str, str] = {
    "kitchen": "kitchen",
    "pantry": "pantry",
    "hallway": "hallway",
    "living_room": "living room",
    "broom_closet": "broom closet",
    "bedroom": "bedroom",
    "table": "table",
    "side_table": "side table",
    "counter": "counter",
    "shelf": "shelf",
    "chair": "chair",
    "bed": "bed",
    "couch": "couch",
    "refrigerator": "refrigerator",
    "cupboard": "cupboard",
    "wardrobe": "wardrobe",
    "freezer": "freezer",
    "potted_plant": "potted plant",
    "broom": "broom",
    "mop": "mop",
    "sandwich": "sandwich",
    "apple": "apple",
    "banana": "banana",
    "orange": "orange",
    "peach": "peach",
    "plate": "plate",
    "book": "book",
    "pillow": "pillow",
}

PLAYER = "player"
INVENTORY = "inventory"
FLOOR_WORD = "floor"

# The verbs of Table 5: action id -> the English word that triggers it.
BASIC_VERBS: dict[str, str] = {
    "go": "go",
    "take": "take",
    "put": "put",
    "open": "open",
    "close": "close",
    "examine": "examine",
    "look": "look",
    "done": "done",
}
# Verbs the synthetic-word experiments may replace (Table 5, "Replaceable").
REPLACEABLE_VERBS = ("open", "close", "take", "put")


def floor_id(room: str) -> str:
    return f"floor_{room}"


def home_names() -> dict[str, str]:
    """Entity id -> name for every entity of a home world."""
    names = dict(NAMES)
    names[PLAYER] = "player"
    names[INVENTORY] = "inventory"
    for room in ROOMS:
        names[floor_id(room)] = FLOOR_WORD
    return names


def home_types() -> dict[str, frozenset[str]]:
    """Entity id -> type labels for every entity of a home world."""
    types: dict[str, frozenset[str]] = {PLAYER: frozenset({"player"}), INVENTORY: frozenset({"inventory"})}
    for room in ROOMS:
        types[room] = frozenset({"room"})
        types[floor_id(room)] = frozenset({"floor", "support"})
    for support in SUPPORTS:
        types[support] = frozenset({"receptacle", "support"})
    for container in CONTAINERS:
        types[container] = frozenset({"receptacle", "container"})
    for movable in MOVABLES:
        types[movable] = frozenset({"movable"})
    return types
