"""A run of one long episode shows how far it has got while the episode runs: the
progress counts the running episode's steps against the step limit, and the run page
and its API give the steps played, the tokens spent and the cost."""

import pytest

from arena.services.episodes import episode_claim
from arena.services.runs import RunSpec, run_create
from arena.models import Episode, Run

pytestmark = pytest.mark.django_db


def _long_run(submission):
    spec = RunSpec(
        task="textatari/pong", format="text", num_episodes=2, first_seed=0, options={"max_steps": 100000}
    )
    run = run_create(submission, spec)
    first = run.episodes.order_by("index").first()
    assert episode_claim(first.id, "worker")
    Episode.objects.filter(pk=first.id).update(num_steps=25000)
    Run.objects.filter(pk=run.pk).update(tokens_spent_in=1_234_567, tokens_spent_out=89_000)
    return run


def test_the_run_api_counts_the_steps_of_the_running_episode(client, baseline):
    run = _long_run(baseline("random"))
    data = client.get(f"/api/runs/{run.pk}/").json()
    assert data["steps_running"] == 25000
    assert data["step_limit"] == 100000
    assert data["progress"] == pytest.approx(12.5)  # a quarter of one of two episodes
    assert (data["tokens_spent_in"], data["tokens_spent_out"]) == (1_234_567, 89_000)


def test_the_run_page_shows_the_running_steps_and_the_tokens_spent(client, baseline):
    run = _long_run(baseline("random"))
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert "25000 steps played by the running episodes (limit 100000 each)" in page
    assert 'id="run-tokens">1.2M in / 89.0k out<' in page
    assert 'style="width: 12.5%"' in page


def test_a_run_without_running_episodes_counts_whole_episodes(client, baseline):
    spec = RunSpec(task="lmact/tictactoe", format="ascii", num_episodes=4, first_seed=0)
    run = run_create(baseline("random"), spec)
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING, episodes_done=1)
    data = client.get(f"/api/runs/{run.pk}/").json()
    assert data["progress"] == pytest.approx(25.0)
    assert data["steps_running"] == 0
