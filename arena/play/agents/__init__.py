"""Agents: what turns an observation into an action text for the runner.

A built-in baseline asks an `envs` policy and needs no model (baseline.py). A model agent
builds the prompt with a strategy (arena.strategies), calls the submission's endpoint and
parses the completion (model.py); an agent endpoint is the submitter's own agent
(agent_endpoint.py). All keep the interface of base.py, so the runner does not care
which it drives; this module picks the one a submission needs, with its client and
its strategy.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.models import Episode, Run, Submission
from arena.play.agents.agent_endpoint import AgentEndpointAgent
from arena.play.agents.base import Agent
from arena.play.agents.baseline import BaselineAgent
from arena.play.agents.model import ModelAgent


def make_agent(submission: Submission, run: Run, episode: Episode, reflections: Sequence[str] = ()) -> Agent:
    """The agent of a submission for one episode; `reflections` are Reflexion's lessons
    from the run's earlier episodes (model agents on chat suites use them)."""
    if submission.is_baseline:
        return BaselineAgent(submission, run, episode)
    if submission.provider == Submission.PROVIDER_AGENT:
        return AgentEndpointAgent(submission, run, episode)
    return ModelAgent(submission, run, episode, reflections=reflections)
