"""A fake OpenAI Responses API (POST /v1/responses) over real HTTP, answering as a
reasoning model: a reasoning item (summary and encrypted content) before the message.

    with FakeResponsesServer(cut_off_every=3) as server:
        ... server.base_url ...   # http://127.0.0.1:PORT/v1
        server.requests[1].json["input"]   # what came back of the first answer

Every `cut_off_every`-th request is answered as a model that spent max_output_tokens
thinking: status "incomplete" (reason "max_output_tokens") and no message. The default
player, the Fault queue and the GET routes are FakeOpenAIServer's.
"""

from __future__ import annotations

from typing import Any

from tests.support.fake_openai import FakeOpenAIServer, RecordedRequest
from tests.support.fake_reasoning import REASONING_TOKENS, _Turns, reasoning_text


def input_text(item: Any) -> str:
    """The text of one Responses input item (a string, or input_text/output_text parts)."""
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def encrypted(turn: int) -> str:
    return f"gAAAA-fake-encrypted-reasoning-{turn}"


class FakeResponsesServer(_Turns, FakeOpenAIServer):
    provider = "responses"
    form = "responses"

    def __init__(self, *, cut_off_every: int = 0, **options):
        super().__init__(**options)
        self._setup_turns(cut_off_every)

    def handles(self, path: str) -> bool:
        return path.rstrip("/").endswith("/responses")

    def authorize(self, request: RecordedRequest) -> tuple[int, Any] | None:
        refusal = super().authorize(request)
        if refusal is None and isinstance(request.json, dict) and request.json.get("store") is not False:
            return 400, self.error_payload(400, "the arena must not store responses (store: false expected)")
        return refusal

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        items = body.get("input", []) if isinstance(body, dict) else []
        if text is None:
            last_user = next((i for i in reversed(items) if isinstance(i, dict) and i.get("role") == "user"), {})
            text = self.player_text(input_text(last_user))
        turn, cut_off = self.next_turn()
        thought = {
            "id": f"rs_fake_{turn}",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": reasoning if reasoning is not None else reasoning_text(turn)}],
            "encrypted_content": encrypted(turn),
        }
        message = {
            "id": f"msg_fake_{turn}",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        prompt_chars = sum(len(input_text(i)) for i in items) + len(str((body or {}).get("instructions", "")))
        answer = {
            "id": f"resp_fake_{turn}",
            "object": "response",
            "status": "incomplete" if cut_off else "completed",
            "incomplete_details": {"reason": "max_output_tokens"} if cut_off else None,
            "model": (body.get("model") if isinstance(body, dict) else None) or self.model,
            "output": [thought] if cut_off else [thought, message],
            "usage": {
                "input_tokens": prompt_chars // 4,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": len(text) // 4 + REASONING_TOKENS,
                "output_tokens_details": {"reasoning_tokens": REASONING_TOKENS},
            },
        }
        return answer

    def measure(self, body: Any) -> tuple[int, int, int]:
        """(characters of text, number of images, max_output_tokens) of a request."""
        chars = images = 0
        items = body.get("input", []) if isinstance(body, dict) else []
        for item in items:
            content = item.get("content") if isinstance(item, dict) else None
            parts = [{"type": "input_text", "text": content}] if isinstance(content, str) else content or []
            for part in parts:
                if isinstance(part, dict) and part.get("type") == "input_image":
                    images += 1
                elif isinstance(part, dict) and isinstance(part.get("text"), str):
                    chars += len(part["text"])
        limit = body.get("max_output_tokens") if isinstance(body, dict) else None
        return chars, images, limit if isinstance(limit, int) else 0

    def empty_answer(self, body: Any) -> Any:
        answer = self.completion(body)
        answer["output"] = []
        return answer

    def oversized_payload(self, filler: bytes) -> bytes:
        return (b'{"status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "'
                + filler + b'"}]}]}')
