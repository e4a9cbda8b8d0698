"""Settings for the arena.

Everything is read from environment variables (see config/envparse.py and the README's
"Configuration" table). The defaults are the *embedded* mode: SQLite, a file-backed task
queue, in-process channel layer, no other servers. Setting REDIS_URL (and DATABASE_URL
for PostgreSQL) switches to the *scaled* mode without code changes.
"""

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from config.database import database_from_url
from config.envparse import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("ARENA_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _local_secret(filename: str, make) -> str:
    """A secret kept in var/ (never committed), created on first use.

    Operators set the environment variable instead; this keeps the quick start free of
    configuration without embedding a secret in the repository.
    """
    path = VAR_DIR / filename
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def _fernet_key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode()


def _plotly_dir() -> str:
    import plotly

    return str(Path(plotly.__file__).parent / "package_data")


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "") or _local_secret("secret_key", lambda: secrets.token_urlsafe(50))
# The key that encrypts submitters' API keys at rest; deliberately not SECRET_KEY.
ARENA_ENCRYPTION_KEY = env_str("ARENA_ENCRYPTION_KEY", "") or _local_secret("encryption.key", _fernet_key)
# A public site (see "the production posture" below): ARENA_PUBLIC_URL is https and
# names the site's host, the only one served unless ALLOWED_HOSTS says otherwise.
ARENA_PRODUCTION = env_bool("ARENA_PRODUCTION", False)
# How agent endpoints reach this arena's stored images (observation image URLs).
ARENA_PUBLIC_URL = env_str("ARENA_PUBLIC_URL", "http://127.0.0.1:8000")
_public_host = urlsplit(ARENA_PUBLIC_URL).hostname or "127.0.0.1"
# Where submitters reach the operators (an address or a page), named in a takedown's
# notice to the owner; empty: the notice says only "the operators of this arena".
ARENA_OPERATOR_CONTACT = env_str("ARENA_OPERATOR_CONTACT", "")
if ARENA_PRODUCTION and not ARENA_PUBLIC_URL.startswith("https://"):
    raise ImproperlyConfigured(
        f"ARENA_PRODUCTION needs ARENA_PUBLIC_URL to be the site's https:// address; got {ARENA_PUBLIC_URL!r}"
    )
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", [_public_host] if ARENA_PRODUCTION else ["127.0.0.1", "localhost", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "arena",
    "leaderboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "arena.web.middleware.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(VAR_DIR / "arena.sqlite3")),
            "OPTIONS": {
                # WAL lets the web process read while the worker writes; IMMEDIATE
                # transactions avoid lock-upgrade deadlocks between the two processes.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "leaderboard:index"
LOGOUT_REDIRECT_URL = "leaderboard:index"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns when it is missing; files come from finders
STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", _plotly_dir())]
# Serve static files straight from the app and package folders: no collectstatic step.
WHITENOISE_USE_FINDERS = True
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("ARENA_MEDIA_ROOT", str(VAR_DIR / "media")))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's own three, with JSON of bounded depth (arena.web.parsers).
    "DEFAULT_PARSER_CLASSES": [
        "arena.web.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "The arena API",
    "DESCRIPTION": "Submissions, runs, episodes, steps and leaderboards of the arena.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "TaskVariantEnum": "arena.web.api_serializers.task_variant_values",
        "SubmissionKindEnum": "arena.models.Submission.KIND_CHOICES",
        "EpisodeStatusEnum": "arena.models.Episode.STATUS_CHOICES",
    },
}

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    # A consumer waits for its next message in a blocking read of 5 s (the layer's
    # brpop_timeout); the Redis client's own default read timeout is 5 s too, and when
    # it wins the race the consumer dies and its websocket closes (1011) after 5 s
    # without a step. The read timeout must stay above the blocking read.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- the arena itself -------------------------------------------------------------
# Queue backend: "sqlite" (embedded), "redis" (scaled), "memory" (tests).
ARENA_QUEUE = env_str("ARENA_QUEUE", "redis" if REDIS_URL else "sqlite")
if ARENA_QUEUE not in ("sqlite", "redis", "memory"):
    raise ImproperlyConfigured(f"ARENA_QUEUE must be sqlite, redis or memory; got {ARENA_QUEUE!r}")
ARENA_QUEUE_PATH = env_str("ARENA_QUEUE_PATH", str(VAR_DIR / "queue.sqlite3"))
# Operators running local models (vLLM, llama.cpp, Ollama) on this machine turn this on.
ARENA_ALLOW_LOOPBACK = env_bool("ARENA_ALLOW_LOOPBACK", False)
ARENA_WORKER_CONCURRENCY = env_int("ARENA_WORKER_CONCURRENCY", 32, minimum=1, maximum=1024)
# Head-to-head play runs itself (arena.matches.continuous): a worker with match places
# looks this often for pairs to queue (0: never; rounds are then queued by hand).
ARENA_H2H_SCHEDULE_SECONDS = env_float("ARENA_H2H_SCHEDULE_SECONDS", 5.0, minimum=0.0)
# Games of one game a pair plays at most (baselines stop playing each other after that).
ARENA_H2H_PAIR_GAMES = env_int("ARENA_H2H_PAIR_GAMES", 20, minimum=2)
# Queued and running matches of one user's models together, at most.
ARENA_H2H_MATCHES_PER_USER = env_int("ARENA_H2H_MATCHES_PER_USER", 4, minimum=2)
ARENA_HEARTBEAT_STALE_SECONDS = env_int("ARENA_HEARTBEAT_STALE_SECONDS", 120, minimum=5)
ARENA_MAX_EPISODE_ATTEMPTS = env_int("ARENA_MAX_EPISODE_ATTEMPTS", 3, minimum=1)
# Long episodes of tasks that can save their state (TextAtari) store a snapshot every
# this many steps, so a resumed episode replays fewer than this many (arena.services.snapshots).
ARENA_SNAPSHOT_EVERY_STEPS = env_int("ARENA_SNAPSHOT_EVERY_STEPS", 1000, minimum=1)
# Tasks with a picture for the replay viewer (TextAtari's screen) store it at every this
# many steps; the steps in between show the latest one (bench/textatari_horizon.py).
ARENA_VIEWER_FRAME_EVERY_STEPS = env_int("ARENA_VIEWER_FRAME_EVERY_STEPS", 1, minimum=1)
# Steps reach the websockets as they are committed (through Redis, or in embedded mode
# through a socket per web process in ARENA_LIVE_SIGNAL_DIR); the poll is a safety net.
ARENA_LIVE_POLL_SECONDS = env_float("ARENA_LIVE_POLL_SECONDS", 5.0, minimum=0.05)
ARENA_LIVE_SIGNAL_DIR = env_str("ARENA_LIVE_SIGNAL_DIR", str(VAR_DIR / "live"))
# Daphne processes `manage.py arena_web` starts (arena.web.launcher): one per core this
# process may run on unless set.
ARENA_WEB_PROCESSES = env_int("ARENA_WEB_PROCESSES", len(os.sched_getaffinity(0)), minimum=1, maximum=256)
# Each web process freezes what it loaded at start-up and runs the cyclic garbage
# collector less often (arena.web.web_process); off: CPython's defaults, for comparison.
ARENA_WEB_GC_TUNED = env_bool("ARENA_WEB_GC_TUNED", True)
# Each web process keeps the memory its pages free (arena.runtime.memory: glibc's mmap and trim
# thresholds raised) instead of mapping a large page's strings afresh at every request;
# off: glibc's own thresholds, for comparison (bench/read_pages.py --allocator-row).
ARENA_WEB_KEEP_FREED_MEMORY = env_bool("ARENA_WEB_KEEP_FREED_MEMORY", True)
ARENA_MODEL_TIMEOUT_SECONDS = env_float("ARENA_MODEL_TIMEOUT_SECONDS", 120.0, minimum=0.1)
ARENA_MODEL_MAX_RETRIES = env_int("ARENA_MODEL_MAX_RETRIES", 4, minimum=0, maximum=10)
ARENA_MODEL_BACKOFF_SECONDS = env_float("ARENA_MODEL_BACKOFF_SECONDS", 1.0, minimum=0.0)
# The endpoint probe at submission time (arena.probe): each of its requests waits this long.
ARENA_PROBE_TIMEOUT_SECONDS = env_float("ARENA_PROBE_TIMEOUT_SECONDS", 10.0, minimum=0.5)
ARENA_MAX_EPISODES_PER_TASK = env_int("ARENA_MAX_EPISODES_PER_TASK", 500, minimum=1)
ARENA_DEMO_CACHE_DIR = env_str("ARENA_DEMO_CACHE_DIR", str(VAR_DIR / "demos"))
ARENA_BASELINE_EPISODES = env_int("ARENA_BASELINE_EPISODES", 100, minimum=1)
# Set: baseline runs have exactly that many episodes, shipped figures only where they
# match (arena.services.baseline_figures); unset, shipped figures of any count are taken.
ARENA_BASELINE_EPISODES_CHOSEN = "ARENA_BASELINE_EPISODES" in os.environ
# A baseline run made from the figures shipped with the arena (arena.services.baseline_figures)
# plays this many of its episodes on first start, for their replays.
ARENA_BASELINE_REPLAYS = env_int("ARENA_BASELINE_REPLAYS", 2, minimum=0)

# --- limits: no single user floods the queue or guesses passwords ---------------------
# Distinct task × format entries in one submission (duplicates are merged first).
ARENA_MAX_TASKS_PER_SUBMISSION = env_int("ARENA_MAX_TASKS_PER_SUBMISSION", 100, minimum=1)
# Episodes one submission (or one experiment) may queue, counting every run its tasks'
# option combinations create.
ARENA_MAX_EPISODES_PER_SUBMISSION = env_int("ARENA_MAX_EPISODES_PER_SUBMISSION", 5000, minimum=1)
# Per-user attempts in an hour's window, form and API together (each attempt probes the
# endpoint). Every limit below is an atomic count in the shared cache (arena.web.counters):
# a window opens with the first event and lasts its hour (minute); past the limit: HTTP 429
# with Retry-After.
ARENA_SUBMISSIONS_PER_HOUR = env_int("ARENA_SUBMISSIONS_PER_HOUR", 20, minimum=1)
ARENA_EXPERIMENTS_PER_HOUR = env_int("ARENA_EXPERIMENTS_PER_HOUR", 20, minimum=1)
ARENA_ENDPOINT_PROBES_PER_HOUR = env_int("ARENA_ENDPOINT_PROBES_PER_HOUR", 30, minimum=1)
# Episodes one user may have queued (not started yet) at once, over all their submissions
# and experiments: a submission or experiment that would go past it is refused.
ARENA_MAX_QUEUED_EPISODES_PER_USER = env_int("ARENA_MAX_QUEUED_EPISODES_PER_USER", 10_000, minimum=1)
# Per client address (arena.web.throttles.AddressLimit): accounts created, downloads of
# exports (.tgz, episodes.zip, GIF, JSON Lines) and endpoint tests (form, "Test endpoint",
# "Edit endpoint", API dry runs) an hour; reads of the API (GET, HEAD, OPTIONS) a minute.
ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS = env_int("ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS", 5, minimum=1)
ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS = env_int("ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS", 120, minimum=1)
ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS = env_int("ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS", 60, minimum=1)
ARENA_API_READS_PER_MINUTE_PER_ADDRESS = env_int("ARENA_API_READS_PER_MINUTE_PER_ADDRESS", 600, minimum=1)
# Websockets (live episodes and matches) one client address may hold open at once
# (arena.web.websocket_limit); one more is refused at the handshake (HTTP 403).
ARENA_WEBSOCKETS_PER_ADDRESS = env_int("ARENA_WEBSOCKETS_PER_ADDRESS", 20, minimum=1, maximum=1000)
# After this many failed password checks for one account from one address within
# ARENA_LOGIN_LOCKOUT_SECONDS, that address may not try that account again until the
# window closes (arena.web.login_lockout); the account stays open from other addresses.
# One address's failures over all accounts are bounded by the second figure.
ARENA_LOGIN_MAX_FAILURES = env_int("ARENA_LOGIN_MAX_FAILURES", 5, minimum=1)
ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS = env_int("ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS", 20, minimum=1)
ARENA_LOGIN_LOCKOUT_SECONDS = env_int("ARENA_LOGIN_LOCKOUT_SECONDS", 900, minimum=1)
# Reverse proxies in front of the site whose X-Forwarded-For is trusted to name the
# client address; 0 trusts none (the header is client-controlled then).
# Under ARENA_PRODUCTION one (the reverse proxy of docs/deployment.md) unless set.
ARENA_NUM_PROXIES = env_int("ARENA_NUM_PROXIES", 1 if ARENA_PRODUCTION else 0, minimum=0, maximum=10)
REST_FRAMEWORK["NUM_PROXIES"] = ARENA_NUM_PROXIES
AUTHENTICATION_BACKENDS = ["arena.web.login_lockout.ThrottledModelBackend"]
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = ["arena.web.throttles.ApiReadThrottle"]

# Throttle and lock-out counters live in Django's cache, shared by every web process:
# Redis in the scaled mode, a database table in the embedded mode (created by `migrate`,
# see arena.apps) whose increments are atomic (arena.web.shared_cache).
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": "arena-cache"}}
else:
    CACHES = {"default": {"BACKEND": "arena.web.shared_cache.AtomicDatabaseCache", "LOCATION": "arena_cache",
                          # Culling at the default 300 entries would let a flood of keys evict lock-outs.
                          "OPTIONS": {"MAX_ENTRIES": 100_000}}}

# --- the public pages' cache (config.pagecache, arena.page_generation) ---------------
# Anonymous GETs of the leaderboards, suite and task pages are answered from each web
# process's memory until the page generation changes (an episode finished, a run or
# submission changed). Each process re-reads the generation this often: the most a page
# can lag behind the database.
ARENA_PAGE_CACHE = env_bool("ARENA_PAGE_CACHE", True)
ARENA_PAGE_CACHE_CHECK_SECONDS = env_float("ARENA_PAGE_CACHE_CHECK_SECONDS", 0.5, minimum=0.0)
ARENA_PAGE_CACHE_ENTRIES = env_int("ARENA_PAGE_CACHE_ENTRIES", 256, minimum=1, maximum=100_000)
# Where the generation lives: a file on one machine, Django's cache (Redis) across several.
ARENA_PAGE_GENERATION_STORE = env_str("ARENA_PAGE_GENERATION_STORE", "cache" if REDIS_URL else "file")
if ARENA_PAGE_GENERATION_STORE not in ("file", "cache"):
    raise ImproperlyConfigured(f"ARENA_PAGE_GENERATION_STORE must be file or cache; got {ARENA_PAGE_GENERATION_STORE!r}")
ARENA_PAGE_GENERATION_FILE = env_str("ARENA_PAGE_GENERATION_FILE", str(VAR_DIR / "page-generation"))

# The site is served over HTTPS (directly or behind a TLS proxy): cookies are then sent
# only over HTTPS.
ARENA_HTTPS = env_bool("ARENA_HTTPS", ARENA_PRODUCTION)
SESSION_COOKIE_SECURE = ARENA_HTTPS
CSRF_COOKIE_SECURE = ARENA_HTTPS

# --- the production posture: one switch for a public site behind a TLS proxy -----------
# ARENA_PRODUCTION=1 turns on everything `manage.py check --deploy` asks of a public
# site (docs/deployment.md): plain HTTP redirected to HTTPS, HSTS, secure cookies
# (above), the proxy's X-Forwarded-Proto trusted to say the request came over HTTPS, the
# proxy's X-Forwarded-For trusted to name the client (ARENA_NUM_PROXIES, above) and the
# public origin trusted for CSRF.
if ARENA_PRODUCTION:
    if DEBUG:
        raise ImproperlyConfigured("ARENA_PRODUCTION and DEBUG cannot both be on: DEBUG pages show settings and code.")
    SECURE_SSL_REDIRECT = env_bool("ARENA_SSL_REDIRECT", True)
    # /healthz is asked by the proxy or a load balancer over plain HTTP on the inside.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("ARENA_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("ARENA_HSTS_INCLUDE_SUBDOMAINS", True)
    # Preloading asks browsers' vendors to hard-code HTTPS for the whole domain: an
    # operator's decision, off unless asked for (and then not a warning to silence).
    SECURE_HSTS_PRELOAD = env_bool("ARENA_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    CSRF_TRUSTED_ORIGINS = CSRF_TRUSTED_ORIGINS or [ARENA_PUBLIC_URL.rstrip("/")]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
