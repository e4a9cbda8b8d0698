"""Baselines for the AdventureGame tasks (the tasks' `baselines`).

- oracle: plays the instance's optimal solution (`Task.expert_action`), replanning
  from the current state if the episode has left it;
- random: picks uniformly among the well-formed commands of the current room
  (`Task.legal_actions`, which include "done", so it usually ends early and loses).

Both reply with a line starting with ">", as the protocol requires. The random
choice is drawn from a generator seeded with (seed, turn number), so a policy's
answer depends only on the seed and the state, and an episode resumed by replaying
its stored steps goes on as it would have.
"""

from __future__ import annotations

import random

from envs.core import Policy, Task


class OraclePolicy(Policy):
    name = "oracle"
    title = "Oracle (optimal solution)"

    def __init__(self, seed: int):
        self.seed = seed

    def act(self, task: Task) -> str:
        return task.expert_action()


class RandomCommandPolicy(Policy):
    name = "random"
    title = "Random well-formed commands"

    def __init__(self, seed: int):
        self.seed = seed

    def act(self, task: Task) -> str:
        commands = task.legal_actions()
        rng = random.Random(f"adventure-random-policy:{self.seed}:{task.steps_taken}")
        return rng.choice(commands) if commands else "> done"


BASELINES: dict[str, type[Policy]] = {"oracle": OraclePolicy, "random": RandomCommandPolicy}
