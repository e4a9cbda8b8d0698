"""Content-addressed PNG storage: each distinct image is written once (docs/design.md §3).

Writing the file and recording the `StoredImage` row are separate: the file is written
as soon as an observation is rendered (so prompts and demonstrations can refer to it by
hash), the row is created in the transaction of the step that shows it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from pathlib import Path

from django.conf import settings

from arena.models import StoredImage

# Hashes whose file is known to exist, so repeated frames cost no stat().
_files: set[str] = set()


@dataclasses.dataclass(frozen=True)
class ImageRef:
    sha256: str
    width: int
    height: int
    size_bytes: int


def write_png_bytes(data: bytes, width: int, height: int) -> ImageRef:
    """Store encoded PNG bytes (a rendered frame, or a demonstration frame from a pool)."""
    sha = hashlib.sha256(data).hexdigest()
    if sha not in _files:
        path = image_path(sha)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Unique per thread as well as per process: episodes played in threads of one
            # worker often render the same frame at once (TextAtari's scenarios share
            # their seeds), and a shared temporary name let one thread move the other's
            # file away before its own rename.
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        _files.add(sha)
    return ImageRef(sha, width, height, len(data))


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk), without decoding it."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def image_path(sha256: str) -> Path:
    return Path(settings.MEDIA_ROOT) / StoredImage.relative_path_of(sha256)


def ensure_row(ref: ImageRef) -> None:
    """Record the image in the database (inside the caller's transaction); one
    INSERT that does nothing when the row exists."""
    StoredImage.objects.bulk_create(
        [StoredImage(sha256=ref.sha256, width=ref.width, height=ref.height, size_bytes=ref.size_bytes)],
        ignore_conflicts=True,
    )


def read_png(sha256: str) -> bytes:
    return image_path(sha256).read_bytes()
