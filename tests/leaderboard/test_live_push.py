"""Live steps travel in their announcement: a viewer gets each new step without its
consumer reading the database, and still gets every step exactly once when an
announcement is missing, repeated or too large to carry the step."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from arena.services.episodes import episode_claim, episode_finish
from arena.services.steps import StepRecord, step_record
from arena.services.submissions import baseline_submission
from arena.live import publish
from arena.models import Step
from leaderboard import consumers
from leaderboard.routing import websocket_urlpatterns
from leaderboard.serializers import step_page
from tests.conftest import new_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

application = URLRouter(websocket_urlpatterns)
WORKER = "live-push-worker"


def _record(episode_id, index, completion="I go up.", done=False, observation=None, reasoning=""):
    observation = observation or f"obs {index}"
    step_record(
        episode_id,
        WORKER,
        StepRecord(
            index=index, observation_text=observation, observation_image=None,
            prompt_added=[{"type": "text", "text": f"you see {observation}"}], completion=completion,
            reasoning=reasoning,
            parsed_action="up", executed_action="up", legal=True, reward=1.0 if done else 0.0, done=done,
            end_reason="", tokens_in=12, tokens_out=3, latency_ms=5.0, error="",
            calls=[{"completion": completion, "tokens_in": 12}],
        ),
    )


def _started_episode():
    run = new_run(baseline_submission("random", "Random"), episodes=1)
    episode = run.episodes.get()
    assert episode_claim(episode.id, WORKER)
    return episode.id


@pytest.fixture
def database_reads(monkeypatch):
    """How often consumers have read steps from the database."""
    reads = []
    real = consumers.EpisodeConsumer.stored_after

    def counted(self, episode_id, after_index):
        reads.append(after_index)
        return real(self, episode_id, after_index)

    monkeypatch.setattr(consumers.EpisodeConsumer, "stored_after", counted)
    return reads


async def _viewer(episode_id):
    communicator = WebsocketCommunicator(application, f"/ws/episodes/{episode_id}/")
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def _caught_up_viewer(episode_id):
    """A viewer whose consumer has sent the one stored step: its catch-up is over."""
    await sync_to_async(_record)(episode_id, 0)
    communicator = await _viewer(episode_id)
    (first,) = await _steps(communicator, 1)
    assert first["step"]["index"] == 0
    return communicator


async def _steps(communicator, count):
    return [await communicator.receive_json_from(timeout=5) for _ in range(count)]


async def test_a_new_step_reaches_the_viewer_without_a_database_read(database_reads):
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _caught_up_viewer(episode_id)
    reads_when_caught_up = len(database_reads)

    for index in range(1, 4):
        await sync_to_async(_record)(episode_id, index)
    messages = await _steps(communicator, 3)

    assert [m["type"] for m in messages] == ["step"] * 3
    assert [m["step"]["index"] for m in messages] == [1, 2, 3]
    assert len(database_reads) == reads_when_caught_up
    await communicator.disconnect()


async def test_the_pushed_step_is_the_step_as_the_steps_api_lists_it():
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _viewer(episode_id)

    await sync_to_async(_record)(episode_id, 0, completion="x" * 20_000)
    (pushed,) = await _steps(communicator, 1)

    listed = await sync_to_async(step_page)(episode_id, -1, max_steps=10)
    assert pushed["step"] == json.loads(json.dumps(listed.results[0], default=str))
    assert pushed["step"]["truncated"] == ["completion", "calls.0.completion"]
    await communicator.disconnect()


async def test_a_pushed_step_is_whole_though_its_texts_are_stored_once():
    """The database holds the observation once (prompt_added points at it) and no copy
    of a reasoning that is the completion; the viewer still gets both whole."""
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _viewer(episode_id)
    observation = "A wall to the north, a key two steps to the east, the door is locked."
    await sync_to_async(_record)(
        episode_id, 0, completion="The key opens the door. ACTION: east", observation=observation,
        reasoning="The key opens the door. ACTION: east",
    )
    (pushed,) = await _steps(communicator, 1)

    stored = await sync_to_async(lambda: Step.objects.filter(episode_id=episode_id).values("prompt_added", "reasoning").get())()
    assert observation not in json.dumps(stored["prompt_added"]) and stored["reasoning"] is None
    assert [part["text"] for part in pushed["step"]["prompt_added"]] == [f"you see {observation}"]
    assert pushed["step"]["reasoning"] == "The key opens the door. ACTION: east"
    listed = await sync_to_async(step_page)(episode_id, -1, max_steps=10)
    assert pushed["step"] == json.loads(json.dumps(listed.results[0], default=str))
    await communicator.disconnect()


async def test_a_missed_announcement_is_filled_in_from_the_database_without_repeats(monkeypatch):
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _viewer(episode_id)
    real_publish_step = publish.publish_step
    # Steps 0 and 1 are stored but their announcements are lost.
    monkeypatch.setattr(publish, "publish_step", lambda *args: None)
    await sync_to_async(_record)(episode_id, 0)
    await sync_to_async(_record)(episode_id, 1)
    monkeypatch.setattr(publish, "publish_step", real_publish_step)

    await sync_to_async(_record)(episode_id, 2)
    # A repeated announcement, with its step, of something already sent.
    step = await sync_to_async(Step.objects.get)(episode_id=episode_id, index=1)
    await sync_to_async(publish.publish_step)(episode_id, 1, step)
    await sync_to_async(_record)(episode_id, 3, done=True)
    await sync_to_async(episode_finish)(episode_id, WORKER, score=1.0, end_reason="reached the target")

    messages = []
    while not messages or messages[-1]["type"] != "end":
        messages.append(await communicator.receive_json_from(timeout=5))
    assert [m["step"]["index"] for m in messages if m["type"] == "step"] == [0, 1, 2, 3]
    await communicator.disconnect()


async def test_a_step_too_large_to_travel_is_read_from_the_database(monkeypatch, database_reads):
    monkeypatch.setattr(publish, "FRAME_MAX_BYTES", 200)
    episode_id = await sync_to_async(_started_episode)()
    communicator = await _caught_up_viewer(episode_id)
    reads_when_caught_up = len(database_reads)

    await sync_to_async(_record)(episode_id, 1)
    (message,) = await _steps(communicator, 1)

    assert message["step"]["index"] == 1
    assert message["step"]["observation_text"] == "obs 1"
    assert len(database_reads) == reads_when_caught_up + 1
    await communicator.disconnect()
