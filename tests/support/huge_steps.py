"""A finished episode whose stored steps carry huge texts: what a hostile model left in
the database (1 MB completions, stored again in the step's calls, reasoning, a long
prompt part). The rows are written directly, as they may have been stored before any
cap on the write side, so the read side is tested against the worst that can be there.
Used by the API, live-channel and browser tests (the browser tests run it inside the
site's own process environment)."""

from __future__ import annotations

from django.db import transaction

from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec, run_create
from arena.models import Episode, Step, Submission

WORKER = "huge-steps-test-worker"
END_MARK = "<<end of the huge completion>>"


def huge_text(size: int, label: str) -> str:
    """`size` characters of `label` repeated, ending with END_MARK, so a reader can tell
    whether it holds the whole text."""
    body = size - len(END_MARK)
    return (label * (body // len(label) + 1))[:body] + END_MARK


def huge_steps_episode(
    submission: Submission, *, steps: int = 3, size: int = 1_000_000, parsed_action: str = "up"
) -> Episode:
    """A finished lmact/gridworld episode of `steps` steps, each with a completion of
    `size` characters (also in its calls), reasoning and a prompt part of the same size,
    and `parsed_action` as what was read from each answer."""
    with transaction.atomic():
        run = run_create(
            submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1, first_seed=5)
        )
        episode = run.episodes.get()
        assert episode_claim(episode.id, WORKER)
        for index in range(steps):
            completion = huge_text(size, f"step {index} says up. ")
            Step.objects.create(
                episode=episode, index=index, observation_text=f"obs {index}",
                prompt_added=[{"type": "text", "section": "observation", "text": huge_text(size, "prompt ")}],
                completion=completion, reasoning=huge_text(size, "thinking "), parsed_action=parsed_action,
                executed_action="up", legal=True, reward=0.0, done=index == steps - 1,
                end_reason="step limit" if index == steps - 1 else "",
                calls=[{"purpose": "action", "completion": completion, "tokens_in": 10, "tokens_out": 10}],
            )
        episode_finish(episode.id, WORKER, score=0.0, end_reason="step limit")
    episode.refresh_from_db()
    return episode
