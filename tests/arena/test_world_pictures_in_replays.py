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

    def counting(original):
        def counted(self):
            drawn.append(self.steps_taken)
            return original(self)
        return counted

    # A text run's picture is asked for now and encoded on the pictures' thread
    # (viewer_png_later); either way a picture is taken only at the sampled steps.
    monkeypatch.setattr(CrafterTask, "viewer_png", counting(CrafterTask.viewer_png))
    monkeypatch.setattr(CrafterTask, "viewer_png_later", counting(CrafterTask.viewer_png_later))
    episode = _episode(baseline("random"), "balrog/crafter", steps=100)
    async_to_sync(EpisodeRunner("worker").run)(episode.id)
    episode.refresh_from_db()
    assert episode.num_steps == 100, episode.error
    assert drawn == list(range(0, 100, 10))
    frames = _frames(episode)
    assert all(frames)
    # Between two drawings a step names the latest picture drawn.
    assert all(frames[index] == frames[index - index % 10] for index in range(100))


@pytest.mark.parametrize("every", [1, 3])
def test_crafters_pictures_encoded_on_the_pictures_thread_are_those_encoded_in_its_step(baseline, settings, monkeypatch, every):
    """Crafter's pictures are encoded and stored on the pictures' thread
    (arena.play.simulators.encoding), beside the next step: every step names the same
    picture, and the same files and rows are stored, as when its step encoded them."""
    import threading

    from envs.balrog import crafter_env, protocol
    from envs.balrog.crafter_env import CrafterTask

    settings.ARENA_VIEWER_FRAME_EVERY_STEPS = every
    encoded_on = set()
    original = crafter_env.encode_viewer_png

    def noting_thread(pixels):
        encoded_on.add(threading.current_thread().name.split("_")[0])
        return original(pixels)

    monkeypatch.setattr(crafter_env, "encode_viewer_png", noting_thread)
    monkeypatch.setattr(protocol, "encode_viewer_png", noting_thread)
    played = []
    for handed_out in (True, False):
        if not handed_out:
            monkeypatch.setattr(CrafterTask, "viewer_png_later", lambda self: None)
        episode = _episode(baseline("random"), "balrog/crafter", steps=100)
        async_to_sync(EpisodeRunner("worker").run)(episode.id)
        episode.refresh_from_db()
        assert episode.num_steps == 100, episode.error
        frames = _frames(episode)
        stored = {image.sha256: (image.width, image.height, image.size_bytes)
                  for image in StoredImage.objects.filter(sha256__in=set(frames))}
        played.append((frames, stored))
        StoredImage.objects.all().delete()
    assert encoded_on == {"arena-pictures", "arena-sim"}
    (frames, stored), (frames_in_step, stored_in_step) = played
    assert all(frames)
    assert frames == frames_in_step
    assert stored == stored_in_step
