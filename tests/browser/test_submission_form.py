"""The submission form in real Chromium: a whole suite played as in its paper, previewed
before anything exists, then created — the queued runs and episodes are the ones the
preview counted; by keyboard alone, and on a phone-sized screen.

The suite is picked from the registry (one with a paper preset that fits the episode
limit), never by name: new suites change which, not whether, this runs.
"""

import re

import pytest
from playwright.sync_api import expect

from arena.services.submissions import run_specs
from arena.web.task_choice import formats_in_mode
from envs.registry import all_suites, tasks_of
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.browser

PASSWORD = "a long and unusual passphrase"
EPISODE_LIMIT = 5000  # the site's ARENA_MAX_EPISODES_PER_SUBMISSION (its default)


def _preset_suite_and_runs(mode):
    """The preset suite with the fewest runs when played whole in `mode`, and those
    runs as the arena plans them."""
    candidates = []
    for suite in all_suites().values():
        if suite.paper_preset is None:
            continue
        variants = [
            (task_id, fmt) for task_id, cls in tasks_of(suite.id).items() for fmt in formats_in_mode(cls, mode)
        ]
        runs = run_specs(variants, 1, {}, frozenset({suite.id}))
        if sum(spec.num_episodes for spec in runs) <= EPISODE_LIMIT:
            candidates.append((len(runs), suite, runs))
    _, suite, runs = min(candidates, key=lambda candidate: candidate[0])
    return suite, runs


def _sign_up(page, site, username):
    page.goto(f"{site.url}/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/submit/$"))


def _queued(site, name):
    return site.django(
        "import json; from arena.models import Run, Episode; "
        f"runs = Run.objects.filter(submission__name={name!r}); "
        "print(json.dumps([runs.count(), Episode.objects.filter(run__in=runs).count()]))"
    )


def test_a_whole_suite_as_in_the_paper_is_previewed_then_queued_as_previewed(site, browser):
    suite, runs = _preset_suite_and_runs("vlm")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    with FakeOpenAIServer(models=["fake-model"], props_n_ctx=32768) as model:
        _sign_up(page, site, "suite-previewer")
        page.fill("#id_name", "Whole suite as in the paper")
        page.fill("#id_base_url", model.base_url)
        page.fill("#id_model", "fake-model")
        page.check("input[name=mode][value=vlm]")
        fieldset = page.locator(f"fieldset.suite[data-suite='{suite.id}']")
        fieldset.locator("input[name=suites]").check()
        # The toggle checks every task of the suite; its paper preset is chosen by default.
        boxes = fieldset.locator("input[name=tasks]")
        assert boxes.count() == sum(len(formats_in_mode(cls, "vlm")) for cls in tasks_of(suite.id).values())
        for index in range(boxes.count()):
            expect(boxes.nth(index)).to_be_checked()
        expect(fieldset.locator("input[name=paper_protocol]")).to_be_checked()

        page.click("form.submission-form button[name=preview]")
        expect(page.locator("#preview")).to_be_visible()
        expect(page.locator("#preview")).to_be_focused()
        expect(page.locator("#preview-runs")).to_have_text(str(len(runs)))
        expect(page.locator("#preview-episodes")).to_have_text(str(sum(spec.num_episodes for spec in runs)))
        expect(page.locator("tr.preview-run")).to_have_count(len(runs))
        assert _queued(site, "Whole suite as in the paper") == [0, 0]  # the preview created nothing

        shown = [int(page.inner_text("#preview-runs")), int(page.inner_text("#preview-episodes"))]
        page.click("#create-submission")
        expect(page).to_have_url(re.compile(r"/submissions/\d+/$"))
    assert _queued(site, "Whole suite as in the paper") == shown
    assert not errors, errors


def test_the_form_works_by_keyboard_on_a_narrow_screen(site, browser):
    suite, runs = _preset_suite_and_runs("llm")  # the form's default mode
    page = browser.new_page(viewport={"width": 390, "height": 844})
    with FakeOpenAIServer(models=["fake-model"]) as model:
        _sign_up(page, site, "keyboard-previewer")
        overflow = "document.documentElement.scrollWidth - window.innerWidth"
        assert page.evaluate(overflow) <= 0

        # Enter in a field previews (the default button); a missing base URL is refused
        # at the top and next to the field, and the summary takes the focus.
        page.focus("#id_name")
        page.keyboard.type("Keyboard only")
        page.keyboard.press("Enter")
        expect(page.locator("#error-summary")).to_be_focused()
        expect(page.locator("#error-summary")).to_contain_text("Base URL")
        expect(page.locator("#id_base_url ~ .errorlist")).to_be_visible()
        expect(page.locator("#preview")).to_have_count(0)

        page.focus("#id_base_url")
        page.keyboard.type(model.base_url)
        page.focus("#id_model")
        page.keyboard.type("fake-model")
        page.focus(f"fieldset.suite[data-suite='{suite.id}'] input[name=suites]")
        page.keyboard.press("Space")
        page.focus("#id_model")
        page.keyboard.press("Enter")
        expect(page.locator("#preview")).to_be_focused()
        expect(page.locator("#preview-runs")).to_have_text(str(len(runs)))
        assert page.evaluate(overflow) <= 0  # the runs table scrolls inside its box

        page.focus("#create-submission")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/submissions/\d+/$"))
    assert _queued(site, "Keyboard only") == [len(runs), sum(spec.num_episodes for spec in runs)]
