"""The sign-in lock-out: every password check (login form, `POST /api/token/`, the admin)
goes through `ThrottledModelBackend`.

Failures are counted per (account, client address) pair, never per account alone: a
stranger's wrong passwords for alice lock that stranger's address out of alice's account,
and alice, from her own address, signs in as usual. After ARENA_LOGIN_MAX_FAILURES
failures of one pair within ARENA_LOGIN_LOCKOUT_SECONDS (the window opens with the first),
the password is not even checked until the window closes. One address guessing across
many accounts is bounded as well, by ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS in the same window.

Each check is counted as a failure before the password is compared (arena.web.counters),
and taken back when it succeeds: a burst of parallel guesses is refused once the count
is full, not after every password in it was tried.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from arena.web.counters import WindowCounter
from arena.web.throttles import client_address, wait_in_words


class LoginRefused(PermissionDenied):
    def __init__(self, wait: float):
        self.wait = wait
        super().__init__(
            "Too many failed sign-ins for this account from your address. "
            f"Try again in {wait_in_words(wait)}."
        )


class LoginAttempt:
    """One password check, counted as a failure from the start; `succeeded()` takes it back."""

    def __init__(self, request, username: str):
        address = client_address(request) or "unknown"
        window = settings.ARENA_LOGIN_LOCKOUT_SECONDS
        self.pairs = WindowCounter("login-failures:pair", window)
        self.addresses = WindowCounter("login-failures:address", window)
        self.pair = f"{str(username).casefold()}\n{address}"
        self.address = address

    def begin(self) -> None:
        """Count the attempt, or raise LoginRefused while its pair or its address is locked."""
        wait = self.pairs.take(self.pair, settings.ARENA_LOGIN_MAX_FAILURES)
        if wait is not None:
            raise LoginRefused(wait)
        wait = self.addresses.take(self.address, settings.ARENA_LOGIN_MAX_FAILURES_PER_ADDRESS)
        if wait is not None:
            self.pairs.give_back(self.pair)  # this password was not checked
            raise LoginRefused(wait)

    def succeeded(self) -> None:
        self.pairs.give_back(self.pair)
        self.addresses.give_back(self.address)


class ThrottledModelBackend(ModelBackend):
    """Django's username/password backend behind the lock-out.

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
