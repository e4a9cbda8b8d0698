"""BALROG on the arena (BALROG §3): a model plays over HTTP, each step stores the raw
completion, the action read from it, the action executed and whether it was valid; the
stored steps rebuild every prompt that was sent; baselines play and report progress."""

import pytest

from arena.services.runs import RunSpec, run_create
from envs.balrog.protocol import invalid_action_line
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)

COINS = "balrog/textworld-coin-collector"


def _run(submission, task, episodes=1, **options):
    return run_create(submission, RunSpec(task=task, format="text", num_episodes=episodes, options=options))


def test_a_model_plays_textworld_and_every_step_is_recorded_the_balrog_way(make_model_submission, fake_model, play):
    from arena.strategies.history import rebuild_messages

    run = _run(make_model_submission(history_window=2), COINS)
    fake_model.enqueue(Fault.reply("look"), Fault.reply("I would say: go north\nthen east"), Fault.reply("save"))
    fake_model.enqueue(*[Fault.reply("look") for _ in range(77)])
    play(run.episodes.get().id)
    episode = run.episodes.get()
    steps = list(episode.steps.order_by("index"))
    assert len(steps) == 80 and episode.status == "finished"
    # A reply of several lines reaches the game as it is, as in BALROG.
    several_lines = steps[1]
    assert several_lines.completion == "I would say: go north\nthen east"
    assert several_lines.legal is True and several_lines.executed_action == several_lines.completion
    # A command that would make the interpreter write a file plays the default action.
    invalid = steps[2]
    assert invalid.legal is False and invalid.executed_action == "help"
    # The next prompt's latest turn opens with the line naming the action executed.
    current = fake_model.requests[3].json["messages"][-1]["content"]
    assert current.startswith("Current Observation:\n\n\n" + invalid_action_line("help") + "\n\nObservation:\n")
    first = fake_model.requests[0].json["messages"]
    assert first[0]["role"] == "user" and "coin" in first[0]["content"].lower()
    assert episode.metrics["progress"] == 0.0
    for k in (0, 1, 2, 3, 40, 79):
        rebuilt = rebuild_messages(episode.prompt_prefix, steps[: k + 1], history_window=2)
        assert rebuilt == fake_model.requests[k].json["messages"], k


def test_the_walkthrough_wins_and_its_run_reports_progress_100(baseline, play):
    run = _run(baseline("walkthrough"), COINS, episodes=2)
    play(*run.episodes.values_list("id", flat=True))
    run.refresh_from_db()
    assert run.episodes_done == 2
    assert run.metric_sums["progress"] == {"n": 2, "sum": 200.0, "sumsq": 20000.0}
