"""Test settings: the normal settings with an in-memory queue and throw-away media."""

import atexit
import os
import shutil
import tempfile

from config.settings import *  # noqa: F401,F403

# Every throw-away directory of this process lives under one, removed when the process
# exits (only by the process that made it: a forked child inherits the handler).
_SCRATCH = tempfile.mkdtemp(prefix="arena-test-")
_OWNER = os.getpid()
atexit.register(lambda: os.getpid() == _OWNER and shutil.rmtree(_SCRATCH, ignore_errors=True))


def _scratch_dir(name: str) -> str:
    path = Path(_SCRATCH) / name  # noqa: F405
    path.mkdir()
    return str(path)


ARENA_QUEUE = "memory"
MEDIA_ROOT = _scratch_dir("media")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ARENA_MODEL_TIMEOUT_SECONDS = 5.0
ARENA_MODEL_BACKOFF_SECONDS = 0.05
# A file (not the shared-cache in-memory database): the worker's database thread uses its
# own connection, and file databases give it proper locking with a busy timeout.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(Path(_scratch_dir("db")) / "test.sqlite3")}  # noqa: F405
ARENA_DEMO_CACHE_DIR = _scratch_dir("demos")
ARENA_PROBE_TIMEOUT_SECONDS = 5.0
# Each test process signals only its own live sockets, never a server running beside it.
ARENA_LIVE_SIGNAL_DIR = _scratch_dir("live")
# Throttle counters in process memory, emptied before every test (tests/conftest.py); the
# embedded mode's database cache has its own tests (tests/arena/web/test_limits.py).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "arena-tests"}}
# The public pages' generation file of the tests, not the one of the site in var/.
ARENA_PAGE_GENERATION_FILE = str(Path(_scratch_dir("pages")) / "page-generation")  # noqa: F405
