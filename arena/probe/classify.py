"""Reading a model server's error message: did it refuse an image, or a long prompt?

Servers say these two things in many words and with different statuses (llama.cpp
answers an image it cannot see with HTTP 500, OpenRouter with 404, OpenAI and vLLM with
400), so both helpers go by the message and only use the status to rule out answers
that are not errors. The phrases below are the ones real servers send; the tests hold a
sample of each.
"""

from __future__ import annotations

import re

# An image part the model cannot take. Specific phrases first; the two general patterns
# catch "<image words> ... not supported/enabled/allowed" and "does not support ... images".
_IMAGE_REFUSAL = re.compile(
    "|".join(
        (
            r"image input is not supported",  # llama.cpp without a vision projector (HTTP 500)
            r"mmproj",  # llama.cpp's hint that names the missing projector
            r"missing data required for image input",  # Ollama, text-only model
            r"no endpoints found that support image input",  # OpenRouter (HTTP 404)
            r"image_url is only supported by certain models",  # OpenAI, text-only model
            r"not a multi-?modal model",  # vLLM and gateways in front of it
            r"non-multi-?modal|text-only model",
            r"unknown variant .{0,2}image_url",  # servers that only know text parts (DeepSeek)
            r"content must be a string",  # servers that only take string content (Groq)
            r"image input modality is not enabled",  # Gemini API, text-only model
            r"\b(?:images?|image_url|image inputs?|vision|multi-?modal(?: input)?|content parts?)\b"
            r"[^.]{0,60}?\b(?:is|are)\s+not\s+(?:supported|enabled|allowed|available)",
            r"\b(?:does|do)\s*(?:not|n't)\s+(?:support|accept|allow|handle)\b[^.]{0,40}?"
            r"\b(?:images?|image inputs?|image_url|vision|multi-?modal)",
        )
    ),
    re.IGNORECASE,
)

# A prompt (plus the answer it asks for) beyond the model's context window.
_CONTEXT_EXCEEDED = re.compile(
    "|".join(
        (
            r"exceed_context_size_error",  # llama.cpp's error type
            r"exceeds the available context size",  # llama.cpp's message
            r"context_length_exceeded",  # OpenAI's and Groq's error code
            r"maximum context length",  # OpenAI, vLLM, OpenRouter, DeepSeek, Mistral
            r"is longer than the maximum model length",  # vLLM: "The decoder prompt (length N) ..."
            r"longer than the model's context length",  # SGLang
            r"prompt is too long",  # Anthropic
            r"input length and `?max_tokens`? exceed context limit",  # Anthropic
            r"input is too long",  # Amazon Bedrock
            r"exceeds the maximum number of tokens",  # Gemini: "The input token count (N) exceeds ..."
            r"exceeds the context window",  # OpenAI's Responses API
            r"maximum prompt length is",  # xAI
            r"context size has been exceeded",  # LM Studio
            r"`?inputs`? tokens \+ `?max_new_tokens`? must be",  # Text Generation Inference
            r"reduce the length of the messages",
        )
    ),
    re.IGNORECASE,
)


def _is_error_status(status: int | None) -> bool:
    """An HTTP error status, or None when the caller only has the message."""
    return status is None or status >= 400


def is_image_refusal(status: int | None, message: str) -> bool:
    """Whether an error says the model (or server) does not take image input.

    `status` is the HTTP status (None if unknown); `message` the error text, either the
    server's own or a client's wording around it. A 2xx or 3xx is never a refusal.
    """
    if not _is_error_status(status) or not message:
        return False
    return _IMAGE_REFUSAL.search(message) is not None


def is_context_exceeded(status: int | None, message: str) -> bool:
    """Whether an error says the request does not fit the model's context window.

    A 429 is never one: rate-limit messages about tokens per minute ("Request too large
    for ... tokens per min") look similar but mean "wait", not "shorten".
    """
    if not _is_error_status(status) or status == 429 or not message:
        return False
    return _CONTEXT_EXCEEDED.search(message) is not None
