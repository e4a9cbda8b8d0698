"""The Tasks page: grouped by suite, one line per task with a picture of its game (drawn
once, then served from its file), its formats and step limit; the paragraph about the
task is on the task's own page."""

import io
import re

import numpy as np
import pytest
from django.utils.html import escape
from PIL import Image

from envs.pictures import THUMBNAIL, text_card, trim
from envs.registry import all_suites, all_tasks, tasks_of
from leaderboard.web import task_pictures

pytestmark = pytest.mark.django_db


def test_tasks_are_grouped_by_suite_one_line_each_without_their_paragraph(client):
    page = client.get("/tasks/").content.decode()
    positions = [page.index(f'id="suite-{suite_id}"') for suite_id in all_suites()]
    assert positions == sorted(positions), "suites in their display order"
    lines = re.findall(r'<tr data-task="([^"]+)"', page)
    assert sorted(lines) == sorted(all_tasks()), "one line per task"
    for suite_id in all_suites():
        section = page[page.index(f'id="suite-{suite_id}"'):]
        first = next(iter(tasks_of(suite_id)))
        assert f'data-task="{first}"' in section
    crafter = all_tasks()["balrog/crafter"]
    assert escape(crafter.description) not in page
    assert f'src="/tasks/balrog/crafter/picture.png?v={task_pictures.PICTURE_VERSION}"' in page
    row = page[page.index('data-task="balrog/crafter"'):]
    row = row[: row.index("</tr>")]
    assert "text, rgb" in row and ">2000<" in row
    task_page = client.get("/tasks/balrog/crafter/").content.decode()
    assert escape(crafter.description) in task_page and 'src="/tasks/balrog/crafter/picture.png?v=' in task_page


def _png(response) -> np.ndarray:
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    return np.asarray(Image.open(io.BytesIO(response.content)).convert("RGB"))


@pytest.mark.parametrize(
    "task_id",
    ["balrog/babyai-goto", "balrog/nethack", "lmact/chess", "textatari/pong", "textatari/berzerk", "adventure/basic-easy"],
)
def test_a_tasks_picture_is_drawn_once_and_then_read_from_its_file(task_id, client, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    pixels = _png(client.get(f"/tasks/{task_id}/picture.png"))
    height, width, _ = pixels.shape
    assert 0 < width <= THUMBNAIL[0] and 0 < height <= THUMBNAIL[1]
    assert max(width, height) >= 100, "a thumbnail, not a speck"
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 2, "not blank"

    def not_again(cls):
        raise AssertionError("drawn twice")

    monkeypatch.setattr(task_pictures, "task_picture", not_again)
    assert (_png(client.get(f"/tasks/{task_id}/picture.png")) == pixels).all()
    assert task_pictures.picture_path(task_id).exists()


def test_an_unknown_tasks_picture_is_not_found(client):
    assert client.get("/tasks/balrog/nothing/picture.png").status_code == 404


def test_a_text_game_is_shown_as_its_opening_lines_typeset():
    card = text_card("You are in the kitchen.\n" + "word " * 40)
    assert card.size == THUMBNAIL
    assert len(np.unique(np.asarray(card).reshape(-1, 3), axis=0)) > 2


def test_trimming_keeps_what_is_drawn_and_drops_the_plain_margin():
    picture = Image.new("RGB", (400, 200), (0, 0, 0))
    picture.paste((200, 10, 10), (150, 50, 190, 90))
    trimmed = trim(picture)
    assert trimmed.size == (40 + 16, 40 + 16)
