"""The overall leaderboard (`/`, /api/leaderboard/overall/): one row per submission, the
columns each suite declares with the paper's figure ± s.e., baselines unranked, the
average progress only for rows complete on the shared-scale suites, LLM/VLM tabs, and
downloads that hold exactly the table the page shows."""

import csv
import io
import math
import re

import pytest
from django.utils import timezone

from arena.metrics import fold
from arena.models import Run, Submission
from config.pagecache import CACHEABLE_PATH
from envs.registry import all_suites
from tests.conftest import new_run, preset_episodes, preset_variant

pytestmark = pytest.mark.django_db

BALROG_ALL_SIX = (
    ("balrog/babyai-goto", {}), ("balrog/crafter", {}), ("balrog/textworld-coin-collector", {}),
    ("balrog/babaisai", {"level": "goto_win"}), ("balrog/minihack-corridor-r3", {}), ("balrog/nethack", {}),
)


def _run(submission, task, values=(), *, metric=None, fmt="text", options=None, scores=(), preset=True):
    """A finished run as the runner leaves it: per-episode `metric` values folded into
    the run, or summed rewards `scores` in its score sums; played under its suite's paper
    preset (its settings and episode count: a comparable run) unless `preset` is False."""
    sums = {}
    for value in values:
        # An AdventureGame episode reports whether it was played beside its quality (these
        # ones all were: the clemscore cell is then their quality).
        sums = fold(sums, {metric: value, "played": True} if metric == "quality" else {metric: value})
    episodes = len(values) or len(scores)
    now = timezone.now()
    return Run.objects.create(
        submission=submission, task=task,
        variant=preset_variant(task, fmt, options) if preset else {"format": fmt, "options": options or {}},
        num_episodes=preset_episodes(task) if preset else episodes, status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=episodes,
        score_sum=sum(scores), score_sq_sum=sum(s * s for s in scores), metric_sums=sums,
        tokens_spent_in=1000 * episodes, tokens_spent_out=100 * episodes,
    )


def _model(name, **fields):
    return Submission.objects.create(name=name, kind=Submission.KIND_MODEL, model=f"{name}-model", **fields)


def _row(board, submission):
    return next(row for row in board.rows if row.submission.pk == submission.pk)


def _cell(row, column_id):
    return next(cell for cell in row.cells if cell.column.id == column_id)


def play_balrog_adventure_and_pong(model):
    """Runs of all six BALROG environments, AdventureGame and TextAtari's Pong for `model`."""
    for index, (task, options) in enumerate(BALROG_ALL_SIX):
        _run(model, task, [10.0 * index, 10.0 * index + 20], metric="progress", options=options)
    _run(model, "adventure/basic-easy", [100.0, 0.0, 100.0, 100.0], metric="quality")
    _run(model, "textatari/pong", [0.5, 0.7], metric="normalised_score")
    return model


@pytest.fixture
def complete(db):
    """A model that played all six BALROG environments and AdventureGame, and TextAtari's Pong."""
    return play_balrog_adventure_and_pong(_model("Complete", price_input_per_mtok=1, price_output_per_mtok=2))


def _board(client, query=""):
    response = client.get("/" + query)
    assert response.status_code == 200
    return response.context["overall"]


def test_each_submission_is_one_row_with_the_papers_figure_and_standard_error_per_column(client, complete):
    _run(complete, "balrog/babyai-pickup", [100.0, 100.0], metric="progress")  # pooled into BabyAI

    board = _board(client)
    assert [row.submission.pk for row in board.rows].count(complete.pk) == 1
    row = _row(board, complete)
    babyai = _cell(row, "balrog.babyai")  # goto 0, 20 and pickup 100, 100: BALROG's pooled figure
    assert babyai.figure.mean == pytest.approx(55.0)
    assert babyai.figure.stderr == pytest.approx(math.sqrt((55**2 + 35**2 + 2 * 45**2) / 4) / 2)
    assert babyai.figure.episodes == 4 and babyai.url
    clemscore = _cell(row, "adventure.clemscore")
    assert clemscore.figure.mean == pytest.approx(75.0) and clemscore.figure.episodes == 4
    sports = _cell(row, "textatari.sports")  # the human-normalised score in percent
    assert sports.figure.mean == pytest.approx(60.0) and sports.figure.stderr == pytest.approx(10.0)
    assert _cell(row, "textatari.action").figure.mean is None
    assert row.tokens_in == 1000 * 20 and row.cost_usd == pytest.approx((20000 * 1 + 2000 * 2) / 1e6)
    assert row.submission.get_absolute_url() in client.get("/").content.decode()


def test_lmact_tasks_keep_their_own_columns_holding_the_best_run(client):
    model = _model("Imitator")
    _run(model, "lmact/gridworld", scores=(0.0, 0.0), fmt="ascii")
    best = _run(model, "lmact/gridworld", scores=(1.0, 0.0, 1.0), fmt="coords")
    _run(model, "lmact/cheetah", scores=(250.0, 310.0), fmt="text")

    row = _row(_board(client), model)
    gridworld = _cell(row, "lmact.gridworld")
    assert gridworld.runs == [best] and gridworld.figure.mean == pytest.approx(2 / 3)
    assert _cell(row, "lmact.cheetah").figure.mean == pytest.approx(280.0)
    assert not any(cell.column.summary for cell in row.cells if cell.column.suite.id == "lmact")


def test_the_average_progress_is_given_only_to_rows_complete_on_the_shared_scale_suites(client, complete):
    partial = _model("Partial")
    _run(partial, "balrog/crafter", [90.0, 90.0], metric="progress")
    _run(partial, "adventure/basic-easy", [100.0, 100.0], metric="quality")

    board = _board(client)
    row = _row(board, complete)
    balrog_average = _cell(row, "balrog.summary").figure
    assert balrog_average.mean == pytest.approx(sum(10 * i + 10 for i in range(6)) / 6)
    clemscore = _cell(row, "adventure.clemscore").figure
    assert row.average.mean == pytest.approx((balrog_average.mean + clemscore.mean) / 2)
    assert row.average.stderr == pytest.approx(math.sqrt(balrog_average.stderr**2 + clemscore.stderr**2) / 2)

    other = _row(board, partial)
    assert other.average.mean is None and other.average_partial
    assert _cell(other, "balrog.summary").partial
    assert [r.submission.pk for r in board.rows][:2] == [complete.pk, partial.pk]
    assert (row.rank, other.rank) == (1, None)  # listed after the ranked rows, unranked


def test_baselines_are_reference_rows_never_ranked(client, complete, baseline):
    expert = baseline("expert")
    for task, options in BALROG_ALL_SIX:
        _run(expert, task, [100.0, 100.0], metric="progress", options=options)
    _run(expert, "adventure/basic-easy", [100.0], metric="quality")

    board = _board(client)
    assert _row(board, expert).rank is None
    assert _row(board, expert).average.mean == pytest.approx(100.0)
    assert _row(board, complete).rank == 1


def test_the_vlm_tab_holds_the_runs_on_image_observations_only(client, complete):
    seer = _model("Seer")
    _run(seer, "balrog/crafter", [40.0, 60.0], metric="progress", fmt="rgb")

    assert seer.pk not in [row.submission.pk for row in _board(client).rows]
    vlm = _board(client, "?tab=vlm")
    assert [row.submission.pk for row in vlm.rows] == [seer.pk]
    assert _cell(vlm.rows[0], "balrog.crafter").figure.mean == pytest.approx(50.0)
    assert _board(client, "?tab=nonsense").tab == "llm"  # the page falls back and says so
    assert "Ignored: unknown tab" in client.get("/?tab=nonsense").content.decode()


def _csv(client, query):
    response = client.get(f"/api/leaderboard/overall/?{query}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_csv_download_is_the_table_the_page_shows(client, complete, baseline):
    _run(baseline("random"), "balrog/crafter", [0.0, 10.0], metric="progress")
    page = client.get("/?columns=tasks").content.decode()
    header, *records = _csv(client, "tab=llm&format=csv")

    assert "Average progress (%)" in header and "BALROG · Crafter s.e. (%)" in header
    assert "TextAtari · Sports (%)" in header and "Information gathering · Conjunction episodes" in header
    shown = re.findall(r'<tr class="[^"]*" data-submission="(\d+)">', page)
    assert [record[header.index("Model page")].rsplit("/", 2)[-2] for record in records] == shown
    crafter, crafter_se = header.index("BALROG · Crafter (%)"), header.index("BALROG · Crafter s.e. (%)")
    for record in records:
        assert f"{record[crafter]} ± {record[crafter_se]}" in page
    first = records[0]
    assert first[header.index("Submission")] == "Complete" and first[0] == "1"
    assert f'{first[header.index("Average progress (%)")]} ± {first[header.index("Average progress s.e. (%)")]}' in page
    assert records[1][0] == ""  # the baseline: no rank


def test_the_json_gives_the_same_rows_unrounded(client, complete):
    data = client.get("/api/leaderboard/overall/?tab=llm").json()
    assert data["tab"] == "llm" and data["average_progress_over"] == ["balrog", "adventure"]
    row = data["rows"][0]
    assert row["submission"]["url"].endswith(f"/submissions/{complete.pk}/") and row["rank"] == 1
    assert row["cells"]["balrog.crafter"]["mean"] == pytest.approx(20.0)
    assert {column["id"] for column in data["columns"]} >= {"balrog.summary", "textatari.puzzle", "adventure.clemscore"}


@pytest.mark.parametrize("query, name", [("tab=text", "tab"), ("strategy=genius", "strategy"), ("format=xls", "format")])
def test_the_overall_api_answers_a_bad_parameter_with_a_400_naming_it(client, query, name):
    response = client.get(f"/api/leaderboard/overall/?{query}", HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    assert name in response.json()


def test_a_task_leaderboard_downloads_as_csv_with_the_task_pages_columns(client, complete, baseline):
    _run(baseline("random"), "balrog/crafter", [0.0, 10.0], metric="progress")
    page = client.get("/tasks/balrog/crafter/").content.decode()
    assert "/api/leaderboard/?task=balrog/crafter&amp;format=csv" in page

    response = client.get("/api/leaderboard/?task=balrog/crafter&format=csv")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    header, *records = csv.reader(io.StringIO(response.content.decode()))
    assert header[:6] == ["Rank", "Submission", "Model", "Kind", "Variant", "Progress (%)"]
    assert [(r[0], r[1], r[5], r[6]) for r in records] == [("1", "Complete", "20.0", "10.0"), ("", "Random", "5.0", "5.0")]
    assert client.get("/api/leaderboard/?task=balrog/crafter&format=pdf").status_code == 400


def test_the_new_api_paths_are_cached_pages_and_documented(client):
    assert CACHEABLE_PATH.match("/api/leaderboard/overall/")
    schema = client.get("/api/schema/").content.decode()
    assert "/api/leaderboard/overall/" in schema


def test_an_episode_finishing_reaches_the_overall_leaderboard(client, baseline):
    from arena.services.episodes import episode_claim, episode_finish

    run = new_run(baseline("random"), task="lmact/gridworld")
    episode = run.episodes.get()
    assert episode_claim(episode.id, "overall-test")
    assert _board(client).rows == []
    episode_finish(episode.id, "overall-test", score=0.5, end_reason="step limit")
    row = _board(client).rows[0]
    assert _cell(row, "lmact.gridworld").figure.mean == pytest.approx(0.5)


def _complete_model(name, progress, quality):
    """A model complete on the shared-scale suites: every BALROG environment at
    `progress` values, AdventureGame at `quality` values."""
    model = _model(name)
    for task, options in BALROG_ALL_SIX:
        _run(model, task, progress, metric="progress", options=options)
    _run(model, "adventure/basic-easy", quality, metric="quality")
    return model


def test_neighbours_the_average_cannot_tell_apart_are_marked_and_linked_to_their_comparison(client):
    leader = _complete_model("Leader", [0.0, 100.0, 100.0], [100.0, 100.0, 100.0])
    close = _complete_model("Close second", [0.0, 100.0, 100.0], [0.0, 100.0, 100.0])
    far = _complete_model("Far behind", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])

    response = client.get("/")
    rows = {row.submission.pk: row for row in response.context["overall"].rows}
    assert [rows[m.pk].rank for m in (leader, close, far)] == [1, 2, 3]
    assert rows[leader.pk].tie_explanation == ""
    assert "Not distinguishable from rank 1" in rows[close.pk].tie_explanation
    assert rows[far.pk].tie_explanation == ""  # 0 against ~58 ± ~12: told apart
    page = response.content.decode()
    assert f'href="/compare/?a={leader.pk}&amp;b={close.pk}"' in page
    assert page.count('class="tie-mark"') == 2  # the mark, and the rule's sample of it


def test_the_front_page_leads_with_one_column_per_suite_and_the_tasks_a_click_away(client, complete):
    _run(complete, "lmact/gridworld", scores=(1.0, 0.0), fmt="ascii")
    page = client.get("/?tab=llm").content.decode()
    table = page[page.index('id="overall-table"'):page.index("</table>")]
    headers = re.findall(r'<th class="num overall-suite-column" data-column="([^"]+)"', table)
    own = {"lmact": "played", "balrog": "summary", "textatari": "summary", "infogather": "played",
           "adventure": "clemscore"}
    assert headers == [f"{suite_id}.{own[suite_id]}" for suite_id in all_suites()]
    assert 'data-column="balrog.crafter"' not in table
    row = table[table.index(f'data-submission="{complete.pk}"'):]
    row = row[: row.index("</tr>")]
    board = client.get("/").context["overall"]
    balrog = _cell(_row(board, complete), "balrog.summary")
    assert balrog.figure.mean is not None and f"{balrog.figure.mean:.1f} ±" in row
    assert ">1 of 6<" in row and "columns=tasks" in row  # LMAct: tasks played, figures one click away
    assert 'id="overall-per-task-link"' in page and "columns=tasks" in page
    assert "<details" in page and "How this table is made" in page

    per_task = client.get("/?tab=llm&columns=tasks").content.decode()
    assert 'data-column="balrog.crafter"' in per_task and 'id="overall-compact-link"' in per_task
    assert "columns=tasks" in re.search(r'<nav class="tabs" aria-label="Observation mode">.*?</nav>', per_task, re.S).group(0)
