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

import hashlib
import math
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
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
    """For the form views: count this POST against the same limit as the API, and say
    why it is refused, or None when it may go on."""
    throttle = throttle_class()
    if throttle.allow_request(request, None):
        return None
    return throttle_class.refusal(throttle.wait())


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
