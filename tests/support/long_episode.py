"""A finished episode of many steps (100,000 in the replay tests), written in bulk: one
step_record call per step, or even model instances through bulk_create, take
minutes for 100,000 steps, so the rows go in through one executemany, with the columns
that are the same for every step prepared once by their model fields. Every step says
its index in its observation, so a page can show which step it drew; some steps carry
each kind of scrubber mark."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from arena.services.episodes import episode_claim, episode_finish
from arena.services.runs import RunSpec, run_create
from arena.services.steps import step_record
from arena.models import Episode, Step, Submission

WORKER = "long-episode-test-worker"
BATCH = 10_000


def long_step_text(index: int) -> str:
    return f"long episode, step {index}"


def illegal_at(index: int) -> bool:
    return index % 7 == 3


def reward_at(index: int) -> float:
    return 1.0 if index % 1000 == 999 else 0.0


ERROR_AT = 50_001


def long_episode(submission: Submission, steps: int) -> Episode:
    """A finished lmact/gridworld episode of `steps` steps: illegal actions at every
    index ≡ 3 (mod 7), a reward of 1 at every index ≡ 999 (mod 1000), an error at
    ERROR_AT (when it has that many steps) and `done` on the last step."""
    with transaction.atomic():
        run = run_create(
            submission, RunSpec(task="lmact/gridworld", format="ascii", num_episodes=1, first_seed=7)
        )
        episode = run.episodes.get()
        assert episode_claim(episode.id, WORKER)
        _insert_steps(episode.id, steps)
        episode_finish(episode.id, WORKER, score=0.0, end_reason="step limit")
    episode.refresh_from_db()
    return episode


def _insert_steps(episode_id: int, steps: int) -> None:
    template = Step(episode_id=episode_id, index=0, executed_action="up", legal=True, created_at=timezone.now())
    fields = [field for field in Step._meta.concrete_fields if not field.primary_key]
    constant = {field.column: field.get_db_prep_save(getattr(template, field.attname), connection) for field in fields}
    columns = [field.column for field in fields]
    table = connection.ops.quote_name(Step._meta.db_table)
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        table, ", ".join(connection.ops.quote_name(c) for c in columns), ", ".join(["%s"] * len(columns))
    )
    with connection.cursor() as cursor:
        for start in range(0, steps, BATCH):
            rows = []
            for index in range(start, min(steps, start + BATCH)):
                varying = _varying_columns(index, steps)
                rows.append(tuple(varying.get(column, constant[column]) for column in columns))
            cursor.executemany(sql, rows)


def _varying_columns(index: int, steps: int) -> dict:
    illegal = illegal_at(index)
    last = index == steps - 1
    return {
        "index": index, "observation_text": long_step_text(index), "completion": f"Action: up {index}",
        "parsed_action": "up", "executed_action": "down" if illegal else "up", "legal": not illegal,
        "reward": reward_at(index), "done": last, "end_reason": "step limit" if last else "",
        "error": "the model timed out" if index == ERROR_AT else "",
    }
