"""The front page reads in a screen or two (issue #42, item 4): the overall table with its
ranked rows and baselines, the rows without an average progress apart and unranked, the
suites with their leaders and the links onward; every task's table is on its suite's
and its task's page."""

import html
import re

import pytest

from arena.models import Submission
from envs.registry import all_tasks
from leaderboard.boards.front_page import FRONT_PAGE_RANKED_ROWS

pytestmark = pytest.mark.django_db

BALROG_ALL_SIX = (
    ("balrog/babyai-goto", {}), ("balrog/crafter", {}), ("balrog/textworld-coin-collector", {}),
    ("balrog/babaisai", {"level": "goto_win"}), ("balrog/minihack-corridor-r3", {}), ("balrog/nethack", {}),
)


# Runs played under their suites' paper presets (comparable rows), as the overall
# leaderboard's tests make them.
from tests.leaderboard.boards.test_overall_leaderboard import _model, _run  # noqa: E402


def _complete(name, progress):
    """A model with a figure of every BALROG environment and of AdventureGame: ranked."""
    model = _model(name)
    for task, options in BALROG_ALL_SIX:
        _run(model, task, [progress, progress + 2], metric="progress", options=options)
    _run(model, "adventure/basic-easy", [100.0, 0.0], metric="quality")
    return model


def _words(page: str) -> list[str]:
    body = re.sub(r"(?s)<(script|style|head)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", body)).split()


def _table(page: str, table_id: str) -> str:
    start = page.index(f'id="{table_id}"')
    return page[start:page.index("</table>", start)]


def test_a_busy_arena_front_page_has_at_most_two_tables_and_1500_words(client, baseline):
    """Baselines and 40 models on every task, some complete and some partial: the page
    that had one table per task (60 tables, 7,777 words) stays within a screen or two."""
    for policy in ("random", "expert"):
        submission = baseline(policy)
        for task_id in all_tasks():
            _run(submission, task_id, scores=(1.0, 0.0), values=(50.0, 60.0), metric="progress")
    for n in range(25):
        model = _complete(f"Complete {n:02d}", 10.0 + n)
        _run(model, "lmact/tictactoe", scores=(1.0, 1.0 - n / 25))
        _run(model, "textatari/pong", scores=(-21.0 + n, -20.0))
    for n in range(15):
        _run(_model(f"Partial {n:02d}"), "balrog/crafter", [30.0, 40.0], metric="progress")

    page = client.get("/").content.decode()
    assert len(re.findall(r"<table\b", page)) <= 2
    assert len(_words(page)) <= 1500, len(_words(page))
    # The per-task tables moved: on LMAct's page, each task's table under its charts.
    suite_page = client.get("/suites/lmact/").content.decode()
    assert 'id="lmacttictactoe"' in suite_page and "Complete 00" in suite_page


def test_rows_without_an_average_progress_are_listed_apart_and_not_ranked(client, baseline):
    leader = _complete("Leader", 60.0)
    partial = _model("Half done")
    _run(partial, "balrog/crafter", [90.0, 90.0], metric="progress")
    _run(partial, "adventure/basic-easy", [100.0, 100.0], metric="quality")
    expert = baseline("expert")
    _run(expert, "balrog/crafter", [100.0, 100.0], metric="progress")

    page = client.get("/").content.decode()
    ranked = _table(page, "overall-table")
    apart = _table(page, "overall-apart-table")
    assert "Leader" in ranked and "Half done" not in ranked
    assert "Expert" in ranked  # baselines stay beside the ranked rows, as reference rows
    assert "Half done" in apart and "Leader" not in apart
    half_row = apart[apart.index(f'data-submission="{partial.pk}"'):]
    assert 'class="num" data-sort=""' in half_row.split("</td>")[0]  # no rank
    assert ">partial<" in half_row.split("</tr>")[0]
    assert f'data-submission="{leader.pk}"' in ranked and 'data-sort="1"' in ranked


def test_the_ranked_rows_are_cut_with_a_link_to_every_row(client):
    for n in range(FRONT_PAGE_RANKED_ROWS + 2):
        _complete(f"Model {n:02d}", 80.0 - n)
    page = client.get("/").content.decode()
    table = _table(page, "overall-table")
    assert "Model 00" in table and f"Model {FRONT_PAGE_RANKED_ROWS - 1:02d}" in table
    assert f"Model {FRONT_PAGE_RANKED_ROWS:02d}" not in table
    assert f"The first {FRONT_PAGE_RANKED_ROWS} of {FRONT_PAGE_RANKED_ROWS + 2} ranked rows" in page
    everything = _table(client.get("/?rows=all").content.decode(), "overall-table")
    assert f"Model {FRONT_PAGE_RANKED_ROWS + 1:02d}" in everything


def test_each_suite_card_names_its_leaders(client):
    _complete("Strong", 70.0)
    _complete("Weak", 20.0)
    for name, scores in (("Strong", (1.0, 1.0)), ("Weak", (0.0, 0.0))):
        model = Submission.objects.get(name=name)
        _run(model, "lmact/tictactoe", scores=scores)
        _run(model, "lmact/gridworld", scores=scores)
    page = client.get("/").content.decode()
    balrog = page[page.index('id="suite-balrog"'):]
    balrog = balrog[:balrog.index("</div>")]
    assert balrog.index("Strong") < balrog.index("Weak")
    assert "Strong</a> · 71.0 ± 0.3 %" in balrog  # its BALROG average
    lmact = page[page.index('id="suite-lmact"'):]
    lmact = lmact[:lmact.index("</div>")]
    assert "Strong</a> · first on 2 of 6 tasks" in lmact and "Weak" not in lmact
