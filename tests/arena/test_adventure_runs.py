"""AdventureGame on the arena: a model over HTTP plays all 9 experiments; the oracle
baseline; Table 1/Table 2 metrics on the suite page and in the API."""

import pytest
from rest_framework.test import APIClient

from arena.services.runs import RunSpec, run_create
from envs.adventure.metrics import EXPERIMENTS
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_model_plays_every_experiment_and_the_metrics_reach_page_and_api(make_model_submission, fake_model, play, client):
    submission = make_model_submission(name="Fake adventurer")
    runs = [
        run_create(submission, RunSpec(task=f"adventure/{e}", format="text", num_episodes=1))
        for e in EXPERIMENTS
    ]
    for number, run in enumerate(runs):
        if number == 0:
            fake_model.enqueue(Fault.reply("I think I should look around."))  # no ">": aborted
        else:
            # basic-hard's instance 0 starts next to the hallway (checked below); only the first line counts
            fake_model.enqueue(Fault.reply("> go hallway\nand then more text"), Fault.reply("> done"))
        play(run.episodes.get().id)

    aborted = runs[0].episodes.get()
    assert aborted.metrics["outcome"] == "aborted" and aborted.metrics["played"] is False
    played = runs[1].episodes.get()
    first, second = played.steps.order_by("index")
    assert first.legal and second.parsed_action == "> done"
    assert played.metrics["played"] is True and played.metrics["turns"] == 2
    # clembench's conversation: the instructions open the first user message, no system prompt.
    opening = fake_model.requests[1].json["messages"]
    assert opening[0]["role"] == "user" and "> " in opening[0]["content"]
    assert "Available actions" not in str(fake_model.requests[1].json)

    page = client.get("/suites/adventure/").content.decode()
    assert "Fake adventurer" in page and "clemscore" in page and "fig-turns" in page
    data = APIClient().get(f"/api/runs/{runs[1].pk}/").json()
    assert data["metric_sums"]["played"]["sum"] == 1


def test_the_oracle_baseline_solves_its_instances_on_the_arena(baseline, play):
    run = run_create(
        baseline("oracle"), RunSpec(task="adventure/basic-hard", format="text", num_episodes=3)
    )
    play(*run.episodes.values_list("id", flat=True))
    run.refresh_from_db()
    assert run.metric_sums["quality"]["sum"] == 300
    assert run.metric_sums["goal_success_rate"]["sum"] == 300
    step = run.episodes.first().steps.first()
    assert step.info["room"] and "goals" in step.info


def test_the_stored_steps_rebuild_exactly_the_messages_that_were_sent(make_model_submission, fake_model, play):
    from arena.strategies.chat import rebuild_messages

    submission = make_model_submission(history_window=3)
    run = run_create(submission, RunSpec(task="adventure/preexplore-easy", format="text", num_episodes=1))
    fake_model.enqueue(Fault.reply("> look"), Fault.reply("> examine floor"), Fault.reply("> look"), Fault.reply("> done"))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    steps = list(episode.steps.order_by("index"))
    assert len(steps) == len(fake_model.requests) == 4
    for k, request in enumerate(fake_model.requests):
        rebuilt = rebuild_messages(episode.prompt_prefix, steps[: k + 1], history_window=50, keep_reasoning=False)
        assert rebuilt == request.json["messages"], k
