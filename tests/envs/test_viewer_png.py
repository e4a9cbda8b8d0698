"""The replay's world pictures (envs.render.encode_viewer_png) decode to the very pixels
the encoder they replaced (encode_png, PIL's at zlib level 6) gives: only the bytes
changed (unfiltered rows, zlib level 1), not what a person watching the replay sees.

Held on random pixels of odd sizes and on every BALROG game's pictures, Crafter's
through a night (its frames carry noise then), by decoding both with PIL."""

import io

import numpy as np
import pytest
from PIL import Image

from envs.core import RandomLegalPolicy
from envs.registry import make
from envs.render import encode_png, encode_viewer_png


def _decoded(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG" and image.mode == "RGB"
        return np.asarray(image.convert("RGB"))


def _same_as_before(pixels: np.ndarray) -> None:
    replay, before = encode_viewer_png(pixels), encode_png(Image.fromarray(pixels))
    assert np.array_equal(_decoded(replay), pixels)
    assert np.array_equal(_decoded(replay), _decoded(before))
    assert encode_viewer_png(pixels.copy()) == replay, "equal pixels, equal bytes"


@pytest.mark.parametrize("shape", [(1, 1, 3), (2, 3, 3), (7, 5, 3), (64, 48, 3)])
def test_random_pixels_decode_to_themselves(shape):
    rng = np.random.default_rng(sum(shape))
    _same_as_before(rng.integers(0, 256, shape, dtype=np.uint8))


def test_a_view_that_is_not_contiguous_is_encoded_as_its_pixels():
    # crafter's frame is a transposed canvas
    canvas = np.random.default_rng(1).integers(0, 256, (6, 4, 3), dtype=np.uint8)
    _same_as_before(canvas.transpose((1, 0, 2)))


def test_anything_but_rgb_bytes_is_refused():
    with pytest.raises(ValueError, match="RGB"):
        encode_viewer_png(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="RGB"):
        encode_viewer_png(np.zeros((4, 4, 3), np.float64))


def test_crafter_frames_day_and_night():
    task = make("balrog/crafter", "text", max_steps=500)
    task.reset(1)  # random play lives 225 steps, 79 of them at night
    policy = RandomLegalPolicy(1)
    days = nights = 0
    while not task.done:
        task.step(policy.act(task))
        if task.steps_taken % 3 == 0:
            png = task.viewer_png()
            assert np.array_equal(_decoded(png), np.asarray(task.world_picture()))
            assert np.array_equal(_decoded(png), _decoded(encode_png(task.world_picture())))
            # Below half light, crafter's frame carries noise.
            if task._env._world.daylight < 0.5:
                nights += 1
            else:
                days += 1
    assert days > 20 and nights > 20


@pytest.mark.parametrize(
    "task_id", ["balrog/babyai-goto", "balrog/minihack-corridor-r3", "balrog/nethack", "balrog/babaisai"]
)
def test_the_other_games_pictures(task_id):
    task = make(task_id, "text")
    try:
        task.reset(seed=4)
        policy = RandomLegalPolicy(4)
        for _ in range(12):
            picture = task.world_picture()
            png = task.viewer_png()
            assert np.array_equal(_decoded(png), _decoded(encode_png(picture)))
            if task.done:
                break
            task.step(policy.act(task))
    finally:
        task.close()
