"""The overall leaderboard's head-to-head rating column: shown once some row has a
rating (over all games, linked to /ratings/), absent on an arena without matches, and in
the CSV and JSON downloads (empty cells before any match)."""

import csv
import io
import re

import pytest
from django.utils import timezone

from arena import page_generation
from arena.metrics import fold
from arena.models import Match, Run, Submission
from tests.conftest import preset_episodes, preset_variant
from tests.support.rated_matches import play_scripted

pytestmark = pytest.mark.django_db


def _with_runs(submission: Submission) -> Submission:
    """A finished crafter run, so the submission has a row on the overall leaderboard."""
    now = timezone.now()
    Run.objects.create(
        submission=submission, task="balrog/crafter", variant=preset_variant("balrog/crafter"),
        num_episodes=preset_episodes("balrog/crafter"),
        status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=1,
        metric_sums=fold({}, {"progress": 10.0}),
    )
    return submission


@pytest.fixture
def arena():
    anchor = _with_runs(Submission.objects.create(name="Random", kind=Submission.KIND_BASELINE, policy="random"))
    strong = _with_runs(Submission.objects.create(name="Strong", model="strong-model", head_to_head=True))
    bystander = _with_runs(Submission.objects.create(name="Bystander", model="bystander-model"))
    return anchor, strong, bystander


def _csv(client):
    response = client.get("/api/leaderboard/overall/?format=csv")
    header, *records = csv.reader(io.StringIO(response.content.decode()))
    return header, {record[header.index("Submission")]: record for record in records}


def test_without_matches_there_is_no_rating_column_and_empty_download_cells(client, arena):
    html = client.get("/").content.decode()
    assert "overall-rating" not in html and client.get("/?columns=tasks").status_code == 200
    header, records = _csv(client)
    assert records["Strong"][header.index("Head-to-head rating")] == ""
    assert client.get("/api/leaderboard/overall/").json()["rows"][0]["rating"] is None


def test_rated_rows_show_their_rating_with_its_interval_linked_to_the_rating_page(client, arena):
    anchor, strong, bystander = arena
    for seed, game in enumerate(("chess", "tictactoe", "connect_four")):
        play_scripted(game, {anchor: 1000.0, strong: 1400.0}, count=20, seed=3 + seed)
    for query in ("", "?columns=tasks"):
        html = client.get("/" + query).content.decode()
        assert re.search(r'<th class="num overall-rating"[^>]*>.*?href="/ratings/all/"', html)
        rows = dict(re.findall(r'data-submission="(\d+)">(.*?)</tr>', html, re.S))
        strong_cell = re.search(r'<td class="num overall-rating"[^>]*>(.*?)</td>', rows[str(strong.pk)]).group(1)
        rating, low, high = map(int, re.search(r'<a href="/ratings/all/"[^>]*>(\d+)</a> <span class="muted">\[(\d+), (\d+)\]', strong_cell).groups())
        assert low < rating < high and rating > 1000
        assert re.search(r'<td class="num overall-rating"[^>]*>—</td>', rows[str(bystander.pk)])
    header, records = _csv(client)
    assert records["Strong"][header.index("Head-to-head rating")] == str(rating)
    # The rating is over all games: a player of one game only has none.
    finished_chess_only = _with_runs(Submission.objects.create(name="Chess only", model="chess", head_to_head=True))
    play_scripted("chess", {anchor: 1000.0, finished_chess_only: 1300.0}, count=10, seed=9)
    assert _csv(client)[1]["Chess only"][header.index("Head-to-head rating")] == ""
    assert records["Random"][header.index("Head-to-head rating 95 % high")] == "1000"
    assert records["Bystander"][header.index("Head-to-head rating")] == ""
    rows = {row["submission"]["name"]: row for row in client.get("/api/leaderboard/overall/").json()["rows"]}
    assert rows["Strong"]["rating"]["games"] == Match.objects.filter(first=strong).count() + Match.objects.filter(
        second=strong).count()
    assert rows["Strong"]["rating"]["low"] < rows["Strong"]["rating"]["rating"] < rows["Strong"]["rating"]["high"]


def test_a_match_saved_as_finished_retires_the_cached_pages(arena, django_capture_on_commit_callbacks):
    anchor, strong, _ = arena
    match = Match.objects.create(game="chess", first=strong, second=anchor, status=Match.RUNNING)
    before = page_generation.current()
    with django_capture_on_commit_callbacks(execute=True):
        match.status, match.result = Match.FINISHED, 1.0
        match.save()
    assert page_generation.current() != before
