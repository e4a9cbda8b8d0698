"""In real Chromium against the real site: the overall leaderboard on the front page
sorts by a header (the order changes, aria-sort says so), its "Download CSV" gives the
rows the table shows, and a submission's name opens its model page."""

import csv
import io
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Three models and a baseline with BALROG Crafter figures; the weakest model has the
# most tokens, so sorting by tokens reverses the ranked order. The models also have a
# figure of every other BALROG environment and of AdventureGame, so they are ranked (a
# row without an average progress is listed apart, in a table of its own).
SETUP = r"""
import json
from django.utils import timezone
from arena.services.submissions import baseline_submission
from arena.metrics import fold
from arena.models import Run, Submission
from envs.registry import get_task_class, suite_of


# The variant and episodes of a run played under its suite's paper preset: only such
# runs are ranked (arena.protocol).
def preset(task, options):
    paper = suite_of(task).paper_preset
    variant = {"format": "text", "options": options, **(dict(paper.strategy) if paper else {})}
    return {"variant": variant, "num_episodes": max(2, paper.episodes_of(get_task_class(task)) if paper else 2)}


ids = {}
for name, progress, tokens in (("Alpha", 80.0, 10), ("Bravo", 50.0, 20), ("Charlie", 20.0, 30)):
    model = Submission.objects.create(name=name, kind=Submission.KIND_MODEL, model=name.lower())
    sums = fold(fold({}, {"progress": progress}), {"progress": progress + 10})
    now = timezone.now()
    Run.objects.create(
        submission=model, task="balrog/crafter", **preset("balrog/crafter", {}),
        status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=2, metric_sums=sums,
        tokens_spent_in=tokens * 1000, tokens_spent_out=tokens * 100,
    )
    for task, options in (("balrog/babyai-goto", {}), ("balrog/textworld-coin-collector", {}),
                          ("balrog/babaisai", {"level": "goto_win"}), ("balrog/minihack-corridor-r3", {}),
                          ("balrog/nethack", {}), ("adventure/basic-easy", {})):
        # An AdventureGame episode reports that it was played beside its quality.
        values = {"quality": progress, "played": True} if task.startswith("adventure") else {"progress": progress}
        Run.objects.create(
            submission=model, task=task, **preset(task, options),
            status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=2,
            metric_sums=fold(fold({}, values), values),
        )
    ids[name] = model.pk
random = baseline_submission("random", "Random")
now = timezone.now()
Run.objects.create(
    submission=random, task="balrog/crafter", variant={"format": "text", "options": {}}, num_episodes=2,
    status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=2,
    metric_sums=fold(fold({}, {"progress": 0.0}), {"progress": 5.0}),
)
print(json.dumps(ids))
"""


def _names(page):
    # The name's link alone: the cell also states the row's protocol under it.
    return page.locator("#overall-table tbody tr td:nth-child(2) a.model-page").all_inner_texts()


def test_the_overall_leaderboard_sorts_downloads_and_opens_the_model_page(site, browser):
    ids = site.django(SETUP)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site.url + "/")
    assert _names(page) == ["Alpha", "Bravo", "Charlie", "Random"]
    expect(page.locator('#overall-table thead th[data-column="balrog.crafter"]')).to_have_count(0)
    page.locator("#overall-per-task-link").click()
    expect(page).to_have_url(re.compile(r"columns=tasks"))
    assert _names(page) == ["Alpha", "Bravo", "Charlie", "Random"]

    tokens = page.locator("#overall-table thead th", has_text="Tokens in")
    tokens.get_by_role("button").click()
    expect(tokens).to_have_attribute("aria-sort", "descending")
    assert _names(page) == ["Charlie", "Bravo", "Alpha", "Random"]
    tokens.get_by_role("button").click()
    expect(tokens).to_have_attribute("aria-sort", "ascending")
    assert _names(page)[:3] == ["Random", "Alpha", "Bravo"]
    crafter = page.locator('#overall-table thead th[data-column="balrog.crafter"]')
    crafter.get_by_role("button").click()
    expect(crafter).to_have_attribute("aria-sort", "descending")
    expect(tokens).not_to_have_attribute("aria-sort", re.compile(".*"))
    assert _names(page) == ["Alpha", "Bravo", "Charlie", "Random"]
    # A column nobody has a figure in keeps every row, in the ranked order.
    page.locator('#overall-table thead th[data-column="lmact.chess"]').get_by_role("button").click()
    assert _names(page) == ["Alpha", "Bravo", "Charlie", "Random"]

    with page.expect_download() as download_info:
        page.locator("#download-csv").click()
    download = download_info.value
    assert download.suggested_filename == "arena-overall-llm.csv"
    header, *records = csv.reader(io.StringIO(open(download.path(), encoding="utf-8").read()))
    assert [record[1] for record in records] == _names(page)
    cells = page.locator('#overall-table tbody td[data-column="balrog.crafter"] a').all_inner_texts()
    mean, stderr = header.index("BALROG · Crafter (%)"), header.index("BALROG · Crafter s.e. (%)")
    assert [f"{record[mean]} ± {record[stderr]}" for record in records] == cells

    page.locator("#overall-table").get_by_role("link", name="Bravo", exact=True).click()
    expect(page).to_have_url(f"{site.url}/submissions/{ids['Bravo']}/")
    page.close()
