"""A task's per-episode 0/1 metrics as rates per run on its page (Crafter's
per-achievement unlock rates, BALROG App. B.1)."""

import pytest

from arena.services.runs import RunSpec, run_create

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_crafter_page_shows_each_runs_unlock_rate_per_achievement(client, baseline, play):
    spec = RunSpec(task="balrog/crafter", format="text", num_episodes=2, options={"max_steps": 100})
    run = run_create(baseline("random"), spec)
    play(*run.episodes.values_list("id", flat=True))
    run.refresh_from_db()
    assert run.metric_sums["unlocked_collect_diamond"] == {"n": 2, "sum": 0.0, "sumsq": 0.0}
    wake_ups = run.metric_sums["unlocked_wake_up"]["sum"]
    page = client.get("/tasks/balrog/crafter/").content.decode()
    assert "Achievement unlock rates" in page and "Collect Diamond" in page
    table = page.split("Achievement unlock rates", 1)[1]
    assert run.get_absolute_url() in table
    assert f"{100 * wake_ups / 2:.0f} %" in table


def test_a_task_without_a_breakdown_shows_none(client):
    assert "unlock rates" not in client.get("/tasks/lmact/gridworld/").content.decode()
