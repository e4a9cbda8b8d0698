"""A clock the limits' windows (arena.web.counters) and the tests' in-memory cache both
read, so a test can let an hour pass in no time."""

from __future__ import annotations

import types

import pytest


class Clock:
    def __init__(self, start: float = 2_000_000.0):
        self.now = start

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    from django.core.cache.backends import base, locmem

    from arena.web.counters import WindowCounter

    fake = Clock()
    monkeypatch.setattr(WindowCounter, "clock", staticmethod(fake.time))
    # The in-memory cache reads the time where it sets an expiry and where it checks one.
    for module in (base, locmem):
        monkeypatch.setattr(module, "time", types.SimpleNamespace(time=fake.time))
    return fake
