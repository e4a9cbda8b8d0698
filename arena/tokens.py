"""Token estimates for fitting demonstrations into a model's context window
(lmact.txt §2.4: the number of demonstrations that fit depends on the model, the task
and the observation format).

Text: about four characters per token — a deliberately rough, tokenizer-free rule of
thumb for English and ASCII boards; the estimate decides how many demonstrations to
*offer*, and the provider's own token counts are what the arena records.
Images, per provider rule (lmact.txt App. B.1):
- OpenAI ("auto"/high detail): 85 base tokens + 170 per 512-px tile after scaling the
  image to fit 2048×2048 and its shortest side to at most 768 px;
- Anthropic: width × height / 750;
- Gemini: a fixed 258 tokens per image.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def image_tokens(width: int, height: int, provider: str = "openai") -> int:
    if provider == "gemini":
        return 258
    if provider == "anthropic":
        return math.ceil(width * height / 750)
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return 85 + 170 * tiles


def observation_tokens(observation, provider: str = "openai") -> int:
    total = 0
    if observation.text is not None:
        total += text_tokens(observation.text)
    if getattr(observation, "png", None) is not None:  # a pool frame: size known, no decoding
        total += image_tokens(observation.width, observation.height, provider)
    elif observation.image is not None:
        total += image_tokens(observation.image.width, observation.image.height, provider)
    return total


def demonstration_tokens(demonstration, provider: str = "openai") -> int:
    """Observations, actions and the few words around each step."""
    per_step_overhead = 6  # "Observation:", "Action:", separators
    return sum(
        observation_tokens(observation, provider) + text_tokens(action) + per_step_overhead
        for observation, action in demonstration.steps
    )
