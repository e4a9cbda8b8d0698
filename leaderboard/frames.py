"""An episode's pictures as an animated GIF: the image observations of image tasks
(LMAct's rgb formats, Phoenix) or the pictures drawn for the viewer (TextAtari's screen,
the cheetah's body), whichever the steps hold, then the final observation.

Bounded: at most GIF_MAX_FRAMES frames, sampled evenly over the episode (the first and
the last always among them), each scaled to fit GIF_MAX_SIDE pixels, and only the
sampled steps are read from the database. Cached on disk, content-addressed: the file's
name is the hash of the frames' hashes and these settings, so an episode that gained
steps gets a new file and the same pictures are never encoded twice.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from pathlib import Path

from django.conf import settings
from PIL import Image

from arena.storage.images import image_path
from arena.models import Episode
from leaderboard.selectors.episodes import first_step_picture, frame_rows, last_step_index

GIF_MAX_FRAMES = 200
GIF_MAX_SIDE = 320
GIF_FRAME_MS = 100  # ten frames a second
CACHE_DIR = "exports/gif"


def sampled_indices(num_steps: int, cap: int = GIF_MAX_FRAMES) -> list[int]:
    """At most `cap` step indices spread evenly over 0..num_steps-1, both ends included."""
    if num_steps <= cap:
        return list(range(num_steps))
    return sorted({round(k * (num_steps - 1) / (cap - 1)) for k in range(cap)})


def frame_hashes(episode: Episode) -> list[str]:
    """The hashes of the pictures the GIF shows, in order (consecutive repeats kept: they
    hold the picture for as long as the game did)."""
    last = last_step_index(episode)
    last = -1 if last is None else last
    chosen = sampled_indices(last + 1, GIF_MAX_FRAMES - 1)  # one frame is kept for the end
    rows = frame_rows(episode, chosen)
    hashes = [image or (info or {}).get("viewer_frame") for image, info in rows]
    hashes = [sha for sha in hashes if sha]
    if episode.final_observation_image_id:
        hashes.append(episode.final_observation_image_id)
    return hashes


def _cache_path(hashes: list[str]) -> Path:
    key = hashlib.sha256(f"{GIF_MAX_SIDE}:{GIF_FRAME_MS}:{','.join(hashes)}".encode()).hexdigest()
    return Path(settings.MEDIA_ROOT) / CACHE_DIR / key[:2] / f"{key}.gif"


def _frame(sha: str) -> Image.Image:
    with Image.open(image_path(sha)) as picture:
        picture = picture.convert("RGB")
        picture.thumbnail((GIF_MAX_SIDE, GIF_MAX_SIDE))
        return picture.quantize(256)


def encode_gif(hashes: list[str]) -> bytes:
    frames = [_frame(sha) for sha in hashes]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=GIF_FRAME_MS, loop=0)
    return buffer.getvalue()


def episode_gif(episode: Episode) -> Path | None:
    """The path of the episode's GIF, made now if no earlier request made it; None when
    the episode has no pictures."""
    hashes = frame_hashes(episode)
    if not hashes:
        return None
    path = _cache_path(hashes)
    if not path.exists():
        data = encode_gif(hashes)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


def has_frames(episode: Episode) -> bool:
    """Whether the episode's first step holds a picture (image observation or viewer frame)."""
    first = first_step_picture(episode)
    return bool(first and (first[0] or (first[1] or {}).get("viewer_frame")))


def frames_state(episode: Episode) -> str | None:
    """"shown" when the episode has pictures; "unavailable" when its task draws them for
    the viewer but this episode holds none (the worker had no OpenGL to draw with, or
    played it before the task drew pictures); None for tasks without pictures and for
    imported episodes, whose logs never had any."""
    from envs.registry import all_tasks

    if has_frames(episode):
        return "shown"
    if episode.run.submission.is_imported:
        return None
    task = all_tasks().get(episode.run.task)
    if task is not None and task.viewer_frames and episode.num_steps:
        return "unavailable"
    return None
