"""BALROG's whole leaderboard repository imported (manage.py import_balrog on a checkout
of balrog-ai/experiments): every folder becomes a row, those without trajectories as
their reported figures, and the BALROG page's LLM and VLM tabs show every row of
BALROG's site (its template/data.json) with the same numbers. The shipped copy
(fixtures/balrog/experiments, see its PROVENANCE.md) holds each folder's summaries and
metadata.yaml, no trajectories."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from arena.models import Submission
from tests.support.balrog import FIXTURE, GOTO, played_run, unpack

pytestmark = pytest.mark.django_db

from tests.support.balrog import ROOT  # noqa: E402

REPOSITORY = ROOT / "fixtures" / "balrog" / "experiments"
SITE_DATA = REPOSITORY / "template" / "data.json"
ENVIRONMENT_KEYS = ("babyai", "crafter", "textworld", "babaisai", "minihack", "nle")


def _site_rows() -> dict[str, list[dict]]:
    """BALROG's site's rows by board ("LLM", "VLM")."""
    data = json.loads(SITE_DATA.read_text())
    return {board["name"]: board["results"] for board in data["leaderboards"]}


def _import(source) -> str:
    out = io.StringIO()
    call_command("import_balrog", str(source), stdout=out)
    return out.getvalue()


def _row_html(page: str, submission: Submission) -> str:
    found = re.search(rf'<tr class="[^"]*" data-submission="{submission.pk}">(.*?)</tr>', page, re.DOTALL)
    assert found, submission.name
    return found.group(1)


def test_the_whole_repository_imports_every_folder_and_again_changes_nothing():
    output = _import(REPOSITORY)

    assert "36 submission folders: 36 imported (0 with trajectories, 36 figures only), 0 already imported, 0 refused" in output
    imported = Submission.objects.filter(kind=Submission.KIND_IMPORTED)
    assert imported.count() == 36 and all(s.balrog_figures_only for s in imported)
    assert {s.balrog_folder.split("/")[0] for s in imported} == {"LLM", "VLM"}
    assert sum(s.balrog_folder.startswith("VLM/") for s in imported) == 10
    assert not any(s.runs.exists() for s in imported)
    before = list(imported.order_by("pk").values_list("pk", "balrog_reported", "balrog_metadata"))

    again = _import(REPOSITORY)

    assert "36 already imported, 0 refused" in again
    assert list(imported.order_by("pk").values_list("pk", "balrog_reported", "balrog_metadata")) == before


@pytest.mark.parametrize("mode, board", [("llm", "LLM"), ("vlm", "VLM")])
def test_the_page_shows_every_row_of_balrogs_site_with_the_same_numbers(client, mode, board):
    _import(REPOSITORY)
    response = client.get(f"/suites/balrog/?mode={mode}")
    page = response.content.decode()
    rows = {row.submission.balrog_folder: row for row in response.context["board"].imported}
    site = _site_rows()[board]

    assert len(rows) == len(site) == {"LLM": 26, "VLM": 10}[board]
    for entry in site:
        row = rows[entry["folder"].removeprefix("submissions/")]
        html = _row_html(page, row.submission)
        average, average_se = entry["average"]
        assert row.complete and row.figures_only
        assert (row.average.mean, row.average.stderr) == pytest.approx((average, average_se), abs=1e-12)
        assert f"<strong>{average:.1f} ± {average_se:.1f}</strong>" in html, entry["name"]
        for cell in row.cells:
            if cell.environment.name not in entry:
                assert not cell.figure.episodes
                continue
            value, stderr, episodes = entry[cell.environment.name]
            assert (cell.figure.mean, cell.figure.stderr, cell.figure.episodes) == pytest.approx((value, stderr, episodes))
            assert f'data-environment="{cell.environment.name}"' in html
            assert f"{value:.1f} ± {stderr:.1f}" in html, (entry["name"], cell.environment.name)
        # metadata.yaml's listing: organisation (its logo's account), date, verified, the folder.
        assert row.listing.organisation == "balrog-ai" and row.listing.date == entry["date"]
        assert row.listing.verified is entry["verified"] and "verified</span>" in html
        assert f'https://github.com/balrog-ai/experiments/tree/main/{entry["folder"]}' in html
        assert "figures only" in html and "no trajectories to replay" in html


def test_vlm_averages_are_balrogs_over_the_environments_with_an_image_mode(client):
    _import(REPOSITORY)
    rows = {row.submission.balrog_folder: row for row in client.get("/suites/balrog/?mode=vlm").context["board"].imported}

    # balrogai.com's VLM board: Claude-3.5-Sonnet 35.5, Gemini-2.5-Pro 35.7 (five environments, no TextWorld).
    claude, gemini = rows["VLM/20241103_Claude-3.5-Sonnet"], rows["VLM/20250425_naive_Gemini-2.5-Pro-Exp-03-25"]
    assert round(claude.average.mean, 1) == 35.5 and round(gemini.average.mean, 1) == 35.7
    assert [cell.environment.name for cell in claude.cells if cell.figure.episodes] == [
        "babyai", "crafter", "babaisai", "minihack", "nle"
    ]
    # Ordered by BALROG's average, Qwen2-VL-7B's sixth environment (TextWorld) no reason to lead.
    averages = [row.average.mean for row in rows.values()]
    assert averages == sorted(averages, reverse=True) and averages[0] == gemini.average.mean


def test_an_arena_vlm_row_that_played_the_five_image_environments_gets_balrogs_average(client):
    model = Submission.objects.create(name="Arena VLM", kind=Submission.KIND_MODEL, model="vlm")
    progress = {
        "balrog/babyai-goto": [100.0, 0.0], "balrog/crafter": [20.0, 40.0], "balrog/babaisai": [100.0, 100.0],
        "balrog/minihack-quest-easy": [0.0, 0.0], "balrog/nethack": [2.0, 4.0],
    }
    for task, values in progress.items():
        played_run(model, task, progress=values, fmt="rgb")

    vlm = next(row for row in client.get("/suites/balrog/?mode=vlm").context["board"].ranked if row.submission == model)

    assert vlm.complete and vlm.rank == 1
    assert vlm.average.mean == pytest.approx((50 + 30 + 100 + 0 + 3) / 5)
    # The same five environments in text are not BALROG's LLM average (TextWorld missing).
    text = Submission.objects.create(name="Arena LLM", kind=Submission.KIND_MODEL, model="llm")
    for task, values in progress.items():
        played_run(text, task, progress=values)
    response = client.get("/suites/balrog/")
    llm = next(row for row in response.context["board"].ranked if row.submission == text)
    assert not llm.complete
    assert "partial" in _row_html(response.content.decode(), text)


def test_a_folder_with_trajectories_replaces_its_figures_and_keeps_its_computed_row(client):
    _import(REPOSITORY)
    folder = "LLM/20241030_naive-Llama-3.2-1B-Instruct"
    figures_only = Submission.objects.get(balrog_folder=folder)

    output = _import(FIXTURE)  # the same folder, with its 255 episodes

    assert "255 episodes" in output
    assert not Submission.objects.filter(pk=figures_only.pk).exists()
    whole = Submission.objects.get(balrog_folder=folder)
    assert not whole.balrog_figures_only and whole.runs.count() == 58
    assert whole.balrog_metadata["name"] == "Llama-3.2-1B-it" and whole.balrog_metadata["date"] == "2024-11-11"
    # Its figures alone, imported again, leave the trajectories' row in place.
    assert "already imported" in _import(REPOSITORY / "submissions" / folder)
    assert Submission.objects.filter(balrog_folder=folder).count() == 1

    response = client.get("/suites/balrog/")
    row = next(row for row in response.context["board"].imported if row.submission == whole)
    site = next(entry for entry in _site_rows()["LLM"] if entry["folder"] == f"submissions/{folder}")
    assert not row.figures_only and row.complete
    assert (row.average.mean, row.average.stderr) == pytest.approx(tuple(site["average"]), abs=1e-9)
    for cell in row.cells:
        assert (cell.figure.mean, cell.figure.stderr, cell.figure.episodes) == pytest.approx(
            tuple(site[cell.environment.name]), abs=1e-9
        )
        assert cell.url  # each figure links to its episodes
    assert len(response.context["board"].imported) == 26


def test_a_folder_without_summary_is_refused_and_the_others_imported(tmp_path):
    checkout = tmp_path / "experiments" / "submissions" / "LLM"
    for name in ("20240924_naive-GPT4o", "20240924_naive-GPT4o-mini"):
        (checkout / name).mkdir(parents=True)
        for file in ("summary.json", "metadata.yaml"):
            (checkout / name / file).write_bytes((REPOSITORY / "submissions" / "LLM" / name / file).read_bytes())
    (checkout / "20240924_naive-GPT4o-mini" / "summary.json").write_text('{"average_progress": 12}')

    with pytest.raises(CommandError, match="1 of 2 submission folders refused"):
        _import(tmp_path / "experiments")

    assert list(Submission.objects.values_list("balrog_folder", flat=True)) == ["LLM/20240924_naive-GPT4o"]


def test_an_import_made_before_listings_were_kept_gets_its_listing_once(tmp_path):
    folder = unpack(tmp_path, keep=(GOTO,))
    _import(folder)
    earlier = Submission.objects.get()
    Submission.objects.filter(pk=earlier.pk).update(balrog_folder="", balrog_metadata={}, balrog_reported={})

    assert "already imported" in _import(folder)

    earlier.refresh_from_db()
    assert earlier.balrog_folder == "LLM/20241030_naive-Llama-3.2-1B-Instruct"
    assert earlier.balrog_metadata["verified"] is True and earlier.balrog_reported["mode"] == "llm"
    assert Submission.objects.count() == 1 and earlier.runs.count() == 1
