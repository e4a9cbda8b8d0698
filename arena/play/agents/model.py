"""A model agent: the prompt built by a strategy (arena.strategies), the submission's
endpoint called through its client, the completion parsed; with self-correction and
Reflexion's reflections where the submission asks for them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from django.conf import settings

from arena.clients.anthropic import AnthropicClient
from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind, window_in_message
from arena.clients.gemini import GeminiClient
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.clients.reasoning_params import reasoning_request
from arena.clients.responses import ResponsesClient
from arena.models import Episode, Run, Submission
from arena.play.agents.base import Decision, EndpointFailed
from arena.play.pace import submission_gate
from arena.probe.lookups import LLAMA_CPP, LOCAL_SERVERS
from arena.probe.speed import TooSlow, call_timeout
from arena.strategies import tokens
from arena.strategies.base import ImageStore
from arena.strategies.chat import ChatStrategy
from arena.strategies.context import ContextBudget, ContextExhausted, oldest_to_drop
from arena.strategies.history import ObservationHistoryStrategy
from arena.strategies.lmact import LMActStrategy
from arena.strategies.shape import MessageShape, adapt, adaptation
from arena.variant import Variant
from envs.core import Observation, ReflectionRequest, Task, TracedStep
from envs.registry import suite_of
from envs.suite import FROZEN_PREFIX, OBSERVATION_HISTORY


# A prompt the server refused as too long is rebuilt shorter and sent again this many
# times before the episode ends with "context window exhausted".
CONTEXT_RETRIES = 2


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
    waits_on_endpoint = True

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
        self._gate_of_loop: tuple | None = None

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

    async def _call(self, messages: list[dict], purpose: str, max_tokens: int | None = None, frozen_chars: int = 0,
                    prompt_tokens: int | None = None):
        try:  # the time this server needs for this prompt (arena.probe.speed)
            timeout = call_timeout(self.submission.endpoint_probe, prompt_tokens,
                                   max_tokens or getattr(self.client, "max_tokens", None),
                                   settings.ARENA_MODEL_TIMEOUT_SECONDS)
        except TooSlow as exc:
            raise EndpointFailed(str(exc), ErrorKind.TIMEOUT) from None
        gate = self._gate()
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
            reply = await gate.call(self.client, send, timeout, holder=holder)
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

    def _gate(self):
        """The submission's gate on the running loop (arena.play.pace), looked up once per
        loop: a loop keeps its gates for as long as it runs (arena.clients.limits.gate_for),
        and finding it again computed the endpoint's keys at every call."""
        loop = asyncio.get_running_loop()
        if self._gate_of_loop is None or self._gate_of_loop[0] is not loop:
            self._gate_of_loop = (loop, submission_gate(self.submission))
        return self._gate_of_loop[1]

    async def _act(self, prompt_added: list):
        """The step's main call, its prompt fitted to the context window; a prompt the
        server still finds too long is rebuilt shorter (CONTEXT_RETRIES times) and then
        ends the episode as ContextExhausted."""
        for attempt in range(CONTEXT_RETRIES + 1):
            prompt = self.strategy.messages(prompt_added, self.budget)  # ContextExhausted
            try:
                reply, call = await self._call(
                    prompt.messages, "act", self.budget.answer_tokens(prompt.estimated_tokens), prompt.frozen_chars,
                    prompt.estimated_tokens,
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
                reply, call = await self._call(revision_messages, "self-correction", frozen_chars=prompt.frozen_chars,
                                               prompt_tokens=prompt.estimated_tokens)
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
            tokens_in=_totals(calls, "tokens_in"),
            tokens_out=_totals(calls, "tokens_out"),
            cached_tokens_in=_totals(calls, "cached_tokens_in"),
            reasoning_tokens=_totals(calls, "reasoning_tokens"),
            cut_off=reply.cut_off,
            latency_ms=sum(c["latency_ms"] or 0 for c in calls),
            error=notes,
            forced_action=self.strategy.forced_action(index),
            calls=calls,
            context=prompt.record(self.strategy.dropped_unit, self.budget),
            shape=adaptation(prompt.messages, self.shape),
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


def _total(values) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _totals(calls: list[dict], key: str) -> int | None:
    """`_total` of one figure of the calls; a step's only call gives its own (most steps)."""
    if len(calls) == 1:
        return calls[0].get(key)
    return _total(call.get(key) for call in calls)


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
