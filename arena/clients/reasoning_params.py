"""A submission's reasoning setting in each provider's own words, and the providers'
rules checked before anything is played.

The setting is an effort (none, low, medium, high, max) or a thinking budget in tokens.
Each provider takes it its own way:

* OpenAI (chat completions): ``reasoning_effort``; the Responses API:
  ``reasoning: {effort, summary}``. Effort only: a budget is refused. "max" is OpenAI's
  "xhigh", "none" its "none". Reasoning runs at the default temperature.
* OpenRouter: ``reasoning: {effort}`` or ``reasoning: {max_tokens}``.
* Self-hosted OpenAI-compatible servers (vLLM, SGLang, llama.cpp, Ollama…):
  ``chat_template_kwargs: {enable_thinking}`` (Qwen3-style templates; "none" turns
  thinking off) and ``reasoning_effort`` (gpt-oss); no standard budget exists.
* Anthropic: ``thinking: {type: enabled, budget_tokens}`` (at least 1,024 tokens and
  less than max_tokens; an effort is turned into a budget), or on the models that think
  adaptively and refuse a fixed budget (Claude 4.6 and later), ``thinking: {type:
  adaptive}`` with ``output_config: {effort}``. Thinking runs at temperature 1.
* Gemini: ``generationConfig.thinkingConfig``: ``thinkingLevel`` on Gemini 3,
  ``thinkingBudget`` (an effort turned into one) on Gemini 2.5, with thought summaries.

`reasoning_problems` says, per submission field, what a provider would refuse;
`reasoning_request` gives the request fields (a client's ``extra_body``).
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse

EFFORTS = ("none", "low", "medium", "high", "max")
# The least budget Anthropic accepts.
ANTHROPIC_MIN_BUDGET = 1024
# An effort as a budget, for the APIs that take only a budget (Anthropic before adaptive
# thinking, Gemini 2.5): Anthropic's least budget for "low", Gemini 2.5 Flash's
# largest budget for "high".
EFFORT_BUDGETS = {"low": 1024, "medium": 8192, "high": 24576, "max": 32768}
GEMINI_25_FLASH_MAX_BUDGET = 24576
GEMINI_25_PRO_MIN_BUDGET = 128

FIELD_EFFORT = "reasoning_effort"
FIELD_BUDGET = "thinking_budget_tokens"


@dataclasses.dataclass(frozen=True)
class ReasoningSetting:
    """"" / None: not set (the request carries no reasoning parameter)."""

    effort: str = ""
    budget_tokens: int | None = None

    @property
    def is_set(self) -> bool:
        return bool(self.effort) or self.budget_tokens is not None

    @property
    def thinks(self) -> bool:
        return self.budget_tokens is not None or self.effort not in ("", "none")


def endpoint_family(provider: str, base_url: str) -> str:
    """Which dialect an OpenAI-compatible endpoint speaks: "openai", "openrouter" or
    "self-hosted"; other providers are their own family."""
    if provider != "openai":
        return provider
    host = (urllib.parse.urlsplit(base_url or "").hostname or "").lower()
    if host == "openai.com" or host.endswith(".openai.com"):
        return "openai"
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        return "openrouter"
    return "self-hosted"


_CLAUDE_VERSION = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d))?(?!\d)")


def anthropic_thinks_adaptively(model: str) -> bool:
    """Claude 4.6 and later think adaptively (``thinking: {type: adaptive}`` with an
    effort) and refuse a fixed budget."""
    match = _CLAUDE_VERSION.search(model or "")
    if match is None:
        return False
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return (major, minor) >= (4, 6)


def _gemini_generation(model: str) -> str:
    name = (model or "").rsplit("/", 1)[-1]
    if name.startswith("gemini-2.5-pro"):
        return "2.5-pro"
    if name.startswith("gemini-2.5"):
        return "2.5"
    return "3"


def reasoning_problems(
    provider: str, base_url: str, model: str, setting: ReasoningSetting, *, temperature: float | None, max_tokens: int
) -> list[tuple[str, str]]:
    """(field, message) for each rule of the provider the setting breaks."""
    if not setting.is_set:
        return []
    family = endpoint_family(provider, base_url)
    if family == "agent":
        return [(FIELD_EFFORT, "An agent endpoint runs its own model: the reasoning setting does not apply to it.")]
    if setting.effort and setting.budget_tokens is not None:
        return [(FIELD_BUDGET, "Give either a reasoning effort or a thinking budget, not both.")]
    problems: list[tuple[str, str]] = []
    budget = setting.budget_tokens
    if budget is not None:
        refused = {
            "openai": "OpenAI's API takes a reasoning effort, not a thinking budget: set the effort instead.",
            "responses": "The Responses API takes a reasoning effort, not a thinking budget: set the effort instead.",
            "self-hosted": "A self-hosted OpenAI-compatible server has no standard thinking budget: set an effort "
            "instead (none turns thinking off through the chat template).",
        }.get(family)
        if refused:
            problems.append((FIELD_BUDGET, refused))
    if family in ("openai", "responses") and setting.thinks and temperature not in (None, 1.0):
        problems.append((
            "temperature",
            "OpenAI's reasoning models run at their default temperature: set the temperature to 1 "
            "(or the reasoning effort to none).",
        ))
    if family == "anthropic":
        problems.extend(_anthropic_problems(model, setting, temperature=temperature, max_tokens=max_tokens))
    if family == "gemini":
        problems.extend(_gemini_problems(model, setting, max_tokens=max_tokens))
    return problems


def _anthropic_problems(model, setting, *, temperature, max_tokens) -> list[tuple[str, str]]:
    problems = []
    if anthropic_thinks_adaptively(model):
        if setting.budget_tokens is not None:
            problems.append((FIELD_BUDGET, f"{model} thinks adaptively and refuses a fixed thinking budget: "
                                           "set a reasoning effort instead."))
    else:
        budget = _anthropic_budget(setting)
        if budget is not None and budget < ANTHROPIC_MIN_BUDGET:
            problems.append((FIELD_BUDGET, f"Anthropic's thinking budget is at least {ANTHROPIC_MIN_BUDGET:,} tokens."))
        elif budget is not None and budget >= max_tokens:
            field = FIELD_BUDGET if setting.budget_tokens is not None else "max_tokens"
            problems.append((field, f"Anthropic counts thinking within max_tokens: the thinking budget "
                                    f"({budget:,} tokens) must be less than max tokens ({max_tokens:,})."))
    if setting.thinks and temperature not in (None, 1.0):
        problems.append(("temperature", "Anthropic's extended thinking runs at temperature 1: set the temperature "
                                        "to 1 (or the reasoning effort to none)."))
    return problems


def _gemini_problems(model, setting, *, max_tokens: int) -> list[tuple[str, str]]:
    generation = _gemini_generation(model)
    budget = setting.budget_tokens
    if budget is not None and budget >= max_tokens:
        # Gemini counts the thoughts within maxOutputTokens: such a budget leaves the
        # answer no room (every step would be cut off while thinking).
        return [(FIELD_BUDGET, f"Gemini counts thinking within max tokens: the thinking budget ({budget:,} tokens) "
                               f"must be less than max tokens ({max_tokens:,}).")]
    if generation == "2.5-pro":
        if setting.effort == "none":
            return [(FIELD_EFFORT, f"{model} cannot turn thinking off: choose an effort other than none.")]
        if budget is not None and budget < GEMINI_25_PRO_MIN_BUDGET:
            return [(FIELD_BUDGET, f"{model} thinks at least {GEMINI_25_PRO_MIN_BUDGET} tokens.")]
    if generation == "2.5" and budget is not None and budget > GEMINI_25_FLASH_MAX_BUDGET:
        return [(FIELD_BUDGET, f"{model} thinks at most {GEMINI_25_FLASH_MAX_BUDGET:,} tokens.")]
    return []


def _anthropic_budget(setting: ReasoningSetting) -> int | None:
    if setting.budget_tokens is not None:
        return setting.budget_tokens
    return EFFORT_BUDGETS.get(setting.effort)


def reasoning_request(provider: str, base_url: str, model: str, setting: ReasoningSetting) -> dict:
    """The request fields that carry `setting` to this provider ({} when not set)."""
    if not setting.is_set:
        return {}
    family = endpoint_family(provider, base_url)
    effort, budget = setting.effort, setting.budget_tokens
    openai_effort = {"max": "xhigh"}.get(effort, effort)
    if family == "openai":
        return {"reasoning_effort": openai_effort}
    if family == "responses":
        return {"reasoning": {"effort": openai_effort, "summary": "auto"}}
    if family == "openrouter":
        return {"reasoning": {"max_tokens": budget} if budget is not None else {"effort": openai_effort}}
    if family == "self-hosted":
        fields: dict = {"chat_template_kwargs": {"enable_thinking": setting.thinks}}
        if setting.thinks:
            fields["reasoning_effort"] = {"max": "high"}.get(effort, effort)
        return fields
    if family == "anthropic":
        if not setting.thinks:
            return {"thinking": {"type": "disabled"}}
        if anthropic_thinks_adaptively(model):
            return {"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}}
        return {"thinking": {"type": "enabled", "budget_tokens": _anthropic_budget(setting)}}
    if family == "gemini":
        return {"generationConfig": {"thinkingConfig": _gemini_thinking(model, setting)}}
    return {}


def _gemini_thinking(model: str, setting: ReasoningSetting) -> dict:
    generation = _gemini_generation(model)
    if setting.budget_tokens is not None:
        config: dict = {"thinkingBudget": setting.budget_tokens}
    elif generation == "3":
        config = {"thinkingLevel": {"none": "minimal", "max": "high"}.get(setting.effort, setting.effort)}
    elif setting.effort == "none":
        config = {"thinkingBudget": 0}
    else:
        budget = EFFORT_BUDGETS[setting.effort]
        config = {"thinkingBudget": min(budget, GEMINI_25_FLASH_MAX_BUDGET) if generation == "2.5" else budget}
    config["includeThoughts"] = setting.thinks
    return config
