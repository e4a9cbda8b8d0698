"""The cheetah's pictures for the replay: MuJoCo's off-screen drawing of the body."""

import io

import pytest
from PIL import Image

from arena.storage import images
from arena.storage.images import write_png_bytes
from arena.play.step_records import ViewerFrames
from envs.lmact.cheetah_frames import FRAME_HEIGHT, FRAME_WIDTH
from envs.registry import get_task_class

CheetahRun = get_task_class("lmact/cheetah")

KICK = "[1, 1, 1, -1, -1, -1]"


@pytest.fixture(scope="module")
def drawing_cheetah():
    # One task for the module: loading the suite and making the OpenGL context is most
    # of the cost.
    task = CheetahRun()
    task.reset(3)
    if task.viewer_png() is None:
        pytest.skip("no OpenGL backend on this machine: the replay shows no pictures here")
    yield task
    task.close()


@pytest.fixture
def cheetah(drawing_cheetah, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    monkeypatch.setattr(images, "_files", set())  # files written by earlier tests are elsewhere
    drawing_cheetah.reset(3)
    return drawing_cheetah


def test_every_step_gets_a_picture_of_the_body(cheetah, tmp_path):
    frames = ViewerFrames(cheetah)
    shown = []
    for index in range(4):
        shown.append(frames.at(index)[0])
        cheetah.step(KICK)
    assert all(shown) and len(set(shown)) == 4, "the body moves, so each step's picture differs"
    picture = Image.open(io.BytesIO(cheetah.viewer_png()))
    assert picture.size == (FRAME_WIDTH, FRAME_HEIGHT)


def test_the_same_pose_gives_the_same_stored_picture(cheetah, tmp_path):
    first = cheetah.viewer_png()
    cheetah.reset(3)
    again = cheetah.viewer_png()
    assert first == again
    assert write_png_bytes(first, FRAME_WIDTH, FRAME_HEIGHT) == write_png_bytes(again, FRAME_WIDTH, FRAME_HEIGHT)
    assert len(list(tmp_path.glob("images/*/*.png"))) == 1, "stored once, by content"


def test_the_pictures_leave_the_prompt_text_unchanged(cheetah):
    observation = cheetah.reset(5)
    assert observation.text.startswith("{'position': [") and observation.image is None
