"""Exporting a submission's BALROG runs in the layout of BALROG's leaderboard
(manage.py export_balrog, the submission page's download): a round trip gives the same
figures, and nothing of the endpoint leaves the arena."""

import io
import json
import tarfile

import pytest
from django.core.management import CommandError, call_command

from arena.balrog_results.exporter import balrog_submission_export
from arena.balrog_results.files import read_submission
from arena.models import Episode, Step, Submission
from envs.balrog.babaisai_levels import family_of_seed
from envs.balrog.catalog import balrog_task
from envs.registry import tasks_of
from tests.support.balrog import FIXTURE, GOTO, played_run, summary, unpack

pytestmark = pytest.mark.django_db

API_KEY = "sk-export-canary-0123456789"
BASE_URL = "https://models.example.test/v1"


def _files(archive_bytes: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(archive_bytes)) as archive:
        return {member.name: archive.extractfile(member).read() for member in archive if member.isfile()}


def _figures(folder_summary: dict) -> dict:
    """Every figure of a summary.json by name ("babyai progress", "average SE"…)."""
    figures = {"average progress": folder_summary["average_progress"], "average SE": folder_summary["standard_error"]}
    for name, env in folder_summary["environments"].items():
        figures[f"{name} progress"] = env["progression_percentage"]
        figures[f"{name} SE"] = env["standard_error"]
        figures[f"{name} episodes"] = env["episodes_played"]
    return figures


def test_a_round_trip_gives_the_same_figures(tmp_path, client):
    call_command("import_balrog", str(FIXTURE), stdout=io.StringIO())
    imported = Submission.objects.get()
    steps = Step.objects.count()
    exported = tmp_path / "export.tgz"

    call_command("export_balrog", str(imported.pk), str(exported), stdout=io.StringIO())

    files = read_submission(exported)
    assert sorted({path.split("/")[0] for path in files.paths() if "/" in path}) == [
        "babaisai", "babyai", "crafter", "minihack", "nle", "textworld"
    ]
    assert files.mode_folder == "LLM"
    expected = _figures(summary())
    assert _figures(json.loads(files.read("summary.json"))) == pytest.approx(expected, abs=1e-9)

    Submission.objects.all().delete()  # a fresh database
    call_command("import_balrog", str(exported), stdout=io.StringIO())

    again = Submission.objects.get()
    assert again.name == imported.name and again.model == imported.model
    assert Step.objects.count() == steps and Episode.objects.count() == 255
    board = client.get("/suites/balrog/").context["board"]
    row = next(row for row in board.imported if row.submission == again)
    shown = {"average progress": row.average.mean, "average SE": row.average.stderr}
    for cell in row.cells:
        name = cell.environment.name
        shown.update({f"{name} progress": cell.figure.mean, f"{name} SE": cell.figure.stderr})
        shown[f"{name} episodes"] = cell.figure.episodes
    assert shown == pytest.approx(expected, abs=1e-9)


def test_an_export_keeps_each_episode_and_its_steps(tmp_path):
    folder = unpack(tmp_path, keep=(GOTO,))
    call_command("import_balrog", str(folder), stdout=io.StringIO())
    out = tmp_path / "goto.tgz"
    call_command("export_balrog", str(Submission.objects.get().pk), str(out), stdout=io.StringIO())

    files = read_submission(out)
    stem = f"{GOTO}/BabyAI-MixedTrainLocal-v0/goto_run_00"
    original = json.loads((folder / f"{stem}.json").read_text())
    written = json.loads(files.read(f"{stem}.json"))
    for field in ("task", "seed", "num_steps", "progression", "failed_candidates", "mission", "input_tokens", "agent"):
        assert written[field] == original[field], field
    assert files.read(f"{stem}.csv").decode() == (folder / f"{stem}.csv").read_text().replace("\r\n", "\n")


def test_an_arena_submission_exports_without_its_endpoint_or_key(client):
    submission = Submission.objects.create(
        name="Arena model", kind=Submission.KIND_MODEL, model="org/tiny-model", base_url=BASE_URL,
    )
    submission.set_api_key(API_KEY)
    submission.save()
    played_run(submission, "balrog/babyai-goto", progress=[100.0, 0.0], preset=False)
    played_run(submission, "balrog/babaisai", progress=[100.0], options={"level": "goto_win"}, preset=False)

    page = client.get(submission.get_absolute_url()).content.decode()
    assert "Download the BALROG runs" in page
    response = client.get(f"/submissions/{submission.pk}/balrog.tgz")

    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    files = _files(b"".join(response.streaming_content))
    for data in files.values():
        assert API_KEY.encode() not in data and b"models.example.test" not in data
    folder = next(name for name in files if name.endswith("/summary.json")).removesuffix("/summary.json")
    assert folder.startswith("LLM/") and folder.endswith("_naive-tiny-model")
    own = json.loads(files[f"{folder}/summary.json"])
    assert own["environments"]["babyai"]["progression_percentage"] == 50.0
    assert own["environments"]["babyai"]["standard_error"] == pytest.approx(50 / 2**0.5)
    run_json = json.loads(files[f"{folder}/babaisai/env/goto_win/env/goto_win_run_00.json"])
    assert (run_json["progression"], run_json["failed_candidates"]) == (1.0, ["fly"])
    assert run_json["client"] == {
        "client_name": "openai", "model_id": "org/tiny-model",
        "generate_kwargs": {"temperature": 0.0, "max_tokens": 2048},
    }
    rows = files[f"{folder}/babaisai/env/goto_win/env/goto_win_run_00.csv"].decode().splitlines()
    # Each row holds the observation that followed its action.
    assert rows[1:] == ["0,fly,,a ball 1 step forward,0,False", "1,pick up,,the end of episode 0,1,True"]


def test_the_imported_endpoint_address_is_never_exported(tmp_path):
    folder = unpack(tmp_path, keep=(GOTO,))
    assert "loca.lt" in (folder / "summary.json").read_text()
    call_command("import_balrog", str(folder), stdout=io.StringIO())
    out = tmp_path / "export.tgz"
    call_command("export_balrog", str(Submission.objects.get().pk), str(out), stdout=io.StringIO())
    for data in _files(out.read_bytes()).values():
        assert b"loca.lt" not in data and b"base_url" not in data and b"0.0.0.0" not in data


def test_a_submission_without_balrog_runs_has_nothing_to_export(client, tmp_path):
    submission = Submission.objects.create(name="LMAct only", kind=Submission.KIND_MODEL)
    with pytest.raises(CommandError, match="no finished episodes of BALROG's environments"):
        call_command("export_balrog", str(submission.pk), str(tmp_path / "x.tgz"))
    with pytest.raises(CommandError, match="no submission 424242"):
        call_command("export_balrog", "424242", str(tmp_path / "x.tgz"))
    assert "Download the BALROG runs" not in client.get(submission.get_absolute_url()).content.decode()
    assert client.get(f"/submissions/{submission.pk}/balrog.tgz").status_code == 404


def _exported(submission: Submission) -> dict[str, bytes]:
    out = io.BytesIO()
    balrog_submission_export(submission, out)
    return _files(out.getvalue())


@pytest.mark.parametrize("options", [None, {"level": "all"}])
def test_a_baba_is_ai_only_submission_exports_every_episode_under_its_level_family(options, tmp_path):
    submission = Submission.objects.create(name="Baba only", kind=Submission.KIND_MODEL, model="baba-model")
    run = played_run(submission, "balrog/babaisai", progress=[100.0, 0.0, 0.0], options=options)
    # The runner records the family an episode played; older episodes are named by their seed.
    run.episodes.filter(index=2).update(metrics={"progress": 0.0, "level": "two_room-make_you"})

    files = _exported(submission)

    folder = next(name for name in files if name.endswith("/summary.json")).removesuffix("/summary.json")
    families = [family_of_seed(0), family_of_seed(1), "two_room-make_you"]
    for family in families:
        stem = f"{folder}/babaisai/env/{family}/env/{family}_run_00"
        assert json.loads(files[f"{stem}.json"])["task"] == f"env/{family}"
        assert files[f"{stem}.csv"].decode().startswith("Step,Action,Reasoning,Observation,Reward,Done")
    assert sum(name.endswith(".json") and "_run_" in name for name in files) == 3
    own = json.loads(files[f"{folder}/summary.json"])
    assert own["environments"]["babaisai"]["episodes_played"] == 3
    assert own["environments"]["babaisai"]["progression_percentage"] == pytest.approx(100 / 3)
    environment = json.loads(files[f"{folder}/babaisai/babaisai_summary.json"])
    assert sorted(environment["tasks"]) == sorted(f"env/{family}" for family in families)
    assert "one run JSON and one step CSV per finished episode" in files[f"{folder}/README.md"].decode()

    archive = tmp_path / "baba.tgz"
    with tarfile.open(archive, "w:gz") as out:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    Submission.objects.all().delete()
    call_command("import_balrog", str(archive), stdout=io.StringIO())
    again = Submission.objects.get()
    assert again.runs.count() == 3 and Episode.objects.filter(run__submission=again).count() == 3


def test_the_download_holds_every_finished_episode_of_every_balrog_task(client):
    submission = Submission.objects.create(name="Every task", kind=Submission.KIND_MODEL, model="every-model")
    tasks = sorted(tasks_of("balrog"))
    for task in tasks:
        played_run(submission, task, progress=[100.0, 0.0])

    response = client.get(f"/submissions/{submission.pk}/balrog.tgz")
    files = _files(b"".join(response.streaming_content))

    runs = [name for name in files if "_run_" in name]
    assert len([name for name in runs if name.endswith(".json")]) == 2 * len(tasks)
    assert len([name for name in runs if name.endswith(".csv")]) == 2 * len(tasks)
    written_tasks = {json.loads(files[name])["task"] for name in runs if name.endswith(".json")}
    for task in tasks:
        mapped = balrog_task(task)
        if mapped is not None:
            assert mapped[1] in written_tasks, task
    assert {f"env/{family_of_seed(0)}", f"env/{family_of_seed(1)}"} <= written_tasks  # Baba Is AI
