"""Message shapes negotiated, never assumed: the probe learns whether an endpoint takes
content parts, a system message and two consecutive messages of one role; play adapts
(the system text folded into the first user turn, consecutive user turns merged, as
BALROG's `alternate_roles`), records it on the step, and the stored steps rebuild
exactly what was sent."""

from __future__ import annotations

import asyncio

import pytest

from arena.services.runs import RunSpec, run_create
from arena.services.submissions import submission_create
from arena.probe import probe_endpoint
from arena.strategies.shape import MessageShape, adapt, apply_record
from tests.support.fake_openai import FakeOpenAIServer, message_text

ALTERNATION_ERROR = "Conversation roles must alternate user/assistant/user/assistant/..."
SYSTEM_ERROR = "System role not supported"
STRING_ONLY_ERROR = 'can only concatenate str (not "list") to str'


class TemplateBoundServer(FakeOpenAIServer):
    """A server whose chat template refuses what Gemma's official template refuses (a
    system message, two messages of one role in a row) and, optionally, what
    llama-cpp-python's server refuses (content parts); the errors are those servers'
    words, HTTP 500 as llama.cpp answers a template exception."""

    def __init__(self, *, string_only: bool = False, alternating_only: bool = True, **options):
        super().__init__(**options)
        self.string_only = string_only
        self.alternating_only = alternating_only

    def refusal(self, path, body):
        messages = body.get("messages", []) if isinstance(body, dict) else []
        if self.string_only and any(not isinstance(m.get("content"), str) for m in messages):
            return 500, {"error": {"code": 500, "message": STRING_ONLY_ERROR, "type": "server_error"}}
        if self.alternating_only:
            roles = [m.get("role") for m in messages]
            if "system" in roles:
                return 500, {"error": {"code": 500, "message": SYSTEM_ERROR, "type": "server_error"}}
            if any(a == b for a, b in zip(roles, roles[1:])) or (roles and roles[0] != "user"):
                return 500, {"error": {"code": 500, "message": ALTERNATION_ERROR, "type": "server_error"}}
        return super().refusal(path, body)


def _probe(server):
    return asyncio.run(probe_endpoint(provider="openai", base_url=server.base_url, api_key="", model="fake-model",
                                      allow_loopback=True, timeout_seconds=5.0))


def test_adapt_folds_the_system_text_and_merges_consecutive_turns_and_the_record_replays_it():
    messages = [
        {"role": "system", "content": "Rules."},
        {"role": "user", "content": "Instructions."},
        {"role": "user", "content": "Observation 1"},
        {"role": "assistant", "content": "north"},
        {"role": "user", "content": [{"type": "text", "text": "Observation 2"}, {"type": "image_url", "image_url": {"url": "data:x"}}]},
    ]
    sent, record = adapt(messages, MessageShape(system_role=False, consecutive_roles=False))
    assert sent == [
        {"role": "user", "content": "Rules.\n\nInstructions.\n\nObservation 1"},
        {"role": "assistant", "content": "north"},
        messages[-1],
    ]
    assert record == {"system_folded": True, "merged": 1}
    assert apply_record(messages, record) == sent
    assert messages[0] == {"role": "system", "content": "Rules."}  # the strategy's own list is untouched
    # An endpoint that takes every shape, or one the probe could not tell about, gets the faithful one.
    assert adapt(messages, MessageShape(True, True, True)) == (messages, None)
    assert adapt(messages, MessageShape()) == (messages, None)
    assert apply_record(messages, None) == messages


def test_merging_a_text_turn_into_an_image_turn_keeps_the_image():
    image = {"type": "image_url", "image_url": {"url": "data:x"}}
    sent, record = adapt(
        [{"role": "user", "content": "Instructions."}, {"role": "user", "content": [image, {"type": "text", "text": "Obs"}]}],
        MessageShape(consecutive_roles=False),
    )
    assert record == {"merged": 1}
    assert sent == [{"role": "user", "content": [{"type": "text", "text": "Instructions.\n\n"}, image,
                                                  {"type": "text", "text": "Obs"}]}]


def test_the_probe_learns_a_gemma_like_template_and_a_string_only_server():
    with TemplateBoundServer(string_only=True) as server:
        result = _probe(server)
    assert result.ok
    assert result.message_shape == {"content_parts": False, "system_role": False, "consecutive_roles": False}
    assert result.accepts_images is False  # no content parts, no images
    notes = " ".join(result.notes)
    assert STRING_ONLY_ERROR in notes and "Prompts are adapted to it" in notes

    with FakeOpenAIServer() as server:
        assert _probe(server).message_shape == {"content_parts": True, "system_role": True, "consecutive_roles": True}


@pytest.fixture
def gemma_like():
    with TemplateBoundServer(string_only=True) as server:
        yield server


@pytest.fixture
def shaped_submission(db, allow_loopback, gemma_like):
    probe = _probe(gemma_like)
    return submission_create(
        owner=None,
        fields={"name": "Gemma-like", "base_url": gemma_like.base_url, "model": "fake-model", "temperature": 0.0,
                "max_tokens": 64, "num_demonstrations": 0, "show_legal_actions": True, "chain_of_thought": False,
                "endpoint_probe": probe.to_json()},
        api_key="", runs=[],
    )


def _run(submission, task, fmt="text", **options):
    return run_create(submission, RunSpec(task=task, format=fmt, num_episodes=1, options=options))


@pytest.mark.django_db(transaction=True)
def test_balrog_plays_a_gemma_like_template_with_merged_turns_and_rebuilds_what_was_sent(
    shaped_submission, gemma_like, play
):
    from arena.strategies.history import rebuild_messages

    gemma_like.clear()
    run = _run(shaped_submission, "balrog/textworld-coin-collector")
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == "finished", episode.error
    steps = list(episode.steps.order_by("index"))
    sent = [r.json["messages"] for r in gemma_like.requests if r.path.endswith("/chat/completions")]
    assert len(sent) == len(steps) >= 2
    for k, step in enumerate(steps):
        roles = [m["role"] for m in sent[k]]
        assert roles[0] == "user" and all(a != b for a, b in zip(roles, roles[1:])), roles
        assert all(isinstance(m["content"], str) for m in sent[k])
        # Within BALROG's 16-observation window the instructions are followed by the
        # first observation (two user turns, merged); past it, by the action that
        # preceded the window (BALROG's event queue), so the turns alternate as built.
        assert step.info.get("shape") == ({"merged": 1} if k < 16 else None), k
        rebuilt = rebuild_messages(episode.prompt_prefix, steps[: k + 1], history_window=16)
        assert apply_record(rebuilt, step.info.get("shape")) == sent[k], k
    # The instructions and the first observation went out as one user message.
    assert "coin" in message_text(sent[0][0]).lower() and "Current Observation:" in sent[0][0]["content"]


@pytest.mark.django_db(transaction=True)
def test_a_chat_suite_system_text_is_folded_into_the_first_user_turn(shaped_submission, gemma_like, play):
    gemma_like.clear()
    run = _run(shaped_submission, "infogather/single-feature", num_colours=3, guided_reasoning=False)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == "finished", episode.error
    first = next(r.json["messages"] for r in gemma_like.requests if r.path.endswith("/chat/completions"))
    assert first[0]["role"] == "user" and first[0]["content"].startswith(episode.prompt_prefix[0]["text"] + "\n\n")
    assert episode.steps.order_by("index").first().info["shape"] == {"system_folded": True}


@pytest.mark.django_db(transaction=True)
def test_lmact_text_prompts_go_out_as_strings(shaped_submission, gemma_like, play):
    gemma_like.clear()
    run = _run(shaped_submission, "lmact/tictactoe", fmt="ascii")
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == "finished", episode.error
    requests = [r.json["messages"] for r in gemma_like.requests if r.path.endswith("/chat/completions")]
    assert requests and all(isinstance(m[0]["content"], str) and len(m) == 1 for m in requests)
    assert all("shape" not in s.info for s in episode.steps.all())


@pytest.mark.django_db
def test_the_submission_page_shows_what_the_endpoint_takes(shaped_submission, client):
    page = client.get(f"/submissions/{shaped_submission.pk}/").content.decode()
    row = page[page.index('id="message-shape"'):]
    row = row[: row.index("</td>")]
    assert "content parts: refused; a system message: refused; two messages of one role in a row: refused" in row
    assert "first user message" in row and "merged into one" in row
