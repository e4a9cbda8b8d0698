"""Each text of a step is stored once (arena.storage.steptext): the rows shrink, and every
reader — the step API, the prompt rebuild, the BALROG export, a migration back to the
plain rows — gets exactly what it got when steps repeated their texts."""

import json
import math

import pytest
from django.db import connection
from django.db.migrations import RunPython
from django.db.migrations.executor import MigrationExecutor

from arena.storage import steptext
from arena.models import Step
from arena.strategies.history import rebuild_messages
from tests.conftest import new_run
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)

COINS = "balrog/textworld-coin-collector"
MIGRATION_SUFFIX = "_step_texts_stored_once"


def _raw_rows(episode_ids) -> dict[int, tuple]:
    placeholders = ", ".join(["%s"] * len(episode_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, observation_text, prompt_added, completion, reasoning, calls FROM arena_step "
            f"WHERE episode_id IN ({placeholders}) ORDER BY id",
            list(episode_ids),
        )
        return {row[0]: row[1:] for row in cursor.fetchall()}


def _stored_size(rows: dict[int, tuple]) -> int:
    """The characters of the columns that repeated texts: prompt_added, reasoning, calls."""
    return sum(len(row[1]) + len(row[3] or "") + len(row[4]) for row in rows.values())


def _payloads(client, episodes) -> list[dict]:
    payloads = []
    for episode in episodes:
        for index in episode.steps.order_by("index").values_list("index", flat=True):
            response = client.get(f"/api/episodes/{episode.id}/steps/{index}/")
            assert response.status_code == 200
            payload = response.json()
            payload.pop("created_at")
            payloads.append(payload)
    return payloads


def _run_data_migration(backwards: bool) -> None:
    """The data half of the migration that made step texts lean, run one way or the
    other on today's schema: migrating the whole schema back would also undo the later
    migrations, which add columns the pages read."""
    executor = MigrationExecutor(connection)
    ours = next(key for key in executor.loader.graph.nodes if key[0] == "arena" and key[1].endswith(MIGRATION_SUFFIX))
    migration = executor.loader.get_migration(*ours)
    run_python = next(op for op in migration.operations if isinstance(op, RunPython))
    apps = executor.loader.project_state(ours).apps
    with connection.schema_editor() as editor:
        (run_python.reverse_code if backwards else run_python.code)(apps, editor)


def _played(make_model_submission, fake_model, play):
    """A BALROG episode with chain of thought (the reasoning is the completion) and an
    LMAct one with self-correction (two calls per step, the first with its own text)."""
    balrog = new_run(make_model_submission(chain_of_thought=True, history_window=2), task=COINS, fmt="text")
    fake_model.enqueue(*[Fault.reply(f"  The coin may be north.\nACTION: go north {k}  ") for k in range(80)])
    play(balrog.episodes.get().id)
    lmact = new_run(make_model_submission(self_correction=True), task="lmact/gridworld", fmt="ascii")
    fake_model.enqueue(Fault.reply("Action: left"), Fault.reply("On reflection:\nAction: down"))
    play(lmact.episodes.get().id)
    return balrog.episodes.get(), lmact.episodes.get()


def test_a_played_step_stores_its_observation_its_reasoning_and_its_call_figures_once(
    make_model_submission, fake_model, play
):
    balrog, lmact = _played(make_model_submission, fake_model, play)
    rows = _raw_rows([balrog.id, lmact.id])
    long_observations = [row for row in rows.values() if row[0] and len(row[0]) > 60]
    assert long_observations
    for observation, prompt_added, _, _, _ in long_observations:
        assert json.dumps(observation)[1:-1] not in prompt_added
    balrog_rows = [rows[pk] for pk in balrog.steps.values_list("pk", flat=True)]
    assert all(reasoning is None for *_, reasoning, _ in balrog_rows)
    assert all(json.loads(calls) == [{"~": []}] for *_, calls in balrog_rows)

    # Read back, each step is whole again.
    steps = list(balrog.steps.order_by("index"))
    assert steps[3].reasoning == "The coin may be north.\nACTION: go north 3"
    assert steps[3].prompt_added[0]["text"] == steps[3].observation_text
    assert steps[3].calls[0]["tokens_in"] == steps[3].tokens_in and steps[3].calls[0]["finish_reason"] == "stop"
    for k in (0, 1, 2, 79):
        assert rebuild_messages(balrog.prompt_prefix, steps[: k + 1], history_window=2, chain_of_thought=True) == (
            fake_model.requests[k].json["messages"]
        ), k
    first = lmact.steps.get(index=0)
    assert [call["completion"] for call in first.calls_with_completions] == ["Action: left", first.completion]

    # A query that loads only some fields gets them whole too.
    whole = steps[5]
    assert balrog.steps.only("prompt_added").get(index=5).prompt_added == whole.prompt_added
    assert balrog.steps.only("reasoning").get(index=5).reasoning == whole.reasoning
    assert balrog.steps.only("calls").get(index=5).calls == whole.calls

    # Rows written in the plain form (older rows, imports) read back as they are.
    plain = {"prompt_added": whole.prompt_added, "reasoning": whole.reasoning, "calls": whole.calls}
    Step.objects.filter(pk=whole.pk).update(**plain)
    assert "observation_at" not in _raw_rows([balrog.id])[whole.pk][1]
    again = Step.objects.get(pk=whole.pk)
    assert (again.prompt_added, again.reasoning, again.calls) == (whole.prompt_added, whole.reasoning, whole.calls)


def test_migrating_back_and_forth_changes_no_payload_and_restores_the_lean_rows(
    make_model_submission, fake_model, play, client
):
    episodes = _played(make_model_submission, fake_model, play)
    lean = _raw_rows([e.id for e in episodes])
    payloads = _payloads(client, episodes)
    try:
        _run_data_migration(backwards=True)
        plain = _raw_rows([e.id for e in episodes])
        assert _stored_size(plain) > 1.5 * _stored_size(lean)
        assert all(row[3] is not None for row in plain.values())
        assert _payloads(client, episodes) == payloads
    finally:
        _run_data_migration(backwards=False)
    assert _raw_rows([e.id for e in episodes]) == lean
    assert _payloads(client, episodes) == payloads


STEP = {
    "observation_text": "a long observation that shows up in the prompt",
    "completion": "Reasoning: go.\nAction: up",
    "reasoning": "go.",
    "tokens_in": 120, "tokens_out": 7, "cached_tokens_in": None, "latency_ms": 41.5,
}
CALL = {"purpose": "act", "tokens_in": 120, "tokens_out": 7, "cached_tokens_in": None, "latency_ms": 41.5,
        "attempts": 1, "http_status": 200, "finish_reason": "stop"}


@pytest.mark.parametrize(
    "changes",
    [
        {"prompt_added": [{"type": "text", "text": "Obs:\na long observation that shows up in the prompt\n"
                                                   "and again: a long observation that shows up in the prompt"}]},
        {"prompt_added": [{"type": "image", "sha": "ab" * 32, "section": "image"},
                          {"type": "text", "text": "Current: a long observation that shows up in the prompt",
                           "section": "observation"}]},
        {"prompt_added": [{"type": "text", "text": "the observation is not in here"}]},
        {"observation_text": "tiny", "prompt_added": [{"type": "text", "text": "Obs: tiny"}]},
        {"observation_text": None, "prompt_added": []},
        {"reasoning": "", "completion": "up"},
        {"reasoning": "Reasoning: go.\nAction: up", "completion": "  Reasoning: go.\nAction: up\n"},
        {"calls": [{**CALL, "finish_reason": "length", "attempts": 3, "completion": "an earlier answer"}]},
        {"calls": [CALL, {**CALL, "purpose": "self-correction", "tokens_in": 140}]},
        {"calls": [{"purpose": "act", "latency_ms": 41.5, "attempts": 1, "http_status": 200, "completion": "up"}]},
        {"calls": [{**CALL, "latency_ms": 41}], "latency_ms": 41},
        {"calls": [{**CALL, "latency_ms": math.inf}]},
        {"calls": [{**CALL, "served_by": "replica-2"}]},
        {"calls": []},
    ],
)
def test_the_stored_form_restores_every_step_exactly(changes):
    fields = {**STEP, "prompt_added": [], "calls": [CALL], **changes}
    stored = steptext.to_store(fields)
    restored = steptext.restore(stored)
    assert json.dumps(restored) == json.dumps(fields)  # same values, same key order, same types
    assert steptext.to_store(stored) == stored  # storing twice changes nothing
    assert len(json.dumps(stored)) <= len(json.dumps(fields))


def test_a_call_read_back_with_its_keys_in_another_order_is_still_stored_lean():
    # PostgreSQL's jsonb returns keys sorted by length: what the migration reads there.
    shuffled = dict(sorted(CALL.items(), key=lambda item: (len(item[0]), item[0])))
    stored = steptext.calls_to_store([shuffled], STEP)
    assert stored == [{"~": []}]
    assert steptext.calls_restored(stored, STEP) == [shuffled]
