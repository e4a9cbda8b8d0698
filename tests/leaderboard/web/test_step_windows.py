"""A replay of a 100,000-step episode reads a window of steps around the one shown and
the scrubber's marks for the whole episode, not every step: the steps API serves an
index range (`from`, `to`), and the marks endpoint names every marked step in a few
kilobytes, revalidated by ETag once the episode has ended."""

import base64

import pytest
from rest_framework.test import APIClient

from arena.services.submissions import baseline_submission
from tests.support.episodes import scripted_episode
from tests.support.long_episode import ERROR_AT, illegal_at, long_episode, long_step_text, reward_at

STEPS = 100_000


@pytest.fixture(scope="module")
def long_episode_id(django_db_setup, django_db_blocker):
    """One 100,000-step episode for the whole module (writing it takes seconds)."""
    with django_db_blocker.unblock():
        submission = baseline_submission("random", "Random")
        episode = long_episode(submission, STEPS)
    yield episode.id
    with django_db_blocker.unblock():
        submission.delete()


def _decoded(encoded: dict) -> list[int]:
    """The step indices of one kind of mark, from either encoding."""
    if "indices" in encoded:
        return encoded["indices"]
    bits = base64.b64decode(encoded["bitmap"])
    return [at * 8 + bit for at, byte in enumerate(bits) if byte for bit in range(8) if byte >> bit & 1]


@pytest.mark.django_db
def test_a_window_of_a_100k_step_episode_holds_exactly_the_steps_asked_for(long_episode_id):
    response = APIClient().get(f"/api/episodes/{long_episode_id}/steps/?from=73500&to=73599&page_size=100")

    assert response.status_code == 200
    body = response.json()
    assert [step["index"] for step in body["results"]] == list(range(73500, 73600))
    assert body["results"][12]["observation_text"] == long_step_text(73512)
    assert body["count"] == STEPS
    assert body["next"] is None
    assert len(response.content) < 200_000


@pytest.mark.django_db
def test_a_window_longer_than_a_page_continues_in_next_and_stops_at_its_end(long_episode_id):
    client = APIClient()

    first = client.get(f"/api/episodes/{long_episode_id}/steps/?from=99850&to=99999&page_size=100").json()
    second = client.get(first["next"]).json()

    assert [step["index"] for step in first["results"]] == list(range(99850, 99950))
    assert "after=99949" in first["next"] and "from=" not in first["next"]
    assert [step["index"] for step in second["results"]] == list(range(99950, 100000))
    assert second["next"] is None


@pytest.mark.django_db
def test_the_marks_of_a_100k_step_episode_name_every_marked_step_in_a_few_kilobytes(long_episode_id):
    response = APIClient().get(f"/api/episodes/{long_episode_id}/marks/")

    assert response.status_code == 200
    assert len(response.content) < 100_000, len(response.content)
    body = response.json()
    assert body["count"] == STEPS and body["last_index"] == STEPS - 1
    marks = body["marks"]
    assert _decoded(marks["illegal"]) == [i for i in range(STEPS) if illegal_at(i)]
    assert _decoded(marks["reward"]) == [i for i in range(STEPS) if reward_at(i)]
    assert _decoded(marks["error"]) == [ERROR_AT]
    assert _decoded(marks["done"]) == [STEPS - 1]
    # The reward gathered before each window: one reward of 1 in every 1,000 steps.
    window = body["window"]
    assert len(body["reward_before"]) == STEPS // window
    assert body["reward_before"][73500 // window] == 73.0


@pytest.mark.django_db
def test_the_marks_give_the_reward_before_each_window_of_the_size_the_player_asks_for(long_episode_id):
    client = APIClient()

    body = client.get(f"/api/episodes/{long_episode_id}/marks/?window=1000").json()
    refused = client.get(f"/api/episodes/{long_episode_id}/marks/?window=1")

    assert body["window"] == 1000
    assert body["reward_before"] == [float(k) for k in range(100)]
    assert refused.status_code == 400 and "window" in refused.json()


@pytest.mark.django_db
def test_the_marks_of_an_ended_episode_are_not_sent_again_to_a_browser_that_holds_them(long_episode_id):
    client = APIClient()

    first = client.get(f"/api/episodes/{long_episode_id}/marks/")
    again = client.get(f"/api/episodes/{long_episode_id}/marks/", HTTP_IF_NONE_MATCH=first["ETag"])

    assert first["ETag"]
    assert again.status_code == 304 and again.content == b""


@pytest.mark.django_db
def test_the_marks_of_a_short_episode_list_its_steps():
    episode = scripted_episode(baseline_submission("expert", "Expert"), ["up", "up", "left"])

    body = APIClient().get(f"/api/episodes/{episode.id}/marks/").json()

    assert body["count"] == 3 and body["last_index"] == 2
    assert body["marks"]["done"] == {"indices": [2]}
    assert body["marks"]["illegal"] == {"indices": []}
    assert body["reward_before"] == [0.0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, parameter",
    [("from=5&after=3", "from"), ("from=9&to=8", "to"), ("from=x", "from"), ("to=-1", "to"), ("from=1&page=2", "page")],
)
def test_a_window_asked_for_wrongly_is_refused_naming_the_parameter(query, parameter):
    episode = scripted_episode(baseline_submission("expert", "Expert"), ["up", "up"])

    response = APIClient().get(f"/api/episodes/{episode.id}/steps/?{query}")

    assert response.status_code == 400
    assert parameter in response.json()
