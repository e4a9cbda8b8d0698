"""Test settings: the normal settings with an in-memory queue and throw-away media."""

import tempfile

from config.settings import *  # noqa: F401,F403

ARENA_QUEUE = "memory"
MEDIA_ROOT = tempfile.mkdtemp(prefix="arena-test-media-")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ARENA_MODEL_TIMEOUT_SECONDS = 5.0
ARENA_MODEL_BACKOFF_SECONDS = 0.05
# A file (not the shared-cache in-memory database): the worker's database thread uses its
# own connection, and file databases give it proper locking with a busy timeout.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.mkdtemp(prefix="arena-test-db-")) / "test.sqlite3")}  # noqa: F405
ARENA_DEMO_CACHE_DIR = tempfile.mkdtemp(prefix="arena-test-demos-")
ARENA_PROBE_TIMEOUT_SECONDS = 5.0
# Throttle counters in process memory, emptied before every test (tests/conftest.py); the
# embedded mode's database cache has its own tests (tests/arena/test_limits.py).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "arena-tests"}}
# The public pages' generation file of the tests, not the one of the site in var/.
ARENA_PAGE_GENERATION_FILE = str(Path(tempfile.mkdtemp(prefix="arena-test-pages-")) / "page-generation")  # noqa: F405
