"""Embedded mode's push across processes (docs/design.md §3).

Without Redis the channel layer lives in each process's memory, and the worker that
commits a step is another process than the web servers holding the viewers' websockets
(there may be several of them, each coming and going). So every web process serving
live websockets binds a Unix datagram socket, named after its pid, in
ARENA_LIVE_SIGNAL_DIR; a publisher sends each channel-layer message to every socket
there, and the web process hands it to its own in-memory layer. A socket file whose
process died refuses the datagram and is removed by the publisher.

Datagrams can be refused for lack of room too: the kernel queues only a few per socket
(net.unix.max_dgram_qlen). A worker committing dozens of steps at once therefore packs
its messages into few datagrams, and keeps those a busy web process refused to send
again shortly. What is lost all the same is found by the consumers themselves: the next
message of the episode shows them the gap, and a slow poll is the last resort.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import json
import logging
import os
import socket
import threading
import time

from django.conf import settings

logger = logging.getLogger(__name__)

# Well below a datagram socket's default send buffer (about 200 KB on Linux).
DATAGRAM_MAX_BYTES = 64_000
SUFFIX = ".sock"
# The directory is listed again when it changes, and at least this often: its
# modification time is too coarse to show two changes in quick succession.
RESCAN_SECONDS = 1.0
RETRY_SECONDS = 0.01
# Datagrams a web process refused that are kept for it; older ones are dropped.
BACKLOG_MAX = 256


def signal_dir() -> str:
    return str(settings.ARENA_LIVE_SIGNAL_DIR)


def _pack(envelopes: list[bytes]) -> list[bytes]:
    """The envelopes as JSON arrays of at most DATAGRAM_MAX_BYTES each, in order."""
    datagrams, current, size = [], [], 2
    for envelope in envelopes:
        if current and size + len(envelope) + 1 > DATAGRAM_MAX_BYTES:
            datagrams.append(b"[" + b",".join(current) + b"]")
            current, size = [], 2
        current.append(envelope)
        size += len(envelope) + 1
    if current:
        datagrams.append(b"[" + b",".join(current) + b"]")
    return datagrams


def _envelope(group: str, message: dict) -> bytes:
    envelope = json.dumps([group, message], separators=(",", ":")).encode()
    if len(envelope) + 2 > DATAGRAM_MAX_BYTES and "frame" in message:
        # Too large to travel: the consumers read the step from the database instead.
        envelope = json.dumps([group, {k: v for k, v in message.items() if k != "frame"}], separators=(",", ":")).encode()
    return envelope


class Outbox:
    """The sending side, one per process. `post` may be called from any thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._pending: list[bytes] = []
        # The loops a flush and a retry are waiting on: a loop may close first (a
        # worker's loop per episode), and then the next one must take over.
        self._flush_on: asyncio.AbstractEventLoop | None = None
        self._retry_on: asyncio.AbstractEventLoop | None = None
        self._socket: socket.socket | None = None
        self._peers: list[str] = []
        self._scanned: tuple[str, int] | None = None
        self._scanned_at = 0.0
        self._backlog: dict[str, collections.deque] = {}

    # False only in bench/concurrency.py's row that measures what this saves.
    skips_when_unheard = True

    def post(self, group: str, message: dict, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Send `message` to `group` in every other process listening. With a running
        `loop` (a worker's), messages posted together leave together from that loop."""
        with self._lock:
            if self.skips_when_unheard and not self._pending and not self._backlog and not self._peer_paths():
                # No other process listens: the flush would send this to nobody. Not
                # building it, nor waking the loop for it, is most of what a step's
                # announcement costs a worker that nobody watches.
                return
            self._pending.append(_envelope(group, message))
            if loop is None or not loop.is_running() or loop.is_closed():
                self._flush_locked(None)
                return
            if self._flush_on is loop:
                return
            self._flush_on = loop
        loop.call_soon_threadsafe(self._flush, loop)

    def heard(self) -> bool:
        """Whether `post` would send anything now (False: it would return at once)."""
        with self._lock:
            return not self.skips_when_unheard or bool(self._pending or self._backlog or self._peer_paths())

    def has_peers(self) -> bool:
        with self._lock:
            return bool(self._peer_paths())

    def _flush(self, loop) -> None:
        with self._lock:
            if self._flush_on is loop:
                self._flush_on = None
            self._flush_locked(loop)

    def _retry(self, loop) -> None:
        with self._lock:
            if self._retry_on is loop:
                self._retry_on = None
            self._flush_locked(loop)

    def _flush_locked(self, loop) -> None:
        datagrams = _pack(self._pending)
        self._pending = []
        peers = self._peer_paths()
        for path in set(self._backlog) - set(peers):
            del self._backlog[path]
        for path in peers:
            queue = self._backlog.get(path)
            if queue is None:
                queue = self._backlog[path] = collections.deque(maxlen=BACKLOG_MAX)
            queue.extend(datagrams)
            self._send_queue(path, queue)
            if not queue:
                del self._backlog[path]
        if self._backlog and loop is not None and self._retry_on is not loop and not loop.is_closed():
            self._retry_on = loop
            loop.call_later(RETRY_SECONDS, self._retry, loop)
        elif self._backlog and loop is None:
            # Nobody would send them later (no loop here): what the gap shows is enough.
            self._backlog.clear()

    def _send_queue(self, path: str, queue: collections.deque) -> None:
        sender = self._sender()
        while queue:
            try:
                sender.sendto(queue[0], path)
            except BlockingIOError:
                return  # that process is busy: keep the rest for the retry
            except (ConnectionRefusedError, FileNotFoundError):
                # Nobody listens there any more: a dead process's socket file.
                with contextlib.suppress(OSError):
                    os.unlink(path)
                self._scanned = None
                queue.clear()
                return
            except OSError as exc:
                logger.warning("could not signal %s: %s", path, exc)
                queue.clear()
                return
            queue.popleft()

    def _sender(self) -> socket.socket:
        if self._socket is None:
            sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sender.setblocking(False)
            with contextlib.suppress(OSError):
                # Datagrams queued at the receivers count against the sender's buffer.
                sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
            self._socket = sender
        return self._socket

    def _peer_paths(self) -> list[str]:
        directory = signal_dir()
        try:
            mtime = os.stat(directory).st_mtime_ns
        except FileNotFoundError:
            return []
        now = time.monotonic()
        if self._scanned != (directory, mtime) or now - self._scanned_at > RESCAN_SECONDS:
            own = listener.path
            with os.scandir(directory) as entries:
                self._peers = sorted(e.path for e in entries if e.name.endswith(SUFFIX) and e.path != own)
            self._scanned, self._scanned_at = (directory, mtime), now
        return self._peers


class Listener:
    """The receiving side: this process's socket, read by its event loop."""

    def __init__(self):
        self.path: str | None = None
        self._socket: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._deliver = None
        self._tried: tuple | None = None  # (loop, directory) of the last attempt to bind
        atexit.register(self.close)

    def listen(self, deliver) -> None:
        """Bind this process's socket (once per event loop) and call the coroutine
        function `deliver(group, message)` with every message that arrives."""
        loop = asyncio.get_running_loop()
        directory = signal_dir()
        if self._tried == (loop, directory):
            return
        self.close()
        self._tried = (loop, directory)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"{os.getpid()}{SUFFIX}")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by a dead process that had this pid
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            receiver.setblocking(False)
            receiver.bind(path)
        except OSError as exc:
            receiver.close()
            logger.warning("live steps from other processes will come only by polling: %s", exc)
            return
        self._socket, self._loop, self.path, self._deliver = receiver, loop, path, deliver
        loop.add_reader(receiver.fileno(), self._readable)

    def _readable(self) -> None:
        envelopes = []
        while True:
            try:
                datagram = self._socket.recv(DATAGRAM_MAX_BYTES * 2)
            except (BlockingIOError, InterruptedError):
                break
            try:
                envelopes.extend(json.loads(datagram))
            except ValueError:
                logger.warning("ignored a malformed live signal of %d bytes", len(datagram))
        if envelopes:
            self._loop.create_task(self._hand_over(envelopes))

    async def _hand_over(self, envelopes: list) -> None:
        for group, message in envelopes:
            try:
                await self._deliver(group, message)
            except Exception:
                logger.exception("could not hand a live signal to %s", group)

    def close(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._socket.fileno())
            self._socket.close()
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        self._socket, self._loop, self.path, self._tried = None, None, None, None


outbox = Outbox()
listener = Listener()
