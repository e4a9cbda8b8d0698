"""A real OpenAI-compatible model server for tests: llama.cpp's `llama-server` on loopback.

    with LlamaServer.start() as server:
        httpx.post(server.base_url + "/chat/completions", json={...})

By default it runs the tiny random-weight model of tests/support/tiny_gguf.py the way the
first real server the product met was run: a 4,096-token context window, one slot (a
second request waits in the queue), a real byte-level BPE tokenizer, a ChatML template,
and no image support (no multimodal projector). `LlamaServer.start(model=...)` runs
another GGUF instead (tests/support/smollm2.py's real instruction-tuned model), with
`jinja=True` applying the model's own chat template as `llama-server --jinja` does, and
`chat_template_file` replacing it (tests/support/chat_templates/). The binary comes from
scripts/build_llama_server.sh, which builds it on first use and otherwise only prints
where it is cached.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

import httpx

from tests.support import tiny_gguf

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "scripts" / "build_llama_server.sh"

CONTEXT_WINDOW = 4096
SLOTS = 1
SEED = 42
MODEL_ID = tiny_gguf.MODEL_NAME
STARTUP_TIMEOUT_SECONDS = 60.0
LOG_TAIL_LINES = 40


class LlamaServerError(RuntimeError):
    """The server could not be built or started; the message says why."""


def server_binary() -> Path:
    """The cached llama-server binary, built first if this machine has none (minutes, once)."""
    result = subprocess.run(
        [str(BUILD_SCRIPT)],
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise LlamaServerError(f"{BUILD_SCRIPT.name} failed (exit {result.returncode}):\n{result.stderr.strip()}")
    lines = result.stdout.strip().splitlines()
    binary = Path(lines[-1]) if lines else None
    if binary is None or not os.access(binary, os.X_OK):
        raise LlamaServerError(f"{BUILD_SCRIPT.name} printed no usable binary path: {result.stdout!r}")
    return binary


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:]) or "(the server wrote nothing)"


class ServerProcess:
    """Stopping a model server started as a child process, as a context manager: the
    part every server of tests/support/*_server.py shares (each has `process` and
    `owned_log_dir`, the temporary log folder it made when none was given)."""

    process: subprocess.Popen
    owned_log_dir: tempfile.TemporaryDirectory | None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.owned_log_dir:
            self.owned_log_dir.cleanup()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


@dataclasses.dataclass
class LlamaServer(ServerProcess):
    process: subprocess.Popen
    port: int
    log_path: Path
    model_path: Path
    owned_log_dir: tempfile.TemporaryDirectory | None = None
    model_id: str = MODEL_ID
    context_window: int = CONTEXT_WINDOW
    slots: int = SLOTS

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What a submission's base URL would be: the OpenAI-compatible API root."""
        return f"{self.root_url}/v1"

    @classmethod
    def start(
        cls,
        log_dir: Path | None = None,
        *,
        model: Path | None = None,
        model_id: str = MODEL_ID,
        context_window: int = CONTEXT_WINDOW,
        slots: int = SLOTS,
        jinja: bool = False,
        chat_template_file: Path | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> LlamaServer:
        """Start the server and wait until it answers /health; the log goes to `log_dir`
        (a temporary directory removed on stop when none is given)."""
        binary = server_binary()
        model = model or tiny_gguf.cached_model(binary.parent.parent / "models")
        extra = ["--jinja"] if jinja else []
        if chat_template_file is not None:
            extra += ["--chat-template-file", str(chat_template_file)]
        extra += list(extra_args)
        options = dict(model_id=model_id, context_window=context_window, slots=slots)
        owned_log_dir = None if log_dir else tempfile.TemporaryDirectory(prefix="llama-server-")
        log_dir = Path(log_dir or owned_log_dir.name)
        # A port picked free can be taken by someone else before the server binds it.
        attempts = 3
        for attempt in range(1, attempts + 1):
            port = free_loopback_port()
            log_path = log_dir / f"llama-server-{port}.log"
            process = cls._spawn(binary, model, port, log_path, extra, **options)
            server = cls(process, port, log_path, model, owned_log_dir, **options)
            try:
                server._wait_until_healthy()
                return server
            except LlamaServerError:
                port_taken = "bind" in log_tail(log_path).lower()
                server.process.kill()
                server.process.wait()
                if attempt == attempts or not port_taken:
                    if owned_log_dir:
                        owned_log_dir.cleanup()
                    raise

    @staticmethod
    def _spawn(binary: Path, model: Path, port: int, log_path: Path, extra: list[str], *, model_id: str,
               context_window: int, slots: int) -> subprocess.Popen:
        command = [
            str(binary),
            "--model", str(model),
            "--alias", model_id,
            "--host", "127.0.0.1",
            "--port", str(port),
            # The whole window for each slot (llama.cpp splits --ctx-size between slots).
            "--ctx-size", str(context_window * slots),
            "--parallel", str(slots),
            "--seed", str(SEED),
            # The model is tiny: one thread is plenty and leaves the other core to the tests.
            "--threads", "1",
            "--threads-batch", "1",
            "--no-webui",
            "--log-verbosity", "2",  # warnings and errors only
            "--log-colors", "off",
            *extra,
        ]
        # llama-server reads LLAMA_ARG_* variables as options; a developer's own settings
        # must not change the server the tests describe.
        environment = {name: value for name, value in os.environ.items() if not name.startswith("LLAMA_ARG_")}
        with open(log_path, "wb") as log:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment,
            )

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise LlamaServerError(
                        f"llama-server exited with code {self.process.returncode} while starting; "
                        f"the end of its log ({self.log_path}):\n{log_tail(self.log_path)}"
                    )
                try:
                    healthy = client.get(f"{self.root_url}/health").status_code == 200
                    # Still alive after answering: the answer was ours, not from whoever
                    # may have taken the port first (then our server exits, failing to bind).
                    if healthy and self.process.poll() is None:
                        return
                except httpx.TransportError:
                    pass  # not listening yet
                time.sleep(0.05)
        raise LlamaServerError(
            f"llama-server was not healthy after {STARTUP_TIMEOUT_SECONDS:.0f} s; "
            f"the end of its log ({self.log_path}):\n{log_tail(self.log_path)}"
        )
