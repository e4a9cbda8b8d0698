"""Fake Anthropic, Gemini and self-hosted-agent servers over real HTTP.

They reuse FakeOpenAIServer's threaded server, handler and Fault queue (see
tests/support/fake_openai.py) and only swap the wire format, so every Fault works the
same way against each of them:

    with FakeAnthropicServer(api_key=KEY) as server:
        server.enqueue(Fault.status(529), Fault.reply("Action: up", reasoning="hmm"))
        client = AnthropicClient(server.base_url, KEY, "claude-x", allow_loopback=True)

    with FakeAgentServer(secret=SECRET) as agent:     # 401 unless correctly signed
        client = AgentEndpointClient(agent.url, SECRET, allow_loopback=True)

The default player is the same as the OpenAI fake's: the first legal move listed in
the last user message, or "Action: <default_action>". The agent fake picks the first
of ``legal_actions`` instead.

The OpenAI fake's model-server options work here too, in each provider's own words:
`models` (entries are names or dicts of the provider's model fields, served by its
models endpoints; a completion for another model is that provider's 404),
`context_window` and `accepts_images`.
"""

from __future__ import annotations

import hashlib
import hmac
import time
import urllib.parse
from typing import Any

from tests.support.fake_openai import FakeOpenAIServer, Fault, RecordedRequest, message_text

__all__ = ["FakeAgentServer", "FakeAnthropicServer", "FakeGeminiServer", "Fault"]


class FakeAnthropicServer(FakeOpenAIServer):
    """Speaks POST /v1/messages. With `api_key`, other keys get a 401."""

    def __init__(self, *, api_key: str | None = None, cached_tokens: int = 0, **options):
        super().__init__(**options)
        self.api_key = api_key
        self.cached_tokens = cached_tokens
        self.prompt_cache: set[str] = set()  # the marked prefixes written so far

    @property
    def base_url(self) -> str:  # the API root; the client appends /v1/messages
        return f"http://127.0.0.1:{self.port}"

    def handles(self, path: str) -> bool:
        return path.rstrip("/") == "/v1/messages"

    def authorize(self, request: RecordedRequest) -> tuple[int, Any] | None:
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return 401, self.error_payload(401, "invalid x-api-key")
        if request.headers.get("anthropic-version") is None:
            return 400, self.error_payload(400, "anthropic-version header is required")
        return None

    def error_payload(self, status: int, message: str) -> Any:
        kind = {
            400: "invalid_request_error",
            401: "authentication_error",
            404: "not_found_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def get_answer(self, path: str) -> tuple[int, Any]:
        """GET /v1/models (one page) and GET /v1/models/{model_id}."""
        path = urllib.parse.unquote(path.split("?")[0].rstrip("/"))
        entries = [
            {"type": "model", "display_name": entry["id"], "created_at": "2025-01-01T00:00:00Z", **entry}
            for entry in self.listed_models()
        ]
        if path == "/v1/models":
            first, last = (entries[0]["id"], entries[-1]["id"]) if entries else (None, None)
            return 200, {"data": entries, "has_more": False, "first_id": first, "last_id": last}
        if path.startswith("/v1/models/"):
            wanted = path.removeprefix("/v1/models/")
            for entry in entries:
                if entry["id"] == wanted:
                    return 200, entry
            return 404, self.error_payload(404, f"model: {wanted}")
        return 404, self.error_payload(404, "Not found")

    def measure(self, body: Any) -> tuple[int, int, int]:
        chars = images = 0
        if not isinstance(body, dict):
            return 0, 0, 0
        chars += len(system_text(body.get("system")))
        for message in body.get("messages", []):
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                chars += len(content)
                continue
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "image":
                    images += 1
                elif isinstance(block, dict) and isinstance(block.get("text"), str):
                    chars += len(block["text"])
        limit = body.get("max_tokens")
        return chars, images, limit if isinstance(limit, int) else 0

    def unknown_model(self, model: str) -> tuple[int, Any]:
        return 404, self.error_payload(404, f"model: {model}")

    def image_refusal(self) -> tuple[int, Any]:
        return 400, self.error_payload(400, f"{self.model} does not support image input.")

    def context_exceeded(self, needed: int) -> tuple[int, Any]:
        return 400, self.error_payload(400, f"prompt is too long: {needed} tokens > {self.context_window} maximum")

    def malformed_payload(self) -> bytes:
        return b'{"id": "msg_broken", "type": "message", "content": [{"type": "te'

    def oversized_payload(self, filler: bytes) -> bytes:
        return b'{"type": "message", "content": [{"type": "text", "text": "' + filler + b'"}]}'

    def empty_answer(self, body: Any) -> Any:
        answer = self.completion(body)
        answer["content"] = []
        return answer

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        messages = body.get("messages", []) if isinstance(body, dict) else []
        if text is None:
            last_user = next(
                (m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), {}
            )
            text = self.player_text(message_text(last_user))
        prompt_chars = sum(len(message_text(m)) for m in messages if isinstance(m, dict))
        if isinstance(body, dict):
            prompt_chars += len(system_text(body.get("system")))
        content: list[dict] = []
        if reasoning is not None:
            content.append({"type": "thinking", "thinking": reasoning, "signature": "fake-signature"})
        content.append({"type": "text", "text": text})
        prompt_tokens = prompt_chars // 4
        cached = min(self.cached_tokens, prompt_tokens)
        written = 0
        marked = marked_prefix(body) if isinstance(body, dict) else None
        if marked is not None:
            # Anthropic's prompt cache: a prefix marked with cache_control is read from
            # the cache when an earlier request wrote it, written otherwise.
            if marked in self.prompt_cache:
                cached = max(cached, len(marked) // 4)
            else:
                self.prompt_cache.add(marked)
                written = len(marked) // 4
        return {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": (body.get("model") if isinstance(body, dict) else None) or self.model,
            "content": content,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": prompt_tokens - cached - written,
                "cache_creation_input_tokens": written,
                "cache_read_input_tokens": cached,
                "output_tokens": (len(text) + len(reasoning or "")) // 4,
            },
        }


def system_text(system: Any) -> str:
    """Anthropic's system: a string or a list of text blocks."""
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "".join(block.get("text", "") for block in system if isinstance(block, dict))
    return ""


def marked_prefix(body: dict) -> str | None:
    """The text of the request up to its last block marked with cache_control (system
    first, then the messages' blocks), or None when nothing is marked."""
    text: list[str] = []
    marked = None
    system = body.get("system")
    for block in system if isinstance(system, list) else [{"type": "text", "text": system_text(system)}]:
        text.append(block.get("text", "") if isinstance(block, dict) else "")
        if isinstance(block, dict) and block.get("cache_control"):
            marked = "".join(text)
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            text.append(block.get("text", "") if block.get("type") == "text" else f"<{block.get('type')}>")
            if block.get("cache_control"):
                marked = "".join(text)
    return marked


def _gemini_text(content: Any) -> str:
    parts = content.get("parts", []) if isinstance(content, dict) else []
    return "".join(part.get("text", "") for part in parts if isinstance(part, dict))


class FakeGeminiServer(FakeOpenAIServer):
    """Speaks POST /v1beta/models/{model}:generateContent. With `api_key`, requests
    without that key in x-goog-api-key get the API's 400 "API key not valid"."""

    def __init__(self, *, api_key: str | None = None, cached_tokens: int = 0, **options):
        super().__init__(**options)
        self.api_key = api_key
        self.cached_tokens = cached_tokens

    @property
    def base_url(self) -> str:  # the API root; the client appends /v1beta/models/...
        return f"http://127.0.0.1:{self.port}"

    def handles(self, path: str) -> bool:
        return path.startswith("/v1beta/models/") and path.split("?")[0].endswith(":generateContent")

    def authorize(self, request: RecordedRequest) -> tuple[int, Any] | None:
        if self.api_key is not None and request.headers.get("x-goog-api-key") != self.api_key:
            return 400, self.error_payload(400, "API key not valid. Please pass a valid API key.")
        return None

    def error_payload(self, status: int, message: str) -> Any:
        state = {
            400: "INVALID_ARGUMENT",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED",
            503: "UNAVAILABLE",
        }.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": state}}

    def get_answer(self, path: str) -> tuple[int, Any]:
        """GET /v1beta/models (one page) and GET /v1beta/models/{model}."""
        path = urllib.parse.unquote(path.split("?")[0].rstrip("/"))
        entries = []
        for entry in self.listed_models():
            fields = {key: value for key, value in entry.items() if key != "id"}
            entries.append({
                "name": f"models/{entry['id']}",
                "displayName": entry["id"],
                "supportedGenerationMethods": ["generateContent", "countTokens"],
                **fields,
            })
        if path == "/v1beta/models":
            return 200, {"models": entries}
        if path.startswith("/v1beta/models/"):
            wanted = path.removeprefix("/v1beta/")
            for entry in entries:
                if entry["name"] == wanted:
                    return 200, entry
            return 404, self.error_payload(404, f"{wanted} is not found for API version v1beta")
        return 404, self.error_payload(404, "Not found")

    def requested_model(self, path: str, body: Any) -> str | None:
        resource = urllib.parse.unquote(path.split("?")[0]).removeprefix("/v1beta/models/")
        return resource.split(":", 1)[0]

    def measure(self, body: Any) -> tuple[int, int, int]:
        if not isinstance(body, dict):
            return 0, 0, 0
        chars = len(_gemini_text(body.get("systemInstruction")))
        images = 0
        for content in body.get("contents", []):
            parts = content.get("parts", []) if isinstance(content, dict) else []
            for part in parts:
                if isinstance(part, dict) and "inlineData" in part:
                    images += 1
                elif isinstance(part, dict) and isinstance(part.get("text"), str):
                    chars += len(part["text"])
        config = body.get("generationConfig") if isinstance(body.get("generationConfig"), dict) else {}
        limit = config.get("maxOutputTokens")
        return chars, images, limit if isinstance(limit, int) else 0

    def unknown_model(self, model: str) -> tuple[int, Any]:
        return 404, self.error_payload(
            404,
            f"models/{model} is not found for API version v1beta, or is not supported for generateContent. "
            "Call ListModels to see the list of available models and their supported methods.",
        )

    def image_refusal(self) -> tuple[int, Any]:
        return 400, self.error_payload(400, f"Image input modality is not enabled for models/{self.model}")

    def context_exceeded(self, needed: int) -> tuple[int, Any]:
        return 400, self.error_payload(
            400,
            f"The input token count ({needed}) exceeds the maximum number of tokens allowed ({self.context_window}).",
        )

    def malformed_payload(self) -> bytes:
        return b'{"candidates": [{"content": {"parts": [{"text": "Act'

    def oversized_payload(self, filler: bytes) -> bytes:
        return b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "' + filler + b'"}]}}]}'

    def empty_answer(self, body: Any) -> Any:
        """What Gemini sends for a blocked prompt: no candidates, a block reason."""
        answer = self.completion(body)
        del answer["candidates"]
        answer["promptFeedback"] = {"blockReason": "SAFETY"}
        return answer

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        contents = body.get("contents", []) if isinstance(body, dict) else []
        if text is None:
            last_user = next(
                (c for c in reversed(contents) if isinstance(c, dict) and c.get("role") == "user"), {}
            )
            text = self.player_text(_gemini_text(last_user))
        prompt_chars = sum(len(_gemini_text(c)) for c in contents)
        if isinstance(body, dict):
            prompt_chars += len(_gemini_text(body.get("systemInstruction")))
        parts: list[dict] = []
        if reasoning is not None:
            parts.append({"text": reasoning, "thought": True})
        parts.append({"text": text})
        usage: dict[str, int] = {
            "promptTokenCount": prompt_chars // 4,
            "candidatesTokenCount": len(text) // 4,
        }
        if reasoning is not None:
            usage["thoughtsTokenCount"] = len(reasoning) // 4
        if self.cached_tokens:
            usage["cachedContentTokenCount"] = min(self.cached_tokens, usage["promptTokenCount"])
        usage["totalTokenCount"] = sum(
            usage[name] for name in ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount") if name in usage
        )
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": usage,
            "modelVersion": self.model,
        }


class FakeAgentServer(FakeOpenAIServer):
    """A self-hosted agent speaking arena-agent/1 at POST /agent.

    Requests are checked independently of arena.clients.agent_endpoint: HMAC-SHA256
    with `secret` over "<X-Arena-Timestamp>.<raw body>", timestamp within
    `max_age_seconds`; anything else gets a 401. `non_json = True` makes every default
    answer plain text instead of JSON. Fault.reply(text, reasoning) answers
    {"action": text, "reasoning": reasoning}; Fault.empty_choices answers {}.
    """

    def __init__(self, *, secret: str, max_age_seconds: float = 300, non_json: bool = False, **options):
        super().__init__(**options)
        self.secret = secret
        self.max_age_seconds = max_age_seconds
        self.non_json = non_json
        self.rejected = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/agent"

    @property
    def base_url(self) -> str:
        return self.url

    def handles(self, path: str) -> bool:
        return path.rstrip("/") == "/agent"

    def _signature_ok(self, request: RecordedRequest) -> bool:
        stamp = request.headers.get("x-arena-timestamp", "")
        given = request.headers.get("x-arena-signature", "")
        if not stamp.isdigit() or abs(time.time() - int(stamp)) > self.max_age_seconds:
            return False
        mac = hmac.new(self.secret.encode(), stamp.encode() + b"." + request.raw, hashlib.sha256)
        return hmac.compare_digest("sha256=" + mac.hexdigest(), given)

    def authorize(self, request: RecordedRequest) -> tuple[int, Any] | None:
        if not self._signature_ok(request):
            with self._lock:
                self.rejected += 1
            return 401, {"error": "bad signature"}
        return None

    def error_payload(self, status: int, message: str) -> Any:
        return {"error": message}

    def malformed_payload(self) -> bytes:
        return b'{"action": "up", "reas'

    def oversized_payload(self, filler: bytes) -> bytes:
        return b'{"action": "up", "reasoning": "' + filler + b'"}'

    def empty_answer(self, body: Any) -> Any:
        return {}

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> Any:
        if text is None:
            legal = body.get("legal_actions") if isinstance(body, dict) else None
            text = legal[0] if isinstance(legal, list) and legal else self.default_action
            if reasoning is None:
                reasoning = "the first legal action"
            if self.non_json:
                return f"I choose {text}".encode()
        answer: dict[str, Any] = {"action": text}
        if reasoning is not None:
            answer["reasoning"] = reasoning
        return answer
