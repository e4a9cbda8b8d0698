"""Baseline figures shipped with the arena (arena.services.baseline_figures): a fresh arena shows
them at once, plays a few replays at the queue's lowest priority, and says where the
figures come from; they are made by the arena's own runner (scripts/baseline_figures.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command

from arena import queue
from arena.services import baseline_figures
from arena.models import Episode, Run
from arena.play.worker import Worker

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Figures of LMAct's grid world, two episodes a run, made by the generator."""
    out = tmp_path_factory.mktemp("figures")
    subprocess.run(
        [sys.executable, "scripts/baseline_figures.py", "--task", "lmact/gridworld", "--episodes", "2", "--out", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=600,
    )
    return out


@pytest.fixture
def shipped(generated, monkeypatch):
    monkeypatch.setattr(baseline_figures, "FIGURES_DIR", generated)
    baseline_figures.shipped_entries.cache_clear()
    yield json.loads((generated / "lmact.json").read_text())["runs"]
    baseline_figures.shipped_entries.cache_clear()


def test_the_generator_writes_every_baseline_run_of_the_task_with_its_provenance(shipped):
    # Two policies (random, expert) × four observation formats.
    assert len(shipped) == 8
    expert = next(r for r in shipped if r["policy"] == "expert" and r["format"] == "coords")
    assert expert["episodes"] == 2 and expert["figures"]["episodes_done"] == 2
    assert expert["mean"] == pytest.approx(expert["figures"]["score_sum"] / 2)
    assert expert["mean"] == 1.0  # the shortest-path expert reaches the target
    made_by = expert["made_by"]
    assert made_by["command"].startswith("scripts/baseline_figures.py --task lmact/gridworld")
    assert made_by["engines"]["numpy"] and made_by["generated"]


def test_seeding_makes_finished_runs_from_the_figures_and_queues_replays_last(shipped, client):
    call_command("seed_baselines", task=["lmact/gridworld"], episodes=2, replays=1)
    runs = Run.objects.filter(task="lmact/gridworld")
    assert runs.count() == 8 and set(runs.values_list("status", flat=True)) == {Run.FINISHED}
    run = runs.get(submission__policy="expert", variant__format="coords")
    assert (run.episodes_done, run.score_sum, run.num_episodes) == (2, 2.0, 2)
    assert run.shipped_figures["file"] == "fixtures/baseline_figures/lmact.json"
    # The task page shows the rows before anything is played, marked as shipped.
    page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert page.count("shipped figures</span>") >= 8
    assert "were shipped with the arena, not played on this machine" in client.get(run.get_absolute_url()).content.decode()

    # One replay per run, at the baselines' priority; playing it leaves the figures alone.
    assert queue.pending_count() == 8 and queue.head_band() == queue.BASELINE
    async_to_sync(Worker(concurrency=4, name="replays").serve)(until_idle=True)
    run.refresh_from_db()
    assert (run.episodes_done, run.score_sum, run.status) == (2, 2.0, Run.FINISHED)
    assert run.episodes.get().status == Episode.FINISHED and run.episodes.get().num_steps > 0


def test_a_baseline_episode_count_that_was_not_shipped_is_played_here(shipped):
    call_command("seed_baselines", task=["lmact/gridworld"], episodes=3)
    runs = Run.objects.filter(task="lmact/gridworld")
    assert runs.count() == 8 and not runs.filter(shipped_figures__isnull=False).exists()
    assert Episode.objects.filter(run__in=runs, status=Episode.QUEUED).count() == 24


def test_live_seeding_ignores_the_shipped_figures(shipped):
    call_command("seed_baselines", task=["lmact/gridworld"], episodes=2, live=True)
    assert not Run.objects.filter(shipped_figures__isnull=False).exists()


def test_by_default_the_shipped_figures_are_taken_whatever_their_episode_count(shipped, settings):
    settings.ARENA_BASELINE_EPISODES, settings.ARENA_BASELINE_EPISODES_CHOSEN = 100, False
    call_command("seed_baselines", task=["lmact/gridworld"], replays=0)
    runs = Run.objects.filter(task="lmact/gridworld")
    assert runs.count() == 8 and set(runs.values_list("num_episodes", "episodes_done")) == {(2, 2)}
    assert queue.pending_count() == 0
    call_command("seed_baselines", task=["lmact/gridworld"])  # safe to re-run
    assert Run.objects.filter(task="lmact/gridworld").count() == 8


def test_an_episode_count_chosen_in_the_environment_is_played_as_chosen(shipped, settings):
    settings.ARENA_BASELINE_EPISODES, settings.ARENA_BASELINE_EPISODES_CHOSEN = 2, True
    call_command("seed_baselines", task=["lmact/gridworld"], replays=0)
    assert Run.objects.filter(shipped_figures__isnull=False).count() == 8  # shipped with 2: taken
    settings.ARENA_BASELINE_EPISODES = 4
    call_command("seed_baselines", task=["lmact/gridworld"])
    assert Run.objects.filter(task="lmact/gridworld", shipped_figures__isnull=True, num_episodes=4).count() == 8
