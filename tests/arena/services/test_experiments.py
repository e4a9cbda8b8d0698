"""Experiments: demonstration sweeps, the ablation grid and the replay control."""

import pytest

from arena.services.runs import RunSpec, run_create
from arena.services.submissions import experiment_create
from arena.models import Experiment
from envs.demos import play_expert_episode
from tests.support.fake_openai import message_text

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_sweep_queues_one_run_per_power_of_two(make_model_submission):
    experiment = experiment_create(
        make_model_submission(), kind=Experiment.SWEEP, task="lmact/gridworld", format="ascii",
        num_episodes=3, max_demonstrations=10,
    )
    counts = sorted(run.num_demonstrations for run in experiment.runs.all())
    assert counts == [0, 1, 2, 4, 8]
    assert all(run.episodes.count() == 3 for run in experiment.runs.all())


def test_the_ablation_grid_crosses_legal_actions_and_chain_of_thought_with_one_demonstration(make_model_submission):
    experiment = experiment_create(
        make_model_submission(), kind=Experiment.ABLATION, task="lmact/tictactoe", format="ascii", num_episodes=2
    )
    cells = {(r.variant["show_legal_actions"], r.variant["chain_of_thought"], r.num_demonstrations) for r in experiment.runs.all()}
    assert cells == {(False, False, 1), (False, True, 1), (True, False, 1), (True, True, 1)}


def test_replay_control_teacher_forces_the_demonstration_and_scores_matches(make_model_submission, fake_model, play):
    experiment = experiment_create(
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
    run = run_create(submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    capped = episode.demonstrations_capped
    assert capped["requested"] == 64 and 0 < capped["used"] < 64
    assert len(episode.demonstration_seeds) == capped["used"]
    assert capped["estimated_tokens"] <= 12000


def test_experiments_default_to_the_papers_100_episodes_per_run_in_form_and_api(make_model_submission):
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    from arena.web.forms import ExperimentForm

    assert ExperimentForm().fields["episodes"].initial == 100
    owner = User.objects.create_user("owner", password="x-long-password-1")
    submission = make_model_submission()
    submission.owner = owner
    submission.save()
    api = APIClient()
    api.force_authenticate(owner)
    body = {"kind": "replay", "submission": submission.pk, "task": "lmact/gridworld:ascii"}
    created = api.post("/api/experiments/", body, format="json")
    assert created.status_code == 201, created.content
    experiment = Experiment.objects.get(pk=created.json()["id"])
    assert experiment.config["num_episodes"] == 100 and experiment.runs.get().episodes.count() == 100
    # A user may lower it.
    fewer = api.post("/api/experiments/", {**body, "num_episodes": 10}, format="json")
    assert fewer.status_code == 201 and Experiment.objects.get(pk=fewer.json()["id"]).runs.get().num_episodes == 10


def test_the_run_page_of_a_shorter_experiment_run_says_how_many_of_the_papers_episodes_it_plays(
    client, make_model_submission
):
    short = experiment_create(
        make_model_submission(), kind=Experiment.REPLAY, task="lmact/gridworld", format="ascii", num_episodes=10
    ).runs.get()
    assert "10 of the paper's 100 episodes" in client.get(f"/runs/{short.pk}/").content.decode()
    full = experiment_create(
        make_model_submission(), kind=Experiment.REPLAY, task="lmact/gridworld", format="ascii", num_episodes=100
    ).runs.get()
    assert "the paper" not in client.get(f"/runs/{full.pk}/").content.decode()
    # A run outside an experiment has no point of the paper's figures to match.
    alone = run_create(make_model_submission(), RunSpec(task="lmact/gridworld", format="ascii", num_episodes=3))
    assert "the paper" not in client.get(f"/runs/{alone.pk}/").content.decode()


def test_queueing_an_experiment_from_the_submission_page_says_how_many_runs(client, make_model_submission):
    from django.contrib.auth.models import User

    owner = User.objects.create_user("owner", password="x-long-password-1")
    submission = make_model_submission()
    submission.owner = owner
    submission.save()
    client.force_login(owner)
    response = client.post(
        f"/submissions/{submission.pk}/", {"kind": "replay", "task": "lmact/gridworld:ascii", "episodes": 2}, follow=True
    )
    assert "Replay control (teacher-forced copy of one demonstration) queued: 1 run." in response.content.decode()
