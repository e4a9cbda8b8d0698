"""One task of every suite against a real model server running a real instruction-tuned
model (tests/support/real_servers.py), submitted through the API as a user would; the
body of tests/arena/test_real_server_*.py (one file per server, so that the test
processes share them out). Every run must finish, none fail, and each gets a
leaderboard row; the figures (steps, legal actions, latency, prompt tokens re-read)
are printed and returned."""

from __future__ import annotations

import os

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from arena.services.runs import RunSpec, run_create
from arena.models import Episode, Run, Submission
from tests.support.real_servers import CONTEXT_WINDOW
from tests.support.run_figures import figures_of

# The whole list: one task of every suite, TextAtari at 100 steps. A 135M model on
# a 2-core CI machine takes over ten minutes per server for it, so `make test` plays the
# short list below, and ARENA_REAL_SERVER_FULL=1 plays this one (docs/operations.md).
FULL_SUBMITTED = [
    "lmact/tictactoe:ascii",
    "lmact/gridworld:ascii",
    "balrog/babyai-goto:text",
    "balrog/textworld-coin-collector:text",
    "adventure/basic-easy:text",
]
# Added to the submission with the settings the issue names (the API would sweep them).
FULL_ADDED = [
    RunSpec("lmact/tictactoe", "ascii", 1, strategy={"num_demonstrations": 2}),
    RunSpec("infogather/single-feature", "text", 1, options={"num_colours": 3, "guided_reasoning": False}),
    RunSpec("textatari/pong", "text", 1, options={"scenario": "basic", "max_steps": 100}),
]
# The short list keeps the edge that failed every LMAct run on llama-cpp-python's server:
# LMAct's one-message prompt as string content, with and without demonstrations (the
# probe's message-shape requests run on every server either way; a chat suite's folded
# system text and merged turns are played against fakes in test_message_shape.py).
QUICK_SUBMITTED = ["lmact/tictactoe:ascii"]
QUICK_ADDED = [FULL_ADDED[0]]
FULL = os.environ.get("ARENA_REAL_SERVER_FULL") == "1"
SUBMITTED, ADDED = (FULL_SUBMITTED, FULL_ADDED) if FULL else (QUICK_SUBMITTED, QUICK_ADDED)
# A small model on a shared CI core: the production timeouts, not the tests' short ones.
TIMEOUTS = {"ARENA_PROBE_TIMEOUT_SECONDS": 60.0, "ARENA_MODEL_TIMEOUT_SECONDS": 120.0}


def play_every_suite(server, kind: str, play, expected_shape: dict) -> list:
    api = APIClient()
    api.force_authenticate(User.objects.create_user(f"user-of-{kind}", password="a long password here"))
    body = {
        "name": f"SmolLM2 on {kind}", "base_url": server.base_url, "model": server.model_id, "api_key": "",
        "tasks": SUBMITTED, "episodes_per_task": 1, "max_tokens": 24, "max_concurrent_requests": 1,
    }
    created = api.post("/api/submissions/", body, format="json")
    assert created.status_code == 201, created.content
    probe = created.json()["endpoint_probe"]
    assert probe["message_shape"] == expected_shape, probe["notes"]
    assert (probe["context_window"], probe["context_window_source"]) == (CONTEXT_WINDOW, "server"), probe["notes"]
    submission = Submission.objects.get(pk=created.json()["id"])
    for spec in ADDED:
        run_create(submission, spec)

    runs = list(Run.objects.filter(submission=submission).order_by("pk"))
    assert len(runs) == len(SUBMITTED) + len(ADDED)
    play(*Episode.objects.filter(run__in=runs).values_list("id", flat=True))

    figures = []
    print(f"\n{kind}")
    for run in runs:
        run.refresh_from_db()
        figures.append(figures_of(run))
        print(figures[-1].line())
    for run in runs:
        episode = run.episodes.get()
        assert episode.status == Episode.FINISHED, (run.task, episode.error)
        assert run.status == Run.FINISHED, run.task
        board = api.get("/api/leaderboard/", {"task": run.task}).json()
        assert any(row["run"]["id"] == run.pk for row in board), run.task
    return runs
