"""Filters on a run's and a task's episodes (illegal, cut off, error, end reason, score
range) and a text search in an episode's steps, on the pages and in the API, as
Inspect's log viewer has them (issue #42, item 7)."""

import re

import pytest
from rest_framework.test import APIClient

from arena.models import Episode, Step
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

# index: (status, score, illegal steps, cut-off steps, end reason, error)
EPISODES = {
    0: ("finished", 1.0, 0, 0, "won", ""),
    1: ("finished", -1.0, 3, 0, "step limit", ""),
    2: ("finished", 0.5, 1, 2, "step limit", ""),
    3: ("failed", None, 0, 0, "", "the endpoint answered 500 three times"),
    4: ("finished", 0.0, 0, 1, "lost", ""),
}


@pytest.fixture
def run(baseline):
    run = new_run(baseline("random"), task="lmact/tictactoe", episodes=len(EPISODES))
    for index, (status, score, illegal, cut_off, end, error) in EPISODES.items():
        Episode.objects.filter(run=run, index=index).update(
            status=status, score=score, illegal_steps=illegal, cut_off_steps=cut_off, end_reason=end, error=error,
        )
    return run


def _listed(page: str) -> list[int]:
    """The episode indices the page's list links to, in order."""
    table = page[page.index('id="episode-list"'):]
    table = table[:table.index("</table>")]
    return [int(index) for index in re.findall(r'href="/episodes/\d+/"(?: class="episode-link")?>(\d+)<', table)]


@pytest.mark.parametrize("query, expected", [
    ("", [0, 1, 2, 3, 4]),
    ("?illegal=1", [1, 2]),
    ("?cut_off=1", [2, 4]),
    ("?error=1", [3]),
    ("?end_reason=step+limit", [1, 2]),
    ("?score_min=0&score_max=0.5", [2, 4]),
    ("?illegal=1&cut_off=1", [2]),
])
def test_the_run_page_lists_the_episodes_the_filters_keep(client, run, query, expected):
    page = client.get(f"/runs/{run.pk}/{query}").content.decode()
    assert _listed(page) == expected
    assert f"{len(expected)} episode" in page


def test_the_run_page_offers_the_runs_end_reasons_and_says_what_it_ignored(client, run):
    page = client.get(f"/runs/{run.pk}/?score_min=lots").content.decode()
    assert _listed(page) == [0, 1, 2, 3, 4]
    assert "Filters ignored: score_min: a number." in page
    assert '<option value="step limit">step limit</option>' in page and '<option value="won">won</option>' in page


def test_a_tasks_episode_page_filters_across_its_runs(client, run, baseline):
    other = new_run(baseline("expert"), task="lmact/tictactoe", episodes=2)
    Episode.objects.filter(run=other).update(status="finished", score=1.0, end_reason="step limit")
    new_run(baseline("expert"), task="lmact/gridworld", episodes=1)
    page = client.get("/tasks/lmact/tictactoe/episodes/?end_reason=step+limit").content.decode()
    assert "4 episodes match the filters" in page
    assert _listed(page) == [0, 1, 1, 2]  # the newer run first
    assert client.get("/tasks/lmact/nothing/episodes/").status_code == 404
    assert 'href="/tasks/lmact/tictactoe/episodes/"' in client.get("/tasks/lmact/tictactoe/").content.decode()


def test_the_episodes_api_filters_a_run_or_a_task(run):
    api = APIClient()
    data = api.get(f"/api/episodes/?run={run.pk}&illegal=1").json()
    assert data["count"] == 2 and [row["index"] for row in data["results"]] == [1, 2]
    assert data["results"][0]["page_url"] == f"/episodes/{data['results'][0]['id']}/"
    data = api.get("/api/episodes/?task=lmact/tictactoe&error=true").json()
    assert [row["error"] for row in data["results"]] == ["the endpoint answered 500 three times"]
    assert api.get("/api/episodes/").status_code == 400
    bad = api.get(f"/api/episodes/?run={run.pk}&score_min=high")
    assert bad.status_code == 400 and "score_min" in bad.json()
    assert api.get("/api/episodes/?task=lmact/nothing").status_code == 400


@pytest.fixture
def played(run):
    episode = run.episodes.get(index=0)
    texts = [
        ("The board is empty.", "I will take the centre. Action: b2", "b2"),
        ("X at b2; O at a1.", "Corner next. Action: c3", "c3"),
        ("X at b2, c3; O at a1, a3.", "Block the column. Action: a2", "a2"),
    ]
    for index, (observation, completion, action) in enumerate(texts):
        Step.objects.create(
            episode=episode, index=index, observation_text=observation, completion=completion,
            parsed_action=action, executed_action=action, legal=True,
            prompt_added=[{"role": "user", "text": "Where does the centre lie?" if index == 0 else "Your move."}],
        )
    return episode


def test_a_step_search_lists_the_steps_that_hold_the_text_with_where(client, played):
    page = client.get(f"/episodes/{played.pk}/?q=CENTRE").content.decode()
    assert "1 step hold" in page
    assert f'href="?q=CENTRE&amp;step=0"' in page
    assert "in the prompt, completion" in page
    page = client.get(f"/episodes/{played.pk}/?q=b2").content.decode()
    assert re.findall(r'\?q=b2&amp;step=(\d+)"', page) == ["0", "1", "2"]  # observation, action, observation
    assert "step-matches" not in client.get(f"/episodes/{played.pk}/?q=b").content.decode()  # too short


def test_the_step_search_api(played):
    api = APIClient()
    data = api.get(f"/api/episodes/{played.pk}/search/?q=action: a2").json()
    assert data["more"] is False
    assert [(match["index"], match["where"]) for match in data["results"]] == [(2, ["completion"])]
    assert "Action: a2" in data["results"][0]["snippet"]
    assert api.get(f"/api/episodes/{played.pk}/search/?q=x").status_code == 400
