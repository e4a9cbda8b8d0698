"""Rate limits, counted with atomic increments in the shared cache (arena.web.counters),
so every web process — and every machine of the scaled mode — counts together.

- Per user: submissions, experiments and endpoint tests. DRF throttles on the API; the
  form views ask the same classes (`form_refusal`), so form and API share one count.
- Per client address: accounts made, downloads, endpoint tests, API reads (`AddressLimit`).
- Sign-in failures: arena.web.login_lockout; open websockets: arena.web.websocket_limit.

Each request is counted before the work it guards, so parallel requests cannot all see
room under the limit and all go on.
"""

from __future__ import annotations

import functools
import math

from django.conf import settings
from django.http import HttpResponse
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import BaseThrottle

from arena.web.counters import WindowCounter

HOUR = 3600


def wait_in_words(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


def client_address(request) -> str | None:
    """The client's address, trusting X-Forwarded-For only from ARENA_NUM_PROXIES proxies
    (DRF's rule, which the API throttles use too)."""
    if request is None:
        return None
    return BaseThrottle().get_ident(request) or None


def scope_address(scope) -> str:
    """`client_address` of an ASGI scope (websockets, the page cache in front of Django)."""
    remote = (scope.get("client") or ("unknown",))[0]
    forwarded = dict(scope.get("headers") or []).get(b"x-forwarded-for")
    proxies = settings.ARENA_NUM_PROXIES
    if not proxies or not forwarded:
        return remote
    addresses = forwarded.decode("latin1").split(",")
    return addresses[-min(proxies, len(addresses))].strip()


class _HourlyUserThrottle(BaseThrottle):
    """At most the ARENA_* setting's number of attempts per user in an hour's window."""

    scope = ""
    setting = ""
    what = ""

    def allow_request(self, request, view):
        counter = WindowCounter(f"user:{self.scope}", HOUR)
        self._wait = counter.take(str(request.user.pk), getattr(settings, self.setting))
        return self._wait is None

    def wait(self):
        return self._wait

    @classmethod
    def refusal(cls, wait: float | None) -> str:
        limit = getattr(settings, cls.setting)
        return (
            f"Too many {cls.what}: this arena accepts {limit} an hour per user (form and API together). "
            f"Try again in {wait_in_words(wait or 60)}."
        )


class SubmissionThrottle(_HourlyUserThrottle):
    scope = "submissions"
    setting = "ARENA_SUBMISSIONS_PER_HOUR"
    what = "submissions"


class ExperimentThrottle(_HourlyUserThrottle):
    scope = "experiments"
    setting = "ARENA_EXPERIMENTS_PER_HOUR"
    what = "experiments"


class EndpointProbeThrottle(_HourlyUserThrottle):
    """"Test endpoint" and "Edit endpoint" call the submitter's URL: bounded like
    submissions, so the arena cannot be used to knock on an address over and over."""

    scope = "endpoint-probes"
    setting = "ARENA_ENDPOINT_PROBES_PER_HOUR"
    what = "endpoint tests"


def form_refusal(throttle_class: type[_HourlyUserThrottle], request) -> str | None:
    """For the form views: count this POST against the same limit as the API (and, for
    endpoint tests, the address's limit too), and say why it is refused, or None when
    it may go on."""
    throttle = throttle_class()
    if not throttle.allow_request(request, None):
        return throttle_class.refusal(throttle.wait())
    if throttle_class is EndpointProbeThrottle:
        wait = ENDPOINT_PROBES.take(request)
        if wait is not None:
            return ENDPOINT_PROBES.refusal(wait)
    return None


# --- limits per client address -----------------------------------------------------
# Fresh accounts would get around every per-user limit, and downloads need no account:
# these doors are counted per client address (client_address: X-Forwarded-For trusted
# only from ARENA_NUM_PROXIES proxies), in the same shared cache.


class AddressLimit:
    """At most `setting` events per address in a window of `window_seconds` that opens
    with the address's first event."""

    def __init__(self, scope: str, setting: str, what: str, window_seconds: int = HOUR):
        self.scope, self.setting, self.what, self.window = scope, setting, what, window_seconds
        self.counter = WindowCounter(f"address:{scope}", window_seconds)

    @property
    def limit(self) -> int:
        return getattr(settings, self.setting)

    def take(self, request) -> float | None:
        """Count this request; None when the address is within its limit, else the
        seconds until its window closes."""
        return self.counter.take(client_address(request) or "unknown", self.limit)

    def refusal(self, wait: float) -> str:
        if self.window % HOUR == 0:
            hours = self.window // HOUR
            per = "an hour" if hours == 1 else f"per {hours} hours"
        else:
            per = "a minute" if self.window == 60 else f"per {self.window} seconds"
        return (
            f"Too many {self.what} from your address: this arena allows {self.limit} {per}. "
            f"Try again in {wait_in_words(wait)}."
        )


SIGNUPS = AddressLimit("signups", "ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS", "new accounts")
DOWNLOADS = AddressLimit("downloads", "ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS", "downloads")
ENDPOINT_PROBES = AddressLimit("endpoint-probes", "ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS", "endpoint tests")
API_READS = AddressLimit("api-reads", "ARENA_API_READS_PER_MINUTE_PER_ADDRESS", "API reads", window_seconds=60)


def too_many(message: str, wait: float) -> HttpResponse:
    """A plain 429 that says why and when to come back (Retry-After, in seconds)."""
    response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(math.ceil(wait))
    return response


def download_limited(view):
    """Exports (BALROG .tgz, episodes.zip, GIF, JSON Lines) cost the server far more than
    a page: each counts against the address's hourly download limit."""

    @functools.wraps(view)
    def limited(request, *args, **kwargs):
        wait = DOWNLOADS.take(request)
        if wait is not None:
            return too_many(DOWNLOADS.refusal(wait), wait)
        return view(request, *args, **kwargs)

    return limited


class _AddressThrottle(BaseThrottle):
    door: AddressLimit

    def allow_request(self, request, view):
        self._wait = self.door.take(request)
        return self._wait is None

    def wait(self):
        return self._wait


class EndpointProbeAddressThrottle(_AddressThrottle):
    """The API's side of ENDPOINT_PROBES (a dry run probes the endpoint)."""

    door = ENDPOINT_PROBES


# Set in the ASGI scope of an API read the page cache (config.pagecache) has counted.
COUNTED_IN_SCOPE = "arena.api_read_counted"


def api_read_wait(scope) -> float | None:
    """Count an API read that the page cache may answer before Django is reached."""
    return API_READS.counter.take(scope_address(scope), API_READS.limit)


class ApiReadThrottle(_AddressThrottle):
    """Every GET (HEAD, OPTIONS) of the API counts against the address's per-minute
    limit: a run page polls its run every 2 s, so one viewer uses 30 a minute."""

    door = API_READS

    def allow_request(self, request, view):
        scope = getattr(request._request, "scope", None) or {}
        if request.method not in SAFE_METHODS or scope.get(COUNTED_IN_SCOPE):
            self._wait = None
            return True
        return super().allow_request(request, view)
