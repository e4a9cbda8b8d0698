"""A text run of a world that has a picture stores the picture beside its steps for the
replay, content-addressed, thinned by ARENA_VIEWER_FRAME_EVERY_STEPS, and never sends
it to the model."""

import pytest
from asgiref.sync import async_to_sync

from arena.services.runs import RunSpec, run_create
from arena.models import StoredImage
from arena.play.runner import EpisodeRunner

pytestmark = pytest.mark.django_db(transaction=True)


def _episode(submission, task, steps, seed=2):
    options = {"max_steps": steps} if task == "balrog/crafter" else {}
    spec = RunSpec(task=task, format="text", num_episodes=1, first_seed=seed, options=options)
    return run_create(submission, spec).episodes.get()


def _frames(episode) -> list:
    return [info.get("viewer_frame") for info in episode.steps.order_by("index").values_list("info", flat=True)]


@pytest.mark.parametrize("task", ["balrog/babyai-goto", "balrog/babaisai", "balrog/minihack-corridor-r3"])
def test_a_text_runs_steps_name_the_worlds_picture_which_the_model_never_receives(task, make_model_submission, fake_model):
    episode = _episode(make_model_submission(), task, steps=None)
    async_to_sync(EpisodeRunner("worker").run)(episode.id)
    episode.refresh_from_db()
    assert episode.num_steps > 0, episode.error

    frames = _frames(episode)
    assert all(frames), "every step names the picture to show beside it"
    assert StoredImage.objects.filter(sha256__in=set(frames)).count() == len(set(frames))
    sent = str([request.json for request in fake_model.requests if request.json])
    assert not any(sha in sent for sha in set(frames))
    assert "image_url" not in sent and "data:image" not in sent


def test_pictures_are_drawn_every_so_many_steps(baseline, settings, monkeypatch):
    from envs.balrog.crafter_env import CrafterTask

    settings.ARENA_VIEWER_FRAME_EVERY_STEPS = 10
    drawn = []
    original = CrafterTask.viewer_png

    def counting(self):
        drawn.append(self.steps_taken)
        return original(self)

    monkeypatch.setattr(CrafterTask, "viewer_png", counting)
    episode = _episode(baseline("random"), "balrog/crafter", steps=100)
    async_to_sync(EpisodeRunner("worker").run)(episode.id)
    episode.refresh_from_db()
    assert episode.num_steps == 100, episode.error
    assert drawn == list(range(0, 100, 10))
    frames = _frames(episode)
    assert all(frames)
    # Between two drawings a step names the latest picture drawn.
    assert all(frames[index] == frames[index - index % 10] for index in range(100))
