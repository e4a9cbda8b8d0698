"""The suite descriptors (envs/suite.py), declared by each suite package next to its tasks."""

import re
from pathlib import Path

import pytest

from envs.registry import all_suites, all_tasks, get_suite, make, replay_renderer, suite_of, tasks_of
from envs.suite import CHAT, FROZEN_PREFIX, MEAN_OF_EPISODE_METRIC, MEAN_SUMMED_REWARD, Metric

ROOT = Path(__file__).resolve().parents[2]


def test_every_task_belongs_to_a_declared_suite_named_in_its_id():
    assert list(all_suites()) == ["lmact", "balrog", "infogather", "adventure", "textatari"]
    for task_id, cls in all_tasks().items():
        suite = suite_of(task_id)
        assert suite.id == cls.suite == task_id.split("/")[0]
        assert task_id in tasks_of(suite.id)
    assert sum(len(tasks_of(s)) for s in all_suites()) == len(all_tasks())
    with pytest.raises(KeyError):
        get_suite("nope")
    with pytest.raises(KeyError):
        suite_of("lmact/nope")


def test_each_suite_ranks_by_the_metric_its_paper_reports():
    lmact = get_suite("lmact").primary_metric
    assert (lmact.fold, lmact.higher_is_better) == (MEAN_SUMMED_REWARD, True)

    infogather = get_suite("infogather")
    steps = infogather.primary_metric
    assert (steps.episode_metric, steps.fold, steps.direction) == (
        "steps_to_sufficient_information", MEAN_OF_EPISODE_METRIC, "lower is better"
    )
    assert "identified" in [m.episode_metric for m in infogather.secondary_metrics]

    adventure = get_suite("adventure")
    assert adventure.primary_metric.label == "clemscore"
    assert [m.name for m in adventure.secondary_metrics] == ["quality", "played", "goal_success_rate"]
    for suite in all_suites().values():
        assert suite.metrics[0] is suite.primary_metric
        assert all(m.description for m in suite.metrics)


def test_only_lmact_plays_the_frozen_prefix_protocol_with_demonstrations_and_experiments():
    lmact, infogather, adventure = (get_suite(s) for s in ("lmact", "infogather", "adventure"))
    assert (lmact.prompt_protocol, lmact.demonstrations, lmact.experiments, lmact.reflection) == (
        FROZEN_PREFIX, True, True, False
    )
    for suite in (infogather, adventure):
        assert (suite.prompt_protocol, suite.demonstrations, suite.experiments, suite.reflection) == (
            CHAT, False, False, True
        )
    assert "random legal action" in lmact.illegal_actions and "'>'" in adventure.illegal_actions


def test_every_renderer_a_suite_or_task_names_is_registered_by_the_replay_player():
    registered = set()
    for path in (ROOT / "static" / "js" / "renderers").glob("*.js"):
        registered |= set(re.findall(r'register\("([\w-]+)"', path.read_text(encoding="utf-8")))
    named = {"image"} | {s.renderer for s in all_suites().values()} | {c.renderer for c in all_tasks().values() if c.renderer}
    assert named <= registered, named - registered
    assert replay_renderer("lmact/chess", "pgn") == "chess" and replay_renderer("lmact/tictactoe", "rgb") == "image"
    assert replay_renderer("infogather/single-feature", "text") == "infogather"
    assert replay_renderer("retired/task", "ascii") == "text"


def test_a_metric_that_does_not_say_how_it_is_folded_is_refused():
    with pytest.raises(ValueError, match="unknown fold"):
        Metric(name="x", label="X", higher_is_better=True, fold="median")
    with pytest.raises(ValueError, match="episode metric"):
        Metric(name="x", label="X", higher_is_better=True, fold=MEAN_OF_EPISODE_METRIC)
    with pytest.raises(ValueError, match="episode metric"):
        Metric(name="x", label="X", higher_is_better=True, fold=MEAN_SUMMED_REWARD, episode_metric="x")


@pytest.mark.parametrize("task_id", ["infogather/single-feature", "infogather/conjunction", "adventure/basic-easy"])
def test_the_tasks_report_every_episode_metric_their_suite_ranks_by(task_id):
    task = make(task_id)
    task.reset(0)
    while not task.step(task.expert_action()).done:
        pass
    reported = task.episode_metrics()
    for metric in suite_of(task_id).metrics:
        for key in filter(None, (metric.episode_metric, metric.over)):
            assert key in reported, (metric.name, key)
