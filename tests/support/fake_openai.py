"""A small OpenAI-compatible chat server over real HTTP, for tests and benchmarks.

    with FakeOpenAIServer() as server:
        server.enqueue(Fault.status(429, retry_after=1), Fault.reply("Action: up"))
        ... call server.base_url ...
        server.requests[0].json["messages"]   # every request, GETs included, in order

Queued faults are used one per completion request, in order; once the queue is empty
every request gets the default answer from a "player" that picks the first legal move it
finds in the last user message (a line mentioning "legal" followed by a line
"a1, b2, c3"), or "Action: <default_action>" if there is no such list.

Options that make the fake behave like a real model server (all off by default):

    FakeOpenAIServer(
        models=["m", {"id": "n", "max_model_len": 8192}],  # GET /v1/models (vLLM-style
                                     # entries); a completion naming another model is a 404
        props_n_ctx=4096,            # GET /props answers like llama.cpp's server
        context_window=4096,         # prompt (~4 characters per token, 85 tokens per
                                     # image) plus max_tokens beyond it: llama.cpp's HTTP 400
        accepts_images=False,        # an image part: llama.cpp's HTTP 500 (no mmproj)
        api_key="sk-...",            # any other bearer token: HTTP 401, GETs included
    )

The wire format lives in a few overridable methods of FakeOpenAIServer (`handles`,
`authorize`, `completion`, `empty_answer`, `error_payload`, `malformed_payload`,
`oversized_payload`, `get_answer`, `requested_model`, `measure`, `unknown_model`,
`image_refusal`, `context_exceeded`), so tests/support/fake_providers.py reuses the
server, the handler and the Fault mechanism for other providers' formats.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import math
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclasses.dataclass(frozen=True)
class Fault:
    """One scripted answer; build them with the class methods."""

    kind: str
    status_code: int = 200
    retry_after: str | None = None
    seconds: float = 0.0
    nbytes: int = 0
    text: str = ""
    reasoning: str | None = None
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()
    declare_length: bool = False

    @classmethod
    def status(
        cls,
        code: int,
        retry_after: float | str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Fault:
        """Answer with HTTP `code` and an OpenAI-style error body (or `body`)."""
        return cls(
            "status",
            status_code=code,
            retry_after=None if retry_after is None else str(retry_after),
            body=body,
            headers=tuple((headers or {}).items()),
        )

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Sleep, then give the default answer (a client with a shorter timeout gives up)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def malformed_json(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def empty_choices(cls) -> Fault:
        return cls("empty_choices")

    @classmethod
    def reset(cls) -> Fault:
        """Close the connection (with a TCP reset) without answering."""
        return cls("reset")

    @classmethod
    def oversized(cls, nbytes: int, declare_length: bool = False) -> Fault:
        """A 200 whose body is about `nbytes` long; without Content-Length by default,
        so the client has to notice while reading."""
        return cls("oversized", nbytes=nbytes, declare_length=declare_length)

    @classmethod
    def slow_drip(cls, interval: float = 0.05, chunk_bytes: int = 1) -> Fault:
        """A 200 with the default answer (Content-Length declared), sent `chunk_bytes`
        at a time every `interval` seconds: each read is quick, the whole is not."""
        return cls("drip", seconds=interval, nbytes=max(1, chunk_bytes))

    @classmethod
    def raw(cls, body: bytes, status: int = 200) -> Fault:
        """Answer with exactly these bytes (as application/json): what no well-behaved
        server sends, e.g. JSON nested 100,000 levels deep or a usage block of nonsense."""
        return cls("raw", status_code=status, body=body)

    @classmethod
    def reply(cls, text: str, reasoning: str | None = None) -> Fault:
        """A normal completion with this text (and reasoning_content, if given)."""
        return cls("reply", text=text, reasoning=reasoning)


@dataclasses.dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    json: Any  # the parsed body, or None if it was not JSON
    raw: bytes = b""  # the body as received


def message_text(message: dict) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def legal_moves(text: str) -> list[str]:
    """The moves listed on the line after the last line that mentions "legal".

    A following line with a colon in it ("Action: ...") is an instruction, not a list of
    moves, so it does not count.
    """
    lines = text.splitlines()
    found: list[str] = []
    for index, line in enumerate(lines):
        if "legal" not in line.lower():
            continue
        following = next((nxt for nxt in lines[index + 1 :] if nxt.strip()), "")
        if ":" in following:
            continue
        moves = [move.strip() for move in following.split(",") if move.strip()]
        if moves:
            found = moves
    return found


# What llama.cpp's server answers (HTTP 500) to an image part when it runs without a
# vision projector, and its HTTP 400 for a request beyond the context window.
LLAMACPP_IMAGE_ERROR = (
    "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
)
# A fixed cost per image, about what small vision models spend on a tiny picture.
IMAGE_TOKENS = 85


def estimated_tokens(chars: int, images: int) -> int:
    """The fakes' token count: about four characters per token, a fixed cost per image."""
    return math.ceil(chars / 4) + images * IMAGE_TOKENS


class FakeOpenAIServer:
    """A threaded HTTP server on 127.0.0.1 that speaks /v1/chat/completions."""

    def __init__(
        self,
        default_action: str = "up",
        latency: float = 0.0,
        model: str = "fake-model",
        *,
        models: list[str | dict] | None = None,
        props_n_ctx: int | None = None,
        context_window: int | None = None,
        accepts_images: bool = True,
        api_key: str | None = None,
    ):
        self.default_action = default_action
        self.latency = latency
        self.model = model
        self.models = models
        self.props_n_ctx = props_n_ctx
        self.context_window = context_window
        self.accepts_images = accepts_images
        self.api_key = api_key
        # Seconds every GET (model list, /props) waits before answering: a server silent everywhere.
        self.metadata_delay = 0.0
        self._lock = threading.Lock()
        self._faults: collections.deque[Fault] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        handler = type("Handler", (_Handler,), {"fake": self})
        httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # --- scripting and inspection -------------------------------------------------------

    def enqueue(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self._faults.clear()

    # --- used by the handler ------------------------------------------------------------

    def _record(self, request: RecordedRequest, takes_fault: bool = True) -> Fault | None:
        """Keep `request`; the next queued fault if it is a completion request."""
        with self._lock:
            self._requests.append(request)
            return self._faults.popleft() if takes_fault and self._faults else None

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    # --- the wire format (overridden by the other providers' fakes) --------------------

    def handles(self, path: str) -> bool:
        """Whether a POST to `path` is a completion request."""
        return path.rstrip("/").endswith("/chat/completions")

    def authorize(self, request: RecordedRequest) -> tuple[int, Any] | None:
        """(status, payload) to refuse the request with, or None to serve it."""
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return 401, {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}
        return None

    # --- model metadata (GET routes) ---------------------------------------------------

    def listed_models(self) -> list[dict]:
        """The configured models as dicts with at least an "id"."""
        entries = self.models if self.models is not None else [self.model]
        return [entry if isinstance(entry, dict) else {"id": entry} for entry in entries]

    def model_ids(self) -> list[str]:
        return [entry["id"] for entry in self.listed_models()]

    def get_answer(self, path: str) -> tuple[int, Any]:
        """(status, payload) for a GET to `path`."""
        path = path.split("?")[0].rstrip("/")
        if self.metadata_delay:
            time.sleep(self.metadata_delay)
        if path.endswith("/models"):
            data = [{"object": "model", "owned_by": "fake", **entry} for entry in self.listed_models()]
            return 200, {"object": "list", "data": data}
        if path == "/props" and self.props_n_ctx is not None:
            return 200, {
                "default_generation_settings": {"id": 0, "n_ctx": self.props_n_ctx, "params": {"n_predict": -1}},
                "total_slots": 1,
                "model_path": f"models/{self.model}.gguf",
                "modalities": {"vision": self.accepts_images, "audio": False},
                "build_info": "fake",
            }
        return 404, self.error_payload(404, f"File Not Found: {path}")

    # --- what a real server refuses ----------------------------------------------------

    def requested_model(self, path: str, body: Any) -> str | None:
        return body.get("model") if isinstance(body, dict) else None

    def measure(self, body: Any) -> tuple[int, int, int]:
        """(characters of text, number of images, max_tokens) of a completion request."""
        chars = images = 0
        messages = body.get("messages", []) if isinstance(body, dict) else []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                chars += len(content)
            elif isinstance(content, list):
                for part in content:
                    if not isinstance(part, dict):
                        continue
                    if part.get("type") == "image_url":
                        images += 1
                    elif isinstance(part.get("text"), str):
                        chars += len(part["text"])
        limit = None
        if isinstance(body, dict):
            limit = body.get("max_tokens") or body.get("max_completion_tokens")
        return chars, images, limit if isinstance(limit, int) else 0

    def unknown_model(self, model: str) -> tuple[int, Any]:
        """vLLM's answer to a model it does not serve."""
        return 404, {
            "error": {"message": f"The model `{model}` does not exist.", "type": "NotFoundError", "code": 404}
        }

    def image_refusal(self) -> tuple[int, Any]:
        return 500, {"error": {"code": 500, "message": LLAMACPP_IMAGE_ERROR, "type": "server_error"}}

    def context_exceeded(self, needed: int) -> tuple[int, Any]:
        window = self.context_window
        return 400, {
            "error": {
                "code": 400,
                "message": f"request ({needed} tokens) exceeds the available context size ({window} tokens), "
                "try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": needed,
                "n_ctx": window,
            }
        }

    def refusal(self, path: str, body: Any) -> tuple[int, Any] | None:
        """(status, payload) for a completion request a real server would refuse: an
        unknown model, an image for a text-only model, a prompt beyond the window."""
        model = self.requested_model(path, body)
        if self.models is not None and model is not None and model not in self.model_ids():
            return self.unknown_model(model)
        chars, images, max_tokens = self.measure(body)
        if images and not self.accepts_images:
            return self.image_refusal()
        if self.context_window is not None:
            needed = estimated_tokens(chars, images) + max_tokens
            if needed > self.context_window:
                return self.context_exceeded(needed)
        return None

    def player_text(self, prompt: str) -> str:
        """What the default player answers to a prompt."""
        moves = legal_moves(prompt)
        if moves:
            return f"Reasoning: picking the first legal move.\nAction: {moves[0]}"
        return f"Action: {self.default_action}"

    def empty_answer(self, body: Any) -> Any:
        answer = self.completion(body)
        answer["choices"] = []
        return answer

    def error_payload(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "type": "fake"}}

    def malformed_payload(self) -> bytes:
        return b'{"id": "chatcmpl-broken", "choices": ['

    def oversized_payload(self, filler: bytes) -> bytes:
        return b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "' + filler + b'"}}]}'

    def completion(self, body: Any, text: str | None = None, reasoning: str | None = None) -> dict:
        """The JSON answer to a chat request: `text`, or what the default player says."""
        messages = body.get("messages", []) if isinstance(body, dict) else []
        if text is None:
            last_user = next(
                (m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), {}
            )
            text = self.player_text(message_text(last_user))
        prompt_chars = sum(len(message_text(m)) for m in messages if isinstance(m, dict))
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        usage = {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(text) // 4}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": (body.get("model") if isinstance(body, dict) else None) or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # benchmarks open many connections at once
    allow_reuse_address = True


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer  # set on the per-server subclass
    protocol_version = "HTTP/1.1"  # keep-alive, like a real server
    timeout = 60  # idle keep-alive connections are dropped after this

    def log_message(self, format, *args) -> None:  # keep test output clean
        pass

    # --- plumbing ---------------------------------------------------------------------

    def _send(
        self,
        status: int,
        payload: bytes,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client went away (e.g. it timed out first)
            self.close_connection = True

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(data, bytes):  # a fake that answers with something other than JSON
            self._send(status, data, headers, content_type="text/plain; charset=utf-8")
            return
        self._send(status, json.dumps(data).encode("utf-8"), headers)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    # --- routes -----------------------------------------------------------------------

    def _request(self, method: str, raw: bytes = b"") -> RecordedRequest:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        return RecordedRequest(
            method=method,
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            json=body,
            raw=raw,
        )

    def do_GET(self) -> None:
        request = self._request("GET")
        self.fake._record(request, takes_fault=False)
        refusal = self.fake.authorize(request)
        if refusal is not None:
            self._send_json(*refusal)
            return
        self._send_json(*self.fake.get_answer(self.path))

    def do_POST(self) -> None:
        request = self._request("POST", self._read_body())
        body = request.json
        # Scripted faults are for completion requests; a POST elsewhere (e.g. Ollama's
        # /api/show, which this fake does not have) leaves them queued.
        fault = self.fake._record(request, takes_fault=self.fake.handles(self.path))
        if not self.fake.handles(self.path):
            self._send_json(404, self.fake.error_payload(404, f"no route for {self.path}"))
            return
        refusal = self.fake.authorize(request) or self.fake.refusal(self.path, body)
        if refusal is not None:
            self._send_json(*refusal)
            return
        self.fake._sleep(self.fake.latency)
        if fault is None:
            self._send_json(200, self.fake.completion(body))
            return
        self._play(fault, body)

    def _play(self, fault: Fault, body: Any) -> None:
        fake = self.fake
        if fault.kind == "status":
            headers = dict(fault.headers)
            if fault.retry_after is not None:
                headers["Retry-After"] = fault.retry_after
            payload = fault.body
            if payload is None:
                payload = fake.error_payload(fault.status_code, f"fake error {fault.status_code}")
            if isinstance(payload, (bytes, str)):
                raw = payload.encode("utf-8") if isinstance(payload, str) else payload
                self._send(fault.status_code, raw, headers)
            else:
                self._send_json(fault.status_code, payload, headers)
        elif fault.kind == "delay":
            fake._sleep(fault.seconds)
            self._send_json(200, fake.completion(body))
        elif fault.kind == "malformed":
            self._send(200, fake.malformed_payload())
        elif fault.kind == "empty_choices":
            self._send_json(200, fake.empty_answer(body))
        elif fault.kind == "reply":
            self._send_json(200, fake.completion(body, fault.text, fault.reasoning))
        elif fault.kind == "raw":
            self._send(fault.status_code, fault.body)
        elif fault.kind == "reset":
            # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
        elif fault.kind == "oversized":
            self._send_oversized(fault)
        elif fault.kind == "drip":
            self._send_drip(fault, body)
        else:  # pragma: no cover - a typo in a test
            raise ValueError(f"unknown fault {fault.kind!r}")

    def _send_oversized(self, fault: Fault) -> None:
        filler = b"x" * max(0, fault.nbytes)
        payload = self.fake.oversized_payload(filler)
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if fault.declare_length:
                self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")  # no length: the body ends at close
            self.end_headers()
            view = memoryview(payload)
            for start in range(0, len(payload), 64 * 1024):
                self.wfile.write(view[start : start + 64 * 1024])
        except OSError:  # the client stopped reading, as it should
            pass

    def _send_drip(self, fault: Fault, body: Any) -> None:
        answer = self.fake.completion(body)
        payload = answer if isinstance(answer, bytes) else json.dumps(answer).encode("utf-8")
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.flush()
            for start in range(0, len(payload), fault.nbytes):
                if self.fake._stopping.is_set():
                    return
                self.wfile.write(payload[start : start + fault.nbytes])
                self.wfile.flush()
                self.fake._sleep(fault.seconds)
        except OSError:  # the client gave up, as it should
            pass
