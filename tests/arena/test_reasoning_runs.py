"""Reasoning models against a fake reasoning server, in every wire form reasoning
comes in: the reasoning is stored apart from the answer, the action is parsed from the
answer alone, and an answer cut off by max_tokens (a model that spent the whole limit
thinking) is its own outcome, counted apart from illegal actions, never a failed
episode."""

from __future__ import annotations

import pytest

from arena.services.submissions import submission_create
from arena.clients.reasoning_params import reasoning_request
from arena.models import Episode, Run
from tests.conftest import new_run
from tests.support.recordings import camel
from tests.support.fake_reasoning import DECOY, WIRE_FORMS, fake_reasoning_server, reasoning_text

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-test-reasoning-0123456789"
CUT_OFF_EVERY = 3
MOVES = {"up", "down", "left", "right"}


def _by_meaning(config: dict) -> dict:
    return {key: item.upper() if isinstance(item, str) else item for key, item in camel(config).items()}


def reasoning_submission(server, **overrides):
    fields = {
        "name": f"Reasoner ({server.form})",
        "provider": server.provider,
        "base_url": server.base_url,
        "model": "fake-reasoner",
        "temperature": 1.0,  # what reasoning APIs require (arena.clients.reasoning_params)
        "max_tokens": 64,
        "reasoning_effort": "high",
        **overrides,
    }
    return submission_create(owner=None, fields=fields, api_key=KEY, runs=[])


@pytest.mark.parametrize("form", WIRE_FORMS)
def test_reasoning_is_stored_apart_and_answers_cut_off_are_counted_apart(form, allow_loopback, play):
    with fake_reasoning_server(form, cut_off_every=CUT_OFF_EVERY) as server:
        submission = reasoning_submission(server)
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    # The setting went out in the provider's own parameter, with every call.
    sent = reasoning_request(submission.provider, submission.base_url, submission.model, submission.reasoning_setting)
    assert sent
    for request in server.requests:
        for key, value in sent.items():
            if key == "generationConfig":  # Gemini's, merged with the sampling settings
                # Compared by meaning: Gemini's SDK sends some fields snake_case and its
                # enums in capitals ("HIGH"), which the API reads as "thinkingLevel": "high".
                assert _by_meaning(request.json[key]["thinkingConfig"]) == _by_meaning(value["thinkingConfig"])
            else:
                assert request.json[key] == value
    steps = list(episode.steps.order_by("index"))
    assert len(steps) >= 2 * CUT_OFF_EVERY
    cut = [step for step in steps if (step.index + 1) % CUT_OFF_EVERY == 0]
    for step in steps:
        turn = step.index + 1
        assert step.reasoning == reasoning_text(turn), step.index
        assert "think>" not in step.completion and DECOY not in step.completion
        assert step.cut_off is (step in cut)
        if step in cut:
            # No answer text: the suite's rule for a missing action decides (LMAct: a
            # random legal action), and the step is not an illegal action.
            assert (step.completion, step.parsed_action, step.legal) == ("", None, False)
            assert step.executed_action in MOVES
        else:
            assert step.completion.startswith("Reasoning:")  # the fake player's answer, whole
            assert step.parsed_action == step.executed_action and step.legal
    assert (episode.illegal_steps, episode.cut_off_steps) == (0, len(cut))

    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert (run.illegal_total, run.cut_off_total, run.illegal_rate) == (0, len(cut), 0.0)
    assert run.cut_off_rate == pytest.approx(len(cut) / len(steps))
    if form != "anthropic":  # Anthropic does not report the thinking part of output_tokens
        assert episode.reasoning_tokens > 0 and run.reasoning_tokens == episode.reasoning_tokens
        assert all(step.reasoning_tokens for step in steps)


def test_a_finished_answer_naming_no_move_of_the_game_is_still_an_illegal_action(allow_loopback, play):
    from tests.support.fake_openai import Fault

    with fake_reasoning_server("reasoning_content") as server:
        submission = reasoning_submission(server)
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        server.enqueue(Fault.reply("Action: sideways"))
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert (episode.illegal_steps, episode.cut_off_steps) == (1, 0)
    first = episode.steps.get(index=0)
    assert (first.parsed_action, first.legal, first.cut_off) == ("sideways", False, False)


def test_the_run_episode_and_leaderboard_pages_show_answers_cut_off_apart(allow_loopback, play, client):
    with fake_reasoning_server("think", cut_off_every=2) as server:
        submission = reasoning_submission(server)
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)
    run.refresh_from_db()
    episode = run.episodes.get()
    assert run.cut_off_total == episode.cut_off_steps > 0 and run.illegal_total == 0

    run_page = client.get(run.get_absolute_url()).content.decode()
    assert f'<span id="run-cut-off">{run.cut_off_total}</span>' in run_page
    assert "Illegal actions: 0" in run_page
    episode_page = client.get(episode.get_absolute_url()).content.decode()
    assert f'data-episode-field="cut_off_steps">{episode.cut_off_steps}<' in episode_page
    board = client.get("/tasks/lmact/gridworld/").content.decode()
    assert "cut off</span>" in board
    api = client.get(f"/api/runs/{run.pk}/").json()
    assert (api["cut_off_total"], api["illegal_total"]) == (run.cut_off_total, 0)
    marks = client.get(f"/api/episodes/{episode.pk}/marks/").json()
    assert marks["marks"]["illegal"] == {"indices": []}  # the replay does not mark them illegal


def test_a_chat_suite_played_through_the_responses_api_sends_each_answers_reasoning_back(allow_loopback, play):
    """InfoGather plays in turns (the conversation grows): from the second call on, the
    input carries each earlier answer's encrypted reasoning item before its message."""
    from tests.support.fake_responses import encrypted

    with fake_reasoning_server("responses") as server:
        submission = reasoning_submission(server, history_window=1000)
        run = new_run(submission, task="infogather/single-feature", fmt="text", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.num_steps >= 2
    later = server.requests[-1].json["input"]
    carried = [item["encrypted_content"] for item in later if item.get("type") == "reasoning"]
    assert carried == [encrypted(turn) for turn in range(1, len(carried) + 1)] and carried
    assert all(step.reasoning == reasoning_text(step.index + 1) for step in episode.steps.all())
