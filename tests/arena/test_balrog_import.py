"""Importing a BALROG leaderboard submission (manage.py import_balrog, the admin's
upload): finished runs of kind "imported" whose episodes replay step by step, counted
in every aggregate as if played here; all or nothing, once."""

import csv
import io
import json
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command

from arena import queue
from arena.services.runs import enqueue_on_commit
from arena.models import Episode, Run, Step, Submission
from arena.play.worker import Worker
from tests.support.balrog import GOTO, GOTO_RUN_00, pack, unpack

pytestmark = pytest.mark.django_db

BABAISAI_TWO_LEVELS = ("babaisai/env/goto_win", "babaisai/env/two_room-goto_win")


def _import(source: Path) -> str:
    out = io.StringIO()
    call_command("import_balrog", str(source), stdout=out)
    return out.getvalue()


def _csv_rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


@pytest.fixture
def goto(tmp_path):
    """The fixture cut down to BabyAI's goto (10 episodes) and NetHack (5)."""
    return unpack(tmp_path, keep=(GOTO, "nle"))


def test_it_imports_a_submission_as_finished_runs_of_kind_imported(goto):
    printed = _import(goto)

    submission = Submission.objects.get()
    assert (submission.kind, submission.source) == (Submission.KIND_IMPORTED, "BALROG leaderboard")
    assert submission.name == "Llama-3.2-1B-it (naive)"
    assert submission.model == "meta-llama/Llama-3.2-1B-Instruct"
    assert submission.base_url == "" and not submission.has_api_key and submission.owner is None
    assert "15 episodes" in printed
    runs = {run.task: run for run in Run.objects.all()}
    assert set(runs) == {"balrog/babyai-goto", "balrog/nethack"}
    goto_run = runs["balrog/babyai-goto"]
    assert (goto_run.status, goto_run.episodes_done, goto_run.format) == ("finished", 10, "text")
    run_00 = json.loads((goto / f"{GOTO_RUN_00}.json").read_text())
    first = goto_run.episodes.get(index=0)
    assert (first.status, first.seed, first.tokens_in) == ("finished", run_00["seed"], run_00["input_tokens"])
    # Progress is the suite's per-episode metric, 0–100, folded into the run.
    assert goto_run.metric_sums["progress"]["n"] == 10
    assert goto_run.metric_sums["progress"]["sum"] == pytest.approx(400.0)
    assert goto_run.tokens_in == goto_run.tokens_spent_in > 0
    assert goto_run.steps_total == Step.objects.filter(episode__run=goto_run).count()
    # Nothing was queued for a worker.
    assert queue.pending_count() == 0
    assert not Episode.objects.exclude(status=Episode.FINISHED).exists()


def test_every_episode_replays_the_steps_of_its_csv(goto, client):
    _import(goto)
    rows = _csv_rows(goto / f"{GOTO_RUN_00}.csv")
    run_00 = json.loads((goto / f"{GOTO_RUN_00}.json").read_text())
    episode = Episode.objects.get(run__task="balrog/babyai-goto", index=0)

    steps = list(episode.steps.order_by("index"))
    assert len(steps) == len(rows) == run_00["num_steps"]
    # BALROG logs what followed each action; the arena shows with each step what the
    # agent saw before acting, so row i's observation is step i+1's.
    assert steps[0].observation_text is None
    assert steps[3].observation_text == rows[2]["Observation"]
    assert episode.final_observation_text == rows[-1]["Observation"]
    assert steps[0].completion == rows[0]["Action"] == "turn right\ngo forward\npick up\ntoggle"
    # The output was not a valid action: BALROG executed its default action instead.
    assert (steps[0].legal, steps[0].executed_action) == (False, "go forward")
    assert episode.illegal_steps == len(run_00["failed_candidates"]) == sum(1 for s in steps if not s.legal)

    page = client.get(f"/api/episodes/{episode.pk}/steps/?page_size=5").json()
    assert [step["completion"] for step in page["results"]] == [row["Action"] for row in rows[:5]]
    assert client.get(episode.get_absolute_url()).status_code == 200


def test_newer_logs_count_the_invalid_outputs_their_json_lists(tmp_path):
    folder = unpack(tmp_path, keep=BABAISAI_TWO_LEVELS)
    _import(folder)
    runs = Run.objects.filter(task="balrog/babaisai")
    assert sorted(run.options["level"] for run in runs) == ["goto_win", "two_room-goto_win"]
    listed = sum(
        len(json.loads(path.read_text())["failed_candidates"]) for path in folder.rglob("babaisai/**/*_run_*.json")
    )
    assert sum(run.illegal_total for run in runs) == listed > 0


def test_importing_the_same_files_twice_changes_nothing(goto, tmp_path):
    _import(goto)
    counts = (Submission.objects.count(), Run.objects.count(), Episode.objects.count(), Step.objects.count())

    again = _import(pack(goto, tmp_path / "same.tgz"))  # the same files, archived

    assert "already imported" in again
    assert (Submission.objects.count(), Run.objects.count(), Episode.objects.count(), Step.objects.count()) == counts


def _break_summary(folder):
    (folder / "summary.json").unlink()
    return "no summary.json"


def _break_run_json(folder):
    (folder / f"{GOTO_RUN_00}.json").write_text("{not json")
    return f"{GOTO_RUN_00}.json: not JSON"


def _break_columns(folder):
    path = folder / f"{GOTO_RUN_00}.csv"
    path.write_text(path.read_text().replace("Step,Action,Reasoning", "Step,Move,Reasoning", 1))
    return f"{GOTO_RUN_00}.csv: the columns are Step, Move"


def _break_progression(folder):
    path = folder / f"{GOTO_RUN_00}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "progression": 1.5}))
    return f"{GOTO_RUN_00}.json: progression is 1.5, out of range (from 0 to 1)"


def _break_summary_figure(folder):
    path = folder / "summary.json"
    summary = json.loads(path.read_text())
    summary["environments"]["babyai"]["progression_percentage"] = 250
    path.write_text(json.dumps(summary))
    return "summary.json: environments.babyai.progression_percentage is 250, out of range"


def _break_step_count(folder):
    path = folder / f"{GOTO_RUN_00}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "num_steps": 63}))
    return f"{GOTO_RUN_00}.json: num_steps is 63 but {GOTO_RUN_00}.csv has 64 steps"


DAMAGES = [_break_summary, _break_run_json, _break_columns, _break_progression, _break_summary_figure, _break_step_count]


@pytest.mark.parametrize("damage", DAMAGES)
def test_it_rejects_a_malformed_folder_naming_the_file_and_imports_nothing(goto, tmp_path, damage):
    expected = damage(goto)
    with pytest.raises(CommandError) as refused:
        _import(pack(goto, tmp_path / "broken.tgz"))
    assert "nothing imported" in str(refused.value)
    assert expected in str(refused.value)
    assert not Submission.objects.exists() and not Step.objects.exists()


@pytest.mark.django_db(transaction=True)  # the worker reads and writes on its own connection
def test_a_worker_leaves_imported_episodes_alone_even_if_they_were_queued(goto):
    _import(goto)
    enqueue_on_commit(list(Episode.objects.values_list("id", flat=True)))

    async_to_sync(Worker(concurrency=2, name="test-worker").serve)(until_idle=True)

    assert set(Episode.objects.values_list("status", flat=True)) == {Episode.FINISHED}
    assert set(Episode.objects.values_list("worker", "attempts")) == {("", 1)}


def test_nobody_can_requeue_cancel_or_probe_imported_results(goto, client, django_user_model):
    _import(goto)
    submission = Submission.objects.get()
    run = submission.runs.first()
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))

    assert client.post(f"/runs/{run.pk}/requeue/").status_code == 404
    assert client.post(f"/runs/{run.pk}/cancel/").status_code == 404
    assert client.post(f"/submissions/{submission.pk}/probe/").status_code == 404
    assert client.post(f"/api/runs/{run.pk}/cancel/").status_code == 403
    run.refresh_from_db()
    assert run.status == Run.FINISHED

    page = client.get(submission.get_absolute_url()).content.decode()
    assert "imported from the BALROG leaderboard" in page
    for absent in ("Test endpoint", "Edit endpoint", "API key", "Endpoint</th>", "New experiment"):
        assert absent not in page


def test_an_admin_uploads_a_submission_archive(goto, tmp_path, admin_client):
    archive = pack(goto, tmp_path / "upload.tgz")
    assert "Import a BALROG submission" in admin_client.get("/admin/arena/submission/").content.decode()

    with archive.open("rb") as upload:
        response = admin_client.post("/admin/arena/submission/import-balrog/", {"archive": upload})

    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == submission.get_absolute_url()
    assert submission.runs.count() == 2


def test_an_admin_upload_of_a_broken_archive_says_why_and_imports_nothing(goto, tmp_path, admin_client):
    expected = _break_columns(goto)
    with pack(goto, tmp_path / "upload.tgz").open("rb") as upload:
        response = admin_client.post("/admin/arena/submission/import-balrog/", {"archive": upload})

    assert response.status_code == 200
    assert f"Nothing imported: {expected}" in response.content.decode()
    assert not Submission.objects.exists()
