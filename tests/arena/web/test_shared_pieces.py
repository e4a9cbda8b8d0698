"""Three things written once now, each where a user reads it (issue 41's duplicates):
a setting's value (the submit form's choices use the words the preset-conflict message
and the leaderboard rows use, arena.protocol.setting_text), the leaderboards' filter
form (the front page's is the suite pages' without the observation picker), and the
board renderers' fallback (static/js/renderers/renderers.js, checked in a browser by
tests/browser/test_boards.py)."""

import re

import pytest

from arena.protocol import setting_text
from arena.web.submission_form import SubmissionForm

pytestmark = pytest.mark.django_db


def test_the_submit_form_writes_values_as_the_rows_and_messages_do():
    fields = SubmissionForm().fields
    assert fields["sweep--infogather/single-feature--guided_reasoning"].choices == [("0", "off"), ("1", "on")]
    assert fields["setting--balrog/babyai-goto--silent_invalid_actions"].choices == [(0, "off (paper)"), (1, "on")]
    assert [setting_text(v) for v in (True, False, 8192, 0.7, "ascii")] == ["on", "off", "8,192", "0.7", "ascii"]


def _filter_forms(html: str) -> list[str]:
    return re.findall(r'<form method="get" class="filters".*?</form>', html, re.S)


def test_the_front_page_and_a_suite_page_share_one_filter_form(client):
    front = _filter_forms(client.get("/").content.decode())
    assert len(front) == 1
    assert 'aria-label="Filter the overall leaderboard"' in front[0]
    assert 'name="strategy"' in front[0] and 'name="mode"' not in front[0]  # the tabs pick the mode there
    assert 'name="columns"' not in front[0]
    per_task = _filter_forms(client.get("/?columns=tasks").content.decode())[0]
    assert '<input type="hidden" name="columns" value="tasks">' in per_task  # filtering keeps the columns
    suite = _filter_forms(client.get("/suites/lmact/").content.decode())
    assert len(suite) == 1 and 'name="mode"' in suite[0] and 'name="strategy"' in suite[0]
    assert 'aria-label="Filter the leaderboard"' in suite[0]
