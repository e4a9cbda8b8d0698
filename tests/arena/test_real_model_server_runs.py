"""The arena against a real OpenAI-compatible server (llama.cpp's, tests/support/
llama_server.py): a 4,096-token window it enforces with HTTP 400, a real tokenizer
denser than the arena's estimate, one slot, no images. Submitted through the API as a
user would, played by the real runner, read back from the leaderboard."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient


from arena.models import Episode, Run, Submission
from arena.strategies.lmact_prompt import rebuild_prompt

pytestmark = [pytest.mark.real_server, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api(allow_loopback):
    client = APIClient()
    client.force_authenticate(User.objects.create_user("local-llm-user", password="a long password here"))
    return client


def _submit(api, server, tasks, **fields):
    body = {
        "name": "tiny llama", "base_url": server.base_url, "model": server.model_id, "api_key": "",
        "tasks": tasks, "episodes_per_task": 1, "max_tokens": 48, "max_concurrent_requests": 1, **fields,
    }
    return api.post("/api/submissions/", body, format="json")


def test_the_probe_reads_the_window_and_refuses_image_tasks(api, llama_server):
    refused = _submit(api, llama_server, ["lmact/gridworld:ascii", "lmact/tictactoe:rgb"])
    assert refused.status_code == 400
    assert "does not accept images" in refused.json()["tasks"][0]
    assert not Submission.objects.exists()

    created = _submit(api, llama_server, ["lmact/gridworld:ascii"])
    assert created.status_code == 201, created.content
    probe = created.json()["endpoint_probe"]
    assert (probe["context_window"], probe["context_window_source"], probe["accepts_images"]) == (4096, "server", False)
    assert probe["latency_ms"] > 0


def test_an_lmact_episode_outgrowing_the_window_is_trimmed_and_scored(api, llama_server, play):
    created = _submit(api, llama_server, ["lmact/gridworld:ascii"], num_demonstrations=16)
    assert created.status_code == 201, created.content
    run = Run.objects.get(submission_id=created.json()["id"])
    play(*run.episodes.values_list("id", flat=True))

    run.refresh_from_db()
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert run.status == Run.FINISHED
    assert episode.demonstrations_capped and episode.demonstrations_capped["used"] < 16
    steps = list(episode.steps.order_by("index"))
    trimmed = [s for s in steps if "context" in s.info]
    assert trimmed, "16 demonstrations plus a 25-step trajectory do not fit 4,096 tokens"
    assert episode.first_trimmed_step == trimmed[0].index
    # Every prompt the server accepted is within its window, by its own count.
    assert max(s.tokens_in for s in steps) <= 4096
    last = steps[-1]
    rebuilt = rebuild_prompt(episode.prompt_prefix, [s.prompt_added for s in steps],
                             dropped_steps=last.info["context"]["dropped"])
    assert "left out here to fit the model's context window" in "".join(p.get("text", "") for p in rebuilt)

    rows = api.get("/api/leaderboard/", {"task": "lmact/gridworld"}).json()
    row = next(r for r in rows if r["run"]["id"] == run.pk)
    assert row["run"]["episodes_done"] == 1


def test_a_chat_conversation_outgrowing_the_window_slides(api, llama_server, play):
    created = _submit(api, llama_server, ["infogather/conjunction:text"], history_window=1000,
                      keep_reasoning=True, max_tokens=96)
    assert created.status_code == 201, created.content
    # One colour count is enough here (the submission queues 3–10 with and without guided reasoning).
    run = Run.objects.filter(submission_id=created.json()["id"]).get(
        variant__options__num_colours=10, variant__options__guided_reasoning=True
    )
    play(*run.episodes.values_list("id", flat=True))

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    steps = list(episode.steps.order_by("index"))
    assert any("context" in s.info for s in steps) or episode.end_reason.startswith("context window exhausted")
    assert max(s.tokens_in or 0 for s in steps) <= 4096


def test_a_balrog_episode_plays_to_its_limit_within_the_window(api, llama_server, play):
    """BALROG's observation history (BALROG §3) on the real server: Crafter's long
    instruction prompt and 16 observations, shortened by the task setting to 100 steps
    through the API; the random model's outputs are invalid, execute Noop and are said
    so in the next turn."""
    created = _submit(api, llama_server, ["balrog/crafter:text"], max_tokens=16,
                      task_settings={"balrog/crafter": {"max_steps": 100}})
    assert created.status_code == 201, created.content
    run = Run.objects.get(submission_id=created.json()["id"])
    assert run.options == {"max_steps": 100}
    play(*run.episodes.values_list("id", flat=True))

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    steps = list(episode.steps.order_by("index"))
    assert len(steps) == episode.num_steps <= 100
    assert max(s.tokens_in or 0 for s in steps) <= 4096
    invalid = [s for s in steps if not s.legal]
    assert invalid and all(s.executed_action == "Noop" for s in invalid)
    assert "progress" in episode.metrics
    rows = api.get("/api/leaderboard/", {"task": "balrog/crafter"}).json()
    assert any(r["run"]["id"] == run.pk for r in rows)
