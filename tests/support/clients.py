"""What the provider-client tests share: a prompt with a legal list, a tiny PNG, an
agent-endpoint step, fast retry settings, the check that a secret never shows in an
error, and the four clients each paired with the fake that speaks its wire format.

    for under_test in CLIENTS_UNDER_TEST:
        with under_test.fake(KEY) as server:             # refuses any other key
            server.enqueue(Fault.reset())
            async with under_test.client(server.base_url, KEY, **client_options(1)) as client:
                reply = await under_test.ask(client)      # == under_test.answer

tests/arena/test_client_contract.py holds every client to the same fault behaviour with
them; bench/client_faults.py prints the same matrix as a table.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Awaitable, Callable

from arena.clients.agent_endpoint import AgentEndpointClient
from arena.clients.anthropic import AnthropicClient
from arena.clients.base import ModelReply
from arena.clients.gemini import GeminiClient
from arena.clients.http import HTTPModelClient
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.clients.responses import ResponsesClient
from tests.support.fake_openai import FakeOpenAIServer
from tests.support.fake_providers import FakeAgentServer, FakeAnthropicServer, FakeGeminiServer
from tests.support.fake_responses import FakeResponsesServer

PROMPT = "You are playing a game.\nThe legal actions are:\na1, b2, c3\nAnswer with Action: <move>."
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PNG_URL = f"data:image/png;base64,{PNG_B64}"


def client_options(seed: int, **options) -> dict:
    """Loopback allowed, two retries, tiny backoff (fault tests run in milliseconds),
    then the test's own options on top."""
    return {
        "max_retries": 2,
        "allow_loopback": True,
        "backoff_base_seconds": 0.01,
        "max_wait_seconds": 5.0,
        "rng": random.Random(seed),
        **options,
    }


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def agent_step(step: int = 0, history: list | None = None) -> dict:
    """One arena-agent/1 step of a grid world whose legal actions are right and left."""
    return {
        "task": "lmact/gridworld",
        "suite": "lmact",
        "episode": {"id": 42, "seed": 7},
        "step": step,
        "observation": {"text": "#####\n#A.G#\n#####", "image_url": None},
        "legal_actions": ["right", "left"],
        "instructions": "Reach the goal G. Answer with one of the legal actions.",
        "history": history or [],
    }


def assert_no_secret(error, *secrets: str) -> None:
    for rendered in (str(error), repr(error), error.message, str(error.args)):
        for secret in secrets:
            assert secret not in rendered


@dataclasses.dataclass(frozen=True)
class ClientUnderTest:
    """One client, the fake that speaks its wire format, and how its messages read."""

    name: str
    # The fake, refusing every credential but the one given.
    fake: Callable[[str], FakeOpenAIServer]
    # (the fake's base_url, credential, **client options) -> the client.
    client: Callable[..., HTTPModelClient]
    # One call: a chat prompt with a legal list, or an agent step.
    ask: Callable[[HTTPModelClient], Awaitable[ModelReply]]
    # The fake's default answer to `ask`.
    answer: str
    # How the client's messages name the other side ("The <label> answered HTTP 500").
    label: str
    # Whether it speaks chat completions (ChatCompletionClient.complete): only those
    # retry an answer that is not JSON; an agent's 2xx answer is final.
    chat: bool
    # How a refused credential reads: a scripted 401, and the fake's own refusal.
    refused_401: str
    refused_credential: str
    # What the "response too large" message ends with.
    too_big_hint: str


def _ask_chat(client) -> Awaitable[ModelReply]:
    return client.complete(user(PROMPT))


def _ask_agent(client) -> Awaitable[ModelReply]:
    return client.act(agent_step())


CHAT_ANSWER = "Reasoning: picking the first legal move.\nAction: a1"
CHAT_TOO_BIG_HINT = " (is max_tokens very large?)"

CLIENTS_UNDER_TEST = (
    ClientUnderTest(
        name="openai",
        fake=lambda key: FakeOpenAIServer(api_key=key),
        client=lambda url, key, **options: OpenAICompatibleClient(url, key, "fake-model", **options),
        ask=_ask_chat,
        answer=CHAT_ANSWER,
        label="model endpoint",
        chat=True,
        refused_401="The model endpoint answered HTTP 401 (check the API key)",
        refused_credential="The model endpoint answered HTTP 401 (check the API key): Invalid API Key",
        too_big_hint=CHAT_TOO_BIG_HINT,
    ),
    ClientUnderTest(
        name="anthropic",
        fake=lambda key: FakeAnthropicServer(api_key=key),
        client=lambda url, key, **options: AnthropicClient(url, key, "claude-fake", **options),
        ask=_ask_chat,
        answer=CHAT_ANSWER,
        label="Anthropic API",
        chat=True,
        refused_401="The Anthropic API answered HTTP 401 (check the API key)",
        refused_credential="The Anthropic API answered HTTP 401 (check the API key): invalid x-api-key",
        too_big_hint=CHAT_TOO_BIG_HINT,
    ),
    ClientUnderTest(
        name="gemini",
        fake=lambda key: FakeGeminiServer(api_key=key),
        client=lambda url, key, **options: GeminiClient(url, key, "gemini-fake", **options),
        ask=_ask_chat,
        answer=CHAT_ANSWER,
        label="Gemini API",
        chat=True,
        refused_401="The Gemini API answered HTTP 401 (check the API key)",
        # Gemini says "bad key" with a 400.
        refused_credential="The Gemini API answered HTTP 400 (check the API key): API key not valid",
        too_big_hint=CHAT_TOO_BIG_HINT,
    ),
    ClientUnderTest(
        name="responses",
        fake=lambda key: FakeResponsesServer(api_key=key),
        client=lambda url, key, **options: ResponsesClient(url, key, "o-fake", **options),
        ask=_ask_chat,
        answer=CHAT_ANSWER,
        label="Responses API",
        chat=True,
        refused_401="The Responses API answered HTTP 401 (check the API key)",
        refused_credential="The Responses API answered HTTP 401 (check the API key): Invalid API Key",
        too_big_hint=CHAT_TOO_BIG_HINT,
    ),
    ClientUnderTest(
        name="agent",
        fake=lambda secret: FakeAgentServer(secret=secret),
        client=lambda url, secret, **options: AgentEndpointClient(url, secret, **options),
        ask=_ask_agent,
        answer="right",
        label="agent endpoint",
        chat=False,
        refused_401="The agent endpoint answered HTTP 401: agent rejected the arena's signature",
        refused_credential="The agent endpoint answered HTTP 401: agent rejected the arena's signature",
        too_big_hint="",
    ),
)
CHAT_CLIENTS_UNDER_TEST = tuple(under_test for under_test in CLIENTS_UNDER_TEST if under_test.chat)
