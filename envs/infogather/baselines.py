"""Baseline policies of Ke et al. §4 ("Baselines"), runnable without a model.

All three reason perfectly about what they have seen: they track the consistent
hypotheses, stop as soon as exactly one is left and state it; before that they state a
best guess (a consistent hypothesis drawn at random, kept until it is ruled out; under
the uniform prior any consistent one is as good as another). They differ only in which object they pick:

- optimal: the unpicked object with the largest expected information gain over the
  consistent hypotheses. Rewards are deterministic, so the gain of a pick is the entropy
  of its outcome, largest when the consistent hypotheses that call the object rewarding
  are as close as possible to half of them. Ties are broken at random.
- random-without-replacement: uniformly among the objects not picked yet (perfect
  memory of past picks).
- random-with-replacement: uniformly among all objects of the room, ignoring what it
  has picked (no memory). The game forbids re-picking, so drawing an object again
  wastes that turn; since an object always gives the same reward, a repeat would
  have taught nothing anyway, which is the paper's with-replacement baseline.

Every random choice comes from a `random.Random` derived from the policy's seed and the
turn number, so a policy's answer depends only on (seed, state) and survives the
arena's resume-by-replay.
"""

from __future__ import annotations

import functools
import random

from envs.core import Policy, Task
from envs.infogather import answers


def _rng(name: str, seed: int, task) -> random.Random:
    return random.Random(f"infogather-{name}:{seed}:{task.steps_taken}")


@functools.lru_cache(maxsize=256)
def _guess_order(seed: int, size: int) -> tuple[int, ...]:
    order = list(range(size))
    random.Random(f"infogather-guess:{seed}").shuffle(order)
    return tuple(order)


def _guess(task, seed: int):
    """The first consistent hypothesis in an order shuffled once per seed: uniform
    among the consistent ones, and it only changes when the guess is ruled out."""
    tracker = task.tracker
    for index in _guess_order(seed, len(tracker.hypotheses)):
        if tracker.mask >> index & 1:
            return tracker.hypotheses[index]
    raise RuntimeError("no hypothesis is consistent with the observations")


def _stop_answer(task, seed: int) -> str:
    guess = _guess(task, seed)
    return answers.canonical(None, True, guess.factors, guess.values)


def _pick_answer(name: str, task, seed: int) -> str:
    guess = _guess(task, seed)
    return answers.canonical(f"pick up {name}", False, guess.factors, guess.values)


def unpicked_names(task) -> list[str]:
    picked = task.picked
    return [obj.name for obj in task.scene.objects if obj.name not in picked]


def most_informative(task, rng: random.Random) -> str | None:
    """An unpicked object of largest expected information gain (None if no pick can
    tell the consistent hypotheses apart)."""
    tracker = task.tracker
    total = tracker.count
    best: list[str] = []
    best_split = 0
    for name in unpicked_names(task):
        positives = tracker.positives(name)
        # The outcome entropy grows with the smaller side of the split.
        split = min(positives, total - positives)
        if split > best_split:
            best, best_split = [name], split
        elif split == best_split and split > 0:
            best.append(name)
    return rng.choice(best) if best else None


def optimal_answer(task, seed: int) -> str:
    rng = _rng("optimal", seed, task)
    if task.tracker.count <= 1:
        return _stop_answer(task, seed)
    name = most_informative(task, rng)
    if name is None:
        return _stop_answer(task, seed)
    return _pick_answer(name, task, seed)


class _Baseline(Policy):
    def __init__(self, seed: int):
        self.seed = seed


class OptimalPolicy(_Baseline):
    name = "optimal"
    title = "Optimal (information gain)"

    def act(self, task: Task) -> str:
        return optimal_answer(task, self.seed)


class RandomWithoutReplacementPolicy(_Baseline):
    name = "random-without-replacement"
    title = "Random without replacement"

    def act(self, task: Task) -> str:
        rng = _rng(self.name, self.seed, task)
        names = unpicked_names(task)
        if task.tracker.count <= 1 or not names:
            return _stop_answer(task, self.seed)
        return _pick_answer(rng.choice(names), task, self.seed)


class RandomWithReplacementPolicy(_Baseline):
    name = "random-with-replacement"
    title = "Random with replacement"

    def act(self, task: Task) -> str:
        rng = _rng(self.name, self.seed, task)
        if task.tracker.count <= 1:
            return _stop_answer(task, self.seed)
        return _pick_answer(rng.choice(task.scene.objects).name, task, self.seed)


BASELINES: dict[str, type[Policy]] = {
    cls.name: cls for cls in (OptimalPolicy, RandomWithoutReplacementPolicy, RandomWithReplacementPolicy)
}
