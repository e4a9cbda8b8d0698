"""The front page is rendered by leaderboard.web.rendering.render_released: the same
bytes as django.shortcuts.render, and its boards freed by reference counting as the
view returns instead of waiting, behind the template context's reference cycle, for
the cycle collector."""

import gc
import weakref

import pytest
from django.shortcuts import render
from django.test import RequestFactory

from leaderboard.web import views
from tests.conftest import new_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(baseline, make_model_submission):
    from arena.models import Run

    for submission in (baseline("random"), make_model_submission(name="A <model>"), make_model_submission(name="B & co")):
        run = new_run(submission, task="lmact/gridworld", fmt="ascii")
        Run.objects.filter(pk=run.pk).update(episodes_done=3, score_sum=1.5, score_sq_sum=1.25, status="finished")


def _front_page(monkeypatch, render_with) -> tuple[bytes, weakref.ref]:
    """The front page's bytes, rendered by `render_with`, and a weak reference to the
    overall board it showed."""
    boards = []
    board = views.overall.board

    def kept_board(*args, **kwargs):
        shown = board(*args, **kwargs)
        boards.append(weakref.ref(shown))
        return shown

    monkeypatch.setattr(views.overall, "board", kept_board)
    monkeypatch.setattr(views, "render_released", render_with)
    content = views.index(RequestFactory().get("/", {"tab": "llm"})).content
    return content, boards[0]


@pytest.mark.parametrize("query", [{}, {"columns": "tasks"}])
def test_the_front_page_is_the_bytes_django_render_writes(played, monkeypatch, query):
    pages = []
    for render_with in (views.render_released, render):
        monkeypatch.setattr(views, "render_released", render_with)
        pages.append(views.index(RequestFactory().get("/", query)).content)
    assert pages[0] == pages[1]
    assert b"A &lt;model&gt;" in pages[0]


def test_the_boards_are_freed_without_the_cycle_collector(played, monkeypatch):
    gc.collect()
    gc.disable()
    try:
        released, released_board = _front_page(monkeypatch, views.render_released)
        rendered, rendered_board = _front_page(monkeypatch, render)
        assert released == rendered
        # Released: gone as the view returned. Rendered by Django's shortcut: still held
        # by the template context's cycle until the collector runs.
        assert released_board() is None
        assert rendered_board() is not None
        gc.collect()
        assert rendered_board() is None
    finally:
        gc.enable()
