"""A baseline's choice for a blocking task (arena.play.agents.baseline.BaselineAgent.decide): a
policy that acts instantly (the random one) chooses on the event loop, any other on a
thread, and both choose what the policy chooses."""

import asyncio
import threading
from types import SimpleNamespace

from arena.play.agents.baseline import BaselineAgent
from envs.core import RandomLegalPolicy
from envs.registry import make


def _agent(policy: str = "random") -> BaselineAgent:
    return BaselineAgent(
        SimpleNamespace(policy=policy), SimpleNamespace(task="balrog/crafter"), SimpleNamespace(seed=5, pk=1)
    )


def _decide_recording_thread(agent: BaselineAgent, task) -> tuple[str, bool]:
    threads = []
    act = agent.policy.act

    def recording(task):
        threads.append(threading.get_ident())
        return act(task)

    agent.policy.act = recording

    async def decide():
        decision = await agent.decide(task, 0, [])
        return decision.parsed_action, threads[0] == threading.get_ident()

    return asyncio.run(decide())


def test_the_random_policy_chooses_on_the_loop_what_it_would_choose_anyway():
    task = make("balrog/crafter", "text", max_steps=100)
    task.reset(5)
    assert task.blocking
    action, on_loop = _decide_recording_thread(_agent(), task)
    assert on_loop
    assert action == RandomLegalPolicy(5).act(task)


def test_a_policy_that_does_not_act_instantly_chooses_on_a_thread():
    task = make("balrog/crafter", "text", max_steps=100)
    task.reset(5)
    agent = _agent()
    agent.policy.acts_instantly = False
    action, on_loop = _decide_recording_thread(agent, task)
    assert not on_loop
    assert action == RandomLegalPolicy(5).act(task)
