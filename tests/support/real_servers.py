"""The three real model servers the suites are played against (tests/arena/
test_real_servers.py, bench/real_servers.py), all running a real instruction-tuned
model (tests/support/smollm2.py):

* "llama-server": llama.cpp's server with --jinja, applying the model's own template;
* "llama-server-alternating": the same with a template that, like Gemma's official
  one, refuses a system message and turns of one role in a row
  (tests/support/chat_templates/alternating_chatml.jinja);
* "llama-cpp-python": llama-cpp-python's own server, string content only.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from tests.support import smollm2
from tests.support.llama_cpp_python_server import LlamaCppPythonServer
from tests.support.llama_server import LlamaServer

SERVERS = ("llama-server", "llama-server-alternating", "llama-cpp-python")
ALTERNATING_TEMPLATE = Path(__file__).parent / "chat_templates" / "alternating_chatml.jinja"
CONTEXT_WINDOW = 8192


@contextlib.contextmanager
def real_server(kind: str, log_dir: Path | None = None, slots: int = 1, verbose: bool = False,
                extra_args: tuple[str, ...] = ()):
    """`verbose`: llama-cpp-python's per-call log (bench/real_server.py reads it);
    `extra_args`: more llama-server options (bench/slot_affinity.py's --cache-ram)."""
    model = smollm2.cached_model()
    if kind == "llama-cpp-python":
        server = LlamaCppPythonServer.start(model, smollm2.MODEL_ID, context_window=CONTEXT_WINDOW, log_dir=log_dir,
                                              verbose=verbose)
    else:
        template = ALTERNATING_TEMPLATE if kind == "llama-server-alternating" else None
        server = LlamaServer.start(log_dir, model=model, model_id=smollm2.MODEL_ID, context_window=CONTEXT_WINDOW,
                                   slots=slots, jinja=True, chat_template_file=template,
                                   extra_args=extra_args)
    try:
        yield server
    finally:
        server.stop()
