"""Every suite against llama-cpp-python's own server (python -m llama_cpp.server): string content only, no
/props, no window in its model list
(tests/support/every_suite.py)."""

from __future__ import annotations

import pytest

from tests.support.every_suite import TIMEOUTS, play_every_suite
from tests.support.real_servers import real_server

pytestmark = [pytest.mark.real_server, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(tmp_path, settings, allow_loopback):
    for name, value in TIMEOUTS.items():
        setattr(settings, name, value)
    with real_server("llama-cpp-python", tmp_path) as running:
        yield running


def test_every_suite_plays_to_a_leaderboard_row(server, play):
    play_every_suite(server, "llama-cpp-python", play, {"content_parts": False, "system_role": True, "consecutive_roles": True})
