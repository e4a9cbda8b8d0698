"""Every suite against llama.cpp's llama-server --jinja with a template that, like Gemma's official one, refuses a
system message and two turns of one role in a row
(tests/support/every_suite.py)."""

from __future__ import annotations

import pytest

from tests.support.every_suite import FULL, TIMEOUTS, play_every_suite
from tests.support.real_servers import real_server

pytestmark = [pytest.mark.real_server, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(tmp_path, settings, allow_loopback):
    for name, value in TIMEOUTS.items():
        setattr(settings, name, value)
    with real_server("llama-server-alternating", tmp_path) as running:
        yield running


def test_every_suite_plays_to_a_leaderboard_row(server, play):
    # llama.cpp folds a system message into the first user turn itself when its template
    # refuses one (vLLM does not: tests/arena/test_message_shape.py plays that case), so
    # only the consecutive turns are the arena's to merge.
    shape = {"content_parts": True, "system_role": True, "consecutive_roles": False}
    runs = play_every_suite(server, "llama-server-alternating", play, shape)
    if FULL:
        # BALROG's instructions and first observation went out as one user turn.
        balrog = next(run for run in runs if run.task == "balrog/babyai-goto").episodes.get()
        assert balrog.steps.order_by("index").first().info["shape"] == {"merged": 1}
