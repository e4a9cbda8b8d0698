"""The AdventureGame page's tables (AdventureGame §4.2, Tables 1–2) are read from the runs'
folded metrics, and agree with the suite's aggregation of the episodes themselves."""

import random

import pytest
from django.utils import timezone

from arena.metrics import fold
from arena.models import Run, Submission
from envs.adventure.metrics import aggregate
from envs.registry import get_suite
from leaderboard.suites import adventure

pytestmark = pytest.mark.django_db


def _episode(draw, experiment, index):
    """Per-episode metrics shaped as envs.adventure.metrics.episode_metrics leaves them."""
    outcome = draw.choice(("success", "lost", "aborted"))
    played = outcome != "aborted"
    rate = 100.0 if outcome == "success" else draw.choice((0.0, 50.0))
    return {
        "experiment": experiment, "instance": index, "outcome": outcome, "success": outcome == "success",
        "played": played, "quality": 100.0 if outcome == "success" else 0.0,
        "code_score": rate if played else None, "goal_success_rate": rate,
        "turns": draw.randint(2, 20), "optimal_turns": draw.randint(2, 8),
    }


def _run(submission, experiment, episodes):
    sums = {}
    for metrics in episodes:
        sums = fold(sums, metrics)
    now = timezone.now()
    return Run.objects.create(
        submission=submission, task=f"adventure/{experiment}", variant={"format": "text", "options": {}},
        num_episodes=len(episodes), status=Run.FINISHED, started_at=now, finished_at=now,
        episodes_done=len(episodes), metric_sums=sums,
    )


def test_tables_from_folded_metrics_match_the_aggregate_of_the_episodes():
    draw = random.Random(3)
    model = Submission.objects.create(name="m", kind=Submission.KIND_MODEL, model="m")
    episodes = []
    for experiment in ("basic-easy", "limit-hard", "preexplore-easy"):
        played = [_episode(draw, experiment, index) for index in range(16)]
        _run(model, experiment, played)
        episodes += played
    [row] = adventure.leaderboard(get_suite("adventure").id)
    expected = aggregate(episodes)
    assert row.rank == 1 and row.submission == model
    assert list(row.result["experiments"]) == list(expected["experiments"])
    for key in ("played", "quality", "goal_success_rate", "clemscore"):
        assert row.result[key] == pytest.approx(expected[key])
    assert row.result["code"] == pytest.approx(expected["code"])
    for experiment, values in expected["experiments"].items():
        assert row.result["experiments"][experiment] == pytest.approx(values)


def test_a_submission_whose_runs_folded_no_episode_metrics_has_no_row():
    model = Submission.objects.create(name="m", kind=Submission.KIND_MODEL, model="m")
    _run(model, "basic-easy", [])
    Run.objects.update(episodes_done=1)
    assert adventure.leaderboard("adventure") == []
