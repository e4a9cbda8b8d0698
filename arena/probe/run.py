"""The endpoint probe: find out what an endpoint can do before any episode is played.

`probe_endpoint` makes a handful of small requests, in this order, and stops at the
first one that shows the submission cannot work (that becomes a field error):

1. the model's metadata: GET {base}/models for OpenAI-compatible servers, GET
   /v1/models/{model} for Anthropic, GET /v1beta/models/{model} for Gemini. No answer
   at all means the base URL is wrong or unreachable; 401/403 means the key; a model
   that the list does not contain is remembered (step 2 decides);
2. a one-token completion with the given key, through the arena's own client (the
   same URL guard, redirect refusal, size cap and redaction as during play; one retry).
   Its wall time is `latency_ms`. A model missing from the list that still answers is
   fine (llama.cpp's server answers to any model name); one that does not is a model
   error listing the names the server offers;
3. OpenAI-compatible servers only: their own context metadata, asked after step 2 so
   that Ollama has loaded the model (llama.cpp GET /props, Ollama POST /api/show and
   GET /api/ps). A metadata request that fails only means the next source is tried;
4. the generation speed: the same question again with max_tokens 16. Every prompt the
   probe sends starts with a random tag of its own (arena.probe.wording.fresh), so the
   server reads each one whole and none is answered from its prompt cache. Both answers
   carry the same prompt-processing and network overhead, so the extra tokens over the
   extra time is the decoding speed: tokens_per_second = (tokens₁₆ − tokens₁) / (t₁₆ − t₁).
   The prompt speed likewise: a one-token answer to a prompt about 25 times longer,
   prompt_tokens_per_second = (prompt tokens − prompt tokens₁) / (t − t₁); play's call
   timeouts follow it (arena.probe.speed).
   When that difference is too small to measure (a model that stopped early, a noisy
   network, a tiny model whose 15 extra tokens take less than SPEED_MIN_EXTRA_SECONDS,
   where a clock's jitter would give tens of thousands of tokens per second),
   tokens₁₆ / t₁₆ is used instead, which errs low;
5. OpenAI-compatible servers only: which message shapes they accept, one one-token
   request each, no retry (arena.strategies.shape says how play adapts): the text as a
   list of content parts; a system message before the user's; two user messages in a
   row. An answer means yes, an HTTP error means no, no answer at all leaves it unknown
   (None), which plays the faithful shape;
6. whether images are accepted (arena.probe.images): an 8×8 PNG as an OpenAI-style image_url part (the
   Anthropic and Gemini clients convert it), max_tokens 1, no retry. An answer means
   yes; an error that `is_image_refusal` recognises means no; anything else, or no
   request, leaves it to the server's metadata (llama.cpp's modalities, Ollama's
   capabilities, OpenRouter's input modalities, Anthropic's capabilities), else None.

Findings and field errors are worded by arena.probe.verdicts.

The context window comes from the server where it says what it runs with, else from
the submitter's stated value (capped by the model's maximum where the server gives
one), else a safe default (see arena.probe.context). Agent endpoints are only checked
against the URL guard.

Every message is run through `redact` with the API key before it is returned.

An endpoint that is playing the arena's episodes right now (`endpoint_busy`) is sent no
completion at all: on a local server with one slot or a few, a test request would wait
behind an episode's call and then evict its cached prompt (the next step re-reads it
whole). Its metadata is read (step 1, and step 3 without llama-cpp-python's over-long
prompt, which is a completion request), and the notes say what was not measured. So is
the metadata of an endpoint whose one-token request timed out (slow, not unreachable).
"""

from __future__ import annotations

import asyncio
import difflib

import httpx2

from arena.clients.anthropic import ANTHROPIC_VERSION, AnthropicClient
from arena.clients.base import ModelCallError, ModelReply, redact
from arena.clients.errors import ErrorKind
from arena.clients.gemini import GeminiClient
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.clients.responses import ResponsesClient
from arena.probe import lookups
from arena.probe.context import choose_context_window
from arena.probe.lookups import ServerFacts
from arena.probe.result import MAX_MODELS_LISTED, ProbeResult
from arena.probe.servers import MetadataReader
from arena.probe.shapes import probe_message_shape
from arena.probe.verdicts import ProbeVerdicts
from arena.probe.images import check_images
from arena.probe.speed import decoding_speed, measure_speeds  # noqa: F401 (decoding_speed is read here by callers)
from arena.probe.wording import answered as _answered, probe_messages, quote as _quote, sentence as _sentence
from arena.clients.urlguard import GuardedTransport, UnsafeURL, check_url, parse_url

# The values of Submission.PROVIDER_* (this module stays free of Django models).
OPENAI, ANTHROPIC, GEMINI, AGENT, RESPONSES = "openai", "anthropic", "gemini", "agent", "responses"
PROVIDERS = (OPENAI, ANTHROPIC, GEMINI, AGENT, RESPONSES)

# Metadata beyond the first request is optional: a slow answer is not worth waiting for.
METADATA_TIMEOUT_SECONDS = 5.0
BUSY_NOTE = (
    "The endpoint is playing the arena's episodes right now, so the probe sent it no test request (one would "
    "take a running episode's slot and its cached prompt). Its speed, message shapes and images were not "
    "measured: test the endpoint again once its episodes have ended."
)
SLOW_NOTE = (
    "The endpoint answered its metadata but not a one-token test request within {seconds:g} s: it is reachable, "
    "and slow or busy. The model name, the speed, the message shapes and images were not checked; the episodes "
    "show any problem, and “Test endpoint” on the submission's page measures them once the server is idle."
)


async def probe_endpoint(
    *,
    provider: str,
    base_url: str,
    api_key: str,
    model: str,
    stated_context_window: int | None = None,
    allow_loopback: bool = False,
    timeout_seconds: float = 10.0,
    transport: GuardedTransport | None = None,
    endpoint_busy: bool = False,
) -> ProbeResult:
    """Probe one endpoint (see the module docstring). Never raises for what the
    endpoint does; ValueError for a provider the arena does not know. `endpoint_busy`:
    the arena's episodes are playing on it now (then no completion is sent).

    `transport` replaces the URL guard (tests: one with stand-ins for DNS and the
    connections); the probe and its clients send through it, and it is closed at the end.
    """
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    probe = _Probe(
        provider=provider,
        base_url=(base_url or "").strip(),
        api_key=api_key or "",
        model=(model or "").strip(),
        stated_context_window=stated_context_window,
        allow_loopback=allow_loopback,
        timeout_seconds=timeout_seconds,
        transport=transport,
        endpoint_busy=endpoint_busy,
    )
    try:
        await probe.run()
    finally:
        await probe.aclose()
    return probe.finish()


class _Probe(ProbeVerdicts):
    """One probe's requests, and what they showed."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        api_key: str,
        model: str,
        stated_context_window: int | None,
        allow_loopback: bool,
        timeout_seconds: float,
        transport: GuardedTransport | None,
        endpoint_busy: bool = False,
    ) -> None:
        self.endpoint_busy = endpoint_busy
        self.provider = provider
        self.base_url = base_url
        self.api_key = api_key
        self.model = model
        self.stated = stated_context_window if stated_context_window and stated_context_window > 0 else None
        self.allow_loopback = allow_loopback
        self.timeout = timeout_seconds
        self.metadata_timeout = min(timeout_seconds, METADATA_TIMEOUT_SECONDS)
        self._given_transport = transport
        self.transport: GuardedTransport | None = None
        self.reader: MetadataReader | None = None
        self._clients: list = []
        self.result = ProbeResult(provider=provider)
        self.facts = ServerFacts()
        self.first_reply: ModelReply | None = None
        self.context_decided = False
        # The one-token request timed out on an endpoint whose metadata answered.
        self.slow = False

    # --- the sequence ----------------------------------------------------------------

    async def run(self) -> None:
        try:
            parse_url(self.base_url)
        except UnsafeURL as exc:
            self.blame("base_url", f"{_sentence(str(exc))}.")
            return
        if self.provider == AGENT:
            await self.check_agent_address()
            return
        if not self.model:
            self.blame("model", "Enter the name of the model the endpoint should run.")
            return
        self.transport = self._given_transport or GuardedTransport(
            self.allow_loopback, limits=httpx2.Limits(max_connections=4, max_keepalive_connections=4)
        )
        self.reader = MetadataReader(
            self.transport, headers=self.metadata_headers(), secrets=[self.api_key], timeout_seconds=self.timeout
        )
        if not await self.look_up_model():
            return
        if self.endpoint_busy:
            self.note(BUSY_NOTE)
            await self.read_metadata_only()
            return
        if not await self.complete_one_token():
            if self.slow:
                await self.read_metadata_only()
            return
        if self.provider == OPENAI and (self.facts.context is None or not self.facts.context.exact):
            await lookups.read_server_context(self.reader, self.base_url, self.model, self.facts, self.metadata_timeout)
        self.result.server_kind = self.facts.server_kind
        self.result.server_slots = self.facts.server_slots
        self.decide_context_window()
        await self.measure_throughput()
        if self.provider == OPENAI:
            await probe_message_shape(self)
        await check_images(self)

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()
        if self.reader is not None:
            await self.reader.aclose()
        if self.transport is not None:
            await self.transport.aclose()

    async def read_metadata_only(self) -> None:
        """What a busy or slow endpoint's own metadata says of its context window and
        images (llama.cpp's /props, Ollama's /api/show and /api/ps, LM Studio's model
        list), read without a completion: a playing episode keeps its slot and its
        cached prompt, and its episodes get the window the server runs with instead of
        the safe default."""
        if self.provider == OPENAI and (self.facts.context is None or not self.facts.context.exact):
            await lookups.read_server_context(
                self.reader, self.base_url, self.model, self.facts, self.metadata_timeout, completions=False
            )
        self.result.server_kind = self.facts.server_kind
        self.result.server_slots = self.facts.server_slots
        self.decide_context_window()
        if self.facts.image_hint is not None:
            accepts, where = self.facts.image_hint
            self.result.accepts_images = accepts
            self.note(f"Going by {where}, it {'accepts' if accepts else 'does not accept'} images.")

    def finish(self) -> ProbeResult:
        result = self.result
        # A probe that stopped early still fills in the window, without talking about it.
        self.decide_context_window(say_why=False)
        result.ok = not result.field_errors
        secret = self.api_key
        result.field_errors = {field: redact(text, secret) for field, text in result.field_errors.items()}
        result.notes = [redact(text, secret) for text in result.notes]
        result.models_listed = [redact(name, secret) for name in result.models_listed]
        return result

    def decide_context_window(self, say_why: bool = True) -> None:
        if self.context_decided:
            return
        self.context_decided = True
        facts = self.facts
        choice = choose_context_window(
            context=facts.context,
            ceiling=facts.ceiling,
            stated=self.stated,
            fallback=facts.fallback_context,
            fallback_reason=facts.fallback_reason,
        )
        self.result.context_window = choice.window
        self.result.context_window_source = choice.source
        self.result.context_window_server = choice.server
        self.result.context_window_where = choice.where
        if say_why:
            self.result.notes.extend(choice.notes)

    # --- agent endpoints ---------------------------------------------------------------

    async def check_agent_address(self) -> None:
        try:
            await asyncio.to_thread(check_url, self.base_url, self.allow_loopback)
        except UnsafeURL as exc:
            self.blame("base_url", f"{_sentence(str(exc))}.")
            return
        self.note(
            "Agent endpoints are not probed beyond the address check: the arena only sends them signed "
            "step requests, when episodes are played."
        )

    # --- step 1: the model's metadata --------------------------------------------------

    def metadata_headers(self) -> dict[str, str]:
        if self.provider == ANTHROPIC:
            headers = {"anthropic-version": ANTHROPIC_VERSION}
            if self.api_key:
                headers["x-api-key"] = self.api_key
            return headers
        if self.provider == GEMINI:
            return {"x-goog-api-key": self.api_key} if self.api_key else {}
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    async def look_up_model(self) -> bool:
        """Step 1; False when its answer already shows the submission cannot work."""
        if self.provider == ANTHROPIC:
            facts = await lookups.look_up_anthropic(self.reader, self.base_url, self.model, self.metadata_timeout)
        elif self.provider == GEMINI:
            facts = await lookups.look_up_gemini(self.reader, self.base_url, self.model, self.metadata_timeout)
        else:
            facts = await lookups.look_up_openai(self.reader, self.base_url, self.model)
        self.facts = facts
        self.result.notes.extend(facts.notes)
        self.result.model_found = facts.model_found
        if facts.model_names is not None:
            # The names most like the one asked for come first (a typo shows its correction).
            close = difflib.get_close_matches(self.model, facts.model_names, n=5, cutoff=0.5)
            ordered = close + [name for name in facts.model_names if name not in close]
            self.result.models_listed = ordered[:MAX_MODELS_LISTED]
        if facts.unreachable is not None:
            self.blame_unreachable(facts.unreachable.problem, facts.unreachable.refused_by_guard)
        elif facts.key_refused is not None:
            self.blame_key(facts.key_refused.describe())
        return not facts.stops_probe

    # --- step 2: one token -------------------------------------------------------------

    def client(self, max_tokens: int, retries: int):
        """A model client like the ones that play, on the probe's transport."""
        options = dict(
            api_key=self.api_key,
            model=self.model,
            temperature=0.0,
            max_tokens=max_tokens,
            timeout_seconds=self.timeout,
            total_timeout_seconds=self.timeout,
            max_retries=retries,
            backoff_base_seconds=0.5,
            max_wait_seconds=2.0,
            malformed_retries=0,
            transport=self.transport,
        )
        kind = {
            OPENAI: OpenAICompatibleClient, ANTHROPIC: AnthropicClient, GEMINI: GeminiClient, RESPONSES: ResponsesClient,
        }[self.provider]
        client = kind(base_url=self.base_url, **options)
        self._clients.append(client)
        return client

    async def complete_one_token(self) -> bool:
        """Step 2; False (with a field error) when the endpoint cannot answer."""
        try:
            reply = await self.client(max_tokens=1, retries=1).complete(probe_messages())
        except ModelCallError as exc:
            if self.slow_but_reachable(exc):
                self.slow = True
                self.note(SLOW_NOTE.format(seconds=self.timeout))
                return False
            if not _answered(exc):
                self.blame_completion(exc)
                return False
            self.result.latency_ms = round(exc.latency_ms, 1) if exc.latency_ms else None
            self.note(f"The endpoint answered a one-token request, without text ({_quote(exc)}).")
        else:
            self.first_reply = reply
            self.result.latency_ms = round(reply.latency_ms, 1)
            self.note(f"A one-token answer took {reply.latency_ms:,.0f} ms.")
        refused = self.facts.listing_refused
        if refused is not None:
            self.note(f"The key may not list the models ({_sentence(refused.describe())}), but it can use this one.")
        if self.result.model_found is False:
            why = " (llama.cpp's server, for one, serves its model under any name)" if self.provider == OPENAI else ""
            self.note(f"The endpoint does not list “{self.model}” but answered to that name{why}.")
        return True

    def slow_but_reachable(self, exc: ModelCallError) -> bool:
        """A test request that timed out on an endpoint whose metadata route answered
        (step 1 stops the probe when none did): a CPU server reading a prompt at a few
        tokens per second, or one busy with other clients, is slow, not unreachable,
        and refusing it would turn away exactly the servers the arena's timeouts follow."""
        return exc.kind == ErrorKind.TIMEOUT and exc.http_status is None and self.facts.unreachable is None

    # --- step 4: speed -----------------------------------------------------------------

    async def measure_throughput(self) -> None:
        await measure_speeds(self)
