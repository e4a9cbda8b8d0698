"""A submission's reasoning setting in each provider's own parameter, and the
providers' rules enforced at submission with errors that say what to change
(arena.clients.reasoning_params, arena.web.validation)."""

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.clients.reasoning_params import ReasoningSetting, reasoning_problems, reasoning_request
from arena.models import Submission

OPENAI = "https://api.openai.com/v1"
OPENROUTER = "https://openrouter.ai/api/v1"
VLLM = "http://gpu-box.example:8000/v1"
ANTHROPIC = "https://api.anthropic.com"
GEMINI = "https://generativelanguage.googleapis.com"


@pytest.mark.parametrize(
    "provider, base_url, model, setting, expected",
    [
        ("openai", OPENAI, "gpt-5.1", ReasoningSetting("high"), {"reasoning_effort": "high"}),
        ("openai", OPENAI, "gpt-5.2", ReasoningSetting("max"), {"reasoning_effort": "xhigh"}),
        ("openai", OPENAI, "gpt-5.1", ReasoningSetting("none"), {"reasoning_effort": "none"}),
        ("openai", OPENROUTER, "deepseek/deepseek-r1", ReasoningSetting("low"), {"reasoning": {"effort": "low"}}),
        ("openai", OPENROUTER, "anthropic/claude-sonnet-4", ReasoningSetting(budget_tokens=2000),
         {"reasoning": {"max_tokens": 2000}}),
        ("openai", VLLM, "Qwen/Qwen3-8B", ReasoningSetting("none"), {"chat_template_kwargs": {"enable_thinking": False}}),
        ("openai", VLLM, "Qwen/Qwen3-8B", ReasoningSetting("medium"),
         {"chat_template_kwargs": {"enable_thinking": True}, "reasoning_effort": "medium"}),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting(budget_tokens=2048),
         {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting("low"),
         {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
        ("anthropic", ANTHROPIC, "claude-opus-4-6", ReasoningSetting("max"),
         {"thinking": {"type": "adaptive"}, "output_config": {"effort": "max"}}),
        ("anthropic", ANTHROPIC, "claude-opus-4-6", ReasoningSetting("none"), {"thinking": {"type": "disabled"}}),
        ("gemini", GEMINI, "gemini-2.5-flash", ReasoningSetting("none"),
         {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0, "includeThoughts": False}}}),
        ("gemini", GEMINI, "gemini-2.5-flash", ReasoningSetting(budget_tokens=512),
         {"generationConfig": {"thinkingConfig": {"thinkingBudget": 512, "includeThoughts": True}}}),
        ("gemini", GEMINI, "gemini-3-pro-preview", ReasoningSetting("high"),
         {"generationConfig": {"thinkingConfig": {"thinkingLevel": "high", "includeThoughts": True}}}),
        ("openai", OPENAI, "gpt-4o", ReasoningSetting(), {}),
    ],
)
def test_each_provider_gets_the_setting_in_its_own_parameter(provider, base_url, model, setting, expected):
    assert reasoning_request(provider, base_url, model, setting) == expected


@pytest.mark.parametrize(
    "provider, base_url, model, setting, temperature, max_tokens, field, words",
    [
        ("openai", OPENAI, "o3", ReasoningSetting(budget_tokens=4000), 1.0, 8000, "thinking_budget_tokens",
         "takes a reasoning effort, not a thinking budget"),
        ("openai", OPENAI, "o3", ReasoningSetting("high"), 0.0, 8000, "temperature", "set the temperature to 1"),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting("high"), 0.0, 32000, "temperature",
         "temperature 1"),
        ("anthropic", ANTHROPIC, "claude-opus-4-6", ReasoningSetting(budget_tokens=4000), 1.0, 32000,
         "thinking_budget_tokens", "refuses a fixed thinking budget"),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting(budget_tokens=512), 1.0, 32000,
         "thinking_budget_tokens", "at least 1,024"),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting(budget_tokens=4096), 1.0, 2048,
         "thinking_budget_tokens", "less than max tokens"),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting("high"), 1.0, 2048, "max_tokens",
         "less than max tokens"),
        ("gemini", GEMINI, "gemini-2.5-pro", ReasoningSetting("none"), 0.0, 2048, "reasoning_effort",
         "cannot turn thinking off"),
        ("openai", VLLM, "Qwen/Qwen3-8B", ReasoningSetting("high", 1000), 0.0, 2048, "thinking_budget_tokens",
         "not both"),
        ("agent", "http://agent.example/", "", ReasoningSetting("high"), 0.0, 2048, "reasoning_effort",
         "does not apply"),
    ],
)
def test_a_provider_rule_broken_is_named_on_its_field(provider, base_url, model, setting, temperature, max_tokens,
                                                      field, words):
    problems = dict(reasoning_problems(provider, base_url, model, setting, temperature=temperature,
                                       max_tokens=max_tokens))
    assert field in problems, problems
    assert words in problems[field]


def test_settings_every_provider_accepts_raise_no_problem():
    cases = [
        ("openai", OPENAI, "o3", ReasoningSetting("high"), 1.0),
        ("openai", OPENAI, "gpt-5.1", ReasoningSetting("none"), 0.0),
        ("anthropic", ANTHROPIC, "claude-sonnet-4-5", ReasoningSetting(budget_tokens=4096), 1.0),
        ("anthropic", ANTHROPIC, "claude-opus-4-6", ReasoningSetting("high"), 1.0),
        ("gemini", GEMINI, "gemini-2.5-flash", ReasoningSetting(budget_tokens=0 or 1), 0.0),
        ("openai", VLLM, "Qwen/Qwen3-8B", ReasoningSetting("none"), 0.0),
        ("openai", OPENROUTER, "x/y", ReasoningSetting(budget_tokens=3000), 0.0),
    ]
    for provider, base_url, model, setting, temperature in cases:
        assert reasoning_problems(provider, base_url, model, setting, temperature=temperature, max_tokens=8192) == []


@pytest.mark.django_db
def test_the_api_refuses_anthropic_thinking_at_temperature_0_and_creates_nothing(settings):
    settings.ARENA_ALLOW_LOOPBACK = True
    user = User.objects.create_user("thinker", password="a-long-enough-password")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    body = {
        "name": "Thinker", "provider": "anthropic", "base_url": "http://127.0.0.1:9", "model": "claude-sonnet-4-5",
        "api_key": "sk-ant-test", "tasks": ["lmact/gridworld:ascii"], "episodes_per_task": 1,
        "temperature": 0.0, "max_tokens": 8192, "reasoning_effort": "high",
    }
    response = api.post("/api/submissions/", body, format="json")
    assert response.status_code == 400
    assert "temperature 1" in json.dumps(response.json()["temperature"])
    assert not Submission.objects.exists()
