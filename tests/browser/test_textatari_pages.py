"""In real Chromium against the real site, what a visitor sees of TextAtari: the replay
shows the console screen beside the verbalised text (both readable without scrolling
sideways), the relative-performance chart of two rows keeps its legend clear of its
axis, and wide leaderboard tables scroll inside their box instead of widening the page."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}

# Two finished TextAtari rows of one submission (one game each, as after a first small
# submission), and one replayable episode whose steps carry the screen the viewer sees.
SETUP = r"""
import io, json
from PIL import Image
from django.utils import timezone
from arena.storage import images
from arena.services.episodes import episode_finish
from tests.support.episodes import claimed_episode
from arena.services.runs import RunSpec
from arena.services.steps import step_record
from arena.metrics import fold
from arena.models import Run, Submission
from arena.services.steps import StepRecord
from envs.textatari.scores import normalised_score

model = Submission.objects.create(name="Pong player", kind=Submission.KIND_MODEL, model="m")
keys = []
for scenario, score in (("basic", -12.0), ("manual", -6.0)):
    metrics = fold({}, {"normalised_score": normalised_score("pong", score, 1000), "game_score": score})
    now = timezone.now()
    Run.objects.create(
        submission=model, task="textatari/pong", num_episodes=1, status=Run.FINISHED, started_at=now,
        finished_at=now, episodes_done=1, score_sum=score, score_sq_sum=score * score, steps_total=100,
        variant={"format": "text", "options": {"scenario": scenario, "max_steps": 100}}, metric_sums=metrics,
    )

episode = claimed_episode(model, RunSpec(task="textatari/pong", format="text", num_episodes=1), worker="browser-test")
for index in range(3):
    buffer = io.BytesIO()
    Image.new("RGB", (160, 210), (144, 72, 17 + 40 * index)).save(buffer, format="PNG")
    frame = images.write_png_bytes(buffer.getvalue(), 160, 210)
    text = (
        f"You chose FIRE: stay where you are (the button does nothing here). Reward +0. Step {index}.\n"
        "Now: Score: you 0, computer 0. Your paddle's middle is at y=115. The ball is out of play; "
        "a new serve is coming. The computer's paddle is at y=8."
    )
    step_record(episode.id, "browser-test", StepRecord(
        index=index, observation_text=text, observation_image=None, prompt_added=[], completion="FIRE",
        reasoning="", parsed_action="FIRE", executed_action="FIRE", legal=True, reward=0.0, done=index == 2,
        end_reason="step limit" if index == 2 else "", tokens_in=None, tokens_out=None, latency_ms=None,
        error="", info={"viewer_frame": frame.sha256}, viewer_frame=frame,
    ))
episode_finish(episode.id, "browser-test", score=0.0, end_reason="step limit")
print(json.dumps(episode.id))
"""


@pytest.fixture(scope="module")
def episode_id(site):
    return site.django(SETUP)


def _page(browser):
    page = browser.new_page(viewport=VIEWPORT)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def _box(locator):
    box = locator.bounding_box()
    assert box is not None
    return box


def test_the_replay_shows_the_screen_beside_text_that_reads_without_scrolling_sideways(site, browser, episode_id):
    page, errors = _page(browser)
    page.goto(f"{site.url}/episodes/{episode_id}/")
    expect(page.locator("#player[data-ready='1']")).to_be_attached(timeout=20_000)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#player")).to_have_attribute("data-current-step", "1")

    text = page.locator("#observation .obs-beside > .obs-text")
    screen = page.locator("#observation .obs-viewer-frame img")
    expect(text).to_contain_text("Step 1.")
    expect(screen).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=screen.element_handle())
    text_box, screen_box = _box(text), _box(screen)
    assert screen_box["x"] >= text_box["x"] + text_box["width"], (text_box, screen_box)
    assert abs(screen_box["y"] - text_box["y"]) < 40, (text_box, screen_box)
    assert text.evaluate("el => el.scrollWidth <= el.clientWidth"), "the text scrolls sideways"
    assert not errors, errors


def test_the_relative_performance_chart_keeps_its_legend_below_the_axis_title(site, browser, episode_id):
    page, errors = _page(browser)
    page.goto(f"{site.url}/suites/textatari/")
    options = page.locator("select[name=a] option")
    basic = options.filter(has_text=re.compile(r"^Pong player · Basic"))
    manual = options.filter(has_text=re.compile(r"^Pong player · Game manual"))
    page.select_option("select[name=a]", basic.get_attribute("value"))
    page.select_option("select[name=b]", manual.get_attribute("value"))
    page.click("button:has-text('Compare')")

    chart = page.locator(".plotly-chart[data-figure='fig-relative-performance']")
    expect(chart.locator(".legend")).to_be_attached(timeout=10_000)
    legend, axis_title = _box(chart.locator(".legend")), _box(chart.locator(".xtitle"))
    bars = _box(chart.locator(".barlayer"))
    assert legend["y"] >= axis_title["y"] + axis_title["height"], (legend, axis_title)
    assert bars["height"] >= 60, bars  # one game still gets a bar one can see and hover
    expect(chart.locator(".gtitle")).to_have_text("Relative performance over 1 game (percentage change, A → B)")
    assert not errors, errors


# The per-task tables left the front page for the suite and task pages (issue #42): the
# suite page's table has a column per game, the task page's rows a variant in words.
@pytest.mark.parametrize("path, cell, text", [
    ("/suites/textatari/", "#textatari-table td.submission", "Pong player"),
    ("/tasks/textatari/pong/", "table.leaderboard td.variant", "basic scenario"),
])
def test_wide_leaderboard_tables_scroll_in_their_box_instead_of_widening_the_page(
    site, browser, episode_id, path, cell, text
):
    page, errors = _page(browser)
    page.goto(f"{site.url}{path}")
    table = page.locator("table.leaderboard").first
    expect(table).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    if path.startswith("/suites/"):
        # Wider than the screen, so it is its box that scrolls sideways, not the page.
        assert table.evaluate("t => t.parentElement.scrollWidth > t.parentElement.clientWidth")
    # Scrolling in its box must not squeeze a cell's words to one a line.
    words = page.locator(cell, has_text=text).first
    assert _box(words)["width"] >= 200, _box(words)
    assert not errors, errors
