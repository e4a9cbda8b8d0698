"""Scenes of the infogather text environment (Ke et al. §3.1).

A scene is every combination of a few colours and shapes (and, for the conjunction
task, textures): one object per combination, listed in a shuffled order. The paper's 3D
version, which "mirrors" the text one, builds its scene the same way (every
shape-colour combination of 3 colours and 3 shapes, §4.4.1); the text environment varies
the number of colours (§4.1). The values of each property are drawn from the pools
below, so two episodes rarely show the same words.

An object is named by its values in English adjective order: colour, texture, shape
("red wooden ball"); names are unique within a scene because every combination occurs
once.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

COLOUR = "colour"
TEXTURE = "texture"
SHAPE = "shape"
# The order in which a name lists an object's values.
NAME_ORDER = (COLOUR, TEXTURE, SHAPE)

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "brown", "black", "white", "grey", "cyan")
SHAPES = ("ball", "box", "cylinder", "pyramid", "disk", "cone", "ring", "star")
TEXTURES = ("wooden", "metal", "plastic", "glass", "fluffy", "striped")
POOLS: dict[str, tuple[str, ...]] = {COLOUR: COLOURS, SHAPE: SHAPES, TEXTURE: TEXTURES}

# Other spellings a model may use for a value or a property; each maps to our word.
VALUE_ALIASES: dict[str, str] = {
    "gray": "grey",
    "wood": "wooden",
    "metallic": "metal",
    "glassy": "glass",
    "disc": "disk",
    "sphere": "ball",
}
PROPERTY_ALIASES: dict[str, str] = {
    "colour": COLOUR,
    "color": COLOUR,
    "colours": COLOUR,
    "colors": COLOUR,
    "shape": SHAPE,
    "shapes": SHAPE,
    "texture": TEXTURE,
    "textures": TEXTURE,
    "material": TEXTURE,
}

MIN_VALUES = 2  # a property with one value could never be told apart from another


@dataclasses.dataclass(frozen=True)
class SceneObject:
    """One object: its value for each property of the scene."""

    values: tuple[tuple[str, str], ...]  # ((property, value), ...) in NAME_ORDER
    name: str = dataclasses.field(init=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "name", " ".join(value for _, value in self.values))

    def get(self, prop: str) -> str:
        for name, value in self.values:
            if name == prop:
                return value
        raise KeyError(prop)


@dataclasses.dataclass(frozen=True)
class Scene:
    properties: tuple[str, ...]  # in NAME_ORDER
    values: dict[str, tuple[str, ...]]  # property -> the values present, pool order
    objects: tuple[SceneObject, ...]  # in the order they are listed to the agent
    _by_name: dict = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_by_name", {obj.name: obj for obj in self.objects})

    def by_name(self) -> dict[str, SceneObject]:
        return self._by_name

    def value_to_property(self) -> dict[str, str]:
        return {value: prop for prop, values in self.values.items() for value in values}


def make_scene(counts: dict[str, int], rng: random.Random) -> Scene:
    """Every combination of `counts[prop]` values per property, values drawn from the
    pools without replacement and the listing shuffled, all from `rng`."""
    properties = tuple(prop for prop in NAME_ORDER if prop in counts)
    values: dict[str, tuple[str, ...]] = {}
    for prop in properties:
        pool = POOLS[prop]
        count = counts[prop]
        if not MIN_VALUES <= count <= len(pool):
            raise ValueError(f"the number of {prop}s must be between {MIN_VALUES} and {len(pool)}, not {count}")
        chosen = set(rng.sample(pool, count))
        values[prop] = tuple(value for value in pool if value in chosen)
    objects = [
        SceneObject(tuple(zip(properties, combo)))
        for combo in itertools.product(*(values[prop] for prop in properties))
    ]
    rng.shuffle(objects)
    return Scene(properties=properties, values=values, objects=tuple(objects))
