"""The infogather suite on the arena: baselines, a model over HTTP, metrics on pages and API."""

import pytest
from rest_framework.test import APIClient

from arena.services.runs import RunSpec, run_create
from envs.registry import make
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)


def _run(submission, task, colours, episodes):
    spec = RunSpec(task=task, format="text", num_episodes=episodes, options={"num_colours": colours})
    return run_create(submission, spec)


def test_the_optimal_baseline_identifies_every_rule_and_its_metrics_are_folded(baseline, play):
    run = _run(baseline("optimal"), "infogather/single-feature", 3, 6)
    play(*run.episodes.values_list("id", flat=True))
    run.refresh_from_db()
    assert run.status == "finished" and run.episodes_done == 6
    assert run.metric_sums["identified"]["sum"] == 6
    assert run.metric_sums["steps_to_sufficient_information"]["n"] == 6
    episode = run.episodes.first()
    assert episode.metrics["num_colours"] == 3
    assert episode.steps.first().info["consistent"]


def test_a_model_plays_both_tasks_and_its_answers_are_recorded(make_model_submission, fake_model, play):
    submission = make_model_submission(chain_of_thought=True)
    single = _run(submission, "infogather/single-feature", 3, 1)
    scene = make("infogather/single-feature", "text", num_colours=3)
    scene.reset(single.episodes.get().seed)
    first_object = scene.legal_actions()[0]
    fake_model.enqueue(
        Fault.reply(f"Thinking...\naction: pick up the {first_object}\nstop: no\nfactor: colour\ncombination: red"),
        Fault.reply("no idea"),
        Fault.reply("action: none\nstop: yes\nfactor: shape\ncombination: ball"),
    )
    play(single.episodes.get().id)
    episode = single.episodes.get()
    steps = list(episode.steps.order_by("index"))
    assert len(steps) == 3
    assert steps[0].legal and steps[0].info["picked"] == first_object
    assert steps[1].legal is False  # "no idea" names no object
    assert episode.end_reason == "stopped"
    assert "identified" in episode.metrics and "exploitation_curve" in episode.metrics
    system = fake_model.requests[0].json["messages"][0]
    assert system["role"] == "system" and "think step by step" in system["content"].lower()
    # The second request carries the first answer back as an assistant turn.
    roles = [m["role"] for m in fake_model.requests[1].json["messages"]]
    assert roles == ["system", "user", "assistant", "user"]

    conjunction = _run(submission, "infogather/conjunction", 3, 1)
    fake_model.enqueue(Fault.reply("action: stop\nstop: yes\nfactor: colour and shape\ncombination: red ball"))
    play(conjunction.episodes.get().id)
    assert conjunction.episodes.get().status == "finished"


def test_the_suite_page_and_api_show_both_metrics(client, baseline, play):
    run = _run(baseline("random-without-replacement"), "infogather/single-feature", 4, 3)
    play(*run.episodes.values_list("id", flat=True))
    page = client.get("/suites/infogather/").content.decode()
    assert "Steps to sufficient information" in page and run.submission.name in page
    assert "fig-steps-single-feature" in page and "fig-curve-single-feature" in page
    data = APIClient().get(f"/api/runs/{run.pk}/").json()
    assert data["metric_sums"]["identified"]["n"] == 3


def test_the_stored_steps_rebuild_exactly_the_messages_that_were_sent(make_model_submission, fake_model, play):
    from arena.strategies.chat import rebuild_messages

    run = _run(make_model_submission(history_window=2), "infogather/single-feature", 3, 1)
    fake_model.enqueue(*[Fault.reply(f"action: nothing {n}\nstop: no\nfactor: unsure") for n in range(3)])
    fake_model.enqueue(Fault.reply("stop: yes\nfactor: colour\ncombination: red"))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    steps = list(episode.steps.order_by("index"))
    assert len(steps) == len(fake_model.requests) == 4
    for k, request in enumerate(fake_model.requests):
        rebuilt = rebuild_messages(episode.prompt_prefix, steps[: k + 1], history_window=2, keep_reasoning=False)
        assert rebuilt == request.json["messages"], k
