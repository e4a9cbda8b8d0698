"""llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`) for tests.

    with LlamaCppPythonServer.start(model) as server:
        httpx.post(server.base_url + "/chat/completions", json={...})

One of the most used local servers: it applies the model's own chat template with
Jinja2 in Python, so message content must be a string (a list of content parts makes the
template add a list to a string: HTTP 500); it has no /props, and its /v1/models does
not say how long its context is. It runs from its own virtual environment, built once
by scripts/build_llama_cpp_python.sh and cached outside the clone.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from tests.support.llama_server import REPO_ROOT, ServerProcess, free_loopback_port, log_tail

BUILD_SCRIPT = REPO_ROOT / "scripts" / "build_llama_cpp_python.sh"
STARTUP_TIMEOUT_SECONDS = 120.0
CONTEXT_WINDOW = 4096


class LlamaCppPythonError(RuntimeError):
    """The server could not be built or started; the message says why."""


def server_python() -> Path:
    """The interpreter of the cached server environment, built first if there is none."""
    result = subprocess.run([str(BUILD_SCRIPT)], cwd=REPO_ROOT, stdin=subprocess.DEVNULL, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise LlamaCppPythonError(f"{BUILD_SCRIPT.name} failed (exit {result.returncode}):\n{result.stderr.strip()}")
    lines = result.stdout.strip().splitlines()
    python = Path(lines[-1]) if lines else None
    if python is None or not os.access(python, os.X_OK):
        raise LlamaCppPythonError(f"{BUILD_SCRIPT.name} printed no usable interpreter: {result.stdout!r}")
    return python


@dataclasses.dataclass
class LlamaCppPythonServer(ServerProcess):
    process: subprocess.Popen
    port: int
    log_path: Path
    model_id: str
    context_window: int
    owned_log_dir: tempfile.TemporaryDirectory | None = None

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @classmethod
    def start(cls, model: Path, model_id: str, *, context_window: int = CONTEXT_WINDOW,
              log_dir: Path | None = None, verbose: bool = False) -> LlamaCppPythonServer:
        """`verbose` logs, per call, how many prompt tokens the server evaluated (its
        usage reports no cached count): bench/real_server.py reads them."""
        python = server_python()
        owned = None if log_dir else tempfile.TemporaryDirectory(prefix="llama-cpp-python-")
        log_dir = Path(log_dir or owned.name)
        port = free_loopback_port()
        log_path = log_dir / f"llama-cpp-python-{port}.log"
        command = [
            str(python), "-m", "llama_cpp.server",
            "--model", str(model),
            "--model_alias", model_id,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(context_window),
            # One thread each: the model is small, and the other core is the tests'.
            "--n_threads", "1",
            "--n_threads_batch", "1",
            "--seed", "42",
            "--verbose", str(verbose),
        ]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       cwd=log_dir)
        server = cls(process, port, log_path, model_id, context_window, owned)
        try:
            server._wait_until_ready()
        except LlamaCppPythonError:
            server.stop()
            raise
        return server

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise LlamaCppPythonError(
                        f"llama_cpp.server exited with code {self.process.returncode} while starting; "
                        f"the end of its log:\n{log_tail(self.log_path)}"
                    )
                try:
                    if client.get(f"{self.base_url}/models").status_code == 200 and self.process.poll() is None:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise LlamaCppPythonError(f"llama_cpp.server was not ready after {STARTUP_TIMEOUT_SECONDS:.0f} s; "
                                  f"the end of its log:\n{log_tail(self.log_path)}")
