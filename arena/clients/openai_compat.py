"""OpenAI's two APIs through its own SDK (`openai`): chat completions, for any
compatible endpoint (vLLM, llama.cpp, Ollama, OpenRouter, OpenAI itself...), here, and
the Responses API (arena.clients.responses) on the same base, `OpenAIClient`. The SDK
builds the requests' heads (`openai_post`) and its types read the answers; the guard,
the retries, the size cap and the error wording are `HTTPModelClient`'s. A chat
completion's text, reasoning (a field beside the answer, or ``<think>`` blocks in it),
stop reason and token counts are read here. An answer with no text (``content`` null or
empty, whatever the stop reason) is one illegal step (cut off, when the token limit came
first), never a failed episode; a refusal is reported as the model's refusal.
"""

from __future__ import annotations

import abc
import json
import urllib.parse
from typing import Any

import httpx2
import openai
import orjson
from openai.types.chat import ChatCompletion

from arena.clients.base import ModelReply
from arena.clients.chat_messages import content_text
from arena.clients.http import ChatCompletionClient, HTTPModelClient, answer_seen, check_base_url
from arena.clients.urlguard import Answer, Head
from arena.clients.reasoning import ThinkSplitter
from arena.clients.replies import error_message, excerpt, int_or_none

__all__ = ["OpenAIClient", "OpenAICompatibleClient", "openai_post"]


async def sdk_head(sdk: openai.AsyncOpenAI, http: httpx2.AsyncClient, route: str, options: dict) -> httpx2.Request:
    """The request the SDK builds for ``post(route)`` with `options`, without a body:
    built into an HTTP client with `http`'s headers whose transport keeps it unsent."""
    built: list[httpx2.Request] = []
    keep = httpx2.MockTransport(lambda request: built.append(request) or httpx2.Response(200))
    async with httpx2.AsyncClient(transport=keep, headers=http.headers) as capture:
        await sdk.with_options(http_client=capture).post(route, body={}, cast_to=httpx2.Response, options=options)
    del built[0].headers["content-length"]  # each call's body has its own
    return built[0]


# Where the SDK tells the server its read timeout.
READ_TIMEOUT_HEADER = "x-stainless-read-timeout"


def json_body(body: dict) -> bytes:
    """`body` as the SDK writes it (compact UTF-8 JSON), by orjson, several times faster;
    what orjson refuses (an integer past 64 bits) by the standard library."""
    try:
        return orjson.dumps(body)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


async def openai_post(client: HTTPModelClient, route: str, body: dict) -> Answer:
    """POST `body` to `route` with the head (URL, authentication, headers) OpenAI's SDK
    builds for it, with the connection's cookies, the client's timeout and answer hook.

    The SDK's typed methods (``chat.completions.create``) walk every message through
    their parameter types (about 1 ms of CPU for a game's prompt), and even its call for
    any route (``post``) merges the URL and headers again at each call (about 0.5 ms),
    the same at every call of an endpoint: so the SDK builds the head once per
    connection and route (`sdk_head`, kept as a `Head`) and each call adds its JSON body
    and timeout (the gate adapts it; the SDK reports it in a header). The call takes
    the URL guard's direct lane (`GuardedTransport.fetch`), which does what httpx2's
    client and response hook would (`answer_seen`, cookies kept). The client reads the
    answer into the SDK's type (`sdk_object`)."""
    connection = client._connected()
    head = connection.heads.get(route)
    if head is None:
        options: dict[str, Any] = {"timeout": client.timeout, "security": {"bearer_auth": True}}
        if not client._api_key:
            options["headers"] = {"Authorization": openai.Omit()}  # no key: no header at all
        head = connection.heads[route] = Head(await sdk_head(connection.sdk, connection.http, route, options))
    read = str(client.timeout_seconds)  # as the SDK writes httpx2.Timeout(seconds).read
    headers = head.variants.get(read)
    if headers is None:  # one list per timeout the gate sets
        headers = head.variants[read] = [(name, read if name.lower() == READ_TIMEOUT_HEADER else value)
                                         for name, value in head.headers]
    cookies = connection.http.cookies
    if cookies.jar:  # an empty jar would still walk urllib's cookie policy
        carrier = httpx2.Request(head.method, head.url)
        cookies.set_cookie_header(carrier)
        if "cookie" in carrier.headers:
            headers = [*headers, ("Cookie", carrier.headers["cookie"])]

    def on_head(answer: Answer) -> None:
        if "set-cookie" in answer.headers:
            cookies.extract_cookies(httpx2.Response(answer.status_code, headers=list(answer.headers.items()),
                                                    request=httpx2.Request(head.method, head.url)))
        answer_seen(answer)

    return await connection.guard.fetch(head, headers, json_body(body), client.timeout_seconds, on_head)


def api_root(base_url: str, *endings: str) -> tuple[urllib.parse.SplitResult, dict[str, str]]:
    """`base_url` read once: its parts, the path without a trailing slash or the first
    of `endings` it ends in (a URL given down to the route), and the parameters of its
    query (a gateway's tenant or route), which go with every request while the SDK
    puts its route in the path."""
    url = urllib.parse.urlsplit(base_url)
    path = url.path.rstrip("/")
    for ending in endings:
        if path.endswith(ending):
            path = path[: -len(ending)]
            break
    return url._replace(path=path, fragment=""), dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))


def _reasoning_field(message: Any) -> str:
    """The reasoning a server returned beside the answer: ``reasoning_content`` (vLLM,
    llama.cpp, DeepSeek) or ``reasoning`` (OpenRouter, Ollama), else OpenRouter's
    ``reasoning_details`` texts and summaries (fields the SDK keeps as extras)."""
    # Fields the SDK's type does not declare are its extras: read there, as pydantic's
    # lookup of an absent attribute raises inside (about 20 µs each, at every step).
    extras = getattr(message, "__pydantic_extra__", None)
    declared = getattr(type(message), "model_fields", {})

    def field(key: str) -> Any:
        return extras.get(key) if isinstance(extras, dict) and key not in declared else getattr(message, key, None)

    for key in ("reasoning_content", "reasoning"):
        value = field(key)
        if isinstance(value, str) and value:
            return value
    details = field("reasoning_details")
    if isinstance(details, list):
        texts = [detail.get("text") or detail.get("summary") for detail in details if isinstance(detail, dict)]
        return "\n\n".join(text for text in texts if isinstance(text, str) and text)
    return ""


OPENAI_API_HOST = "api.openai.com"


class OpenAIClient(ChatCompletionClient):
    """What OpenAI's two APIs share: the SDK on the shared HTTP client, the request's
    head built by it once (`openai_post`), the settings every request carries, and the
    answer read into the SDK's type. A subclass names its `route` and `reply_type` and
    builds its request's own fields (`_fields`).

    `base_url` is the API root, e.g. "http://host:8000/v1" (a URL that already ends in
    the route is used as is). An empty `api_key` sends no Authorization header.
    `temperature` / `max_tokens` of None are left out of the request; `extra_body` is
    merged into it (reasoning settings, llama.cpp's slot), as the SDK's ``extra_body``
    is. The connection options are those of `HTTPModelClient`.
    """

    #: The route under the API root ("/chat/completions").
    route = ""
    #: How a refused base URL is named ("Invalid model base URL: ...").
    base_url_label = "model base URL"

    def __init__(self, base_url: str, api_key: str = "", model: str = "", *, temperature: float | None = 0.0,
                 max_tokens: int | None = None, extra_body: dict[str, Any] | None = None, **connection) -> None:
        self._api_key = api_key or ""
        root, self._query = api_root(check_base_url(base_url, [self._api_key], self.base_url_label), self.route)
        self._root = root._replace(query="").geturl()
        # OpenAI's own API refuses `max_tokens` for its reasoning models (o1, o3, o4-mini,
        # gpt-5: "use max_completion_tokens instead") and takes the new name for every
        # model; servers that copy the API (llama.cpp, vLLM, Ollama) read `max_tokens`.
        self._max_tokens_field = "max_completion_tokens" if root.hostname == OPENAI_API_HOST else "max_tokens"
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._think = ThinkSplitter()
        super().__init__(root._replace(path=root.path + self.route).geturl(), secrets=[self._api_key], **connection)

    def _sdk(self, http: httpx2.AsyncClient) -> openai.AsyncOpenAI:
        """OpenAI's SDK on the shared HTTP client, without retries of its own."""
        return openai.AsyncOpenAI(api_key=self._api_key or "no-key", base_url=self._root,
                                  default_query=self._query or None, http_client=http, max_retries=0)

    @abc.abstractmethod
    def _fields(self, messages: list[dict], max_tokens: int | None) -> dict:
        """The request's fields for `messages`, beside the model and temperature;
        `max_tokens` is the limit of this call (None: none)."""

    def _request(self, messages: list[dict], max_tokens: int | None = None) -> dict:
        request: dict[str, Any] = {"model": self.model}
        request.update(self._fields(messages, self.max_tokens if max_tokens is None else max_tokens))
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.extra_body:
            request.update(self.extra_body)
        return request

    async def _call(self, request: dict) -> Answer:
        return await openai_post(self, self.route, request)


class OpenAICompatibleClient(OpenAIClient):
    """Calls chat completions (non-streaming) with retries; see `OpenAIClient`."""

    route = "/chat/completions"
    reply_type = ChatCompletion

    def _fields(self, messages: list[dict], max_tokens: int | None) -> dict:
        fields: dict[str, Any] = {"messages": messages}
        if max_tokens is not None:
            fields[self._max_tokens_field] = max_tokens
        return fields

    def _parse(self, completion, data: dict, status: int) -> ModelReply:
        choices = getattr(completion, "choices", None)
        if not choices:
            if data.get("error") is not None:
                # Some gateways report upstream failures as a 200 carrying an error object.
                raise self._malformed(f"The model endpoint reported an error: {error_message(data)}", status)
            raise self._unusable("The model endpoint answered without any choices (empty 'choices' list)", status)
        if not isinstance(choices, list) or not hasattr(choices[0], "message"):
            raise self._unusable("The model endpoint's 'choices' field is not a list of objects", status)
        choice = choices[0]
        message = choice.message
        finish_reason = choice.finish_reason if isinstance(choice.finish_reason, str) else None
        if message is None or not hasattr(message, "content"):
            raise self._unusable("The first choice in the answer has no 'message'", status)

        refusal = getattr(message, "refusal", None)
        text = content_text(message.content)
        if not text and isinstance(refusal, str) and refusal:
            raise self._unusable(f"The model refused to answer: {excerpt(refusal)}", status)
        # A server without a reasoning parser leaves <think> blocks in the answer; an
        # answer with reasoning and no text is an answer without an action.
        text, reasoning = self._think.split(text or "", finish_reason, _reasoning_field(message))

        usage = getattr(completion, "usage", None)
        prompt_details = getattr(usage, "prompt_tokens_details", None)
        completion_details = getattr(usage, "completion_tokens_details", None)
        return ModelReply(
            text=text, reasoning=reasoning, finish_reason=finish_reason, http_status=status,
            tokens_in=int_or_none(getattr(usage, "prompt_tokens", None)),
            tokens_out=int_or_none(getattr(usage, "completion_tokens", None)),
            cached_tokens_in=int_or_none(getattr(prompt_details, "cached_tokens", None)),
            reasoning_tokens=int_or_none(getattr(completion_details, "reasoning_tokens", None)),
        )
