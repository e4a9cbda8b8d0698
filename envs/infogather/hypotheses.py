"""The hypothesis space and its update from observations (Ke et al. §3.1, §4).

A hypothesis is a reward rule: a set of (property, value) conditions that an object must
all meet to give reward 1. Single-feature rules have one condition (every colour value
and every shape value of the scene); conjunction rules have two conditions on two
different properties (every pair of values across colour+shape, shape+texture and
colour+texture).

An observation (object, reward) keeps exactly the hypotheses that predict that reward
for that object: picking a blue toy with reward 0 rules out "blue" and "toy"; with
reward 1 in the single-feature task it leaves only {blue, toy}. The tracker keeps the
consistent set as a bit mask so the optimal baseline can score every object quickly.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from envs.infogather.scene import COLOUR, NAME_ORDER, SHAPE, TEXTURE, Scene, SceneObject

SINGLE = "single-feature"
CONJUNCTION = "conjunction"
# The property pairs a conjunction may use, in the order the instructions list them.
FACTOR_PAIRS: tuple[tuple[str, str], ...] = ((COLOUR, SHAPE), (SHAPE, TEXTURE), (COLOUR, TEXTURE))
SINGLE_FACTORS: tuple[str, ...] = (COLOUR, SHAPE)
# How factors are listed ("colour and shape", "shape and texture"); values are listed in
# the scene's NAME_ORDER, as in object names ("wooden cube").
FACTOR_ORDER: tuple[str, ...] = (COLOUR, SHAPE, TEXTURE)


@dataclasses.dataclass(frozen=True)
class Hypothesis:
    conditions: tuple[tuple[str, str], ...]  # ((property, value), ...) in NAME_ORDER; use `of`

    @classmethod
    def of(cls, pairs) -> Hypothesis:
        return cls(tuple(sorted(pairs, key=lambda pair: NAME_ORDER.index(pair[0]))))

    @property
    def factors(self) -> tuple[str, ...]:
        props = {prop for prop, _ in self.conditions}
        return tuple(prop for prop in FACTOR_ORDER if prop in props)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for _, value in self.conditions)

    def predicts(self, obj: SceneObject) -> int:
        """The reward this rule gives `obj`: 1 if the object meets every condition."""
        return int(all(obj.get(prop) == value for prop, value in self.conditions))

    def describe(self) -> str:
        """'red (colour)' or 'red ball (colour and shape)'."""
        return f"{' '.join(self.values)} ({' and '.join(self.factors)})"

    def as_dict(self) -> dict:
        return {"factors": list(self.factors), "values": list(self.values)}


def hypothesis_space(scene: Scene, kind: str) -> tuple[Hypothesis, ...]:
    """Every rule of the task's kind over the scene's values, in a fixed order."""
    if kind == SINGLE:
        groups: tuple[tuple[str, ...], ...] = tuple((prop,) for prop in SINGLE_FACTORS)
    elif kind == CONJUNCTION:
        groups = FACTOR_PAIRS
    else:
        raise ValueError(f"unknown task kind {kind!r}")
    space = []
    for props in groups:
        if not all(prop in scene.values for prop in props):
            raise ValueError(f"the scene has no {' or '.join(p for p in props if p not in scene.values)}")
        for combo in itertools.product(*(scene.values[prop] for prop in props)):
            space.append(Hypothesis.of(zip(props, combo)))
    return tuple(space)


def consistent(hypotheses, observations) -> list[Hypothesis]:
    """The hypotheses that predict every observed (object, reward)."""
    return [h for h in hypotheses if all(h.predicts(obj) == reward for obj, reward in observations)]


def outcome_entropy(positives: int, total: int) -> float:
    """Expected information (bits) from a pick that `positives` of the `total` equally
    likely consistent hypotheses say is rewarding: with deterministic rewards the
    information gain of a pick equals the entropy of its outcome."""
    if total <= 0 or positives <= 0 or positives >= total:
        return 0.0
    p = positives / total
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


class HypothesisTracker:
    """The consistent hypotheses of one episode, updated one observation at a time."""

    def __init__(self, scene: Scene, kind: str):
        self.scene = scene
        self.kind = kind
        self.hypotheses = hypothesis_space(scene, kind)
        self.index = {h: i for i, h in enumerate(self.hypotheses)}
        # For each object, the bit mask of the hypotheses under which it is rewarding:
        # the rules whose conditions are a subset of the object's own values.
        by_conditions = {h.conditions: i for i, h in enumerate(self.hypotheses)}
        groups = {tuple(prop for prop, _ in h.conditions) for h in self.hypotheses}  # NAME_ORDER
        self.masks: dict[str, int] = {}
        for obj in scene.objects:
            own = dict(obj.values)
            mask = 0
            for props in groups:
                i = by_conditions.get(tuple((prop, own[prop]) for prop in props))
                if i is not None:
                    mask |= 1 << i
            self.masks[obj.name] = mask
        self.all_mask = (1 << len(self.hypotheses)) - 1
        self.mask = self.all_mask

    def observe(self, obj: SceneObject, reward: int) -> None:
        if reward:
            self.mask &= self.masks[obj.name]
        else:
            self.mask &= self.all_mask & ~self.masks[obj.name]

    @property
    def count(self) -> int:
        return self.mask.bit_count()

    def remaining(self) -> list[Hypothesis]:
        return [h for i, h in enumerate(self.hypotheses) if self.mask >> i & 1]

    def positives(self, name: str) -> int:
        """How many consistent hypotheses say the object `name` is rewarding."""
        return (self.mask & self.masks[name]).bit_count()

    def information_gain(self, name: str) -> float:
        return outcome_entropy(self.positives(name), self.count)
