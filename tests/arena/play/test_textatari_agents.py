"""TextAtari's agents as the paper gives them (§3.2, App. D.2), played through the real
runner against a fake model: the Naive agent keeps no memory, the CoT agents keep the
most recent state–action pairs and are asked for "thought process" and "action", and
the Reflexion agent reflects over the whole episode — every observation, its thought
process, the action and the reward — in the four keys, carrying up to 3 recent plans."""

import dataclasses
import json

import pytest

from arena.services.runs import run_create
from arena.services.submissions import run_specs
from envs.textatari import agents
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)

PONG = "textatari/pong"
STEPS = 100


def _paper_run(submission, episodes):
    """A basic-scenario run of Pong at 100 steps under the suite's paper preset."""
    specs = run_specs([(PONG, "text")], 1, {PONG: {"max_steps": STEPS}}, paper_protocol={"textatari"})
    spec = next(spec for spec in specs if spec.options["scenario"] == "basic")
    return run_create(submission, dataclasses.replace(spec, num_episodes=episodes))


def _answer(step):
    return json.dumps({"thought process": f"thinking at step {step}: stay with the ball", "action": 3})


def _reflection(number):
    return json.dumps({key: f"{key} of reflection {number}" for key in agents.REFLECTION_KEYS})


def _user_turns(request):
    return [m for m in request.json["messages"] if m["role"] == "user"]


def test_the_naive_agent_keeps_no_memory_and_is_not_asked_to_reason(make_model_submission, fake_model, play):
    run = _paper_run(make_model_submission(chain_of_thought=False), 1)
    fake_model.enqueue(*[Fault.reply('{"action": 3}') for _ in range(STEPS)])
    play(run.episodes.get().id)
    assert run.variant["history_window"] == 1
    late = fake_model.requests[50].json["messages"]
    assert [m["role"] for m in late] == ["system", "user"]
    assert "thought process" not in late[0]["content"] and agents.COT_REQUEST not in late[0]["content"]
    assert '{"action": 2}' in late[0]["content"]


def test_the_cot_agent_keeps_the_last_ten_state_action_pairs(make_model_submission, fake_model, play):
    run = _paper_run(make_model_submission(chain_of_thought=True), 1)
    fake_model.enqueue(*[Fault.reply(_answer(step)) for step in range(STEPS)])
    play(run.episodes.get().id)
    assert run.variant["history_window"] == agents.SHORT_TERM_MEMORY + 1 == 11
    messages = fake_model.requests[50].json["messages"]
    assert messages[0]["content"].endswith(agents.COT_REQUEST)
    assert len(_user_turns(fake_model.requests[50])) == 11
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert replies == ["RIGHT"] * 10  # earlier replies reduced to the action they chose
    assert len(_user_turns(fake_model.requests[5])) == 6  # fewer at the start


def test_reflexion_reflects_over_the_whole_episode_in_four_keys_and_carries_its_plans(
    make_model_submission, fake_model, play
):
    run = _paper_run(make_model_submission(chain_of_thought=True, reflection="recent"), 2)
    first, second = run.episodes.order_by("index")
    fake_model.enqueue(*[Fault.reply(_answer(step)) for step in range(STEPS)], Fault.reply(_reflection(1)))
    play(first.id)
    first.refresh_from_db()
    assert first.reflection == _reflection(1)

    request = fake_model.requests[STEPS].json["messages"]
    assert request[0] == {"role": "system", "content": agents.COACH}
    assert all(f'"{key}"' in agents.COACH and f'"{key}"' in agents.QUESTIONS for key in agents.REFLECTION_KEYS)
    assert request[1]["role"] == "system" and "The actions:\n1. NOOP\n2. FIRE\n3. RIGHT" in request[1]["content"]
    assert request[-1] == {"role": "user", "content": agents.QUESTIONS}
    trajectory = request[-2]["content"]
    # Every step: its observation, the model's thought process, the action played, the reward.
    assert trajectory.count("\nAction played: RIGHT\nReward: ") == STEPS
    assert "Step 1\nThe game begins." in trajectory and f"Step {STEPS}\n" in trajectory
    for step in (0, 57, STEPS - 1):
        assert f"thinking at step {step}: stay with the ball" in trajectory
    assert "Reward: -1" in trajectory  # Pong's points lost are in the reward trajectory
    assert f"Your performance: a game score of {first.score:g}" in trajectory

    fake_model.enqueue(*[Fault.reply(_answer(step)) for step in range(STEPS)], Fault.reply(_reflection(2)))
    play(second.id)
    system = fake_model.requests[STEPS + 1].json["messages"][0]["content"]
    assert agents.RECENT_PLANS_HEADER + f"- {_reflection(1)}" in system
    second_reflection = fake_model.requests[-1].json["messages"]
    assert {"role": "system", "content": f"Recent plans, attempt 1: {_reflection(1)}"} in second_reflection


def test_a_reflection_too_long_for_the_context_window_leaves_out_the_oldest_steps():
    from arena.play.agents.model import ModelAgent
    from arena.strategies.context import ContextBudget
    from envs.core import TracedStep

    steps = [TracedStep(f"observation {n} " + "word " * 40, "answer", "RIGHT", -1.0) for n in range(200)]
    request = agents.reflection_request("Pong.", steps, [], -21.0, "game over")
    agent = ModelAgent.__new__(ModelAgent)
    agent.budget = ContextBudget(window=4000, max_tokens=200)
    messages = agent._fitted_reflection(request)
    trajectory = messages[-2]["content"]
    assert "Step 200\nobservation 199" in trajectory and "Step 1\n" not in trajectory
    assert "steps are left out: the whole episode does not fit the context window" in trajectory
