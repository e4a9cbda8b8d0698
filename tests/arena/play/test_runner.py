"""The episode runner against a local fake OpenAI-compatible server over real HTTP."""

import asyncio
import base64
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone
from PIL import Image

from arena.services.episodes import episode_claim, reap_stale_episodes
from arena.services import steps as step_writes
from arena.play import runner, step_records
from arena.storage.images import image_path, write_png_bytes
from arena.models import Episode, Run, Step
from arena.play.runner import EpisodeRunner
from arena.strategies.lmact_prompt import rebuild_prompt
from tests.conftest import new_run
from envs.render import encode_png
from tests.support.fake_openai import Fault

pytestmark = pytest.mark.django_db(transaction=True)


def _sent_text(content):
    """The exact prompt text: parts are concatenated with nothing in between."""
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def _prompt_text(parts):
    return "".join(p["text"] if p["type"] == "text" else f"<image {p['sha'][:8]}>" for p in parts)


def test_it_plays_a_model_episode_and_every_step_row_is_complete(make_model_submission, fake_model, play):
    submission = make_model_submission()
    run = new_run(submission, task="lmact/tictactoe", fmt="ascii", episodes=2)
    play(*run.episodes.values_list("id", flat=True))

    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert run.episodes_done == 2 and run.episodes_failed == 0
    steps = Step.objects.filter(episode__run=run)
    assert steps.exists()
    for step in steps:
        assert step.observation_text
        assert step.prompt_added
        assert step.completion.startswith("Reasoning:")
        assert step.parsed_action == step.executed_action  # the fake plays the first legal move
        assert step.legal is True
        assert step.tokens_in and step.tokens_out
        assert step.latency_ms is not None and step.latency_ms >= 0
    assert run.tokens_in == sum(s.tokens_in for s in steps)
    # The key travels in the Authorization header, to the endpoint only.
    assert fake_model.requests[0].headers["authorization"] == "Bearer sk-test-canary-0123456789"


def test_it_retries_429_500_and_timeouts_and_notes_them_on_the_step(make_model_submission, fake_model, play, settings):
    settings.ARENA_MODEL_TIMEOUT_SECONDS = 0.5
    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="coords", episodes=1)
    fake_model.enqueue(Fault.status(429, retry_after=0.2), Fault.status(500), Fault.delay(2.0))
    play(run.episodes.get().id)

    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    first = episode.steps.get(index=0)
    assert "4 attempts" in first.error
    assert first.parsed_action == "up"
    assert episode.num_steps == episode.steps.count()


def test_the_stored_parts_rebuild_exactly_the_prompt_that_was_sent(make_model_submission, fake_model, play):
    submission = make_model_submission(num_demonstrations=2, chain_of_thought=True)
    run = new_run(submission, task="lmact/tictactoe", fmt="ascii", episodes=1)
    play(run.episodes.get().id)

    episode = run.episodes.get()
    steps = list(episode.steps.order_by("index"))
    sent = [_sent_text(r.json["messages"][0]["content"]) for r in fake_model.requests]
    assert len(sent) == len(steps)
    for k in range(len(steps)):
        rebuilt = rebuild_prompt(episode.prompt_prefix, [s.prompt_added for s in steps[: k + 1]])
        assert _prompt_text(rebuilt) == sent[k]
    # The frozen prefix is byte-identical at every step (prompt caching applies).
    prefix = _prompt_text(episode.prompt_prefix)
    assert all(text.startswith(prefix) for text in sent)
    assert len(episode.demonstration_seeds) == 2
    assert "Reasoning: ..." in sent[0] and "legal actions" in sent[0]


def test_it_replaces_a_malformed_answer_by_a_random_legal_action_and_counts_it(make_model_submission, fake_model, play):
    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=1)
    fake_model.enqueue(Fault.reply("I would go up."), Fault.reply("Action: sideways"))
    play(run.episodes.get().id)

    episode = run.episodes.get()
    first, second = episode.steps.order_by("index")[:2]
    assert first.parsed_action is None and first.legal is False
    assert first.executed_action in {"up", "down", "left", "right"}
    assert second.parsed_action == "sideways" and second.legal is False
    assert episode.illegal_steps == 2
    run.refresh_from_db()
    assert run.illegal_total == 2


def test_an_endpoint_that_keeps_failing_fails_the_episode_with_a_visible_reason(
    make_model_submission, fake_model, play, settings
):
    submission = make_model_submission()
    run = new_run(submission, task="lmact/gridworld", fmt="ascii", episodes=2)
    attempts = settings.ARENA_MODEL_MAX_RETRIES + 1
    fake_model.enqueue(*[Fault.status(500) for _ in range(attempts)])
    play(*run.episodes.values_list("id", flat=True))

    failed = run.episodes.get(index=0)
    assert failed.status == Episode.FAILED
    assert "model endpoint failed" in failed.error and "500" in failed.error
    assert "sk-test-canary" not in failed.error
    # The worker carried on with the next episode.
    assert run.episodes.get(index=1).status == Episode.FINISHED
    run.refresh_from_db()
    assert (run.episodes_done, run.episodes_failed, run.status) == (1, 1, Run.FINISHED)


def test_rgb_observations_are_stored_once_and_sent_as_image_parts(make_model_submission, fake_model, play):
    submission = make_model_submission()
    run = new_run(submission, task="lmact/tictactoe", fmt="rgb", episodes=1)
    play(run.episodes.get().id)

    step = Step.objects.filter(episode__run=run).order_by("index").first()
    assert step.observation_image is not None
    content = fake_model.requests[0].json["messages"][0]["content"]
    assert any(part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,") for part in content)


def test_a_claimed_episode_is_not_played_twice(baseline, play):
    run = new_run(baseline("random"), episodes=1)
    episode = run.episodes.get()
    assert episode_claim(episode.id, "worker-a")
    play(episode.id, worker="worker-b")  # a duplicate queue message
    episode.refresh_from_db()
    assert episode.worker == "worker-a" and episode.steps.count() == 0


def test_a_reaped_episode_resumes_without_duplicating_steps(baseline):
    run = new_run(baseline("random"), task="lmact/gridworld", episodes=1)
    episode = run.episodes.get()

    real_record = step_writes.steps_record
    stored = []

    def counting_record(batch):
        result = real_record(batch)
        stored.extend(batch)
        return result

    async def die_after_three_steps():
        """The worker process disappears mid-episode: its task is cancelled, nothing
        is cleaned up, the episode row still says running."""
        playing = asyncio.create_task(EpisodeRunner("doomed").run(episode.id))
        while len(stored) < 3:
            await asyncio.sleep(0.001)
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing

    step_writes.steps_record = counting_record
    try:
        async_to_sync(die_after_three_steps)()
    finally:
        step_writes.steps_record = real_record

    episode.refresh_from_db()
    assert episode.status == Episode.RUNNING and episode.steps.count() >= 3
    Episode.objects.filter(pk=episode.id).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert reap_stale_episodes() == {"requeued": 1, "failed": 0}

    async_to_sync(EpisodeRunner("rescuer").run)(episode.id)
    episode.refresh_from_db()
    indices = list(episode.steps.order_by("index").values_list("index", flat=True))
    assert episode.status == Episode.FINISHED
    assert indices == list(range(len(indices))) and len(indices) == episode.num_steps
    assert episode.attempts == 2


def test_the_reaper_gives_up_with_a_reason_after_the_attempt_limit(baseline, settings):
    settings.ARENA_MAX_EPISODE_ATTEMPTS = 1
    run = new_run(baseline("random"), episodes=1)
    episode = run.episodes.get()
    episode_claim(episode.id, "vanished")
    Episode.objects.filter(pk=episode.id).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert reap_stale_episodes() == {"requeued": 0, "failed": 1}
    episode.refresh_from_db()
    assert episode.status == Episode.FAILED and "stopped sending heartbeats" in episode.error
    run.refresh_from_db()
    assert run.status == Run.FAILED and run.episodes_failed == 1


def test_image_demonstrations_are_sent_as_images_and_stored_once(make_model_submission, fake_model, play):
    submission = make_model_submission(num_demonstrations=2)
    run = new_run(submission, task="lmact/gridworld", fmt="rgb", episodes=1)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    images_in_prefix = [p for p in episode.prompt_prefix if p["type"] == "image"]
    assert images_in_prefix
    content = fake_model.requests[0].json["messages"][0]["content"]
    sent = [p for p in content if p["type"] == "image_url"]
    assert len(sent) == len(images_in_prefix) + 1  # the demonstrations' frames and the current one
    assert len({p["image_url"]["url"] for p in sent}) <= len(sent)


def test_images_are_sent_from_memory_as_the_very_bytes_stored(make_model_submission, fake_model, play, monkeypatch):
    def no_reading_back(sha):
        raise AssertionError(f"image {sha[:8]} was read back from its file")

    monkeypatch.setattr(step_records, "read_png", no_reading_back)
    run = new_run(make_model_submission(num_demonstrations=2), task="lmact/gridworld", fmt="rgb", episodes=1)
    play(run.episodes.get().id)
    episode = run.episodes.get()
    assert episode.status == Episode.FINISHED, episode.error
    first_step = episode.steps.get(index=0)
    shown = [p["sha"] for p in episode.prompt_prefix if p["type"] == "image"] + [first_step.observation_image_id]
    content = fake_model.requests[0].json["messages"][0]["content"]
    sent = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    stored = ["data:image/png;base64," + base64.b64encode(image_path(sha).read_bytes()).decode() for sha in shown]
    assert sent == stored


def test_the_image_store_reads_the_file_of_an_image_it_did_not_store(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    data = encode_png(Image.new("RGB", (3, 2), "red"))
    sha = write_png_bytes(data, 3, 2).sha256
    assert step_records.ObservationImages().png(sha) == data
