"""The overall leaderboard's AdventureGame cell is clembench's clemscore, quality × % played
/ 100 (AdventureGame §4.2, Table 1), checked against clemcore's clemeval run on the same
episode outcomes (data/README.md), and the suite page's Table 1 figure agrees with it."""

import json
from pathlib import Path

import pytest
from django.utils import timezone

from arena.metrics import fold
from arena.models import Run, Submission
from envs.adventure.metrics import aggregate
from envs.registry import get_suite
from leaderboard.boards.cells import cell_figure

pytestmark = pytest.mark.django_db

REFERENCE = json.loads((Path(__file__).parent / "data" / "clemscore_clemeval.json").read_text())
CASES = REFERENCE["cases"]


def _played_runs(submission, episodes: dict[str, list[str]]) -> list[Run]:
    """One finished run per experiment, its episodes' quality and played folded in as the
    runner folds AdventureGame's episode metrics (envs.adventure.metrics.episode_metrics)."""
    runs = []
    for experiment, outcomes in episodes.items():
        sums = {}
        for outcome in outcomes:
            sums = fold(sums, {"quality": 100.0 if outcome == "success" else 0.0, "played": outcome != "aborted"})
        now = timezone.now()
        runs.append(Run.objects.create(
            submission=submission, task=f"adventure/{experiment}", variant={"format": "text", "options": {}},
            num_episodes=len(outcomes), status=Run.FINISHED, started_at=now, finished_at=now,
            episodes_done=len(outcomes), metric_sums=sums,
        ))
    return runs


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_adventure_cell_is_clembench_clemscore(case):
    submission = Submission.objects.create(name=case["model"], kind=Submission.KIND_MODEL, model=case["model"])
    figure, behind = cell_figure(_played_runs(submission, case["episodes"]), get_suite("adventure"))
    # clemeval rounds the two averages and the product to 2 places.
    assert figure.mean == pytest.approx(case["clemeval"]["clemscore"], abs=0.011)
    assert figure.episodes == sum(len(outcomes) for outcomes in case["episodes"].values())
    assert len(behind) == len(case["episodes"])


def test_aborted_episodes_lower_the_cell_below_the_pooled_quality():
    """The issue's example: with aborts, the cell is no longer the share of episodes solved."""
    case = CASES[0]
    submission = Submission.objects.create(name="a", kind=Submission.KIND_MODEL, model="a")
    figure, _ = cell_figure(_played_runs(submission, case["episodes"]), get_suite("adventure"))
    solved = sum(o == "success" for outcomes in case["episodes"].values() for o in outcomes)
    total = sum(len(outcomes) for outcomes in case["episodes"].values())
    assert 100.0 * solved / total == pytest.approx(case["clemeval"]["quality"], abs=0.01)  # the old cell
    assert figure.mean == pytest.approx(case["clemeval"]["quality"] * case["clemeval"]["played"] / 100, abs=0.011)
    assert figure.mean < case["clemeval"]["quality"] - 10


def test_the_suite_page_table_1_and_the_overall_cell_agree():
    case = CASES[2]  # unequal counts: macro over experiments
    submission = Submission.objects.create(name="m", kind=Submission.KIND_MODEL, model="m")
    runs = _played_runs(submission, case["episodes"])
    figure, _ = cell_figure(runs, get_suite("adventure"))
    episodes = [
        {"experiment": experiment, "played": outcome != "aborted", "quality": 100.0 if outcome == "success" else 0.0,
         "goal_success_rate": 0.0, "turns": 1, "optimal_turns": 1}
        for experiment, outcomes in case["episodes"].items() for outcome in outcomes
    ]
    assert figure.mean == pytest.approx(aggregate(episodes)["clemscore"])
