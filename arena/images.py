"""Content-addressed PNG storage: each distinct image is written once (DESIGN §3)."""

import hashlib
import io
import os
from pathlib import Path

from django.conf import settings
from PIL import Image

from arena.models import StoredImage

# SHA-256 values known to be stored, so repeated frames cost no query.
_known: set[str] = set()


def encode_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    # No optimisation pass and no metadata: the same pixels give the same bytes.
    image.convert("RGB").save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def store_png_bytes(data: bytes, width: int, height: int) -> StoredImage:
    sha = hashlib.sha256(data).hexdigest()
    stored = StoredImage(sha256=sha, width=width, height=height, size_bytes=len(data))
    path = Path(settings.MEDIA_ROOT) / stored.relative_path
    if sha in _known and path.exists():
        return stored
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    stored, _ = StoredImage.objects.get_or_create(
        sha256=sha, defaults={"width": width, "height": height, "size_bytes": len(data)}
    )
    _known.add(sha)
    return stored


def store_image(image: Image.Image) -> StoredImage:
    return store_png_bytes(encode_png(image), image.width, image.height)


def read_png(sha256: str) -> bytes:
    return (Path(settings.MEDIA_ROOT) / f"images/{sha256[:2]}/{sha256}.png").read_bytes()
