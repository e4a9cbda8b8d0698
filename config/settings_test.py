"""Test settings: the normal settings with an in-memory queue and throw-away media."""

import tempfile

from config.settings import *  # noqa: F401,F403

ARENA_QUEUE = "memory"
MEDIA_ROOT = tempfile.mkdtemp(prefix="arena-test-media-")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ARENA_MODEL_TIMEOUT_SECONDS = 5.0
ARENA_MODEL_BACKOFF_SECONDS = 0.05
