"""An ASGI layer in front of Django that answers anonymous GETs of the public pages —
the front page, the leaderboard API (the overall one too, JSON and CSV), the task list,
task and suite pages, model pages and paired comparisons — from the process's memory.

Why here and not in Django's cache framework: a Daphne process runs synchronous views
one at a time in its single sync thread, and Django's cache on SQLite costs a query; a
hit answered before Django is reached costs neither, which is what lets one process
answer hundreds of viewers.

What keeps it correct:
- Only requests that cannot carry anything personal are served or stored: GET, no
  `Authorization` header, no session or messages cookie. A signed-in user's pages are
  always rendered for them, so no user can be shown another's page.
- A response is stored only if it is a complete 200 that sets no cookie, is not marked
  private or no-store, and varies on nothing but the headers in the key.
- The key is the path, the query string, the scheme, the Host and the Accept* headers;
  each entry remembers the page generation (arena.page_generation) it was rendered under
  and is served only while that generation is current. The generation is re-read at
  most every ARENA_PAGE_CACHE_CHECK_SECONDS, which bounds how stale a page can be.
- When many viewers ask for the same missing page at once, one renders it and the others
  wait for that rendering instead of queueing their own behind it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections import OrderedDict
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.cookie import parse_cookie

from arena import page_generation
from arena.web import throttles

logger = logging.getLogger(__name__)

# The pages read far more often than they change; everything else goes straight through.
# The model page and the paired comparison are read-side pages too (the comparison's
# bootstrap is the costliest render of all); a signed-in owner's page is never stored.
CACHEABLE_PATH = re.compile(
    r"^/(?:|tasks/|tasks/[\w-]+/[\w-]+/|suites/[\w-]+/|api/leaderboard/|api/leaderboard/overall/|api/tasks/"
    r"|submissions/[0-9]+/|compare/|api/compare/)$"
)
KEYED_HEADERS = (b"host", b"accept", b"accept-encoding", b"accept-language")
# A stored response may vary on these: the key holds them, and requests with the cookies
# that matter (session, messages) are never served from the cache.
ALLOWED_VARY = {"accept", "accept-encoding", "accept-language", "cookie", "host"}
MESSAGES_COOKIE = "messages"  # django.contrib.messages' cookie storage
MAX_BODY_BYTES = 4 * 1024 * 1024
# What one process keeps at most, whatever the number of entries: query strings can make
# any number of distinct keys.
MAX_TOTAL_BYTES = 64 * 1024 * 1024
HIT_HEADER = (b"x-arena-page-cache", b"hit")


async def _too_many(send, message: str, wait: float) -> None:
    await send({"type": "http.response.start", "status": 429, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", str(math.ceil(wait)).encode()),
    ]})
    await send({"type": "http.response.body", "body": message.encode()})


@dataclass(frozen=True)
class Entry:
    generation: str
    status: int
    headers: tuple
    body: bytes


class PageCache:
    """Wraps an ASGI application (the HTTP side of config.asgi)."""

    def __init__(self, app, *, check_seconds: float | None = None, max_entries: int | None = None,
                 read_generation=page_generation.current, clock=time.monotonic):
        self.app = app
        self.check_seconds = settings.ARENA_PAGE_CACHE_CHECK_SECONDS if check_seconds is None else check_seconds
        self.max_entries = settings.ARENA_PAGE_CACHE_ENTRIES if max_entries is None else max_entries
        self.read_generation = read_generation
        self.clock = clock
        self.entries: OrderedDict[tuple, Entry] = OrderedDict()
        self.stored_bytes = 0
        self.rendering: dict[tuple, asyncio.Future] = {}
        self.generation: str | None = None
        self.read_once = False
        self.checked_at = 0.0
        self.checking: asyncio.Future | None = None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not _anonymous_public_get(scope):
            return await self.app(scope, receive, send)
        if scope["path"].startswith("/api/"):
            # Answered here, an API read would escape the address's API read limit;
            # counted here, Django's throttle does not count it again.
            wait = await sync_to_async(throttles.api_read_wait)(scope)
            if wait is not None:
                return await _too_many(send, throttles.API_READS.refusal(wait), wait)
            scope = {**scope, throttles.COUNTED_IN_SCOPE: True}
        generation = await self._current_generation()
        if generation is None:
            return await self.app(scope, receive, send)
        key = _key(scope)
        if await self._answer_from_cache(key, generation, send):
            return
        if key in self.rendering:
            # Someone is rendering this page: wait for it, then try again.
            await asyncio.wait([self.rendering[key]])
            if await self._answer_from_cache(key, generation, send):
                return
            return await self.app(scope, receive, send)
        done = asyncio.get_running_loop().create_future()
        self.rendering[key] = done
        try:
            recorder = _Recorder(send)
            await self.app(scope, receive, recorder.send)
            entry = recorder.entry(generation)
            if entry is not None:
                self._store(key, entry)
        finally:
            del self.rendering[key]
            done.set_result(None)

    async def _answer_from_cache(self, key, generation: str, send) -> bool:
        entry = self.entries.get(key)
        if entry is None or entry.generation != generation:
            return False
        self.entries.move_to_end(key)
        await send({"type": "http.response.start", "status": entry.status, "headers": [*entry.headers, HIT_HEADER]})
        await send({"type": "http.response.body", "body": entry.body})
        return True

    def _store(self, key, entry: Entry) -> None:
        self._drop(key)
        self.entries[key] = entry
        self.stored_bytes += len(entry.body)
        while len(self.entries) > self.max_entries or self.stored_bytes > MAX_TOTAL_BYTES:
            self._drop(next(iter(self.entries)))  # the least recently used

    def _drop(self, key) -> None:
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.stored_bytes -= len(entry.body)

    async def _current_generation(self) -> str | None:
        """The generation, re-read when the last read is older than check_seconds; the
        requests arriving meanwhile share one read. None when it cannot be read."""
        if self.read_once and self.clock() - self.checked_at < self.check_seconds:
            return self.generation
        if self.checking is None:
            self.checking = asyncio.ensure_future(self._read())
        await asyncio.wait([self.checking])
        return self.generation

    async def _read(self) -> None:
        started = self.clock()
        try:
            # Not thread-sensitive: the read must not queue behind the views rendering in
            # the process's single sync thread.
            self.generation = await sync_to_async(self.read_generation, thread_sensitive=False)()
        except Exception:  # the store is unreachable: serve fresh pages until it is back
            logger.exception("could not read the page generation")
            self.generation = None
        finally:
            self.read_once, self.checked_at, self.checking = True, started, None
        # Entries of older generations can never be served again.
        for key in [key for key, entry in self.entries.items() if entry.generation != self.generation]:
            self._drop(key)


def _anonymous_public_get(scope) -> bool:
    if scope["method"] != "GET" or not CACHEABLE_PATH.match(scope["path"]):
        return False
    for name, value in scope["headers"]:
        if name == b"authorization":
            return False
        if name == b"cookie":
            cookies = parse_cookie(value.decode("latin-1"))
            if settings.SESSION_COOKIE_NAME in cookies or MESSAGES_COOKIE in cookies:
                return False
    return True


def _key(scope) -> tuple:
    headers = {name: value for name, value in scope["headers"] if name in KEYED_HEADERS}
    return (scope["path"], scope["query_string"], scope.get("scheme", "http"),
            *(headers.get(name, b"") for name in KEYED_HEADERS))


class _Recorder:
    """Passes the response through to the client while keeping a copy, if storable."""

    def __init__(self, send):
        self._send = send
        self.status = 0
        self.headers: list = []
        self.chunks: list[bytes] = []
        self.size = 0
        self.storable = False
        self.complete = False

    async def send(self, message):
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
            self.storable = self.status == 200 and _storable_headers(self.headers)
        elif message["type"] == "http.response.body" and self.storable:
            body = message.get("body", b"")
            self.size += len(body)
            if self.size > MAX_BODY_BYTES:
                self.storable, self.chunks = False, []
            else:
                self.chunks.append(body)
            self.complete = not message.get("more_body", False)
        await self._send(message)

    def entry(self, generation: str) -> Entry | None:
        if not (self.storable and self.complete):
            return None
        return Entry(generation, self.status, tuple(self.headers), b"".join(self.chunks))


def _storable_headers(headers) -> bool:
    for name, value in headers:
        name = name.lower()
        if name == b"set-cookie":
            return False
        if name == b"cache-control" and any(word in value.lower() for word in (b"private", b"no-store")):
            return False
        if name == b"vary":
            varied = {part.strip().lower() for part in value.decode("latin-1").split(",")}
            if not varied <= ALLOWED_VARY:
                return False
    return True
