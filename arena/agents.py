"""Agents: what turns an observation into an action text for the runner.

A built-in baseline asks an `envs` policy and needs no model. A model agent builds the
prompt with a strategy (arena.strategies), calls the submission's endpoint and parses
the completion. Both expose the same small interface so the runner does not
care which it drives.

The `begin` and `prepare` methods touch the database (they store images) and are called
by the runner in a worker thread; `decide` is a coroutine and only does network I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from django.conf import settings

from arena.clients.base import ModelCallError
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.models import Episode, Run, Submission
from arena.strategies.chat import ChatStrategy
from arena.strategies.lmact import LMActStrategy
from envs.core import Observation, Task, make_policy
from envs.registry import get_task_class


@dataclasses.dataclass
class Decision:
    parsed_action: str | None
    completion: str = ""
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: float | None = None
    # Replay control (lmact.txt App. C.2): the action the runner executes instead.
    forced_action: str | None = None
    # Transient trouble that was overcome (retries), kept on the step for the record.
    error: str = ""


class EndpointFailed(Exception):
    """The model endpoint could not produce a completion after all retries."""


class BaselineAgent:
    demonstrations_capped = None

    def __init__(self, submission: Submission, run: Run, episode: Episode):
        self.policy = make_policy(get_task_class(run.task), submission.policy, episode.seed)

    def begin(self, task: Task, observation: Observation, store_image) -> tuple[list, list[int]]:
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return []

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        return Decision(parsed_action=self.policy.act(task))

    async def aclose(self) -> None:
        return None


class ModelAgent:
    """A strategy (how prompts are built and completions parsed) and a client (which
    endpoint is called)."""

    def __init__(self, submission: Submission, run: Run, episode: Episode, client=None, strategy=None):
        self.submission = submission
        self.client = client or make_client(submission)
        self.strategy = strategy or make_strategy(run, episode)

    def begin(self, task: Task, observation: Observation, store_image: Callable[[object], str]) -> tuple[list, list[int]]:
        return self.strategy.begin(task, observation, store_image)

    @property
    def demonstrations_capped(self) -> dict | None:
        return getattr(self.strategy, "demonstrations_capped", None)

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return self.strategy.prepare(index, observation, previous_action, legal)

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        try:
            reply = await self.client.complete(self.strategy.messages(prompt_added))
        except ModelCallError as exc:
            raise EndpointFailed(str(exc)) from None
        action, reasoning = self.strategy.parse(reply.text)
        self.strategy.record(reply.text, action)
        notes = ""
        if reply.attempts > 1:
            notes = f"succeeded after {reply.attempts} attempts" + (f" ({reply.error})" if reply.error else "")
        return Decision(
            parsed_action=action,
            completion=reply.text,
            reasoning=reply.reasoning or reasoning,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            latency_ms=reply.latency_ms,
            error=notes,
            forced_action=getattr(self.strategy, "forced_action", lambda i: None)(index),
        )

    async def aclose(self) -> None:
        await self.client.aclose()


def make_client(submission: Submission):
    return OpenAICompatibleClient(
        base_url=submission.base_url,
        api_key=submission.get_api_key(),
        model=submission.model,
        temperature=submission.temperature,
        max_tokens=submission.max_tokens,
        timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
        max_retries=settings.ARENA_MODEL_MAX_RETRIES,
        allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
        backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
    )


def make_strategy(run: Run, episode: Episode):
    """LMAct has its own prompt protocol (lmact.txt §2.3); the other suites talk in turns."""
    if run.task.startswith("lmact/"):
        return LMActStrategy(run, episode)
    return ChatStrategy(run, episode)


def make_agent(submission: Submission, run: Run, episode: Episode):
    if submission.is_baseline:
        return BaselineAgent(submission, run, episode)
    return ModelAgent(submission, run, episode)
