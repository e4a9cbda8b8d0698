"""In real Chromium against the real site (served by the ASGI server): the cheetah's
replay shows MuJoCo's picture of the body beside the observation dict, which wraps
instead of running off the side; the picture changes as one steps; the episode's
downloads (JSON Lines, GIF) come streamed from the server."""

import json

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}

# A short cheetah episode played with real MuJoCo (three steps of a fixed action), its
# pictures drawn and stored the way the runner does it.
SETUP = r"""
import json
from arena.storage import images
from arena.services.episodes import episode_finish
from tests.support.episodes import claimed_episode
from arena.services.runs import RunSpec
from arena.services.steps import step_record
from arena.models import Submission
from arena.services.steps import StepRecord
from envs.registry import make

model = Submission.objects.create(name="Cheetah runner", kind=Submission.KIND_MODEL, model="m")
episode = claimed_episode(model, RunSpec(task="lmact/cheetah", format="dict", num_episodes=1), worker="browser-test")
task = make("lmact/cheetah")
observation = task.reset(episode.seed)
action = "[1.0, 1.0, 1.0, -1.0, -1.0, -1.0]"
for index in range(3):
    picture = task.viewer_png()
    frame = images.write_png_bytes(picture, *images.png_size(picture))
    result = task.step(action)
    step_record(episode.id, "browser-test", StepRecord(
        index=index, observation_text=observation.text, observation_image=None, prompt_added=[],
        completion=action, reasoning="", parsed_action=action, executed_action=result.executed_action,
        legal=True, reward=result.reward, done=index == 2, end_reason="step limit" if index == 2 else "",
        tokens_in=None, tokens_out=None, latency_ms=None, error="", info={"viewer_frame": frame.sha256},
        viewer_frame=frame,
    ))
    observation = result.observation
task.close()
episode_finish(episode.id, "browser-test", score=0.0033670236888049576, end_reason="step limit")
print(json.dumps(episode.id))
"""


@pytest.fixture(scope="module")
def episode_id(site):
    return site.django(SETUP)


def _box(locator):
    box = locator.bounding_box()
    assert box is not None
    return box


def _loaded_source(page, image) -> str:
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    return image.get_attribute("src")


def test_the_cheetah_replay_shows_the_body_beside_the_dict_and_it_moves(site, browser, episode_id):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site.url}/episodes/{episode_id}/?step=0")
    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=20_000)

    text = page.locator("#observation .obs-beside > .obs-text")
    body = page.locator("#observation .obs-viewer-frame img")
    expect(text).to_contain_text("{'position': [")
    first = _loaded_source(page, body)
    text_box, body_box = _box(text), _box(body)
    assert body_box["x"] >= text_box["x"] + text_box["width"], (text_box, body_box)
    assert text.evaluate("el => el.scrollWidth <= el.clientWidth"), "the dict runs off the side"
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    expect(page.locator("#episode-score")).to_have_text("0.003367")

    page.keyboard.press("ArrowRight")
    expect(page.locator("#player")).to_have_attribute("data-current-step", "1")
    expect(body).not_to_have_attribute("src", first)
    assert _loaded_source(page, body) != first
    assert not errors, errors


def test_the_episode_downloads_stream_from_the_server(site, browser, episode_id):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{site.url}/episodes/{episode_id}/")
    expect(page.locator("#download-jsonl")).to_be_visible()
    expect(page.locator("#download-gif")).to_be_visible()

    lines = httpx.get(f"{site.url}/episodes/{episode_id}/steps.jsonl", timeout=20).text.splitlines()
    header, *steps = [json.loads(line) for line in lines]
    assert header["task"] == "lmact/cheetah" and [s["index"] for s in steps] == [0, 1, 2]
    gif = httpx.get(f"{site.url}/episodes/{episode_id}/frames.gif", timeout=20)
    assert gif.status_code == 200 and gif.content.startswith(b"GIF8")
