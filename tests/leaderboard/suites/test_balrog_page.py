"""The BALROG suite page (/suites/balrog/): BALROG's leaderboard with the real
submission imported — its figures equal the submission's own summary.json — plus what
BALROG's lacks: every figure links to its episodes, imported results apart, LLM/VLM."""

import pytest

from arena.balrog_results.files import read_submission
from arena.balrog_results.importer import balrog_submission_import
from arena.models import Submission
from envs.balrog.catalog import ENVIRONMENTS
from tests.support.balrog import FIXTURE, played_run, summary

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def imported(django_db_setup, django_db_blocker):
    """The real submission, imported once for the module (about 24,000 steps)."""
    with django_db_blocker.unblock():
        submission = balrog_submission_import(read_submission(FIXTURE)).submission
    yield submission
    with django_db_blocker.unblock():
        Submission.objects.filter(pk=submission.pk).delete()


@pytest.fixture
def model_submission(db):
    return Submission.objects.create(name="Arena model", kind=Submission.KIND_MODEL, model="tiny-model")


def _row(board_rows, submission):
    return next(row for row in board_rows if row.submission.pk == submission.pk)


def test_the_page_shows_the_figures_of_the_submissions_own_summary(imported, client):
    expected = summary()
    response = client.get("/suites/balrog/")

    assert response.status_code == 200
    row = _row(response.context["board"].imported, imported)
    for cell in row.cells:
        own = expected["environments"][cell.environment.name]
        assert cell.figure.mean == pytest.approx(own["progression_percentage"], abs=1e-9), cell.environment
        assert cell.figure.stderr == pytest.approx(own["standard_error"], abs=1e-9), cell.environment
        assert cell.figure.episodes == own["episodes_played"]
    assert row.average.mean == pytest.approx(expected["average_progress"], abs=1e-9)
    assert row.average.stderr == pytest.approx(expected["standard_error"], abs=1e-9)
    assert (row.tokens_in, row.tokens_out) == (expected["total_input_tokens"], expected["total_output_tokens"])
    page = response.content.decode()
    assert "6.6 ± 1.0" in page and "10.8 ± 2.8" in page  # the average, Baba Is AI
    assert "72.1M / 160.2k" in page  # tokens in / out


def test_environments_without_a_task_in_the_arena_still_show_imported_figures(imported, client):
    response = client.get("/suites/balrog/")
    tasks = response.context["arena_tasks"]
    row = _row(response.context["board"].imported, imported)
    for cell in row.cells:
        assert cell.figure.episodes > 0 and cell.url
    # Each environment the arena has no task of yet says so in its column's header.
    without = [environment for environment in ENVIRONMENTS if not tasks[environment]]
    assert response.content.decode().count("not in the arena yet") == len(without)


def test_every_figure_links_to_the_episodes_behind_it(imported, client):
    row = _row(client.get("/suites/balrog/").context["board"].imported, imported)
    cells = {cell.environment.name: cell for cell in row.cells}

    crafter = cells["crafter"]  # one task, one run: its page
    assert crafter.url == crafter.runs[0].get_absolute_url()
    assert client.get(crafter.url).status_code == 200

    babaisai = client.get(cells["babaisai"].url)  # 40 level families, 120 episodes
    assert babaisai.status_code == 200
    listed = babaisai.context["rows"]
    assert len(listed) == 120
    assert sum(entry["value"] for entry in listed) / 120 == pytest.approx(cells["babaisai"].figure.mean)
    assert client.get(listed[0]["episode"].get_absolute_url()).status_code == 200


def test_a_task_the_arena_does_not_play_links_to_the_suite_page(model_submission, client):
    run = played_run(model_submission, "balrog/minihack-imaginary-v0", progress=[0.0])

    for page in (run.get_absolute_url(), run.episodes.get().get_absolute_url()):
        assert 'href="/suites/balrog/">balrog/minihack-imaginary-v0</a>' in client.get(page).content.decode()
    # A task outside the catalogue has no preset to compare with: its row is listed apart.
    board = client.get("/suites/balrog/").context["board"]
    assert board.ranked == [] and board.custom[0].protocol.differences == ("a task no longer in the catalogue",)
    minihack = board.custom[0].cells[4]
    assert (minihack.environment.name, minihack.figure.episodes) == ("minihack", 1)


def test_imported_results_stay_apart_unless_asked_to_rank(imported, model_submission, client):
    played_run(model_submission, "balrog/babyai-goto", progress=[100.0, 0.0])

    board = client.get("/suites/balrog/").context["board"]
    assert [row.submission for row in board.ranked] == [model_submission]
    assert board.ranked[0].rank == 1
    assert [(row.submission, row.rank) for row in board.imported] == [(imported, None)]
    page = client.get("/suites/balrog/").content.decode()
    assert "Imported from BALROG" in page and "imported from the BALROG leaderboard" in page

    mixed = client.get("/suites/balrog/?imported=1").context["board"]
    # Six environments played rank before one.
    assert [(row.submission, row.rank) for row in mixed.ranked] == [(imported, 1), (model_submission, 2)]
    assert mixed.imported == []


def test_the_vlm_tab_holds_the_runs_with_image_observations(imported, model_submission, client):
    played_run(model_submission, "balrog/crafter", progress=[50.0], fmt="rgb")

    llm = client.get("/suites/balrog/?mode=llm").context["board"]
    vlm = client.get("/suites/balrog/?mode=vlm").context["board"]

    assert [row.submission for row in llm.ranked + llm.imported] == [imported]
    assert [row.submission for row in vlm.ranked + vlm.imported] == [model_submission]
    crafter = vlm.ranked[0].cells[1]
    assert (crafter.environment.name, crafter.figure.mean, crafter.figure.stderr) == ("crafter", 50.0, 0.0)
    assert client.get("/suites/balrog/?mode=nonsense").context["mode"] == "llm"


def test_an_arena_submission_is_figured_the_balrog_way(model_submission, client):
    played_run(model_submission, "balrog/babaisai", progress=[100.0, 0.0], options={"level": "goto_win"})
    played_run(model_submission, "balrog/babaisai", progress=[100.0], options={"level": "make_win"})

    row = client.get("/suites/balrog/").context["board"].ranked[0]
    babaisai = row.cells[3]
    # Three pooled episodes 100, 0, 100: mean 66.7, population SD 47.1 / √3.
    assert babaisai.figure.mean == pytest.approx(200 / 3)
    assert babaisai.figure.stderr == pytest.approx((20000 / 9) ** 0.5 / 3**0.5)
    assert (row.average.mean, row.environments_played) == (babaisai.figure.mean, 1)
    page = client.get("/suites/balrog/").content.decode()
    # An average over one of BALROG's six environments is not BALROG's overall figure.
    assert '<span class="badge partial"' in page
    assert row.played_titles == ["Baba Is AI"] and not row.complete


def test_an_episode_list_refuses_a_malformed_list_of_runs(client):
    assert client.get("/suites/balrog/episodes/?runs=1,x").status_code == 400
    assert client.get("/suites/balrog/episodes/").status_code == 400
    assert client.get("/suites/balrog/episodes/?runs=999999").status_code == 404
    assert client.get("/suites/nope/episodes/?runs=1").status_code == 404


def test_the_suite_page_links_its_fidelity_page(client):
    page = client.get("/suites/balrog/").content.decode()
    assert "/suites/balrog/fidelity/" in page
    fidelity = client.get("/suites/balrog/fidelity/")
    assert fidelity.status_code == 200
    text = fidelity.content.decode()
    assert "identical (tested)" in text and "deviation" in text and "same information, own wording" in text
    assert client.get("/suites/no-such-suite/fidelity/").status_code == 404
