"""The built-in baselines every task can be played by: the `Policy` interface, the
random-legal and expert policies (LMAct Fig. 2's lower and upper baselines), and how a
task's baselines are looked up by name."""

from __future__ import annotations

import abc
import pickle
import random
from typing import ClassVar

# `Task` in the annotations below is envs.core.Task. It is not imported: envs.core
# imports this module to re-export the baselines, and envs/ keeps no import cycle, not
# even one for type checking (tests/envs/test_envs_imports.py). Annotations are not
# evaluated (`from __future__ import annotations`).


class NoExpert(LookupError):
    """The task has no expert (Crafter, NetHack, some MiniHack tasks): its only built-in
    baselines are the others it lists in `baselines`."""


class Policy(abc.ABC):
    """A built-in baseline: chooses an action text from the task's state."""

    name: ClassVar[str]
    title: ClassVar[str]  # shown on the leaderboard
    # True for a policy whose choice costs no more than listing the legal actions: the
    # worker asks it on its event loop even for a `blocking` task, where handing the
    # choice to a thread and back would cost more than the choice.
    acts_instantly: ClassVar[bool] = False

    @abc.abstractmethod
    def act(self, task: Task) -> str: ...

    def snapshot(self) -> bytes | None:
        """The policy's own state, for resuming an episode from a task snapshot; None:
        the policy cannot say, and the episode is resumed by replaying every step."""
        return None

    def restore(self, data: bytes) -> None:
        raise TypeError(f"the {self.name} policy cannot restore a state")


class RandomLegalPolicy(Policy):
    """Picks uniformly among the legal actions (the lower baseline of LMAct Fig. 2)."""

    name = "random"
    title = "Random legal actions"
    acts_instantly = True

    def __init__(self, seed: int):
        self._rng = random.Random(f"random-policy:{seed}")

    def act(self, task: Task) -> str:
        legal = task.legal_actions()
        if legal:
            return self._rng.choice(legal)
        # Continuous action spaces (cheetah) cannot be listed; the task draws one.
        return task.random_action(self._rng)

    def snapshot(self) -> bytes | None:
        return pickle.dumps(self._rng.getstate(), protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, data: bytes) -> None:
        self._rng.setstate(pickle.loads(data))


class ExpertPolicy(Policy):
    """Asks the task for its expert's action (the upper baseline of LMAct Fig. 2)."""

    name = "expert"
    title = "Expert"

    def __init__(self, seed: int):
        self.seed = seed

    def act(self, task: Task) -> str:
        return task.expert_action()

    def snapshot(self) -> bytes | None:
        return b""  # whatever an expert remembers lives in the task (and its snapshot)

    def restore(self, data: bytes) -> None:
        return None


DEFAULT_BASELINES: dict[str, type[Policy]] = {"random": RandomLegalPolicy, "expert": ExpertPolicy}


def baselines_of(task_cls: type[Task]) -> dict[str, type[Policy]]:
    """The baselines a task offers: its own, or random and expert."""
    return task_cls.baselines or DEFAULT_BASELINES


def make_policy(task_cls: type[Task], name: str, seed: int) -> Policy:
    try:
        return baselines_of(task_cls)[name](seed)
    except KeyError:
        raise ValueError(f"{task_cls.id} has no baseline policy {name!r}") from None
