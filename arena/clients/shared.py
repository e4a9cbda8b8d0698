"""One HTTP client, and the SDK client on it, per endpoint and tenant, shared by every
episode that calls them: a worker plays up to 64 episodes of a submission at once, and
each would otherwise build its own SDK client, guard and connection pool. Shared per
event loop (a pool belongs to its loop) and per key holding all that decides what goes
on the wire (client class, URL, digests of the secrets, headers, guard settings), so two
submissions or two keys never share one. The last client to close closes it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import weakref
from collections.abc import Callable
from typing import Any

import httpx2


@dataclasses.dataclass(eq=False)
class Connection:
    """An httpx2 client and the SDK client that sends through it (None where the
    client posts JSON itself), the URL guard under it (`guard`: OpenAI's direct lane
    uses it), how many model clients use them, and what the SDK built once for them
    (`heads`: arena.clients.openai_compat.openai_post)."""

    http: httpx2.AsyncClient
    sdk: Any
    guard: Any
    users: int = 0
    heads: dict = dataclasses.field(default_factory=dict)


_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, Connection]] = weakref.WeakKeyDictionary()


def digest(secret: str) -> str:
    """What stands for a credential in a key: two keys never share a connection, and
    the table of connections never holds one."""
    return hashlib.sha256(secret.encode()).hexdigest() if secret else ""


def acquire(key: tuple, build: Callable[[], tuple[httpx2.AsyncClient, Any, Any]]) -> Connection:
    """The running loop's connection for `key`, built by `build` if there is none."""
    connections = _BY_LOOP.setdefault(asyncio.get_running_loop(), {})
    connection = connections.get(key)
    if connection is None or connection.http.is_closed:
        connection = connections[key] = Connection(*build())
    connection.users += 1
    return connection


async def release(key: tuple, connection: Connection) -> None:
    """One user fewer; the last one closes the connection."""
    connection.users -= 1
    if connection.users > 0:
        return
    connections = _BY_LOOP.get(asyncio.get_running_loop(), {})
    if connections.get(key) is connection:
        del connections[key]
    await connection.http.aclose()


def open_connections() -> int:
    """How many connections the running loop holds (for tests and the bench)."""
    return len(_BY_LOOP.get(asyncio.get_running_loop(), {}))
