"""The real model server the tests start (tests/support/llama_server.py) behaves like the
llama.cpp server the product first met: a 4,096-token window, a real tokenizer, one slot,
no images. These pin the exact answers other tests and the product's error handling rely on."""

from __future__ import annotations

import threading

import httpx
import pytest

from tests.support.clients import PNG_URL

pytestmark = pytest.mark.real_server

# Written for this test, and not part of the tokenizer's training corpus.
ENGLISH = (
    "A small robot wakes up in an empty warehouse. Its battery is low, the lights are off, "
    "and the only sound is the hum of a distant machine. It must find the charging station "
    "before the power runs out, but the shelves have been moved since yesterday and the old "
    "map is no longer correct. Which way should it go first?"
)


def chat(server, messages, **options) -> httpx.Response:
    body = {"model": server.model_id, "messages": messages, "max_tokens": 5, **options}
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=60)


def test_it_lists_the_model(llama_server):
    response = httpx.get(f"{llama_server.base_url}/models", timeout=10)

    assert response.status_code == 200
    assert [model["id"] for model in response.json()["data"]] == [llama_server.model_id]


def test_it_reports_a_4096_token_context_window_and_one_slot(llama_server):
    props = httpx.get(f"{llama_server.root_url}/props", timeout=10).json()

    assert props["default_generation_settings"]["n_ctx"] == 4096
    assert props["total_slots"] == 1


def test_english_takes_about_a_token_per_three_to_four_characters(llama_server):
    tokens = httpx.post(f"{llama_server.root_url}/tokenize", json={"content": ENGLISH}, timeout=10).json()["tokens"]

    assert 3.0 <= len(ENGLISH) / len(tokens) <= 4.5


def test_it_wraps_messages_in_the_chatml_template(llama_server):
    response = httpx.post(
        f"{llama_server.root_url}/apply-template",
        json={"messages": [{"role": "system", "content": "Play well."}, {"role": "user", "content": "Move?"}]},
        timeout=10,
    )

    assert response.json()["prompt"] == (
        "<|im_start|>system\nPlay well.<|im_end|>\n<|im_start|>user\nMove?<|im_end|>\n<|im_start|>assistant\n"
    )


def test_a_short_chat_completion_answers_with_usage(llama_server):
    response = chat(llama_server, [{"role": "user", "content": "Which move do you choose?"}], max_tokens=5)

    assert response.status_code == 200
    body = response.json()
    assert isinstance(body["choices"][0]["message"]["content"], str)
    usage = body["usage"]
    assert usage["prompt_tokens"] > 5  # the template's tokens plus the question's
    assert 0 < usage["completion_tokens"] <= 5
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_a_prompt_longer_than_the_window_is_refused_with_400(llama_server):
    prompt = " ".join([ENGLISH] * 60)  # about 19,000 characters: well past 4,096 tokens

    response = chat(llama_server, [{"role": "user", "content": prompt}])

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "exceed_context_size_error"
    assert "exceeds the available context size (4096 tokens)" in error["message"]
    assert error["n_ctx"] == 4096
    assert error["n_prompt_tokens"] > 4096


def test_a_prompt_that_fits_but_leaves_too_little_room_is_answered_and_cut_at_the_window(llama_server):
    prompt = " ".join([ENGLISH] * 42)  # about 4,000 tokens: fits, with less than 1,000 to spare

    response = chat(llama_server, [{"role": "user", "content": prompt}], max_tokens=1000)

    # Only the prompt is checked against the window; the reply just stops where it ends.
    assert response.status_code == 200
    body = response.json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["prompt_tokens"] < 4096
    assert body["usage"]["total_tokens"] == 4096


def test_an_image_is_refused_because_the_model_is_text_only(llama_server):
    content = [{"type": "text", "text": "What is on this board?"}, {"type": "image_url", "image_url": {"url": PNG_URL}}]

    response = chat(llama_server, [{"role": "user", "content": content}])

    # llama.cpp answers 500 (not 4xx) for this client mistake; the product must still
    # recognise it as "this model cannot see".
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["message"].startswith("image input is not supported")


def test_two_requests_at_once_are_queued_by_its_one_slot_not_refused(llama_server):
    responses: list[httpx.Response] = []
    start = threading.Barrier(2)

    def ask(question: str) -> None:
        # About 1,000 prompt tokens each (a few tenths of a second), so the two overlap.
        content = question + "\n" + " ".join([ENGLISH] * 10)
        start.wait()
        responses.append(chat(llama_server, [{"role": "user", "content": content}], max_tokens=64))

    askers = [threading.Thread(target=ask, args=(question,)) for question in ("Which move?", "Which square?")]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(timeout=60)

    assert [response.status_code for response in responses] == [200, 200]
    assert all(response.json()["usage"]["completion_tokens"] > 0 for response in responses)
