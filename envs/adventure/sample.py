"""A small hand-made home world, for examples and tests.

    kitchen ── hallway ── living room ── bedroom
       │          │
     pantry   broom closet

The player starts in the kitchen. The apple is on the counter, the banana in the
closed refrigerator, the plate in the closed cupboard, the peach on the table; the
orange is in the closed freezer and the sandwich on the floor of the pantry; the book
lies on the couch, the pillow on the bed, the potted plant on the hallway floor, the
broom and the mop on the broom-closet floor. Goal: the apple and the banana on the
shelf (living room), the book on the table (kitchen).
"""

from __future__ import annotations

from envs.adventure.domain import floor_id
from envs.adventure.facts import Fact, World
from envs.adventure.home_worlds import home_world

LAYOUT = {
    "passages": [
        ("kitchen", "hallway"),
        ("kitchen", "pantry"),
        ("hallway", "living_room"),
        ("hallway", "broom_closet"),
        ("living_room", "bedroom"),
    ],
    "furniture_room": {
        "table": "kitchen",
        "counter": "kitchen",
        "refrigerator": "kitchen",
        "cupboard": "kitchen",
        "freezer": "pantry",
        "shelf": "living_room",
        "chair": "living_room",
        "couch": "living_room",
        "side_table": "bedroom",
        "bed": "bedroom",
        "wardrobe": "bedroom",
    },
    "position": {
        "apple": ("kitchen", "on", "counter"),
        "banana": ("kitchen", "in", "refrigerator"),
        "plate": ("kitchen", "in", "cupboard"),
        "peach": ("kitchen", "on", "table"),
        "orange": ("pantry", "in", "freezer"),
        "sandwich": ("pantry", "on", floor_id("pantry")),
        "book": ("living_room", "on", "couch"),
        "pillow": ("bedroom", "on", "bed"),
        "potted_plant": ("hallway", "on", floor_id("hallway")),
        "broom": ("broom_closet", "on", floor_id("broom_closet")),
        "mop": ("broom_closet", "on", floor_id("broom_closet")),
    },
    "start": "kitchen",
}
GOALS: list[Fact] = [("on", "apple", "shelf"), ("on", "banana", "shelf"), ("on", "book", "table")]


def sample_world(inventory_limit: int | None = None, goals: list[Fact] | None = None) -> World:
    return home_world(LAYOUT, GOALS if goals is None else goals, inventory_limit)
