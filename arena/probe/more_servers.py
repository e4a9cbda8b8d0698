"""Context windows of the servers the probe's first sources miss (arena.probe.lookups
asks llama.cpp's /props and Ollama first):

* LM Studio: GET {root}/api/v0/models, the model's entry — `loaded_context_length`, the window the
  loaded model runs with, else `max_context_length`, the model's maximum;
* llama-cpp-python's server (`python -m llama_cpp.server`): it states its window
  nowhere (no /props, and its model list has only names), but it refuses a prompt of
  the window's length or more *before* evaluating it, naming the window ("Requested
  tokens (N) exceed context window of M", which its server words "This model's maximum
  context length is M tokens"). Recognised by its tokenizer route
  (POST {root}/extras/tokenize), it is sent one prompt of PROBE_PROMPT_TOKENS tokens
  — counted with that route, so never guessed — which costs it a tokenisation;
* hosted APIs whose model list says nothing about the window (OpenAI's, DeepSeek's):
  the providers' published figures (KNOWN_WINDOWS), by model name.
"""

from __future__ import annotations

import re
import urllib.parse

from arena.probe.servers import ContextFinding, MetadataReader, find_entry, listed_entries, positive_int

# Longer than any window llama-cpp-python is run with on the machines the arena meets
# (its default is 512, common settings 4,096–131,072), so that the prompt is always
# refused unevaluated. A server with a larger window would evaluate it: the probe then
# learns only that the window is at least this long.
PROBE_PROMPT_TOKENS = 262_145
# Its server rewords the "exceed context window of M" of the library as OpenAI words it.
_EXCEEDS = re.compile(r"maximum context length is (\d+) tokens|exceed context window of (\d+)")

# Published context windows of hosted models (input and output together), matched by
# the longest prefix of the model name, for the APIs that do not state them.
KNOWN_WINDOWS: dict[str, dict[str, int]] = {
    "api.openai.com": {
        "gpt-3.5-turbo": 16_385,
        "gpt-4": 8_192,
        "gpt-4-turbo": 128_000,
        "gpt-4o": 128_000,
        "gpt-4o-mini": 128_000,
        "gpt-4.1": 1_047_576,
        "gpt-4.1-mini": 1_047_576,
        "gpt-4.1-nano": 1_047_576,
        "gpt-5": 400_000,
        "o1": 200_000,
        "o3": 200_000,
        "o3-mini": 200_000,
        "o4-mini": 200_000,
    },
    "api.deepseek.com": {"deepseek-chat": 131_072, "deepseek-reasoner": 131_072},
}


def known_window(base_url: str, model: str) -> ContextFinding | None:
    """The published window of `model` at a hosted API, if the table has it."""
    host = (urllib.parse.urlsplit(base_url.strip()).hostname or "").lower()
    table = KNOWN_WINDOWS.get(host)
    if not table:
        return None
    matches = [prefix for prefix in table if model == prefix or model.startswith(prefix + "-")]
    if not matches:
        return None
    prefix = max(matches, key=len)
    return ContextFinding(table[prefix], f"the provider's published window for {prefix}")


async def lm_studio_context(reader: MetadataReader, root: str, model: str, timeout: float) -> ContextFinding | None:
    answer = await reader.get(f"{root}/api/v0/models", timeout)
    entries = listed_entries(answer.data) if answer.ok else None
    entry = find_entry(entries, model) if entries else None
    if entry is None:
        return None
    loaded = positive_int(entry.get("loaded_context_length"))
    if loaded:
        return ContextFinding(loaded, "LM Studio /api/v0/models, the context the loaded model runs with")
    maximum = positive_int(entry.get("max_context_length"))
    if maximum:
        return ContextFinding(maximum, "LM Studio /api/v0/models, the model's maximum", exact=False)
    return None


async def llama_cpp_python_context(
    reader: MetadataReader, root: str, base: str, model: str, timeout: float
) -> ContextFinding | None:
    word = "hello"
    counted = await reader.post(f"{root}/extras/tokenize", {"input": f" {word}" * 4, "model": model}, timeout)
    tokens = counted.data.get("tokens") if counted.ok and isinstance(counted.data, dict) else None
    if not isinstance(tokens, list) or len(tokens) != 4:
        return None  # not llama-cpp-python, or " hello" is not one token here
    prompt = f" {word}" * PROBE_PROMPT_TOKENS
    answer = await reader.post(
        f"{base}/chat/completions",
        {"model": model, "max_tokens": 1, "messages": [{"role": "user", "content": prompt}]},
        timeout,
    )
    match = _EXCEEDS.search(answer.problem or "") if not answer.ok else None
    if match is None:
        return None
    window = int(next(group for group in match.groups() if group))
    return ContextFinding(window, "llama-cpp-python's answer to a prompt longer than its window")
