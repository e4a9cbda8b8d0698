"""Steps 1 and 3 of the probe: ask the endpoint about the model, per provider.

Each function sends its requests through a `MetadataReader` and gathers what the
answers show in a `ServerFacts`; deciding what that means for the submission (a field
error, a context window) is left to arena.probe.run.
"""

from __future__ import annotations

import dataclasses
import urllib.parse

from arena.probe import more_servers, servers
from arena.probe.servers import Answer, ContextFinding, MetadataReader

# Local servers that keep a prompt cache per slot (llama.cpp's, llama-cpp-python's: one
# slot, Ollama's, LM Studio's): an episode's calls are kept on one slot there
# (arena.clients.limits).
LLAMA_CPP, LLAMA_CPP_PYTHON, OLLAMA, LM_STUDIO = "llama.cpp", "llama-cpp-python", "ollama", "lm-studio"
LOCAL_SERVERS = (LLAMA_CPP, LLAMA_CPP_PYTHON, OLLAMA, LM_STUDIO)

# What Ollama gave a model before it sized contexts by memory (and still may): the
# window assumed when Ollama states neither a num_ctx nor the loaded context.
OLLAMA_ASSUMED_CONTEXT = 2048


@dataclasses.dataclass
class ServerFacts:
    """What the endpoint's metadata showed.

    `unreachable` holds the answer when no HTTP answer came at all, `key_refused` when
    the key was turned down; either stops the probe. `listing_refused` holds a model
    list refused to the key, which the completion then settles. `model_names` is None
    when the endpoint lists no models. `context` is a window the server says it runs with;
    `ceiling` a model maximum it may run below, in which case `fallback_context` (and
    `fallback_reason`) say what to assume when the submitter states nothing.
    `image_hint` is (accepts images?, where that was read).
    """

    unreachable: Answer | None = None
    key_refused: Answer | None = None
    listing_refused: Answer | None = None
    model_names: list[str] | None = None
    model_found: bool | None = None
    context: ContextFinding | None = None
    ceiling: ContextFinding | None = None
    fallback_context: int | None = None
    fallback_reason: str = ""
    image_hint: tuple[bool, str] | None = None
    notes: list[str] = dataclasses.field(default_factory=list)
    # Which local server answered its own metadata route (LOCAL_SERVERS), and how many
    # slots it has where it says so (llama.cpp's total_slots).
    server_kind: str | None = None
    server_slots: int | None = None

    @property
    def stops_probe(self) -> bool:
        return self.unreachable is not None or self.key_refused is not None

    def take_status(self, answer: Answer) -> bool:
        """Record an answer that shows the endpoint cannot be used; True if it did."""
        if answer.status is None:
            self.unreachable = answer
        elif is_key_problem(answer.status, answer.problem):
            self.key_refused = answer
        return self.stops_probe


def is_key_problem(status: int | None, message: str) -> bool:
    """Whether an HTTP answer turns the API key down."""
    if status in (401, 403):
        return True
    # Gemini answers a bad key with a 400.
    lowered = message.lower()
    return status == 400 and ("api key not valid" in lowered or "api_key_invalid" in lowered)


def _sentence(text: str) -> str:
    return text.strip().rstrip(".")


# --- OpenAI-compatible servers ----------------------------------------------------------


def openai_api_base(base_url: str) -> str:
    """The API root the model list hangs off ("http://host:8000/v1")."""
    return base_url.strip().rstrip("/").removesuffix("/chat/completions")


def server_root(base_url: str) -> str:
    """Where llama.cpp and Ollama serve their own routes: the API root without /v1."""
    return openai_api_base(base_url).removesuffix("/v1")


async def look_up_openai(reader: MetadataReader, base_url: str, model: str) -> ServerFacts:
    """GET {base}/models: reachable? key accepted? model listed, with a context window?"""
    facts = ServerFacts()
    answer = await reader.get(openai_api_base(base_url) + "/models")
    if answer.status in (401, 403):
        # Not the last word on the key: OpenAI's restricted keys, for one, may be denied
        # the model list and still be allowed to chat.
        facts.listing_refused = answer
        return facts
    if facts.take_status(answer):
        return facts
    entries = servers.listed_entries(answer.data) if answer.ok else None
    if entries is None:
        facts.notes.append(f"The endpoint does not list its models (GET …/models: {_sentence(answer.describe())}).")
        return facts
    facts.model_names = [entry["id"] for entry in entries]
    entry = servers.find_entry(entries, model)
    facts.model_found = entry is not None
    if entry is None:
        return facts
    finding = servers.context_of_entry(entry)
    if finding is not None and finding.exact:
        facts.context = finding
    elif finding is not None:
        facts.ceiling = finding
    images = servers.images_of_entry(entry)
    if images is not None:
        facts.image_hint = (images, "the input modalities in the model list")
    return facts


def is_ollama_show(data) -> bool:
    """Whether an /api/show answer is Ollama's: the model's ``model_info`` object, or
    its ``details`` beside its ``modelfile``, ``template`` or ``parameters`` text. Any
    other server answering 2xx there (a catch-all route, a gateway's JSON) is not taken
    for Ollama."""
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("model_info"), dict):
        return True
    return isinstance(data.get("details"), dict) and any(
        isinstance(data.get(key), str) for key in ("modelfile", "template", "parameters")
    )


async def read_server_context(
    reader: MetadataReader, base_url: str, model: str, facts: ServerFacts, timeout: float, *,
    completions: bool = True,
) -> None:
    """llama.cpp's /props, else Ollama's /api/show and /api/ps, into `facts`. Asked after
    the first completion, so that Ollama has loaded the model and /api/ps knows it.
    Without `completions`, only metadata routes are asked (llama-cpp-python's window,
    read from its answer to an over-long prompt, is left out)."""
    root = server_root(base_url)
    props = await reader.get(root + "/props", timeout)
    if props.ok:
        finding, vision = servers.llamacpp_props(props.data)
        if finding is not None:
            facts.server_kind = LLAMA_CPP
            facts.server_slots = servers.positive_int(props.data.get("total_slots"))
        if vision is not None:
            facts.image_hint = (vision, "llama.cpp's server properties")
        if finding is not None:
            facts.context = finding
            return
    # Older Ollama versions read "name", newer ones "model".
    show = await reader.post(root + "/api/show", {"model": model, "name": model}, timeout)
    if not show.ok or not is_ollama_show(show.data):
        await _read_other_servers(reader, base_url, model, facts, timeout, completions=completions)
        return
    maximum, num_ctx, vision = servers.ollama_show(show.data)
    facts.server_kind = OLLAMA
    if vision is not None:
        facts.image_hint = (vision, "Ollama's model capabilities")
    running = await reader.get(root + "/api/ps", timeout)
    loaded = servers.ollama_running_context(running.data, model) if running.ok else None
    if loaded:
        facts.context = ContextFinding(loaded, "Ollama /api/ps, the context the loaded model runs with")
    elif num_ctx:
        facts.context = ContextFinding(min(num_ctx, maximum or num_ctx), "the model's num_ctx in Ollama")
    elif maximum:
        facts.ceiling = ContextFinding(maximum, "Ollama's model information", exact=False)
        facts.fallback_context = OLLAMA_ASSUMED_CONTEXT
        facts.fallback_reason = (
            "Ollama runs a model with less than its maximum unless OLLAMA_CONTEXT_LENGTH or num_ctx says "
            "otherwise, and cuts longer prompts silently"
        )


async def _read_other_servers(
    reader: MetadataReader, base_url: str, model: str, facts: ServerFacts, timeout: float, *, completions: bool
) -> None:
    """LM Studio, llama-cpp-python's server, then the hosted APIs' published windows
    (arena.probe.more_servers), for a server that is neither llama.cpp's nor Ollama."""
    root = server_root(base_url)
    finding = await more_servers.lm_studio_context(reader, root, model, timeout)
    if finding is not None:
        facts.server_kind = LM_STUDIO
    elif completions:
        # Tokenising a long prompt takes a slow machine more than the metadata timeout.
        finding = await more_servers.llama_cpp_python_context(
            reader, root, openai_api_base(base_url), model, reader.timeout_seconds
        )
        if finding is not None:
            facts.server_kind = LLAMA_CPP_PYTHON
    if finding is None:
        finding = more_servers.known_window(base_url, model)
    if finding is None:
        return
    if finding.exact:
        facts.context = finding
    elif facts.ceiling is None:
        facts.ceiling = finding


async def _describe_model(reader: MetadataReader, facts: ServerFacts, url: str, listing_url: str, ids_of,
                          list_timeout: float) -> Answer | None:
    """GET a hosted API's description of one model (Anthropic, Gemini). The answer when the
    model is known; None otherwise, with `facts` saying why (a key problem, an unknown
    model with the names the API lists instead, or no description)."""
    answer = await reader.get(url)
    if facts.take_status(answer):
        return None
    if answer.status == 404:
        facts.model_found = False
        listing = await reader.get(listing_url, list_timeout)
        facts.model_names = ids_of(listing.data) if listing.ok else None
        return None
    if not answer.ok:
        facts.notes.append(f"The API did not describe the model ({_sentence(answer.describe())}).")
        return None
    facts.model_found = True
    return answer


# --- Anthropic -------------------------------------------------------------------------------


def anthropic_root(base_url: str) -> str:
    """The API root, whether the URL given ends in /v1, /v1/messages or neither."""
    return base_url.strip().rstrip("/").removesuffix("/messages").removesuffix("/v1")


async def look_up_anthropic(reader: MetadataReader, base_url: str, model: str, list_timeout: float) -> ServerFacts:
    """GET /v1/models/{model}; for an unknown model, GET /v1/models for the names."""
    facts = ServerFacts()
    root = anthropic_root(base_url)
    answer = await _describe_model(
        reader, facts, f"{root}/v1/models/{urllib.parse.quote(model, safe='')}",
        f"{root}/v1/models?limit=100", servers.anthropic_model_ids, list_timeout,
    )
    if answer is None:
        return facts
    max_input, images = servers.anthropic_model(answer.data)
    if max_input:
        facts.context = ContextFinding(max_input, "Anthropic's model information")
    if images is not None:
        facts.image_hint = (images, "Anthropic's model information")
    return facts


# --- Gemini ----------------------------------------------------------------------------------


def gemini_versioned_root(base_url: str) -> str:
    """The API root with its version, as GeminiClient builds it (v1beta unless given)."""
    trimmed = base_url.strip().rstrip("/")
    return trimmed if trimmed.endswith(("/v1beta", "/v1")) else trimmed + "/v1beta"


async def look_up_gemini(reader: MetadataReader, base_url: str, model: str, list_timeout: float) -> ServerFacts:
    """GET /v1beta/models/{model}; for an unknown model, GET /v1beta/models for the names."""
    facts = ServerFacts()
    root = gemini_versioned_root(base_url)
    resource = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
    answer = await _describe_model(
        reader, facts, f"{root}/{urllib.parse.quote(resource, safe='/-._~')}",
        f"{root}/models?pageSize=100", servers.gemini_model_ids, list_timeout,
    )
    if answer is None:
        return facts
    limit = servers.gemini_input_limit(answer.data)
    if limit:
        facts.context = ContextFinding(limit, "the Gemini API's inputTokenLimit")
    return facts
