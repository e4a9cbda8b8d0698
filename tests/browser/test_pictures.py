"""In real Chromium against the real site: every task on the Tasks page shows a picture
of its game (loaded, thumbnail-sized, not blank), and a text run's replay of each BALROG
world that has a picture shows it beside the text at a readable size."""

import pytest
from playwright.sync_api import expect

from envs.pictures import THUMBNAIL
from envs.registry import all_tasks

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}
WORLDS = ["balrog/babyai-goto", "balrog/crafter", "balrog/minihack-quest-easy", "balrog/nethack", "balrog/babaisai"]

# Three steps of a text run of each world, its pictures drawn and stored the way the
# runner stores them (arena.play.step_records.ViewerFrames).
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

model = Submission.objects.create(name="Watcher", kind=Submission.KIND_MODEL, model="m")
episodes = {}
for task_id in %r:
    episode = claimed_episode(model, RunSpec(task=task_id, format="text", num_episodes=1), worker="browser-test")
    task = make(task_id, "text")
    observation = task.reset(episode.seed)
    for index in range(3):
        picture = task.viewer_png()
        frame = images.write_png_bytes(picture, *images.png_size(picture))
        action = task.legal_actions()[index %% 2]
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
    episode_finish(episode.id, "browser-test", score=0.0, end_reason="step limit")
    episodes[task_id] = episode.id
print(json.dumps(episodes))
""" % (WORLDS,)

# How many colours a picture shows, read back from a canvas it is drawn on.
COLOURS = """img => {
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  const seen = new Set();
  for (let i = 0; i < data.length && seen.size < 50; i += 4) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  return seen.size;
}"""


@pytest.fixture(scope="module")
def episodes(site):
    return site.django(SETUP)


def test_every_task_shows_a_picture_of_its_game(site, browser):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{site.url}/tasks/")
    pictures = page.locator("img.task-picture")
    expect(pictures).to_have_count(len(all_tasks()))
    checked = {}
    for index in range(pictures.count()):
        picture = pictures.nth(index)
        picture.scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=picture.element_handle(), timeout=60_000)
        task_id = picture.evaluate("img => img.closest('tr').dataset.task")
        width, height = picture.evaluate("img => [img.naturalWidth, img.naturalHeight]")
        shown = picture.bounding_box()
        checked[task_id] = (width, height)
        assert 0 < width <= THUMBNAIL[0] and 0 < height <= THUMBNAIL[1], (task_id, width, height)
        assert max(width, height) >= 100, (task_id, width, height)
        assert shown["width"] <= 121 and shown["height"] <= 81, (task_id, shown)
        assert picture.evaluate(COLOURS) > 2, f"{task_id}: a blank picture"
    assert sorted(checked) == sorted(all_tasks())
    page.close()


@pytest.mark.parametrize("task_id", WORLDS)
def test_a_text_runs_replay_shows_the_worlds_picture_and_it_follows_the_steps(site, browser, episodes, task_id):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site.url}/episodes/{episodes[task_id]}/?step=0")
    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=20_000)
    expect(page.locator("#frames-unavailable")).to_have_count(0)

    picture = page.locator("#observation .obs-viewer-frame img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
    width, height = picture.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    shown = picture.bounding_box()
    assert picture.evaluate(COLOURS) > 3, "a blank picture"
    # Readable: at least its natural size or 300 pixels wide, and within the page.
    assert shown["width"] >= min(width, 300) - 1, (width, height, shown)
    assert shown["x"] + shown["width"] <= VIEWPORT["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    expect(page.locator("#observation .obs-beside > .obs-text")).not_to_be_empty()

    sources = {picture.get_attribute("src")}
    for step in (1, 2):
        page.keyboard.press("ArrowRight")
        expect(page.locator("#player")).to_have_attribute("data-current-step", str(step))
        sources.add(page.locator("#observation .obs-viewer-frame img").get_attribute("src"))
    assert len(sources) > 1, "the picture follows the steps"
    assert not errors, errors
    page.close()
