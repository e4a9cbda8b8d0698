"""Experiments: demonstration sweeps, the ablation grid and the replay control."""

import pytest

from arena import services
from arena.models import Experiment
from envs.demos import play_expert_episode
from tests.support.fake_openai import message_text

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_sweep_queues_one_run_per_power_of_two(make_model_submission):
    experiment = services.experiment_create(
        make_model_submission(), kind=Experiment.SWEEP, task="lmact/gridworld", format="ascii",
        num_episodes=3, max_demonstrations=10,
    )
    counts = sorted(run.num_demonstrations for run in experiment.runs.all())
    assert counts == [0, 1, 2, 4, 8]
    assert all(run.episodes.count() == 3 for run in experiment.runs.all())


def test_the_ablation_grid_crosses_legal_actions_and_chain_of_thought_with_one_demonstration(make_model_submission):
    experiment = services.experiment_create(
        make_model_submission(), kind=Experiment.ABLATION, task="lmact/tictactoe", format="ascii", num_episodes=2
    )
    cells = {(r.variant["show_legal_actions"], r.variant["chain_of_thought"], r.num_demonstrations) for r in experiment.runs.all()}
    assert cells == {(False, False, 1), (False, True, 1), (True, False, 1), (True, True, 1)}


def test_replay_control_teacher_forces_the_demonstration_and_scores_matches(make_model_submission, fake_model, play):
    experiment = services.experiment_create(
        make_model_submission(), kind=Experiment.REPLAY, task="lmact/gridworld", format="coords", num_episodes=2
    )
    run = experiment.runs.get()
    play(*run.episodes.values_list("id", flat=True))
    for episode in run.episodes.all():
        demonstration = play_expert_episode("lmact/gridworld", "coords", episode.seed)
        steps = list(episode.steps.order_by("index"))
        assert [s.executed_action for s in steps] == [a for _, a in demonstration.steps]
        assert [s.info["forced_action"] for s in steps] == [a for _, a in demonstration.steps]
        # The fake model always answers "up" (no legal list is shown in this protocol).
        assert [s.info["match"] for s in steps] == [a == "up" for _, a in demonstration.steps]
        assert episode.metrics["replay_accuracy"] == [1.0 if a == "up" else 0.0 for _, a in demonstration.steps]
        assert episode.demonstration_seeds == [episode.seed]
    prompt = message_text(fake_model.requests[0].json["messages"][0])
    assert "legal" not in prompt and "Reasoning" not in prompt
    run.refresh_from_db()
    assert run.metric_sums["replay_accuracy"]["curve_n"][0] == 2


def test_demonstrations_that_do_not_fit_the_context_window_are_dropped_and_recorded(
    make_model_submission, fake_model, play
):
    submission = make_model_submission(num_demonstrations=64, context_window=12000, max_tokens=100)
    run = services.run_create(submission, services.RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    capped = episode.demonstrations_capped
    assert capped["requested"] == 64 and 0 < capped["used"] < 64
    assert len(episode.demonstration_seeds) == capped["used"]
    assert capped["estimated_tokens"] <= 12000
