"""Submissions of every provider kind, strategies that make extra calls, and budgets."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.services.runs import RunSpec, run_create
from arena.services.submissions import submission_create
from arena.storage.images import image_path
from arena.models import Episode, Run, Submission
from tests.conftest import new_run
from tests.support.fake_openai import Fault
from tests.support.fake_providers import FakeAgentServer, FakeAnthropicServer, FakeGeminiServer

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def _submission(base_url, **fields):
    values = {"name": "s", "base_url": base_url, "model": "m", "max_tokens": 32, **fields}
    return submission_create(owner=None, fields=values, api_key=fields.pop("api_key", "k-123"), runs=[])


@pytest.mark.parametrize("server_class, provider", [(FakeAnthropicServer, "anthropic"), (FakeGeminiServer, "gemini")])
def test_anthropic_and_gemini_submissions_play_episodes(allow_loopback, play, server_class, provider):
    with server_class(default_action="up") as server:
        run = new_run(_submission(server.base_url, provider=provider), task="lmact/gridworld", fmt="coords")
        play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    step = episode.steps.first()
    assert step.parsed_action == "up" and step.tokens_in and step.calls[0]["purpose"] == "act"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_agent_endpoint_served_by_the_example_script_plays_a_full_episode(allow_loopback, play, settings):
    submission = _submission("http://127.0.0.1:1/", provider="agent", model="")
    secret = submission.new_agent_secret
    assert secret and secret not in submission.agent_secret_encrypted
    port = _free_port()
    agent = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "agent_endpoint.py"), "--port", str(port)],
        env={**os.environ, "ARENA_AGENT_SECRET": secret},
        stdout=subprocess.PIPE,
    )
    try:
        agent.stdout.readline()  # "agent listening on …"
        Submission.objects.filter(pk=submission.pk).update(base_url=f"http://127.0.0.1:{port}/")
        run = new_run(Submission.objects.get(pk=submission.pk), task="lmact/tictactoe", fmt="ascii")
        play(run.episodes.get().id)
    finally:
        agent.terminate()
        agent.wait(timeout=10)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert all(step.legal for step in episode.steps.all())


def test_a_wrong_secret_on_the_agents_side_is_reported(allow_loopback, play):
    with FakeAgentServer(secret="not-the-arenas-secret") as agent:
        run = new_run(_submission(agent.base_url, provider="agent", model=""))
        play(run.episodes.get().id)
        assert agent.rejected >= 1
    episode = run.episodes.get()
    assert episode.status == Episode.FAILED
    assert "agent rejected the arena's signature" in episode.error


def test_a_non_json_agent_reply_is_an_illegal_action_not_a_crash(allow_loopback, play):
    submission = _submission("http://127.0.0.1:1/", provider="agent", model="")
    with FakeAgentServer(secret=submission.new_agent_secret, non_json=True) as agent:
        Submission.objects.filter(pk=submission.pk).update(base_url=agent.base_url)
        run = new_run(Submission.objects.get(pk=submission.pk))
        play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED
    first = episode.steps.first()
    assert first.legal is False and first.parsed_action is None and "not JSON" in first.error


def test_an_agent_endpoint_gets_the_public_url_of_each_stored_frame(allow_loopback, play, settings):
    settings.ARENA_PUBLIC_URL = "https://arena.example.org/"
    submission = _submission("http://127.0.0.1:1/", provider="agent", model="")
    with FakeAgentServer(secret=submission.new_agent_secret) as agent:
        Submission.objects.filter(pk=submission.pk).update(base_url=agent.base_url)
        run = new_run(Submission.objects.get(pk=submission.pk), task="lmact/tictactoe", fmt="rgb")
        play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    sent = [request.json["observation"]["image_url"] for request in agent.requests]
    frames = list(episode.steps.order_by("index").values_list("observation_image_id", flat=True))
    assert sent == [f"https://arena.example.org/media/images/{sha[:2]}/{sha}.png" for sha in frames]
    assert all(image_path(sha).exists() for sha in frames)


def test_self_correction_makes_and_records_two_calls_per_step(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(self_correction=True), task="lmact/gridworld", fmt="coords")
    fake_model.enqueue(Fault.reply("Action: left"), Fault.reply("On reflection:\nAction: down"))
    play(run.episodes.get().id)
    first = run.episodes.get().steps.order_by("index").first()
    assert [c["purpose"] for c in first.calls] == ["act", "self-correction"]
    assert first.parsed_action == "down"
    assert first.tokens_in == sum(c["tokens_in"] for c in first.calls)
    revision = fake_model.requests[1].json["messages"]
    assert revision[-2] == {"role": "assistant", "content": "Action: left"}


def test_a_steps_completion_is_stored_once_and_readers_still_get_each_calls_text(
    make_model_submission, fake_model, play, client
):
    run = new_run(make_model_submission(self_correction=True), task="lmact/gridworld", fmt="coords")
    fake_model.enqueue(
        Fault.reply("Action: left"), Fault.reply("On reflection:\nAction: down"),
        Fault.reply("Action: up"), Fault.reply("Action: up"),
    )
    play(run.episodes.get().id)
    episode = run.episodes.get()
    first, second = episode.steps.order_by("index")[:2]

    # The last call's text is the step's completion, kept once; the first call's own
    # answer differs and stays with its call.
    assert first.completion == "On reflection:\nAction: down"
    assert first.calls[0]["completion"] == "Action: left" and "completion" not in first.calls[1]
    assert not any("completion" in call for call in second.calls)  # both calls answered alike
    expected = [["Action: left", first.completion], [second.completion, second.completion]]
    assert [[call["completion"] for call in step.calls_with_completions] for step in (first, second)] == expected

    served = client.get(f"/api/episodes/{episode.id}/steps/").json()["results"]
    assert [[call["completion"] for call in step["calls"]] for step in served[:2]] == expected


def test_a_run_stops_cleanly_at_its_token_budget(make_model_submission, fake_model, play):
    run = new_run(make_model_submission(budget_tokens_per_run=300), task="lmact/gridworld", fmt="ascii", episodes=4)
    play(*run.episodes.order_by("index").values_list("id", flat=True))
    run.refresh_from_db()
    assert run.status == Run.BUDGET_EXHAUSTED
    statuses = list(run.episodes.order_by("index").values_list("status", flat=True))
    assert Episode.SKIPPED in statuses and "queued" not in statuses and "running" not in statuses
    stopped = run.episodes.filter(status=Episode.FAILED).first()
    assert stopped is not None and "budget exhausted" in stopped.error
    assert run.tokens_spent_in + run.tokens_spent_out >= 300


def test_reflexion_plays_in_order_and_carries_the_last_reflections(make_model_submission, fake_model, play):
    submission = make_model_submission(reflection="recent")
    spec = RunSpec(task="infogather/single-feature", format="text", num_episodes=2, options={"num_colours": 3})
    run = run_create(submission, spec)
    first, second = run.episodes.order_by("index")
    fake_model.enqueue(Fault.reply("action: stop\nstop: yes\nfactor: colour\ncombination: red"))
    fake_model.enqueue(Fault.reply("Next time I will pick objects before guessing."))
    play(first.id)
    first.refresh_from_db()
    assert first.reflection == "Next time I will pick objects before guessing."
    fake_model.enqueue(Fault.reply("action: stop\nstop: yes\nfactor: shape\ncombination: ball"))
    play(second.id)
    system = fake_model.requests[-2].json["messages"][0]["content"]
    assert "Next time I will pick objects before guessing." in system


def test_the_api_shows_the_agent_secret_once(django_user_model, monkeypatch):
    from rest_framework.test import APIClient

    real = socket.getaddrinfo

    def public(host, *args, **kwargs):
        if host == "agent.example.org":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", public)
    api = APIClient()
    api.force_authenticate(django_user_model.objects.create_user("agent-owner", password="long-password-123"))
    body = {"name": "my agent", "provider": "agent", "base_url": "https://agent.example.org/step", "model": "",
            "tasks": ["lmact/gridworld:coords"], "episodes_per_task": 1}
    created = api.post("/api/submissions/", body, format="json")
    assert created.status_code == 201, created.content
    secret = created.json()["agent_secret"]
    assert secret and len(secret) > 30
    again = api.get(f"/api/submissions/{created.json()['id']}/").json()
    assert again["agent_secret"] is None and secret not in str(again)


def test_chat_suites_take_few_shot_expert_games_and_slide_their_context(make_model_submission, fake_model, play):
    submission = make_model_submission(num_demonstrations=2, context_window=2500, max_tokens=100)
    run = run_create(
        submission, RunSpec(task="adventure/basic-easy", format="text", num_episodes=1)
    )
    fake_model.enqueue(*[Fault.reply("> look") for _ in range(12)], Fault.reply("> done"))
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert len(episode.demonstration_seeds) == 2
    first = fake_model.requests[0].json["messages"]
    assert "Example games played by an expert" in first[0]["content"]
    # Near the context limit the oldest turns are dropped; the opening stays first.
    sizes = [len(r.json["messages"]) for r in fake_model.requests]
    assert max(sizes) < 2 * 13
    last = fake_model.requests[-1].json["messages"]
    assert last[0]["content"] == first[0]["content"]
