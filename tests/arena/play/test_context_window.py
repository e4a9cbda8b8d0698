"""A model's context window never kills an episode (real servers answer HTTP 400 past it)."""

import pytest

from arena.services import run_actions
from arena.models import Episode, Run
from arena.strategies.chat import rebuild_messages
from arena.strategies.lmact_prompt import rebuild_prompt
from tests.conftest import new_run
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.django_db(transaction=True)


def _sent_text(content):
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def _prompt_text(parts):
    return "".join(p["text"] for p in parts)


@pytest.fixture
def windowed_model():
    with FakeOpenAIServer(context_window=1024) as server:
        yield server


def _submission(make_model_submission, server, window=None, **fields):
    submission = make_model_submission(base_url=server.base_url, max_tokens=64, **fields)
    if window is not None:
        submission.endpoint_probe = {"context_window": window, "context_window_source": "server"}
        submission.save(update_fields=["endpoint_probe"])
    return submission


def test_an_lmact_trajectory_longer_than_the_window_drops_its_oldest_steps(make_model_submission, windowed_model, play):
    submission = _submission(make_model_submission, windowed_model, window=1024)
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=3)
    # Answer "stay in place" moves that never reach the target, so the episode is long.
    windowed_model.default_action = "left"
    play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.num_steps > 12
    # Fitted before sending: the server never had to refuse a prompt.
    assert len([r for r in windowed_model.requests if r.json]) == episode.num_steps
    trimmed = [s for s in episode.steps.order_by("index") if "context" in s.info]
    assert trimmed, "a 25-step grid world trajectory does not fit 1,024 tokens"
    assert episode.first_trimmed_step == trimmed[0].index
    steps = list(episode.steps.order_by("index"))
    sent = [_sent_text(r.json["messages"][0]["content"]) for r in windowed_model.requests if r.json]
    for k, step in enumerate(steps):
        dropped = step.info.get("context", {}).get("dropped", 0)
        rebuilt = rebuild_prompt(episode.prompt_prefix, [s.prompt_added for s in steps[: k + 1]], dropped_steps=dropped)
        assert _prompt_text(rebuilt) == sent[k]
    last = sent[-1]
    assert "left out here to fit the model's context window" in last
    assert last.startswith(_prompt_text(episode.prompt_prefix))


def test_an_unknown_window_is_learned_from_the_first_refusal(make_model_submission, windowed_model, play):
    submission = _submission(make_model_submission, windowed_model)  # no window stated or probed
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=3)
    windowed_model.default_action = "left"
    play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.end_reason in ("step limit", "reached the target")
    refusals = len([r for r in windowed_model.requests if r.json]) - episode.num_steps
    assert 1 <= refusals <= 3  # learned from the first refusal, then fitted
    assert episode.first_trimmed_step is not None


def test_chat_history_slides_to_fit_and_the_stored_steps_rebuild_it(make_model_submission, play):
    with FakeOpenAIServer(context_window=3000) as server:
        submission = _submission(make_model_submission, server, window=3000, history_window=100)
        run = new_run(submission, task="infogather/conjunction", fmt="text", episodes=1)
        run.variant["options"] = {"num_colours": 6, "guided_reasoning": False}
        run.save(update_fields=["variant"])
        play(run.episodes.get().id)
        requests = [r.json["messages"] for r in server.requests if r.json]

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    steps = list(episode.steps.order_by("index"))
    assert any("context" in s.info for s in steps)
    for k, step in enumerate(steps):
        dropped = step.info.get("context", {}).get("dropped", 0)
        rebuilt = rebuild_messages(episode.prompt_prefix, steps[: k + 1], history_window=100, keep_reasoning=False, dropped_turns=dropped)
        assert rebuilt == requests[k]


def test_an_observation_that_outgrows_the_window_ends_the_episode_finished_with_its_score(make_model_submission, play):
    # A PGN observation holds the whole game, so it grows every move until even the
    # current one alone no longer fits a 400-token window.
    with FakeOpenAIServer(context_window=400) as server:
        submission = _submission(make_model_submission, server, window=400)
        run = new_run(submission, task="lmact/chess", fmt="pgn", episodes=1)
        play(run.episodes.get().id)

    episode = run.episodes.get()
    run.refresh_from_db()
    assert episode.status == Episode.FINISHED
    played = episode.steps.count()
    assert played >= 1
    assert episode.end_reason == f"context window exhausted at step {played}"
    assert episode.score == sum(episode.steps.values_list("reward", flat=True))
    assert run.status == Run.FINISHED and run.episodes_done == 1


def test_a_window_too_small_for_the_first_prompt_ends_at_step_zero(make_model_submission, play):
    with FakeOpenAIServer(context_window=120) as server:
        submission = _submission(make_model_submission, server, window=120)
        run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
        play(run.episodes.get().id)
        calls = len([r for r in server.requests if r.json])

    episode = run.episodes.get()
    assert calls == 0  # nothing was sent that the server would have refused
    assert (episode.status, episode.end_reason, episode.score) == (Episode.FINISHED, "context window exhausted at step 0", 0.0)


def test_what_a_failed_episode_played_counts_in_its_run(make_model_submission, fake_model, play):
    from tests.support.fake_openai import Fault

    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.reply("no idea"), Fault.reply("none"), Fault.reply("?"), Fault.status(401))
    play(run.episodes.get().id)

    episode = run.episodes.get()
    run.refresh_from_db()
    assert episode.status == Episode.FAILED
    assert episode.error_kind == "auth"
    assert (episode.num_steps, episode.illegal_steps) == (3, 3)
    assert run.steps_total == 3 and run.illegal_total == 3
    assert run.illegal_rate == 1.0
    assert run.tokens_in > 0


def test_an_image_task_for_a_text_only_model_ends_the_run_at_the_first_refusal(make_model_submission, play, client):
    with FakeOpenAIServer(accepts_images=False) as server:
        submission = _submission(make_model_submission, server)
        run = new_run(submission, task="lmact/tictactoe", fmt="rgb", episodes=5)
        first = run.episodes.order_by("index").first()
        play(first.id)
        calls = len([r for r in server.requests if r.json])

    run.refresh_from_db()
    assert calls == 1  # no retries, and the other four episodes never called
    assert run.status == Run.FAILED and run.episodes_failed == 5
    assert set(run.episodes.values_list("error_kind", flat=True)) == {"images_unsupported"}
    page = client.get(run.get_absolute_url()).content.decode()
    assert "5 episodes:</strong> the model does not accept images" in page


def test_failed_episodes_can_be_requeued_after_the_fix_and_resume(make_model_submission, fake_model, play):
    from tests.support.fake_openai import Fault

    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.reply("Action: up"), Fault.status(404))
    play(run.episodes.get().id)
    run.refresh_from_db()
    assert run.status == Run.FAILED and run.steps_total == 1

    assert run_actions.run_requeue_failed(run) == 1
    run.refresh_from_db()
    assert run.episodes_failed == 0 and run.steps_total == 0 and run.status != Run.FAILED
    play(run.episodes.get().id)

    episode = run.episodes.get()
    run.refresh_from_db()
    assert episode.status == Episode.FINISHED, episode.error
    assert episode.steps.get(index=0).completion == "Action: up"  # kept, not replayed against the model
    assert run.status == Run.FINISHED
    assert run.steps_total == episode.steps.count() == episode.num_steps


def test_a_cancelled_run_skips_what_is_left(make_model_submission):
    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=3)
    assert run_actions.run_cancel(run) == 3
    run.refresh_from_db()
    assert run.status == Run.CANCELLED
    assert set(run.episodes.values_list("status", flat=True)) == {Episode.SKIPPED}


def test_a_cancelled_episode_counts_what_it_played(make_model_submission):
    """Cancelled mid-episode: its illegal actions, answers cut off and tokens are on its
    row and in the run's aggregates, as a failed episode's are (docs/submitting.md), not
    zeros beside the steps it shows."""
    import dataclasses

    from arena.services.episodes import episode_claim
    from arena.services.steps import StepRecord, step_record

    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=2)
    playing = run.episodes.order_by("index").first()
    assert episode_claim(playing.pk, "w1")
    played = StepRecord(
        index=0, observation_text="obs", observation_image=None, prompt_added=[], completion="Action: up",
        reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0, done=False,
        end_reason="", tokens_in=300, tokens_out=32, latency_ms=1000.0, error="",
    )
    step_record(playing.pk, "w1", played)
    step_record(playing.pk, "w1", dataclasses.replace(played, index=1, legal=False, cut_off=True))
    step_record(playing.pk, "w1", dataclasses.replace(played, index=2, legal=False))
    # A worker stopped earlier gave it back and another took it on: the note is stale.
    Episode.objects.filter(pk=playing.pk).update(error="worker w0 was stopped; re-queued to resume")

    assert run_actions.run_cancel(run) == 2
    playing.refresh_from_db()
    assert playing.error == ""  # its end reason says why it ended
    run.refresh_from_db()
    assert (playing.num_steps, playing.illegal_steps, playing.cut_off_steps, playing.tokens_in) == (3, 1, 1, 900)
    assert (run.steps_total, run.illegal_total, run.cut_off_total, run.tokens_in) == (3, 1, 1, 900)
    assert run.illegal_rate == pytest.approx(1 / 3)  # the episode that never started does not count
