"""What comes back from an endpoint is normalised before it can reach a step, by every
client alike (arena.clients.replies.normalise_reply): text is valid Unicode without NUL
characters and within its field's stated cap, with a marker saying how much was cut;
token counts are bounded non-negative integers or None; JSON nested too deeply to read
is a malformed answer (an agent's: an illegal action), never a crash of the episode."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from arena.play.agents.base import Decision
from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind
from arena.clients.replies import (
    MAX_COMPLETION_CHARS,
    MAX_ERROR_CHARS,
    MAX_FINISH_REASON_CHARS,
    MAX_REASONING_CHARS,
    MAX_TOKEN_COUNT,
)
from arena.probe import probe_endpoint
from arena.play.step_records import step_record_of
from tests.support.clients import CHAT_CLIENTS_UNDER_TEST, CLIENTS_UNDER_TEST, client_options
from tests.support.fake_openai import FakeOpenAIServer, Fault

KEY = "sk-CANARY-replies-0123456789"
# Far deeper than Python's JSON parser goes (it raises RecursionError at about 1,000).
DEEP_JSON = b"[" * 100_000 + b"]" * 100_000
CUT_MARKER = re.compile(r"\[… the arena cut ([\d,]+) characters here …\]")

AGENT = next(c for c in CLIENTS_UNDER_TEST if not c.chat)
OPENAI = next(c for c in CLIENTS_UNDER_TEST if c.name == "openai")
ANTHROPIC = next(c for c in CLIENTS_UNDER_TEST if c.name == "anthropic")


def each(clients):
    return pytest.mark.parametrize("under_test", clients, ids=[c.name for c in clients])


@pytest.fixture
def server(under_test):
    with under_test.fake(KEY) as running:
        yield running


def connect(under_test, server, **options):
    return under_test.client(server.base_url, KEY, **client_options(3, **{"timeout_seconds": 5.0, **options}))


def assert_storable(text: str, cap: int) -> None:
    """Text every database holds (no lone surrogate, no NUL) within its cap."""
    text.encode("utf-8")
    assert "\x00" not in text and len(text) <= cap


def assert_cut(text: str, original_length: int, head: str, tail: str) -> None:
    marker = CUT_MARKER.search(text)
    assert marker is not None, text[:200]
    cut = int(marker.group(1).replace(",", ""))
    assert len(text) - len(marker.group(0)) - 2 + cut == original_length  # "\n" either side of the marker
    assert text.startswith(head) and text.endswith(tail)


@each(CLIENTS_UNDER_TEST)
@pytest.mark.asyncio
async def test_text_beyond_its_cap_keeps_its_beginning_and_end_around_a_marker(under_test, server):
    text = "A" * 200_000 + "\nAction: a1"
    reasoning = "why " * 40_000 + "so."
    server.enqueue(Fault.reply(text, reasoning=reasoning))
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)

    assert_storable(reply.text, MAX_COMPLETION_CHARS)
    assert_cut(reply.text, len(text), "AAAA", "\nAction: a1")  # the action is at the end: kept
    assert_storable(reply.reasoning, MAX_REASONING_CHARS)
    assert_cut(reply.reasoning, len(reasoning), "why why", "so.")


@each(CLIENTS_UNDER_TEST)
@pytest.mark.asyncio
async def test_lone_surrogates_and_nul_characters_are_replaced(under_test, server):
    server.enqueue(Fault.reply("Action: a1 \ud800\x00\x1b[31m", reasoning="\udfff\x00 because"))
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)
    assert_storable(reply.text, MAX_COMPLETION_CHARS)
    assert_storable(reply.reasoning, MAX_REASONING_CHARS)
    assert reply.text.startswith("Action: a1 ") and reply.text.endswith("\x1b[31m")  # other controls are text
    assert reply.reasoning.endswith(" because")


@each(CHAT_CLIENTS_UNDER_TEST)
@pytest.mark.asyncio
async def test_json_nested_too_deeply_is_a_malformed_answer(under_test, server):
    server.enqueue(*[Fault.raw(DEEP_JSON)] * 3)
    async with connect(under_test, server, malformed_retries=2) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
    error = info.value
    assert (error.kind, error.attempts, error.http_status) == (ErrorKind.BAD_ANSWER, 3, 200)
    assert f"The {under_test.label}'s answer was JSON nested too deeply to read" in str(error)


@pytest.mark.parametrize(
    "body", [DEEP_JSON, b'{"action": "right", "extra": ' + DEEP_JSON + b"}"], ids=["deep", "deep inside"]
)
@pytest.mark.parametrize("under_test", [AGENT], ids=["agent"])
@pytest.mark.asyncio
async def test_an_agent_reply_nested_too_deeply_is_an_illegal_action(under_test, server, body):
    server.enqueue(Fault.raw(body))
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)
    assert reply.text == "" and reply.error == "agent reply was JSON nested too deeply to read"
    assert len(server.requests) == 1  # an agent's 2xx answer is its move: not asked again


@each(CLIENTS_UNDER_TEST)
@pytest.mark.parametrize("status", [400, 503])
@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"error": {"message": "bad \ud800 \x00 " + "x" * 20_000}}).encode(),
        DEEP_JSON,
    ],
    ids=["odd text", "deep json"],
)
@pytest.mark.asyncio
async def test_an_error_body_of_odd_text_or_deep_json_gives_a_clear_storable_error(under_test, server, status, body):
    server.enqueue(Fault.raw(body, status=status))
    async with connect(under_test, server, max_retries=0) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
    message = str(info.value)
    assert_storable(message, MAX_ERROR_CHARS)
    assert f"answered HTTP {status}" in message


def openai_answer(**choice_and_usage) -> bytes:
    usage = choice_and_usage.pop("usage")
    choice = {"index": 0, "message": {"role": "assistant", "content": "Action: a1"}, **choice_and_usage}
    return json.dumps({"id": "chatcmpl-odd", "choices": [choice], "usage": usage}).encode()


@pytest.mark.parametrize("under_test", [OPENAI], ids=["openai"])
@pytest.mark.asyncio
async def test_nonsense_counts_are_dropped_and_an_odd_finish_reason_is_cut(under_test, server):
    server.enqueue(
        Fault.raw(
            openai_answer(
                finish_reason="\ud800\x00" * 5_000,
                usage={
                    "prompt_tokens": -5,
                    "completion_tokens": 10**20,
                    "prompt_tokens_details": {"cached_tokens": "twelve"},
                    "completion_tokens_details": {"reasoning_tokens": 1.5},
                },
            )
        )
    )
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)
    assert (reply.tokens_in, reply.tokens_out, reply.cached_tokens_in, reply.reasoning_tokens) == (None,) * 4
    assert_storable(reply.finish_reason, MAX_FINISH_REASON_CHARS)


@pytest.mark.parametrize("under_test", [ANTHROPIC], ids=["anthropic"])
@pytest.mark.asyncio
async def test_counts_summed_from_several_fields_still_fit_a_steps_integer_column(under_test, server):
    huge = MAX_TOKEN_COUNT  # each field on its own is a count the arena keeps
    answer = {
        "type": "message", "content": [{"type": "text", "text": "Action: a1"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": huge, "cache_creation_input_tokens": huge, "cache_read_input_tokens": huge,
                  "output_tokens": huge},
    }
    server.enqueue(Fault.raw(json.dumps(answer).encode()))
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)
    # A step adds up a few calls' counts (self-correction makes two): the sum must
    # still fit the step's 32-bit columns (a sum that would not is dropped as nonsense).
    assert reply.tokens_out == reply.cached_tokens_in == MAX_TOKEN_COUNT
    assert reply.tokens_in is None or 0 <= 2 * reply.tokens_in <= 2**31 - 1
    assert 2 * MAX_TOKEN_COUNT <= 2**31 - 1


class DeepModelList(FakeOpenAIServer):
    """A server whose model list (read by the probe before anything is created) is JSON
    nested far too deeply; it chats normally."""

    def get_answer(self, path: str):
        return 200, DEEP_JSON


@pytest.mark.asyncio
async def test_the_probe_reads_a_model_list_nested_too_deeply_as_no_list():
    with DeepModelList() as server:
        result = await probe_endpoint(
            provider="openai", base_url=server.base_url, api_key=KEY, model="fake-model", allow_loopback=True,
            timeout_seconds=3.0,
        )
    assert result.ok, result.field_errors
    assert result.model_found is not True


def test_a_steps_error_notes_from_several_calls_stay_within_the_error_cap():
    # Self-correction makes two calls; each may note what its retries overcame.
    note = "succeeded after 3 attempts (" + "x" * MAX_ERROR_CHARS + ")"
    decision = Decision(parsed_action="up", completion="Action: up", error=f"{note}; {note}")
    observation = SimpleNamespace(text="obs")
    result = SimpleNamespace(executed_action="up", reward=0.0, done=False, end_reason=None, info={})
    record = step_record_of(0, observation, None, [], decision, result, legal=True)
    assert_storable(record.error, MAX_ERROR_CHARS)
    assert record.error.startswith("succeeded after 3 attempts (xxx")
