"""Several Daphne processes on one address (pre-fork).

One Daphne process answers HTTP in one thread of Python: about a core's worth of
requests. The launcher binds the address once per process, each socket with
SO_REUSEPORT, and starts N Daphnes, each accepting on its own inherited socket
(`daphne --fd`, through arena.web.web_process), so every process serves HTTP and
websockets alike. Why one socket each rather than one shared: on a shared socket every
process wakes for each connection and the quickest grabs a batch, so under 200
keep-alive clients one process held most of them (p99 11 s with 2 processes against
0.3 s with 1, bench/http_load.py); with SO_REUSEPORT the kernel spreads new
connections evenly over the sockets. A child's socket stays open in the launcher while
the child is restarted, so connections sent to it wait in its backlog instead of being
refused.

It restarts a child that dies (waiting longer after each quick crash), and on SIGINT or
SIGTERM stops them all: SIGTERM, then SIGKILL for any still there after a grace period.
Each child also asks the kernel for SIGTERM should the launcher itself die without
cleaning up, so no Daphne outlives it. Each child gets its number in ARENA_WEB_PROCESS.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field


APPLICATION = "config.asgi:application"
# Daphne's command line, with the garbage collector set for serving (see that module).
WEB_PROCESS = "arena.web.web_process"
GRACE_SECONDS = 10.0
# A child that lived less than this crashed on start: wait longer before the next try.
QUICK_EXIT_SECONDS = 10.0
MAX_RESTART_DELAY = 30.0
PR_SET_PDEATHSIG = 1


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` listening IPv4 sockets on one address, one per child (port 0: the first
    picks a free port and the others join it). IPv4 only: Daphne's `fd:` endpoint adopts
    sockets as IPv4 (it has no way to name another family)."""
    if ":" in host:
        raise OSError(f"the web processes listen on an IPv4 address; got {host!r}")
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
            sock.listen(4096)
            sock.set_inheritable(True)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _die_with_parent(parent: int):
    def prepare():
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the launcher died before prctl took effect
            os._exit(1)

    return prepare


@dataclass
class Child:
    number: int
    sock: socket.socket
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    quick_exits: int = 0
    restart_at: float = 0.0
    exits: list[int] = field(default_factory=list)


class Launcher:
    def __init__(self, sockets: list[socket.socket], *, application: str = APPLICATION,
                 daphne_options: tuple[str, ...] = ()):
        """One child per socket (listening_sockets)."""
        self.children = [Child(number, sock) for number, sock in enumerate(sockets)]
        self.application = application
        self.daphne_options = daphne_options
        self.stopping = False

    def command(self, child: Child) -> list[str]:
        return [sys.executable, "-m", WEB_PROCESS, "--fd", str(child.sock.fileno()),
                *self.daphne_options, self.application]

    def start(self, child: Child) -> None:
        env = {**os.environ, "ARENA_WEB_PROCESS": str(child.number)}
        child.process = subprocess.Popen(
            self.command(child), env=env, pass_fds=(child.sock.fileno(),), preexec_fn=_die_with_parent(os.getpid())
        )
        child.started_at = time.monotonic()

    def run(self) -> int:
        """Serve until SIGINT or SIGTERM; 0 once every child has stopped."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            for child in self.children:
                self.start(child)
            while not self.stopping:
                self._restart_exited()
                time.sleep(0.2)
        finally:
            self._stop_children()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 0

    def _stop(self, signum, frame) -> None:
        self.stopping = True

    def _restart_exited(self) -> None:
        if self.stopping:  # children ended by the Ctrl-C that stops us are not restarted
            return
        now = time.monotonic()
        for child in self.children:
            if child.process is None or child.process.poll() is None:
                if child.process is None and now >= child.restart_at:
                    self.start(child)
                continue
            code = child.process.returncode
            child.exits.append(code)
            lived = now - child.started_at
            child.quick_exits = child.quick_exits + 1 if lived < QUICK_EXIT_SECONDS else 0
            delay = min(MAX_RESTART_DELAY, 0.5 * 2 ** child.quick_exits)
            print(f"web process {child.number} (pid {child.process.pid}) exited with {code}; "
                  f"restarting in {delay:.1f} s", file=sys.stderr, flush=True)
            child.process, child.restart_at = None, now + delay

    def _stop_children(self) -> None:
        running = [c.process for c in self.children if c.process is not None and c.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        for process in running:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for child in self.children:
            child.sock.close()
