"""Rate limits kept in Django's cache (Redis in the scaled mode, a database table in the
embedded one), so every web process sees the same counts.

- Submissions and experiments: DRF throttles per user on the API; the form views ask the
  same throttle classes (`form_refusal`), so form and API share one count.
- Passwords: every password check goes through `ThrottledModelBackend` (login form,
  `POST /api/token/`, the admin). After ARENA_LOGIN_MAX_FAILURES failures for one
  account or from one address within ARENA_LOGIN_LOCKOUT_SECONDS, the password is not
  even checked until the oldest of those failures is that old.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from rest_framework.throttling import BaseThrottle, UserRateThrottle


def wait_in_words(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


class _HourlyUserThrottle(UserRateThrottle):
    """A per-user limit per sliding hour, read from an ARENA_* setting when the throttle is
    made (DRF's own rate table is read once at import, which a setting change would miss)."""

    setting = ""
    what = ""

    def get_rate(self):
        return f"{getattr(settings, self.setting)}/hour"

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


def client_address(request) -> str | None:
    """The client's address, trusting X-Forwarded-For only from ARENA_NUM_PROXIES proxies
    (DRF's rule, which the API throttles use too)."""
    if request is None:
        return None
    return BaseThrottle().get_ident(request) or None


class LoginRefused(PermissionDenied):
    def __init__(self, wait: float):
        self.wait = wait
        super().__init__(
            "Too many failed sign-ins for this account or from this address. "
            f"Try again in {wait_in_words(wait)}."
        )


class LoginAttempt:
    """One password check, counted as a failure from the start: a burst of parallel
    guesses is refused as soon as the count is full, not after their passwords were
    checked. `succeeded()` takes the attempt back."""

    clock = staticmethod(time.time)

    def __init__(self, request, username: str):
        name = hashlib.sha256(str(username).casefold().encode()).hexdigest()
        self.keys = [f"login-failures:user:{name}"]
        address = client_address(request)
        if address:
            self.keys.append(f"login-failures:address:{hashlib.sha256(address.encode()).hexdigest()}")
        self.window = settings.ARENA_LOGIN_LOCKOUT_SECONDS
        self.limit = settings.ARENA_LOGIN_MAX_FAILURES
        self.at = self.clock()

    def _recent(self, key: str) -> list[float]:
        return [t for t in cache.get(key, []) if t > self.at - self.window]

    def begin(self) -> None:
        """Record the attempt, or raise LoginRefused while an account or address is locked."""
        histories = {key: sorted(self._recent(key)) for key in self.keys}
        waits = [h[-self.limit] + self.window - self.at for h in histories.values() if len(h) >= self.limit]
        if waits:
            raise LoginRefused(max(waits))
        for key, history in histories.items():
            cache.set(key, [*history, self.at], timeout=self.window)

    def succeeded(self) -> None:
        for key in self.keys:
            history = self._recent(key)
            if self.at in history:
                history.remove(self.at)
            cache.set(key, history, timeout=self.window)


class ThrottledModelBackend(ModelBackend):
    """Django's username/password backend behind the per-account and per-address lock-out.

    A refused check raises LoginRefused, which Django's `authenticate()` takes as "stop"
    (it returns None); the reason is left on the request as `login_refusal` for the
    login form and the token view to show.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        attempt = LoginAttempt(request, username)
        try:
            attempt.begin()
        except LoginRefused as refusal:
            if request is not None:
                request.login_refusal = refusal
            raise
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None:
            attempt.succeeded()
        return user

    async def aauthenticate(self, request, username=None, password=None, **kwargs):
        return await sync_to_async(self.authenticate)(request, username=username, password=password, **kwargs)


# --- limits per client address -----------------------------------------------------
# Fresh accounts would get around every per-user limit, and downloads need no account:
# these doors are counted per client address (client_address: X-Forwarded-For trusted
# only from ARENA_NUM_PROXIES proxies), in the same shared cache.


class AddressLimit:
    """At most `setting` events per address in any sliding `window_seconds`."""

    clock = staticmethod(time.time)

    def __init__(self, scope: str, setting: str, what: str, window_seconds: int = 3600):
        self.scope, self.setting, self.what, self.window = scope, setting, what, window_seconds

    @property
    def limit(self) -> int:
        return getattr(settings, self.setting)

    def _key(self, request) -> str:
        address = client_address(request) or "unknown"
        return f"address-limit:{self.scope}:{hashlib.sha256(address.encode()).hexdigest()}"

    def _recent(self, request, now: float) -> list[float]:
        return sorted(t for t in cache.get(self._key(request), []) if t > now - self.window)

    def wait(self, request) -> float | None:
        """Seconds until the address may go on, or None when it may now."""
        now = self.clock()
        recent = self._recent(request, now)
        if len(recent) < self.limit:
            return None
        return max(1.0, recent[-self.limit] + self.window - now)

    def record(self, request) -> None:
        now = self.clock()
        cache.set(self._key(request), [*self._recent(request, now), now], timeout=self.window)

    def take(self, request) -> float | None:
        """Count this request, or return the wait when the address is at its limit
        (then nothing is counted)."""
        wait = self.wait(request)
        if wait is None:
            self.record(request)
        return wait

    def refusal(self, wait: float) -> str:
        hours = self.window // 3600
        per = "an hour" if hours == 1 else f"per {hours} hours"
        return (
            f"Too many {self.what} from your address: this arena allows {self.limit} {per}. "
            f"Try again in {wait_in_words(wait)}."
        )


SIGNUPS = AddressLimit("signups", "ARENA_SIGNUPS_PER_HOUR_PER_ADDRESS", "new accounts")
DOWNLOADS = AddressLimit("downloads", "ARENA_DOWNLOADS_PER_HOUR_PER_ADDRESS", "downloads")
ENDPOINT_PROBES = AddressLimit("endpoint-probes", "ARENA_ENDPOINT_PROBES_PER_HOUR_PER_ADDRESS", "endpoint tests")


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


class EndpointProbeAddressThrottle(BaseThrottle):
    """The API's side of ENDPOINT_PROBES (a dry run probes the endpoint)."""

    def allow_request(self, request, view):
        self._wait = ENDPOINT_PROBES.take(request)
        return self._wait is None

    def wait(self):
        return self._wait
