"""Agents: what turns an observation into an action text for the runner.

A built-in baseline asks an `envs` policy and needs no model. A model agent builds the
prompt with a strategy (arena.strategies), calls the submission's endpoint and parses
the completion. Both expose the same small interface so the runner does not
care which it drives.

The `begin` and `prepare` methods touch the database (they store images) and are called
by the runner in a worker thread; `decide` is a coroutine and only does network I/O.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence

from django.conf import settings

from arena.clients.agent_endpoint import AgentEndpointClient
from arena.clients.anthropic import AnthropicClient
from arena.clients.base import ModelCallError
from arena.clients.gemini import GeminiClient
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.models import Episode, Run, Submission
from arena.strategies.chat import ChatStrategy
from arena.strategies.lmact import LMActStrategy
from envs.core import Observation, Task, make_policy
from envs.registry import get_task_class, suite_of


@dataclasses.dataclass
class Decision:
    parsed_action: str | None
    completion: str = ""
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cached_tokens_in: int | None = None
    latency_ms: float | None = None
    # Every model call made for this step (self-correction makes two).
    calls: list = dataclasses.field(default_factory=list)
    # Replay control (lmact.txt App. C.2): the action the runner executes instead.
    forced_action: str | None = None
    # Transient trouble that was overcome (retries), kept on the step for the record.
    error: str = ""


class EndpointFailed(Exception):
    """The model endpoint could not produce a completion after all retries."""


class BaselineAgent:
    demonstrations_capped = None
    begins_instantly = True  # no prompt to assemble

    def __init__(self, submission: Submission, run: Run, episode: Episode):
        self.policy = make_policy(get_task_class(run.task), submission.policy, episode.seed)

    def begin(self, task: Task, observation: Observation, store_image) -> tuple[list, list[int]]:
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return []

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        return None

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        if task.blocking:  # e.g. a Stockfish search or a planning expert
            return Decision(parsed_action=await asyncio.to_thread(self.policy.act, task))
        return Decision(parsed_action=self.policy.act(task))

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        return "", 0, 0

    async def aclose(self) -> None:
        return None


SELF_CORRECTION_REQUEST = (
    "Before this answer is used, check it. Go through it step by step against the rules "
    "and everything you have observed so far. If it contains a mistake, correct it; if it "
    "is right, keep it. Reply with your final answer in exactly the required format."
)
REFLECTION_REQUEST = (
    "The episode is over: {outcome}. In a few sentences, reflect on it: what worked, what "
    "went wrong, and what you will do differently the next time you play this game. "
    "Write only the reflection."
)


class ModelAgent:
    """A strategy (how prompts are built and completions parsed) and a client (which
    endpoint is called), with the optional second call of self-correction
    (infogather.txt §4.2, App. B) and the end-of-episode reflection of Reflexion
    (textatari.txt §3.2, App. D.2)."""

    def __init__(self, submission: Submission, run: Run, episode: Episode, client=None, strategy=None):
        self.submission = submission
        self.run = run
        self.client = client or make_client(submission)
        self.strategy = strategy or make_strategy(run, episode)
        self.self_correction = bool(run.variant.get("self_correction", False))

    def begin(self, task: Task, observation: Observation, store_image: Callable[[object], str]) -> tuple[list, list[int]]:
        return self.strategy.begin(task, observation, store_image)

    @property
    def demonstrations_capped(self) -> dict | None:
        return getattr(self.strategy, "demonstrations_capped", None)

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return self.strategy.prepare(index, observation, previous_action, legal)

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        return None

    async def _call(self, messages: list[dict], purpose: str):
        try:
            reply = await self.client.complete(messages)
        except ModelCallError as exc:
            raise EndpointFailed(str(exc)) from None
        call = {
            "purpose": purpose,
            "tokens_in": reply.tokens_in,
            "tokens_out": reply.tokens_out,
            "cached_tokens_in": reply.cached_tokens_in,
            "latency_ms": reply.latency_ms,
            "attempts": reply.attempts,
            "http_status": reply.http_status,
            "finish_reason": reply.finish_reason,
            "completion": reply.text,
        }
        return reply, call

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        messages = self.strategy.messages(prompt_added)
        reply, call = await self._call(messages, "act")
        calls = [call]
        replies = [reply]
        if self.self_correction:
            revision_messages = messages + [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": SELF_CORRECTION_REQUEST},
            ]
            reply, call = await self._call(revision_messages, "self-correction")
            calls.append(call)
            replies.append(reply)
        action, reasoning = self.strategy.parse(reply.text)
        self.strategy.record(reply.text, action)
        retried = [r for r in replies if r.attempts > 1]
        notes = "; ".join(
            f"succeeded after {r.attempts} attempts" + (f" ({r.error})" if r.error else "") for r in retried
        )
        return Decision(
            parsed_action=action,
            completion=reply.text,
            reasoning=reply.reasoning or reasoning,
            tokens_in=_total(c["tokens_in"] for c in calls),
            tokens_out=_total(c["tokens_out"] for c in calls),
            cached_tokens_in=_total(c["cached_tokens_in"] for c in calls),
            latency_ms=sum(c["latency_ms"] or 0 for c in calls),
            error=notes,
            forced_action=getattr(self.strategy, "forced_action", lambda i: None)(index),
            calls=calls,
        )

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        """Reflexion: the model's lesson from the episode just played (chat suites)."""
        history = getattr(self.strategy, "conversation", None)
        if history is None:
            return "", 0, 0
        messages = history() + [{"role": "user", "content": REFLECTION_REQUEST.format(outcome=outcome)}]
        reply, _ = await self._call(messages, "reflection")
        return reply.text.strip(), reply.tokens_in or 0, reply.tokens_out or 0

    async def aclose(self) -> None:
        await self.client.aclose()


class AgentEndpointAgent:
    """The submitter's own agent: the arena POSTs each step as signed JSON and takes the
    returned action (arena.clients.agent_endpoint documents the schema)."""

    demonstrations_capped = None

    def __init__(self, submission: Submission, run: Run, episode: Episode, client=None):
        self.run = run
        self.episode = episode
        self.client = client or AgentEndpointClient(
            submission.base_url,
            submission.get_agent_secret(),
            timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
            max_retries=settings.ARENA_MODEL_MAX_RETRIES,
            allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
            backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
        )
        self.history: list[dict] = []
        self._request: dict = {}
        self._store_image = None
        self._task = None

    def begin(self, task: Task, observation: Observation, store_image) -> tuple[list, list[int]]:
        self._task = task
        self._store_image = store_image
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        image_url = None
        if observation.image is not None:
            sha = self._store_image(observation)
            image_url = f"{settings.ARENA_PUBLIC_URL.rstrip('/')}/media/images/{sha[:2]}/{sha}.png"
        self._request = {
            "task": self.run.task,
            "suite": self._task.suite,
            "episode": {"id": self.episode.pk, "seed": self.episode.seed},
            "step": index,
            "observation": {"text": observation.text, "image_url": image_url},
            "legal_actions": list(legal),
            "instructions": self._task.instructions,
            "history": self.history,  # the client sends only the most recent steps
        }
        return []

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        self.history.append(
            {"step": index, "observation_text": observation.text, "action": executed_action, "reward": reward}
        )

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        try:
            reply = await self.client.act(self._request)
        except ModelCallError as exc:
            raise EndpointFailed(str(exc)) from None
        # An unusable reply (not JSON, no action) is an illegal action, not a crash.
        return Decision(
            parsed_action=reply.text if not reply.error else None,
            completion=reply.text,
            reasoning=reply.reasoning,
            latency_ms=reply.latency_ms,
            error=reply.error,
            calls=[{"purpose": "act", "latency_ms": reply.latency_ms, "attempts": reply.attempts,
                    "http_status": reply.http_status, "completion": reply.text}],
        )

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        return "", 0, 0

    async def aclose(self) -> None:
        await self.client.aclose()


def _total(values) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def make_client(submission: Submission):
    """The client for the submission's provider, with the operator's timeouts and retries."""
    common = dict(
        api_key=submission.get_api_key(),
        model=submission.model,
        temperature=submission.temperature,
        max_tokens=submission.max_tokens,
        timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
        max_retries=settings.ARENA_MODEL_MAX_RETRIES,
        allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
        backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
    )
    if submission.provider == Submission.PROVIDER_ANTHROPIC:
        return AnthropicClient(base_url=submission.base_url, **common)
    if submission.provider == Submission.PROVIDER_GEMINI:
        return GeminiClient(base_url=submission.base_url, **common)
    return OpenAICompatibleClient(base_url=submission.base_url, **common)


def make_strategy(run: Run, episode: Episode):
    """LMAct has its own prompt protocol (lmact.txt §2.3); the other suites talk in turns."""
    if suite_of(run.task).frozen_prefix:
        return LMActStrategy(run, episode)
    return ChatStrategy(run, episode)


def make_agent(submission: Submission, run: Run, episode: Episode):
    if submission.is_baseline:
        return BaselineAgent(submission, run, episode)
    if submission.provider == Submission.PROVIDER_AGENT:
        return AgentEndpointAgent(submission, run, episode)
    return ModelAgent(submission, run, episode)
