"""The replay's picture of the world for BALROG's text runs (envs.balrog.protocol,
BalrogTask.viewer_png): drawn by the engine (minigrid, crafter, NetHack's tiles) or the
arena's Baba Is AI sprites, for the viewer only, and none for image runs, whose
observation already is the picture."""

import io

import numpy as np
import pytest
from PIL import Image

from envs.registry import make

# task id -> the smallest size its picture may have (width, height).
PICTURED = {
    "balrog/babyai-goto": (8 * 16, 8 * 16),
    "balrog/crafter": (256, 256),
    "balrog/minihack-corridor-r3": (3 * 16, 3 * 16),
    "balrog/nethack": (3 * 16, 3 * 16),
    "balrog/babaisai": (5 * 32, 5 * 32),
}


def _picture(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("task_id", sorted(PICTURED))
def test_a_text_run_gets_a_non_blank_picture_of_the_world_that_follows_the_game(task_id):
    task = make(task_id, "text")
    try:
        task.reset(seed=3)
        assert task.viewer_frames
        first = task.viewer_png()
        pixels = _picture(first)
        low_width, low_height = PICTURED[task_id]
        assert pixels.shape[1] >= low_width and pixels.shape[0] >= low_height
        assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 3, "a picture, not a blank"
        assert task.viewer_png() == first, "the same state draws the same bytes"
        pictures = {first}
        for action in task.legal_actions()[:8] * 3:
            if task.done:
                break
            task.step(action)
            pictures.add(task.viewer_png())
        assert len(pictures) > 1, "the picture follows the game"
    finally:
        task.close()


@pytest.mark.parametrize("task_id", sorted(PICTURED))
def test_an_image_run_gets_no_second_picture(task_id):
    task = make(task_id, "rgb")
    try:
        observation = task.reset(seed=3)
        assert observation.image is not None
        assert task.viewer_png() is None
    finally:
        task.close()


def test_textworld_has_no_picture():
    task = make("balrog/textworld-coin-collector", "text")
    try:
        task.reset(seed=1)
        assert not task.viewer_frames and task.viewer_png() is None
    finally:
        task.close()


def test_drawing_the_picture_leaves_the_episode_as_it_was():
    """crafter's night noise draws from the world's generator: the picture reuses the
    frame the step drew and must not draw another."""
    played = []
    for draw in (False, True):
        task = make("balrog/crafter", "text")
        task.reset(seed=11)
        texts = []
        for index in range(60):
            result = task.step(task.legal_actions()[index % 5])
            if draw:
                task.viewer_png()
            texts.append(result.observation.text)
        played.append(texts)
        task.close()
    assert played[0] == played[1]


def test_the_map_is_cut_to_the_part_seen_with_a_cell_around_it():
    from envs.balrog.nethack_common import BLANK_GLYPH, level_part

    glyphs = np.full((21, 79), BLANK_GLYPH)
    glyphs[5:8, 30:40] = BLANK_GLYPH + 1
    assert level_part(glyphs).shape == (3 + 2, 10 + 2)
    glyphs[0, 0] = BLANK_GLYPH + 1  # a cell on the edge: no margin beyond the map
    assert level_part(glyphs).shape == (9, 41)
    assert level_part(np.full((21, 79), BLANK_GLYPH)).shape == (21, 79)


@pytest.mark.parametrize(
    "task_id",
    ["balrog/babyai-goto", "balrog/babyai-pickup", "balrog/babyai-open", "balrog/babyai-putnext",
     "balrog/babyai-pick-up-seq-go-to"],
)
def test_babyai_picture_has_minigrids_own_pixels(task_id):
    """envs.balrog.babyai.full_render draws exactly minigrid's get_full_render(highlight=
    True): random and expert play, through turns, walls, pick-ups, drops, opened doors
    and carried objects, each state compared pixel for pixel."""
    from envs.balrog.babyai import WORLD_TILE_PIXELS, full_render
    from envs.core import RandomLegalPolicy

    compared, carried = 0, 0
    for seed in range(4):
        for expert in (False, True):
            task = make(task_id, "text")
            task.reset(seed)
            policy = RandomLegalPolicy(seed)
            while True:
                level = task._level
                expected = level.get_full_render(highlight=True, tile_size=WORLD_TILE_PIXELS)
                assert np.array_equal(full_render(level, WORLD_TILE_PIXELS), expected)
                compared += 1
                carried += level.carrying is not None
                if task.done:
                    break
                task.step(task.expert_action() if expert and task._bot is not None else policy.act(task))
            task.close()
    assert compared > 100
    if task_id != "balrog/babyai-goto":
        assert carried, "some states have the agent carrying an object"
