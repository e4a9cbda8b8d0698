"""What the provider-client tests share: a prompt with a legal list, a tiny PNG, fast
retry settings, and the check that a secret never shows in an error."""

from __future__ import annotations

import random

PROMPT = "You are playing a game.\nThe legal actions are:\na1, b2, c3\nAnswer with Action: <move>."
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PNG_URL = f"data:image/png;base64,{PNG_B64}"


def client_options(seed: int, **options) -> dict:
    """Loopback allowed, two retries, tiny backoff (fault tests run in milliseconds),
    then the test's own options on top."""
    return {
        "max_retries": 2,
        "allow_loopback": True,
        "backoff_base_seconds": 0.01,
        "max_wait_seconds": 5.0,
        "rng": random.Random(seed),
        **options,
    }


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def assert_no_secret(error, *secrets: str) -> None:
    for rendered in (str(error), repr(error), error.message, str(error.args)):
        for secret in secrets:
            assert secret not in rendered
