"""A built-in baseline: an `envs` policy chooses, no model is called."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from arena.models import Episode, Run, Submission
from arena.play.agents.base import Decision
from arena.strategies.base import ImageStore
from envs.core import Observation, Task, make_policy
from envs.registry import get_task_class


logger = logging.getLogger(__name__)


class BaselineAgent:
    demonstrations_capped = None
    begins_instantly = True  # no prompt to assemble
    # A policy computes (Stockfish on a thread): its step is finished, not cancelled.
    waits_on_endpoint = False

    def __init__(self, submission: Submission, run: Run, episode: Episode):
        self.policy = make_policy(get_task_class(run.task), submission.policy, episode.seed)
        self.episode_id = episode.pk

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        # The policy is asked again for the stored step (the stored action is what is
        # executed): a policy drawing from one generator per episode, or building on its
        # own earlier choices (a warm-started planner, BabyAI's bot), then goes on from
        # where it was, and the resumed episode plays the uninterrupted one's game.
        chosen = self.policy.act(task)
        if chosen != parsed_action:
            logger.warning(
                "episode %s: on resume, the %s policy chose %r where it had chosen %r; the game may differ from here",
                self.episode_id, self.policy.name, chosen, parsed_action,
            )

    # The policy decides from the task's state, which a replay without the task lacks.
    replays_without_task = False

    def snapshot(self) -> bytes | None:
        return self.policy.snapshot()

    def restore(self, data: bytes) -> None:
        self.policy.restore(data)

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return []

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        return None

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        # Off the loop for a blocking task (a Stockfish search, a planning expert), unless
        # the policy's choice is cheaper than the hop (a random choice among the legal
        # actions, which the runner has listed on the loop already).
        if task.blocking and not self.policy.acts_instantly:
            return Decision(parsed_action=await asyncio.to_thread(self.policy.act, task))
        return Decision(parsed_action=self.policy.act(task))

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        return "", 0, 0

    async def aclose(self) -> None:
        return None
