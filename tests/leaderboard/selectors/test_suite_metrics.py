"""Task leaderboards rank by the metric their suite's paper reports (envs.suite): LMAct by
mean summed reward, infogather by steps to sufficient information (lower is better),
AdventureGame by clemscore — on the task pages, the front page and the API."""

import pytest
from rest_framework.test import APIClient

from arena.metrics import fold
from arena.models import Run
from leaderboard.serializers import EpisodeSerializer
from tests.conftest import new_run, as_preset, preset_variant

pytestmark = pytest.mark.django_db


def _finished(run, episodes):
    """Record finished episodes on a run as the episode finish does: (summed reward,
    episode metrics) each."""
    sums = {}
    for _, metrics in episodes:
        sums = fold(sums, metrics)
    rewards = [reward for reward, _ in episodes]
    Run.objects.filter(pk=run.pk).update(
        episodes_done=len(episodes), score_sum=sum(rewards), score_sq_sum=sum(r * r for r in rewards),
        metric_sums=sums, status="finished",
    )


def _infogather_episode(reward, steps, identified=True):
    return reward, {
        "steps_to_sufficient_information": steps,
        "sufficient_information_reached": steps is not None,
        "identified": identified,
    }


@pytest.fixture
def infogather_runs(baseline, make_model_submission):
    task = "infogather/single-feature"
    runs = {
        "Optimal": new_run(baseline("optimal"), task=task, fmt="text", episodes=2),
        # Picks rewarding objects again and again: the most reward, the slowest to learn the rule.
        "Random-With-Replacement": new_run(baseline("random-with-replacement"), task=task, fmt="text", episodes=2),
        "Quick": as_preset(new_run(make_model_submission(name="Quick"), task=task, fmt="text", episodes=2)),
        "Slow": as_preset(new_run(make_model_submission(name="Slow"), task=task, fmt="text", episodes=2)),
        "Lucky": as_preset(new_run(make_model_submission(name="Lucky"), task=task, fmt="text", episodes=2)),
    }
    _finished(runs["Optimal"], [_infogather_episode(1.0, 2), _infogather_episode(1.0, 3)])
    _finished(runs["Random-With-Replacement"], [_infogather_episode(4.0, 6), _infogather_episode(4.0, 8)])
    _finished(runs["Quick"], [_infogather_episode(1.0, 3), _infogather_episode(1.0, 4, identified=False)])
    _finished(runs["Slow"], [_infogather_episode(3.0, 6), _infogather_episode(3.0, 6)])
    # Fast once, but the other episode never gathered sufficient information.
    _finished(runs["Lucky"], [_infogather_episode(5.0, 2), _infogather_episode(5.0, None)])
    return runs


def test_it_ranks_infogather_by_steps_to_sufficient_information(infogather_runs):
    rows = APIClient().get("/api/leaderboard/?task=infogather/single-feature").json()
    assert [(r["rank"], r["run"]["submission"]["name"]) for r in rows] == [
        (None, "Optimal"), (1, "Quick"), (2, "Slow"), (None, "Random-With-Replacement"), (3, "Lucky"),
    ]
    optimal = rows[0]["metric"]
    assert optimal["name"] == "steps_to_sufficient_information" and optimal["higher_is_better"] is False
    assert (optimal["mean"], optimal["stderr"], optimal["episodes"], optimal["missing"]) == (2.5, 0.5, 2, 0)
    assert (rows[-1]["metric"]["mean"], rows[-1]["metric"]["missing"]) == (2.0, 1)
    identified = {m["name"]: m for m in rows[1]["metrics"]}["identification_accuracy"]
    assert identified["mean"] == pytest.approx(50.0)


def test_an_infogather_task_page_shows_steps_and_identification_without_a_summed_reward_column(client, infogather_runs):
    page = client.get("/tasks/infogather/single-feature/").content.decode()
    positions = [page.index(f">{name}<") for name in ("Optimal", "Quick", "Slow", "Random-With-Replacement", "Lucky")]
    assert positions == sorted(positions)
    assert "Steps to sufficient information" in page and "Identified" in page
    assert "2.50 ± 0.50" in page and "50.0 ± 50.0 %" in page
    assert "summed reward" not in page and "5.000" not in page
    assert "never reached sufficient information within the step budget rank below" in page


def test_the_infogather_suite_page_ranks_like_its_task_pages(client, infogather_runs):
    Run.objects.update(variant=preset_variant("infogather/single-feature", "text", {"num_colours": 3}))
    page = client.get("/suites/infogather/").content.decode()
    positions = [page.index(f">{name}<") for name in ("Optimal", "Quick", "Slow", "Random-With-Replacement", "Lucky")]
    assert positions == sorted(positions)


def _adventure_episode(outcome):
    played = outcome != "aborted"
    return (1.0 if outcome == "success" else 0.0), {
        "experiment": "basic-easy",
        "played": played,
        "quality": 100.0 if outcome == "success" else 0.0,
        "goal_success_rate": 100.0 if outcome == "success" else 50.0,
    }


def test_it_ranks_an_adventure_task_by_clemscore_with_quality_and_played(client, make_model_submission):
    careful = as_preset(new_run(make_model_submission(name="Careful"), task="adventure/basic-easy", fmt="text", episodes=4))
    sloppy = as_preset(new_run(make_model_submission(name="Sloppy"), task="adventure/basic-easy", fmt="text", episodes=4))
    # Careful solves half and aborts half: half its episodes solved, 50.
    _finished(careful, [_adventure_episode(o) for o in ("success", "success", "aborted", "aborted")])
    # Sloppy plays three of four but solves one: a quarter solved, 25.
    _finished(sloppy, [_adventure_episode(o) for o in ("success", "lost", "lost", "aborted")])
    Run.objects.filter(pk=sloppy.pk).update(score_sum=10.0)  # a larger summed reward does not rank

    rows = APIClient().get("/api/leaderboard/?task=adventure/basic-easy").json()
    assert [(r["rank"], r["run"]["submission"]["name"]) for r in rows] == [(1, "Careful"), (2, "Sloppy")]
    careful_metrics = {m["name"]: m["mean"] for m in rows[0]["metrics"]}
    sloppy_metrics = {m["name"]: m["mean"] for m in rows[1]["metrics"]}
    # quality counts successes over all episodes, as the paper's tables do
    assert careful_metrics == pytest.approx({"clemscore": 50.0, "quality": 50.0, "played": 50.0, "goal_success_rate": 75.0})
    assert sloppy_metrics == pytest.approx(
        {"clemscore": 25.0, "quality": 25.0, "played": 75.0, "goal_success_rate": 62.5}
    )
    page = client.get("/tasks/adventure/basic-easy/").content.decode()
    assert page.index(">Careful<") < page.index(">Sloppy<")
    assert "clemscore" in page and "% played" in page and "25.0 ± 25.0" in page


def test_the_task_tables_show_every_suite_ranked_by_its_own_metric(client, infogather_runs, baseline):
    new_run(baseline("expert"), task="lmact/gridworld")
    _finished(Run.objects.get(task="lmact/gridworld"), [(1.0, {}), (1.0, {})])
    lmact = client.get("/suites/lmact/").content.decode()
    assert "<h3>LMAct " in lmact and "1.000 ± 0.000" in lmact  # under "Task leaderboards"
    page = client.get("/tasks/infogather/single-feature/").content.decode()
    assert "Information gathering: single feature" in page and "2.50 ± 0.50" in page
    assert page.index(">Quick<") < page.index(">Lucky<")
    assert "AdventureGame: Basic, easy" in client.get("/tasks/adventure/basic-easy/").content.decode()


def test_the_replay_player_gets_the_renderer_the_suite_declares(baseline):
    cases = {
        ("lmact/chess", "fen"): "chess",
        ("lmact/chess", "rgb"): "image",
        ("lmact/gridworld", "ascii"): "text",
        ("infogather/conjunction", "text"): "infogather",
        ("adventure/synthetic-hard", "text"): "adventure",
    }
    for (task, fmt), renderer in cases.items():
        episode = new_run(baseline("random"), task=task, fmt=fmt).episodes.get()
        assert EpisodeSerializer(episode).data["renderer"] == renderer, (task, fmt)


def test_a_run_page_and_the_run_api_lead_with_the_metric_that_ranks_the_run(client, infogather_runs):
    optimal = infogather_runs["Optimal"]
    page = client.get(f"/runs/{optimal.pk}/").content.decode()
    assert 'Steps to sufficient information: <strong id="run-score">2.50 ± 0.50</strong>' in page
    data = APIClient().get(f"/api/runs/{optimal.pk}/").json()
    assert data["primary_metric"]["name"] == "steps_to_sufficient_information"
    assert (data["primary_metric"]["mean"], data["primary_metric"]["digits"]) == (2.5, 2)
