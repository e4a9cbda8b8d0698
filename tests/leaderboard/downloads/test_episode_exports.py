"""Downloads of episodes and runs: JSON Lines, the run's zip, the frames' GIF."""

import io
import json
import zipfile

import pytest
from asgiref.sync import async_to_sync
from django.db import transaction
from PIL import Image

from arena.services.episodes import episode_claim, episode_finish
from arena.services.steps import step_record
from arena.storage.images import write_png_bytes
from arena.services.steps import StepRecord
from arena.strategies.lmact_prompt import rebuild_prompt
from envs.render import encode_png
from leaderboard import frames
from leaderboard.templatetags.arena_format import sig
from tests.conftest import new_run
from tests.support.episodes import WORKER, scripted_episode

pytestmark = pytest.mark.django_db


async def _read(chunks) -> bytes:
    return b"".join([piece async for piece in chunks])


def _body(response) -> bytes:
    """A streamed body as the ASGI server sends it (the exports stream asynchronously)."""
    assert response.streaming and response.is_async
    return async_to_sync(_read)(response.streaming_content)


def _lines(response) -> list[dict]:
    assert response.status_code == 200
    body = _body(response)
    return [json.loads(line) for line in body.decode().splitlines()]


def _prompt_text(parts):
    return "".join(p["text"] if p["type"] == "text" else f"<image {p['sha'][:8]}>" for p in parts)


def _sent_text(content):
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


@pytest.mark.django_db(transaction=True)
def test_the_jsonl_alone_rebuilds_every_prompt_the_model_received_and_holds_no_secret(
    make_model_submission, fake_model, play, client
):
    submission = make_model_submission(num_demonstrations=1, chain_of_thought=True)
    run = new_run(submission, task="lmact/tictactoe", fmt="ascii", episodes=1)
    episode = run.episodes.get()
    play(episode.id)

    response = client.get(f"/episodes/{episode.id}/steps.jsonl")
    assert response["Content-Type"].startswith("application/x-ndjson")
    header, *steps = _lines(response)
    assert header["kind"] == "episode" and header["task"] == "lmact/tictactoe" and header["format"] == "ascii"
    assert header["submission"]["model"] == "fake-model" and header["seed"] == episode.seed
    assert fake_model.base_url not in json.dumps(header) and "sk-test-canary" not in json.dumps(header)
    assert "base_url" not in header["submission"]
    assert [s["index"] for s in steps] == list(range(episode.steps.count()))
    sent = [_sent_text(r.json["messages"][0]["content"]) for r in fake_model.requests]
    assert len(sent) == len(steps)
    for k in range(len(steps)):
        rebuilt = rebuild_prompt(header["prompt_prefix"], [s["prompt_added"] for s in steps[: k + 1]])
        assert _prompt_text(rebuilt) == sent[k]


def test_a_long_episode_streams_in_chunks_with_one_line_per_step(client, baseline, monkeypatch):
    from leaderboard.downloads import exports

    monkeypatch.setattr(exports, "EXPORT_CHUNK_STEPS", 7)  # several chunks from a short episode
    episode = scripted_episode(baseline("random"), ["up", "down", "left", "right"] * 6)
    response = client.get(f"/episodes/{episode.id}/steps.jsonl")
    assert response.streaming
    header, *steps = _lines(response)
    assert header["num_steps"] == 24
    assert [s["executed_action"] for s in steps] == ["up", "down", "left", "right"] * 6


def test_the_run_zip_holds_every_episode_and_the_runs_aggregates(client, baseline):
    submission = baseline("random")
    run = new_run(submission, episodes=3)
    with transaction.atomic():
        for episode in run.episodes.all():
            assert episode_claim(episode.id, WORKER)
            step_record(episode.id, WORKER, _record(0, f"obs of {episode.index}"))
            episode_finish(episode.id, WORKER, score=float(episode.index), end_reason="step limit")

    response = client.get(f"/runs/{run.id}/episodes.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(_body(response)))
    names = sorted(archive.namelist())
    assert names == ["episode-00000.jsonl", "episode-00001.jsonl", "episode-00002.jsonl", "run.json"]
    summary = json.loads(archive.read("run.json"))
    assert summary["episodes_done"] == 3 and summary["score_mean"] == pytest.approx(1.0)
    second = archive.read("episode-00001.jsonl").decode().splitlines()
    assert json.loads(second[1])["observation_text"] == "obs of 1"


def test_the_gif_has_a_frame_per_step_and_the_final_picture(client, baseline, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    episode = _episode_with_pictures(baseline("random"), count=5)
    response = client.get(f"/episodes/{episode.id}/frames.gif")
    assert response.status_code == 200 and response["Content-Type"] == "image/gif"
    gif = Image.open(io.BytesIO(response.content))
    assert gif.n_frames == 5 + 1  # five steps, then how the game ended
    assert list(tmp_path.glob("exports/gif/*/*.gif")), "the GIF is cached on disk"


def test_a_long_episode_gif_is_sampled_down_to_the_cap():
    indices = frames.sampled_indices(100_000)
    assert len(indices) == frames.GIF_MAX_FRAMES and indices[0] == 0 and indices[-1] == 99_999
    assert frames.sampled_indices(3) == [0, 1, 2]


def test_missing_episodes_and_runs_are_404(client):
    assert client.get("/episodes/999999/steps.jsonl").status_code == 404
    assert client.get("/episodes/999999/frames.gif").status_code == 404
    assert client.get("/runs/999999/episodes.zip").status_code == 404


def test_an_episode_without_pictures_has_no_gif_and_no_link(client, baseline):
    episode = scripted_episode(baseline("random"), ["up", "down"])
    response = client.get(f"/episodes/{episode.id}/frames.gif")
    assert response.status_code == 404 and b"no pictures" in response.content
    page = client.get(f"/episodes/{episode.id}/").content.decode()
    assert "steps.jsonl" in page and "frames.gif" not in page


def test_the_episode_page_links_the_gif_when_there_are_pictures(client, baseline, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    episode = _episode_with_pictures(baseline("random"), count=2)
    page = client.get(f"/episodes/{episode.id}/").content.decode()
    assert f"/episodes/{episode.id}/frames.gif" in page and f"/episodes/{episode.id}/steps.jsonl" in page
    assert f"/runs/{episode.run_id}/episodes.zip" in client.get(f"/runs/{episode.run_id}/").content.decode()


def test_scores_print_with_four_significant_digits(client, baseline):
    assert sig(0.0033670236888049576) == "0.003367"
    assert sig(29.123456) == "29.12" and sig(12345.6) == "12346" and sig(-0.5) == "-0.5"
    assert sig(3.0) == "3" and sig(None) == "—" and sig(1.23456e-7) == "1.235e-07"
    episode = scripted_episode(baseline("random"), ["up"])
    type(episode).objects.filter(pk=episode.pk).update(score=0.0033670236888049576)
    assert "0.003367" in client.get(f"/runs/{episode.run_id}/").content.decode()
    assert 'data-episode-field="score">0.003367<' in client.get(f"/episodes/{episode.id}/").content.decode()


def _record(index: int, text: str, image=None, *, done=False) -> StepRecord:
    return StepRecord(
        index=index, observation_text=text, observation_image=image, prompt_added=[], completion="Action: up",
        reasoning="", parsed_action="up", executed_action="up", legal=True, reward=0.0, done=done,
        end_reason="step limit" if done else "", tokens_in=None, tokens_out=None, latency_ms=None, error="",
    )


def _episode_with_pictures(submission, count: int):
    run = new_run(submission, task="lmact/gridworld", fmt="rgb", episodes=1)
    episode = run.episodes.get()
    pictures = [write_png_bytes(encode_png(Image.new("RGB", (16, 12), (40 * k, 255 - 40 * k, 7))), 16, 12)
                for k in range(count + 1)]
    with transaction.atomic():
        assert episode_claim(episode.id, WORKER)
        for k in range(count):
            step_record(episode.id, WORKER, _record(k, "", pictures[k], done=k == count - 1))
        episode_finish(episode.id, WORKER, score=1.0, end_reason="step limit",
                                final_image=pictures[count])
    episode.refresh_from_db()
    return episode
