"""Importing real BALROG leaderboard submissions as they are: the shipped submission
whole, and damaged copies as real submissions come (runs' JSON without a seed, a run's
JSON without its CSV). Every episode is imported, says what it lacks, and the imported
runs reproduce the submission's summary.json."""

import io
import json
import math

import pytest
from django.core.management import call_command

from arena.balrog_results.format import NO_TRAJECTORY, SEED_NOT_LOGGED
from arena.balrog_results.importer import GAPS
from arena.models import Episode, Run, Step
from envs.balrog.catalog import average_figure, environment_of, pooled_figure
from tests.support.balrog import unpack

pytestmark = pytest.mark.django_db


def _import(folder) -> str:
    out = io.StringIO()
    call_command("import_balrog", str(folder), stdout=out)
    return out.getvalue()


def _reproduces_summary(folder) -> None:
    summary = json.loads((folder / "summary.json").read_text())
    by_environment: dict[str, list] = {}
    for run in Run.objects.all():
        by_environment.setdefault(environment_of(run.task, run.options).name, []).append(run.metric_sums["progress"])
    figures = {name: pooled_figure(sums) for name, sums in by_environment.items()}
    assert set(figures) == set(summary["environments"])
    for name, expected in summary["environments"].items():
        figure = figures[name]
        assert figure.episodes == expected["episodes_played"], name
        assert figure.mean == pytest.approx(expected["progression_percentage"], abs=1e-9), name
        assert figure.stderr == pytest.approx(expected["standard_error"], abs=1e-9), name
    overall = average_figure(figures.values())
    assert overall.mean == pytest.approx(summary["average_progress"], abs=1e-9)
    assert overall.stderr == pytest.approx(summary["standard_error"], abs=1e-9)


def test_the_shipped_submission_imports_whole_and_reproduces_its_summary(tmp_path):
    folder = unpack(tmp_path)
    printed = _import(folder)
    assert "gap" not in printed
    assert not Episode.objects.filter(metrics__has_key=GAPS).exists()
    _reproduces_summary(folder)


def test_runs_without_a_seed_are_imported_and_flagged(tmp_path):
    folder = unpack(tmp_path)
    stripped = 0
    for path in folder.rglob("*_run_*.json"):
        run = json.loads(path.read_text())
        run.pop("seed")
        path.write_text(json.dumps(run))
        stripped += 1
    printed = _import(folder)
    assert f"{stripped} episodes imported with a gap: {SEED_NOT_LOGGED}" in printed
    assert Episode.objects.count() == stripped
    assert not Episode.objects.filter(seed__isnull=False).exists()
    assert all(episode.metrics[GAPS] == [SEED_NOT_LOGGED] for episode in Episode.objects.all())
    _reproduces_summary(folder)


def test_a_run_without_its_csv_is_imported_without_steps_and_flagged(tmp_path):
    folder = unpack(tmp_path)
    csv = next(iter(sorted(folder.glob("crafter/**/*_run_03.csv"))))
    num_steps = json.loads(csv.with_suffix(".json").read_text())["num_steps"]
    csv.unlink()
    printed = _import(folder)
    assert f"1 episodes imported with a gap: {NO_TRAJECTORY}" in printed
    flagged = Episode.objects.get(metrics__has_key=GAPS)
    assert flagged.metrics[GAPS] == [NO_TRAJECTORY] and flagged.seed is not None
    assert flagged.num_steps == num_steps and not Step.objects.filter(episode=flagged).exists()
    crafter = flagged.run
    assert crafter.steps_total == sum(crafter.episodes.values_list("num_steps", flat=True))
    assert Step.objects.filter(episode__run=crafter).count() == crafter.steps_total - num_steps
    _reproduces_summary(folder)


def test_an_episode_page_says_what_the_submission_lacks(tmp_path, client):
    folder = unpack(tmp_path, keep=("nle",))
    run_json = next(iter(sorted(folder.glob("nle/**/*_run_00.json"))))
    run = json.loads(run_json.read_text())
    run.pop("seed")
    run_json.write_text(json.dumps(run))
    run_json.with_suffix(".csv").unlink()
    _import(folder)
    episode = Episode.objects.get(metrics__has_key=GAPS)
    assert episode.metrics[GAPS] == [SEED_NOT_LOGGED, NO_TRAJECTORY]
    page = client.get(f"/episodes/{episode.pk}/")
    assert page.status_code == 200, page.status_code
    assert "seed not logged" in page.content.decode() and "no trajectory" in page.content.decode()
    assert not math.isnan(episode.metrics["progress"])
