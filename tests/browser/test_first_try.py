"""A first try stays small, in real Chromium: "As in the paper" locks the values of a
swept option ticked; without it, unticking values plays fewer runs, and the preview
lists exactly those."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_submission_form import _queued, _sign_up
from tests.support.fake_openai import FakeOpenAIServer

pytestmark = pytest.mark.browser

CONJUNCTION = "infogather/conjunction"


def test_infogather_at_three_colours_only_is_previewed_and_queued_as_two_runs(site, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    with FakeOpenAIServer(models=["fake-model"], props_n_ctx=32768) as model:
        _sign_up(page, site, "first-try")
        page.fill("#id_name", "First try")
        page.fill("#id_base_url", model.base_url)
        page.fill("#id_model", "fake-model")
        fieldset = page.locator("fieldset.suite[data-suite='infogather']")
        fieldset.locator(f"input[name=tasks][value='{CONJUNCTION}:text']").check()
        colours = fieldset.locator(f"input[name='sweep--{CONJUNCTION}--num_colours']")
        expect(colours).to_have_count(8)
        paper = fieldset.locator("input[name=paper_protocol]")
        expect(paper).to_be_checked()
        for index in range(8):
            expect(colours.nth(index)).to_be_checked()
            expect(colours.nth(index)).to_be_disabled()

        paper.uncheck()
        for index in range(1, 8):
            colours.nth(index).uncheck()  # 3 colours only
        page.fill("#id_episodes_per_task", "2")
        page.click("form.submission-form button[name=preview]")
        expect(page.locator("#preview")).to_be_visible()
        expect(page.locator("#preview-runs")).to_have_text("2")  # guided reasoning off and on
        expect(page.locator("#preview-episodes")).to_have_text("4")
        expect(page.locator(f"input[name='sweep--{CONJUNCTION}--num_colours'][value='0']")).to_be_checked()
        expect(page.locator(f"input[name='sweep--{CONJUNCTION}--num_colours'][value='1']")).not_to_be_checked()
        page.click("#create-submission")
        expect(page).to_have_url(re.compile(r"/submissions/\d+/$"))
    assert _queued(site, "First try") == [2, 4]
    colours_played = site.django(
        "import json; from arena.models import Run; "
        "print(json.dumps(sorted(r.variant['options']['num_colours'] for r in Run.objects.filter(submission__name='First try'))))"
    )
    assert colours_played == [3, 3]
    assert not errors, errors
