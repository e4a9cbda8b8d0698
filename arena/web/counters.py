"""Counts that hold across web processes and machines: atomic increments in the shared
cache (Redis in the scaled mode, arena.web.shared_cache's table in the embedded one).

A limit used to read a list of times from the cache, append one and write it back: two
processes doing so at once both wrote their own list, and a burst of 16 parallel
requests passed every limit (16 accounts made under a limit of 5). Here every event is
one atomic increment, taken *before* the work it guards, and the answer is the count
after it: of N parallel requests exactly `limit` see a count within the limit, whatever
the interleaving. This is django-ratelimit's technique (`cache.add` then `cache.incr`);
it is written here because the lock-out needs to take an event back (a sign-in that
succeeded does not count), which django-ratelimit has no call for.

A window opens with a key's first event and lasts `window_seconds`; its count starts at
zero again afterwards. So at most `limit` events pass in one window, and at most twice
that in a sliding window that straddles two.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.core.cache import cache


@dataclass(frozen=True)
class WindowCounter:
    scope: str
    window_seconds: int

    clock = staticmethod(time.time)

    def _keys(self, ident: str) -> tuple[str, str]:
        digest = hashlib.sha256(ident.encode()).hexdigest()
        return f"limit:{self.scope}:{digest}:count", f"limit:{self.scope}:{digest}:opened"

    def take(self, ident: str, limit: int) -> float | None:
        """Count one event; None when it is within the limit, else the seconds until the
        window closes (the event is counted all the same: a refused burst stays refused)."""
        count_key, opened_key = self._keys(ident)
        now = self.clock()
        count = self._increment(count_key, opened_key, now)
        if count <= limit:
            return None
        opened = cache.get(opened_key)
        left = self.window_seconds if opened is None else opened + self.window_seconds - now
        return max(1.0, left)

    def give_back(self, ident: str) -> None:
        """Take one event back (it was counted before the work, and the work says it
        should not count)."""
        count_key, _ = self._keys(ident)
        try:
            cache.decr(count_key)
        except ValueError:  # the window closed meanwhile: nothing to take back
            pass

    def count(self, ident: str) -> int:
        return cache.get(self._keys(ident)[0], 0)

    def _increment(self, count_key: str, opened_key: str, now: float) -> int:
        for _ in range(3):
            if cache.add(count_key, 1, timeout=self.window_seconds):
                cache.set(opened_key, now, timeout=self.window_seconds)
                return 1
            try:
                return cache.incr(count_key)
            except ValueError:  # the window closed between add and incr: open the next
                continue
        raise RuntimeError(f"the shared cache kept losing {count_key}")
