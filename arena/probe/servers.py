"""What model servers say about themselves, and how the probe asks them.

`MetadataReader` sends the probe's GET requests (and Ollama's POST /api/show) through
the same URL guard as the model clients: every address checked at connect time, no
redirects followed, no environment proxies, a size cap on the body, explicit timeouts.
It never raises for an HTTP or network problem; it returns an `Answer` that says what
happened, because for metadata "no answer" is a finding, not a failure.

The functions below read the answers of the servers the arena meets most:

* the OpenAI-style model list (GET {base}/models): model names, and in some servers a
  context window per model: vLLM's ``max_model_len``, OpenRouter's and Together's
  ``context_length``, Groq's ``context_window``; OpenRouter also lists each model's
  input modalities; llama.cpp's server adds ``meta.n_ctx_train`` (what the model was
  trained for, not what the server runs with);
* llama.cpp's server properties (GET {root}/props): the context each request really
  gets (``default_generation_settings.n_ctx``, per slot) and whether a vision
  projector is loaded (``modalities.vision``);
* Ollama's model information (POST {root}/api/show): the model's maximum context
  (``model_info["<arch>.context_length"]``), a ``num_ctx`` parameter if the model file
  sets one, and its capabilities ("vision"); and its running models (GET
  {root}/api/ps): the context the loaded model was really given (``context_length``);
* Anthropic's model information (GET /v1/models/{id}): ``max_input_tokens`` and
  ``capabilities.image_input.supported`` where the API returns them;
* Gemini's model information (GET /v1beta/models/{name}): ``inputTokenLimit``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import httpx2

from arena.clients.base import redact
from arena.clients.replies import error_excerpt, excerpt, parse_json
from arena.clients.urlguard import ResponseTooLarge, UnsafeURL

# OpenRouter's model list is well over a megabyte; nothing else the probe reads comes close.
METADATA_MAX_BYTES = 8 * 1024 * 1024


@dataclasses.dataclass
class Answer:
    """One metadata request's outcome.

    `status` is None when no HTTP answer came (refused by the URL guard, network error,
    timeout); `data` is the parsed JSON body of any answer, None if it was not JSON;
    `problem` says in plain words why there is no usable answer (the server's own
    error text for an HTTP error).
    """

    status: int | None
    data: Any = None
    problem: str = ""
    refused_by_guard: bool = False

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300 and self.data is not None

    def describe(self) -> str:
        """"HTTP 404: not found", or the reason no HTTP answer came."""
        if self.status is None:
            return self.problem
        return f"HTTP {self.status}: {self.problem}" if self.problem else f"HTTP {self.status}"


class MetadataReader:
    """GET/POST-JSON requests to one endpoint, through `transport` (a GuardedTransport
    unless a test passes another). `secrets` are removed from every `Answer.problem`."""

    def __init__(
        self,
        transport: httpx2.AsyncBaseTransport,
        *,
        headers: Mapping[str, str],
        secrets: Iterable[str],
        timeout_seconds: float,
    ) -> None:
        self._secrets = tuple(secret for secret in secrets if secret)
        self.timeout_seconds = timeout_seconds
        self._http = httpx2.AsyncClient(
            transport=transport,
            headers={
                "Accept": "application/json",
                "Accept-Encoding": "identity",  # so the size cap counts what is really read
                "User-Agent": "the-arena/1",
                **headers,
            },
            timeout=httpx2.Timeout(timeout_seconds),
            follow_redirects=False,  # every hop must be checked; see arena.clients.urlguard
            trust_env=False,  # environment proxies would bypass the guard
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def get(self, url: str, timeout_seconds: float | None = None) -> Answer:
        return await self._request("GET", url, None, timeout_seconds)

    async def post(self, url: str, payload: Any, timeout_seconds: float | None = None) -> Answer:
        return await self._request("POST", url, payload, timeout_seconds)

    async def _request(self, method: str, url: str, payload: Any, timeout_seconds: float | None) -> Answer:
        timeout = timeout_seconds or self.timeout_seconds
        content = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = {} if payload is None else {"Content-Type": "application/json"}
        try:
            # The per-read timeout alone would let a server trickle bytes forever.
            async with asyncio.timeout(2 * timeout):
                async with self._http.stream(
                    method, url, content=content, headers=headers, timeout=httpx2.Timeout(timeout)
                ) as response:
                    status = response.status_code
                    if 300 <= status < 400:
                        return Answer(status, problem="a redirect, which the arena does not follow")
                    body = await self._read_capped(response)
        except UnsafeURL as exc:
            return Answer(None, problem=self._redact(str(exc)), refused_by_guard=True)
        except (httpx2.TimeoutException, TimeoutError):
            return Answer(None, problem=f"no answer within {timeout:g} s")
        except _TooLarge:
            return Answer(status, problem=f"the answer was larger than {METADATA_MAX_BYTES:,} bytes")
        except ResponseTooLarge as exc:  # past the guard's own cap, before this reader's
            return Answer(None, problem=f"the answer was larger than {exc.cap:,} bytes")
        except httpx2.HTTPError as exc:
            detail = excerpt(str(exc) or type(exc).__name__, 200)
            return Answer(None, problem=self._redact(f"could not connect: {detail}"))
        try:
            data = parse_json(body) if body.strip() else None
        except ValueError:  # not JSON, or nested too deeply to read
            data = None
        problem = "" if 200 <= status < 300 else self._redact(error_excerpt(body))
        if 200 <= status < 300 and data is None:
            problem = "the answer was not JSON"
        return Answer(status, data=data, problem=problem)

    async def _read_capped(self, response: httpx2.Response) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > METADATA_MAX_BYTES:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > METADATA_MAX_BYTES:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    def _redact(self, text: str) -> str:
        return redact(text, *self._secrets)


class _TooLarge(Exception):
    pass


# --- reading the answers ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ContextFinding:
    """A context window a server reported. `exact` is False for a ceiling: the model's
    maximum, which the server may run below (llama.cpp's n_ctx_train, Ollama's
    context_length without a num_ctx)."""

    tokens: int
    where: str
    exact: bool = True


def positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and value > 0 else None


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def same_model(listed: str, wanted: str) -> bool:
    """Whether a listed name is the model asked for. Ollama lists "llama3.2:latest" and
    answers to "llama3.2"; Gemini lists "models/gemini-2.5-flash"."""
    listed = listed.removeprefix("models/")
    wanted = wanted.removeprefix("models/")
    return listed == wanted or listed == f"{wanted}:latest"


def listed_entries(data: Any) -> list[dict] | None:
    """The model entries of an OpenAI-style list ({"data": [{"id": ...}, ...]}), or
    None if `data` is not one."""
    entries = _dict(data).get("data")
    if not isinstance(entries, list):
        return None
    return [entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("id"), str)]


def find_entry(entries: list[dict], model: str) -> dict | None:
    return next((entry for entry in entries if same_model(entry["id"], model)), None)


def context_of_entry(entry: dict) -> ContextFinding | None:
    """The context window a model list states for one model."""
    for key, where in (
        ("max_model_len", "vLLM's max_model_len in the model list"),
        ("context_length", "context_length in the model list"),
        ("context_window", "context_window in the model list"),
        ("max_context_length", "max_context_length in the model list (Mistral's API)"),
    ):
        tokens = positive_int(entry.get(key))
        if tokens:
            return ContextFinding(tokens, where)
    trained = positive_int(_dict(entry.get("meta")).get("n_ctx_train"))
    if trained:
        return ContextFinding(trained, "the model's training context (llama.cpp's n_ctx_train)", exact=False)
    return None


def images_of_entry(entry: dict) -> bool | None:
    """OpenRouter's architecture.input_modalities, when the list has it."""
    modalities = _dict(entry.get("architecture")).get("input_modalities")
    if isinstance(modalities, list):
        return "image" in modalities
    return None


def llamacpp_props(data: Any) -> tuple[ContextFinding | None, bool | None]:
    """(the context each request gets, whether a vision projector is loaded)."""
    data = _dict(data)
    settings = _dict(data.get("default_generation_settings"))
    tokens = positive_int(settings.get("n_ctx")) or positive_int(data.get("n_ctx"))
    finding = None
    if tokens:
        slots = positive_int(data.get("total_slots"))
        per_slot = f", per slot with {slots} slots" if slots and slots > 1 else ""
        finding = ContextFinding(tokens, f"llama.cpp /props{per_slot}")
    vision = _dict(data.get("modalities")).get("vision")
    return finding, vision if isinstance(vision, bool) else None


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def ollama_show(data: Any) -> tuple[int | None, int | None, bool | None]:
    """(the model's maximum context, the num_ctx its model file sets, whether it has
    the "vision" capability) from Ollama's /api/show answer."""
    data = _dict(data)
    maximum = None
    for key, value in _dict(data.get("model_info")).items():
        if isinstance(key, str) and key.endswith(".context_length"):
            maximum = positive_int(value)
            break
    parameters = data.get("parameters")
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    num_ctx = int(match.group(1)) if match else None
    capabilities = data.get("capabilities")
    vision = "vision" in capabilities if isinstance(capabilities, list) else None
    return maximum, num_ctx, vision


def ollama_running_context(data: Any, model: str) -> int | None:
    """The context the loaded `model` runs with, from Ollama's /api/ps answer."""
    for entry in _dict(data).get("models") or []:
        entry = _dict(entry)
        names = [entry.get("name"), entry.get("model")]
        if any(isinstance(name, str) and same_model(name, model) for name in names):
            return positive_int(entry.get("context_length"))
    return None


def anthropic_model(data: Any) -> tuple[int | None, bool | None]:
    """(max_input_tokens, image input supported) from Anthropic's model information."""
    data = _dict(data)
    image = _dict(_dict(data.get("capabilities")).get("image_input")).get("supported")
    return positive_int(data.get("max_input_tokens")), image if isinstance(image, bool) else None


def anthropic_model_ids(data: Any) -> list[str] | None:
    entries = _dict(data).get("data")
    if not isinstance(entries, list):
        return None
    return [entry["id"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("id"), str)]


def gemini_input_limit(data: Any) -> int | None:
    return positive_int(_dict(data).get("inputTokenLimit"))


def gemini_model_ids(data: Any) -> list[str] | None:
    """The names of the models that can generate content, without "models/"."""
    entries = _dict(data).get("models")
    if not isinstance(entries, list):
        return None
    names = []
    for entry in entries:
        entry = _dict(entry)
        methods = entry.get("supportedGenerationMethods")
        if isinstance(entry.get("name"), str) and (not isinstance(methods, list) or "generateContent" in methods):
            names.append(entry["name"].removeprefix("models/"))
    return names
