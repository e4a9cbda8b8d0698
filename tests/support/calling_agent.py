"""A stand-in for a model agent that makes no HTTP call: each decision takes
`call_seconds` on the event loop, as a model call would, and picks the first legal
action. A shared `Calls` tally tells a test how many agents were alive (created and not
yet closed: an episode whose model work is not over) and how many calls ran at once,
and, at each call's start, how many episodes were inside their database finish."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence

from arena.play.agents.base import Decision


@dataclasses.dataclass
class Calls:
    alive: int = 0
    most_alive: int = 0
    calling: int = 0
    most_calling: int = 0
    finishing: int = 0  # kept by the test's hold on episode_finish
    most_calling_while_finishing: int = 0
    most_alive_while_finishing: int = 0
    on_call: Callable[[int], None] | None = None  # told the episode of every call

    def counted_alive(self, change: int) -> None:
        self.alive += change
        self.most_alive = max(self.most_alive, self.alive)
        if self.finishing:
            self.most_alive_while_finishing = max(self.most_alive_while_finishing, self.alive)


class CallingAgent:
    demonstrations_capped = None
    begins_instantly = True
    replays_without_task = True
    waits_on_endpoint = True  # its "call" only waits (arena.play.stopping)

    def __init__(self, episode_id: int, calls: Calls, call_seconds: float):
        self.episode_id = episode_id
        self.calls = calls
        self.call_seconds = call_seconds
        self.closed = False
        calls.counted_alive(+1)

    def begin(self, task, observation, images) -> tuple[list, list[int]]:
        return [], []

    def prepare(self, index: int, observation, previous_action: str | None, legal: Sequence[str]) -> list:
        return []

    async def decide(self, task, index: int, prompt_added: list) -> Decision:
        calls = self.calls
        if calls.on_call is not None:
            calls.on_call(self.episode_id)
        calls.calling += 1
        calls.most_calling = max(calls.most_calling, calls.calling)
        if calls.finishing:
            calls.most_calling_while_finishing = max(calls.most_calling_while_finishing, calls.calling)
        try:
            await asyncio.sleep(self.call_seconds)
        finally:
            calls.calling -= 1
        legal = task.legal_actions()
        return Decision(parsed_action=legal[0] if legal else "")

    def observe_result(self, index: int, observation, executed_action: str, reward: float) -> None:
        return None

    def replay_step(self, task, completion: str, parsed_action: str | None, answers: Sequence = ()) -> None:
        return None

    def snapshot(self) -> bytes | None:
        return None

    def restore(self, data: bytes) -> None:
        raise TypeError("nothing to restore")

    async def reflect(self, outcome: str) -> tuple[str, int, int]:
        return "", 0, 0

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            self.calls.counted_alive(-1)


def calling_agents(calls: Calls, call_seconds: float = 0.02):
    """An EpisodeRunner's agent_factory handing out CallingAgents on one tally."""

    def factory(submission, run, episode, reflections=()):
        return CallingAgent(episode.pk, calls, call_seconds)

    return factory
