"""The guard the shipped baseline figures lacked: each entry carries the harness version it
was played under, and figures loaded under another version of their suite are marked
older on the leaderboard instead of passing for current ones (arena.services.baseline_figures,
envs.harness)."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from arena.services import baseline_figures
from arena.models import Run
from envs import harness
from envs.registry import get_suite

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_every_shipped_entry_carries_its_harness_version():
    for path in sorted((ROOT / "fixtures" / "baseline_figures").glob("*.json")):
        for entry in json.loads(path.read_text())["runs"]:
            stamp = harness.Stamp.parse(entry["harness_version"])
            # A version, or the label of figures made before versions existed: never blank.
            assert stamp.protocol is not None or entry["harness_version"] == harness.BEFORE_VERSIONING, (path.name, entry)


@pytest.fixture
def gridworld_figures(tmp_path, monkeypatch):
    """The shipped grid-world entries, the expert's stamped with today's LMAct version,
    the random player's with an older protocol, one of them with none at all."""
    shipped = json.loads((ROOT / "fixtures" / "baseline_figures" / "lmact.json").read_text())
    current = harness.current_version(get_suite("lmact"))
    digest = harness.Stamp.parse(current).digest
    runs = []
    for entry in shipped["runs"]:
        if entry["task"] != "lmact/gridworld":
            continue
        if entry["policy"] == "expert":
            entry["harness_version"] = current
        elif entry["format"] == "coords":
            entry.pop("harness_version")
        else:
            entry["harness_version"] = harness.version_string(0, digest)
        runs.append(entry)
    (tmp_path / "lmact.json").write_text(json.dumps({"provenance": {}, "runs": runs}))
    monkeypatch.setattr(baseline_figures, "FIGURES_DIR", tmp_path)
    baseline_figures.shipped_entries.cache_clear()
    yield current
    baseline_figures.shipped_entries.cache_clear()


def test_figures_from_another_harness_are_marked_older_not_current(gridworld_figures, client):
    current = gridworld_figures
    call_command("seed_baselines", task=["lmact/gridworld"], replays=0)
    runs = Run.objects.filter(task="lmact/gridworld", shipped_figures__isnull=False)
    assert runs.count() == 8
    expert = runs.filter(submission__policy="expert")
    assert set(expert.values_list("harness_version", flat=True)) == {current}
    older = runs.get(submission__policy="random", variant__format="ascii")
    assert older.harness_version.startswith("v0+")
    unstamped = runs.get(submission__policy="random", variant__format="coords")
    assert unstamped.harness_version == harness.BEFORE_VERSIONING

    page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert page.count("played under LMAct suite v0; current v1") == 3  # ascii, ascii-annotated, rgb
    assert page.count("played before harness versions were recorded; current LMAct suite v1") == 1
    assert page.count('class="muted harness-version"') == 4  # the expert's, current
    run_page = client.get(older.get_absolute_url()).content.decode()
    assert 'id="run-harness"' in run_page and "played under LMAct suite v0; current v1" in run_page


def test_the_same_figures_turn_older_when_the_suite_version_changes(gridworld_figures, client, monkeypatch):
    call_command("seed_baselines", task=["lmact/gridworld"], replays=0)
    expert = Run.objects.get(task="lmact/gridworld", submission__policy="expert", variant__format="ascii")
    assert harness.standing(expert.harness_version, get_suite("lmact")).is_current
    raised = harness.version_string(2, harness.Stamp.parse(gridworld_figures).digest)
    monkeypatch.setattr(harness, "current_version", lambda suite: raised)
    standing = harness.standing(expert.harness_version, get_suite("lmact"))
    assert standing.is_old and standing.note == "played under LMAct suite v1; current v2"
    page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert 'class="muted harness-version"' not in page
    assert page.count("played under LMAct suite v1; current v2") == 4


def test_the_generator_stamps_what_it_plays(make_model_submission):
    from tests.support.episodes import scripted_run

    run = scripted_run(make_model_submission(), [1.0])
    assert baseline_figures.figures_of(run)["harness_version"] == harness.current_version(get_suite("lmact"))
