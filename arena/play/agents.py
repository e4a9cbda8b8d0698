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
import logging
from collections.abc import Sequence
from typing import Protocol

from django.conf import settings

from arena.strategies import tokens
from arena.clients.agent_endpoint import AgentEndpointClient
from arena.clients.anthropic import AnthropicClient
from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind, window_in_message
from arena.clients.gemini import GeminiClient
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.clients.reasoning_params import reasoning_request
from arena.clients.responses import ResponsesClient
from arena.models import Episode, Run, StoredImage, Submission
from arena.play.pace import submission_gate
from arena.probe.lookups import LLAMA_CPP, LOCAL_SERVERS
from arena.strategies.base import ImageStore
from arena.strategies.chat import ChatStrategy
from arena.strategies.history import ObservationHistoryStrategy
from arena.strategies.context import ContextBudget, ContextExhausted, oldest_to_drop
from arena.strategies.lmact import LMActStrategy
from arena.strategies.shape import MessageShape, adapt
from arena.variant import Variant
from envs.core import Observation, ReflectionRequest, Task, TracedStep, make_policy
from envs.registry import get_task_class, suite_of
from envs.suite import FROZEN_PREFIX, OBSERVATION_HISTORY

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class Decision:
    parsed_action: str | None
    completion: str = ""
    reasoning: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cached_tokens_in: int | None = None
    reasoning_tokens: int | None = None
    latency_ms: float | None = None
    # The answer reached the token limit (possibly with no text at all): an "answer
    # cut off" step; the suite's rule for a missing or illegal action still applies.
    cut_off: bool = False
    # Every model call made for this step (self-correction makes two).
    calls: list = dataclasses.field(default_factory=list)
    # Replay control (LMAct App. C.2): the action the runner executes instead.
    forced_action: str | None = None
    # Transient trouble that was overcome (retries), kept on the step for the record.
    error: str = ""
    # What was left out of the prompt to fit the context window (see Prompt.record).
    context: dict | None = None
    # How the messages were adapted to the endpoint's shape (arena.strategies.shape).
    shape: dict | None = None
    # Per call, what its provider wants given back with the answer (ModelReply.
    # reasoning_items); empty when no call had any.
    reasoning_items: list = dataclasses.field(default_factory=list)


class Agent(Protocol):
    """What the runner drives, whatever produces the actions (arena.play.runner).

    `begin` and `prepare` may touch the database (they store images) and are called in a
    worker thread unless `begins_instantly`; `decide` is a coroutine doing network I/O.
    """

    # Set when fewer demonstrations were placed in the prompt than the run asked for.
    demonstrations_capped: dict | None
    # True when `begin` does no work worth moving off the event loop.
    begins_instantly: bool

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        """The frozen prompt prefix (stored on the episode) and the demonstrations' seeds;
        `images` stores the episode's images (and serves their bytes) from now on."""

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        """What step `index` adds to the prompt (stored on the step)."""

    async def decide(self, task: Task, index: int, prompt_added: list) -> "Decision":
        """The action for the current step."""

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        """What the step's action led to."""

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        """A step stored by an earlier attempt at this episode, replayed on resume
        before the task executes its stored action (as `decide` comes before it live);
        the agent ends up where it would be had the episode never stopped. `answers`:
        (text, reasoning items) of each model call the step made, in order."""

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        """Reflexion's lesson after the episode, with the tokens it cost (in, out)."""

    async def aclose(self) -> None: ...

    # Resuming from a task snapshot (arena.services.snapshots): the agent either saves its own
    # state beside the task's (`snapshot` is not None, `restore` puts it back), or it
    # needs nothing from the task to replay a stored step (`replays_without_task`: it is
    # brought up to date from the stored steps' texts alone).
    replays_without_task: bool

    def snapshot(self) -> bytes | None: ...

    def restore(self, data: bytes) -> None: ...


class EndpointFailed(Exception):
    """The model endpoint could not produce a completion after all retries.

    `kind` is the arena.clients.errors.ErrorKind of the failure, when known; the episode
    (and, for kinds that would hit every episode alike, the run) ends with it."""

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        self.kind = kind


# A prompt the server refused as too long is rebuilt shorter and sent again this many
# times before the episode ends with "context window exhausted".
CONTEXT_RETRIES = 2


class BaselineAgent:
    demonstrations_capped = None
    begins_instantly = True  # no prompt to assemble

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
    (Ke et al. §4.2, App. B) and the end-of-episode reflection of Reflexion
    (TextAtari §3.2, App. D.2)."""

    begins_instantly = False

    def __init__(
        self, submission: Submission, run: Run, episode: Episode, client=None, strategy=None, reflections=()
    ):
        self.submission = submission
        self.run = run
        self.client = client or make_client(submission, Variant.of(run))
        self.strategy = strategy or make_strategy(run, episode, reflections)
        self.self_correction = Variant.of(run).self_correction
        _, max_tokens = Variant.of(run).generation(submission)
        self.budget = ContextBudget(window=submission.effective_context_window, max_tokens=max_tokens)
        # The plans carried into this episode and every step of it, for a suite whose
        # reflection reads the whole episode (Task.reflection_request).
        self.reflections = list(reflections)
        self.trace: list[TracedStep] = []
        self._task: Task | None = None
        # What messages the endpoint accepts, as the probe found (arena.strategies.shape).
        self.shape = MessageShape.from_probe(submission.endpoint_probe)
        # A local server caches prompts per slot: the episode leases one for its whole
        # life (arena.clients.limits), and llama.cpp's server is told which.
        server_kind = (submission.endpoint_probe or {}).get("server_kind")
        self.slot_affinity = server_kind in LOCAL_SERVERS
        self.names_slot = server_kind == LLAMA_CPP and isinstance(self.client, OpenAICompatibleClient)
        self.server_slots = (submission.endpoint_probe or {}).get("server_slots") or 1
        self._leased_gate = None

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        self._task = task
        return self.strategy.begin(task, observation, images)

    @property
    def demonstrations_capped(self) -> dict | None:
        return self.strategy.demonstrations_capped

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        # The client is given back what came with each earlier answer (signed thinking,
        # encrypted reasoning), so the next request carries it as an uninterrupted one would.
        for text, items in answers:
            self.client.recall(text, items)
        self.strategy.record(completion, parsed_action)
        self._traced_answer(completion)

    # The prompt is built from the observations and the model's stored answers.
    replays_without_task = True

    def snapshot(self) -> bytes | None:
        return None

    def restore(self, data: bytes) -> None:
        raise TypeError("a model agent is brought up to date from the stored steps")

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        self.trace.append(TracedStep(observation.text or ""))
        return self.strategy.prepare(index, observation, previous_action, legal)

    def observe_result(self, index: int, observation: Observation, executed_action: str, reward: float) -> None:
        if self.trace:
            self.trace[-1].action, self.trace[-1].reward = executed_action, reward

    def _traced_answer(self, completion: str) -> None:
        if self.trace:
            self.trace[-1].answer = completion

    async def _call(self, messages: list[dict], purpose: str, max_tokens: int | None = None, frozen_chars: int = 0):
        gate = submission_gate(self.submission)
        messages, _ = adapt(messages, self.shape)
        holder = None
        if self.slot_affinity:
            holder, self._leased_gate = self, gate

        async def send():
            slot = gate.slot_of(self)
            if self.names_slot and slot is not None and slot < self.server_slots:
                self.client.extra_body.update(id_slot=slot, cache_prompt=True)
            return await self.client.complete(messages, max_tokens=max_tokens, frozen_chars=frozen_chars)

        try:
            reply = await gate.call(self.client, send, settings.ARENA_MODEL_TIMEOUT_SECONDS, holder=holder)
        except ModelCallError as exc:
            raise EndpointFailed(str(exc), exc.kind) from None
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
        if reply.reasoning_tokens is not None:  # reasoning models only, in the stored key order
            call = {key: call[key] for key in ("purpose", "tokens_in", "tokens_out", "cached_tokens_in")} | {
                "reasoning_tokens": reply.reasoning_tokens, **call
            }
        if reply.cache_write_tokens_in:  # providers that bill cache writes (Anthropic) only
            call = {key: call[key] for key in ("purpose", "tokens_in", "tokens_out", "cached_tokens_in")} | {
                "cache_write_tokens_in": reply.cache_write_tokens_in, **call
            }
        return reply, call

    async def _act(self, prompt_added: list):
        """The step's main call, its prompt fitted to the context window; a prompt the
        server still finds too long is rebuilt shorter (CONTEXT_RETRIES times) and then
        ends the episode as ContextExhausted."""
        for attempt in range(CONTEXT_RETRIES + 1):
            prompt = self.strategy.messages(prompt_added, self.budget)  # ContextExhausted
            try:
                reply, call = await self._call(
                    prompt.messages, "act", self.budget.answer_tokens(prompt.estimated_tokens), prompt.frozen_chars
                )
            except EndpointFailed as failure:
                if failure.kind != ErrorKind.CONTEXT_EXCEEDED:
                    raise
                self.budget.overflowed(prompt.estimated_tokens, window_in_message(str(failure)))
                if attempt == CONTEXT_RETRIES:
                    raise ContextExhausted(self.budget.tokens(prompt.estimated_tokens), self.budget.window) from None
                continue
            self.budget.learn(prompt.estimated_tokens, reply.tokens_in)
            return prompt, reply, call

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        prompt, reply, call = await self._act(prompt_added)
        calls = [call]
        replies = [reply]
        if self.self_correction:
            revision_messages = prompt.messages + [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": SELF_CORRECTION_REQUEST},
            ]
            try:
                reply, call = await self._call(revision_messages, "self-correction", frozen_chars=prompt.frozen_chars)
            except EndpointFailed as failure:
                # The check does not fit the window: the first answer stands.
                if failure.kind != ErrorKind.CONTEXT_EXCEEDED:
                    raise
            else:
                calls.append(call)
                replies.append(reply)
        action, reasoning = self.strategy.parse(reply.text)
        self.strategy.record(reply.text, action)
        self._traced_answer(reply.text)
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
            reasoning_tokens=_total(c.get("reasoning_tokens") for c in calls),
            cut_off=reply.cut_off,
            latency_ms=sum(c["latency_ms"] or 0 for c in calls),
            error=notes,
            forced_action=self.strategy.forced_action(index),
            calls=calls,
            context=prompt.record(self.strategy.dropped_unit, self.budget),
            shape=adapt(prompt.messages, self.shape)[1],
            reasoning_items=[r.reasoning_items for r in replies] if any(r.reasoning_items for r in replies) else [],
        )

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        """Reflexion: the model's lesson from the episode just played (chat suites): the
        suite's own reflection over the whole episode when it has one (TextAtari §3.2),
        else the arena's question over the conversation."""
        request = self._task.reflection_request(self.trace, self.reflections, outcome) if self._task else None
        if request is not None:
            messages = self._fitted_reflection(request)
            if messages is None:
                return "", 0, 0
        else:
            history = self.strategy.conversation()
            if history is None:
                return "", 0, 0
            messages = history + [{"role": "user", "content": REFLECTION_REQUEST.format(outcome=outcome)}]
        try:
            reply, _ = await self._call(messages, "reflection")
        except EndpointFailed as failure:
            if failure.kind != ErrorKind.CONTEXT_EXCEEDED:
                raise
            return "", 0, 0  # the whole episode no longer fits: no reflection this time
        return reply.text.strip(), reply.tokens_in or 0, reply.tokens_out or 0

    def _fitted_reflection(self, request: ReflectionRequest) -> list[dict] | None:
        """The reflection's messages with as many of the oldest steps left out as the
        context window needs (the latest step always stays); None when even that does
        not fit."""
        fixed = tokens.text_tokens("\n\n".join(
            [m["content"] for m in request.head + request.tail] + [request.intro, request.closing, request.left_out]
        ))
        sizes = [tokens.text_tokens(step) + 1 for step in request.steps]
        try:
            dropped = oldest_to_drop(fixed, sizes, self.budget)
        except ContextExhausted:
            return None
        return request.messages(dropped)

    async def aclose(self) -> None:
        if self._leased_gate is not None:
            self._leased_gate.release(self)
        await self.client.aclose()


class AgentEndpointAgent:
    """The submitter's own agent: the arena POSTs each step as signed JSON and takes the
    returned action (arena.clients.agent_endpoint documents the schema)."""

    demonstrations_capped = None
    begins_instantly = True

    def __init__(self, submission: Submission, run: Run, episode: Episode, client=None):
        self.run = run
        self.episode = episode
        self.submission = submission
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
        # Set by `begin`.
        self._images: ImageStore | None = None
        self._task = None

    def begin(self, task: Task, observation: Observation, images: ImageStore) -> tuple[list, list[int]]:
        self._task = task
        self._images = images
        return [], []

    def prepare(self, index: int, observation: Observation, previous_action: str | None, legal: Sequence[str]) -> list:
        image_url = None
        if observation.image is not None:
            sha = self._images.sha(observation)
            image_url = settings.ARENA_PUBLIC_URL.rstrip("/") + StoredImage.url_of(sha)
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

    def replay_step(self, task: Task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        return None

    # Its history is the stored observations and actions.
    replays_without_task = True

    def snapshot(self) -> bytes | None:
        return None

    def restore(self, data: bytes) -> None:
        raise TypeError("an agent endpoint is brought up to date from the stored steps")

    async def decide(self, task: Task, index: int, prompt_added: list) -> Decision:
        gate = submission_gate(self.submission)
        try:
            reply = await gate.call(
                self.client, lambda: self.client.act(self._request), settings.ARENA_MODEL_TIMEOUT_SECONDS
            )
        except ModelCallError as exc:
            raise EndpointFailed(str(exc), exc.kind) from None
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


def make_client(submission: Submission, variant: Variant | None = None):
    """The client for the submission's provider, with the operator's timeouts and retries;
    a run's variant may fix the temperature and output-token limit (a paper preset)."""
    temperature, max_tokens = (variant or Variant()).generation(submission)
    common = dict(
        api_key=submission.get_api_key(),
        model=submission.model,
        temperature=temperature,
        max_tokens=max_tokens,
        extra_body=reasoning_request(
            submission.provider, submission.base_url, submission.model, submission.reasoning_setting
        ),
        timeout_seconds=settings.ARENA_MODEL_TIMEOUT_SECONDS,
        max_retries=settings.ARENA_MODEL_MAX_RETRIES,
        allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
        backoff_base_seconds=settings.ARENA_MODEL_BACKOFF_SECONDS,
    )
    if submission.provider == Submission.PROVIDER_ANTHROPIC:
        return AnthropicClient(base_url=submission.base_url, **common)
    if submission.provider == Submission.PROVIDER_GEMINI:
        return GeminiClient(base_url=submission.base_url, **common)
    if submission.provider == Submission.PROVIDER_RESPONSES:
        return ResponsesClient(base_url=submission.base_url, **common)
    return OpenAICompatibleClient(base_url=submission.base_url, **common)


def make_strategy(run: Run, episode: Episode, reflections: Sequence[str] = ()):
    """The suite's prompt protocol: LMAct's frozen prefix (LMAct §2.3), BALROG's
    observation history (BALROG §3), or a conversation in turns for the others."""
    protocol = suite_of(run.task).prompt_protocol
    if protocol == FROZEN_PREFIX:
        return LMActStrategy(run, episode)
    if protocol == OBSERVATION_HISTORY:
        return ObservationHistoryStrategy(run, episode, reflections=reflections)
    return ChatStrategy(run, episode, reflections=reflections)


def make_agent(submission: Submission, run: Run, episode: Episode, reflections: Sequence[str] = ()) -> Agent:
    """The agent of a submission for one episode; `reflections` are Reflexion's lessons
    from the run's earlier episodes (model agents on chat suites use them)."""
    if submission.is_baseline:
        return BaselineAgent(submission, run, episode)
    if submission.provider == Submission.PROVIDER_AGENT:
        return AgentEndpointAgent(submission, run, episode)
    return ModelAgent(submission, run, episode, reflections=reflections)
