"""The Tasks page's pictures (envs.pictures): each drawn once, on its first request, and
kept as a file under MEDIA_ROOT. The file's name carries PICTURE_VERSION, so a change to
how pictures are drawn makes new files instead of serving stale ones."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from django.conf import settings
from django.urls import reverse

from envs.pictures import task_picture
from envs.registry import all_tasks
from envs.render import encode_png

PICTURE_VERSION = 4
CACHE_DIR = "task-pictures"
# One drawing per task at a time in this process: a page's parallel requests for the
# same picture wait for it instead of starting the simulator twice.
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def picture_url(task_id: str) -> str:
    """The picture's address; the version in its query lets browsers, which keep it a
    day, fetch a picture drawn anew."""
    return f"{reverse('leaderboard:task-picture', args=task_id.split('/', 1))}?v={PICTURE_VERSION}"


def picture_path(task_id: str) -> Path:
    suite, name = task_id.split("/", 1)
    return Path(settings.MEDIA_ROOT) / CACHE_DIR / f"v{PICTURE_VERSION}" / suite / f"{name}.png"


def task_picture_file(task_id: str) -> Path:
    """The path of the task's picture, drawn now if no earlier request drew it
    (KeyError for an unknown task)."""
    cls = all_tasks()[task_id]
    path = picture_path(task_id)
    if path.exists():
        return path
    with _locks_guard:
        lock = _locks.setdefault(task_id, threading.Lock())
    with lock:
        if not path.exists():
            data = encode_png(task_picture(cls))
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
    return path
