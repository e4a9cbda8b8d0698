"""Pictures of the cheetah for the person watching a replay (never shown to the agent).

MuJoCo draws the body off-screen through an OpenGL context without a display: EGL
(apt `libegl1 libgl1-mesa-dri`) or, failing that, OSMesa (apt `libosmesa6`). Which one
is chosen once, before MuJoCo is first imported (`choose_gl_backend`); an operator may
pick it with MUJOCO_GL. Without any, `CheetahCamera.png` returns None and the episode
plays on without pictures.

Every rendering call of the process runs on one dedicated thread: an OpenGL context may
be current on only one thread at a time, and the runner steps an episode on whichever
worker thread is free. The frame is small (FRAME_WIDTH × FRAME_HEIGHT), drawn from
dm_control's "side" camera (which follows the body), without the starry sky (noise that
would cost most of the PNG's bytes), without shadows and the floor's reflection (with
software OpenGL they were 5/6 of the drawing time: 35 ms a frame against 6 ms), and
reduced to FRAME_COLOURS colours (fast octree: a third of the median cut's time); a frame
then costs about 2.6 kB (bench/cheetah_frames.py).
"""

from __future__ import annotations

import concurrent.futures
import ctypes.util
import io
import logging
import os

logger = logging.getLogger(__name__)

FRAME_WIDTH = 240
FRAME_HEIGHT = 180
FRAME_COLOURS = 64
CAMERA = "side"

_render_thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mujoco-render")


def choose_gl_backend() -> str:
    """The value of MUJOCO_GL this process renders with, set if the environment did not
    choose: EGL when its library is installed, else OSMesa, else "disable" (no pictures).
    Must run before mujoco or dm_control is imported: both read it at import."""
    if "MUJOCO_GL" not in os.environ:
        if ctypes.util.find_library("EGL"):
            backend = "egl"
        elif ctypes.util.find_library("OSMesa"):
            backend = "osmesa"
        else:
            backend = "disable"
        os.environ["MUJOCO_GL"] = backend
    return os.environ["MUJOCO_GL"]


class CheetahCamera:
    """One episode's renderer. Created lazily on the render thread; after the first
    failure (no OpenGL) it stops trying, so an episode pays for it once."""

    def __init__(self):
        self._renderer = None
        self.unavailable = choose_gl_backend().lower() in ("disable", "disabled", "off", "false", "0")

    def png(self, model, data) -> bytes | None:
        """The body as it stands in `data` now, PNG-encoded; None without OpenGL."""
        if self.unavailable:
            return None
        try:
            return _render_thread.submit(self._draw, model, data).result()
        except Exception as exc:  # a missing or broken OpenGL driver raises many kinds
            logger.warning("the cheetah cannot be drawn, the replay will show no pictures: %r", exc)
            self.unavailable = True
            return None

    def close(self) -> None:
        if self._renderer is not None:
            renderer, self._renderer = self._renderer, None
            _render_thread.submit(renderer.close).result()

    def _draw(self, model, data) -> bytes:
        import mujoco
        from PIL import Image

        if self._renderer is None:
            self._renderer = mujoco.Renderer(model, FRAME_HEIGHT, FRAME_WIDTH)
        renderer = self._renderer
        renderer.update_scene(data, camera=CAMERA)
        for costly in (mujoco.mjtRndFlag.mjRND_SKYBOX, mujoco.mjtRndFlag.mjRND_SHADOW, mujoco.mjtRndFlag.mjRND_REFLECTION):
            renderer.scene.flags[costly] = False
        pixels = renderer.render()
        buffer = io.BytesIO()
        Image.fromarray(pixels).quantize(FRAME_COLOURS, method=Image.Quantize.FASTOCTREE).save(buffer, format="PNG")
        return buffer.getvalue()
