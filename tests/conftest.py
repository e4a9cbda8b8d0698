import pytest
from asgiref.sync import async_to_sync

from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission, submission_create
from arena.models import Submission
from arena.play.runner import EpisodeRunner
from tests.support.fake_openai import FakeOpenAIServer

pytest_plugins = ["tests.support.llama_fixtures", "tests.support.scheduling"]


@pytest.fixture(autouse=True)
def fresh_throttles():
    """Rate-limit counts of one test never carry over into the next."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def empty_queue():
    """Queue messages of one test never carry over into the next: the tests' queue lives
    in process memory, and which tests share a process depends on how they are spread
    over the test processes (-n); nor do the fair queue's turns (arena.queue)."""
    from arena import queue

    queue.huey.flush()


@pytest.fixture
def fake_model():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def allow_loopback(settings):
    settings.ARENA_ALLOW_LOOPBACK = True


@pytest.fixture
def make_model_submission(db, allow_loopback, fake_model):
    def make(**overrides):
        fields = {
            "name": "Fake model",
            "base_url": fake_model.base_url,
            "model": "fake-model",
            "temperature": 0.0,
            "max_tokens": 64,
            "num_demonstrations": 0,
            "show_legal_actions": True,
            "chain_of_thought": False,
        }
        api_key = overrides.pop("api_key", "sk-test-canary-0123456789")
        fields.update(overrides)
        return submission_create(owner=None, fields=fields, api_key=api_key, runs=[])

    return make


@pytest.fixture
def play():
    """Play episodes synchronously, as a worker would (real runner, real HTTP)."""

    def play(*episode_ids, worker="test-worker"):
        runner = EpisodeRunner(worker)
        for episode_id in episode_ids:
            async_to_sync(runner.run)(episode_id)

    return play


@pytest.fixture
def baseline(db):
    def make(policy="expert"):
        return baseline_submission(policy, policy.title())

    return make


def new_run(submission: Submission, task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=0):
    return run_create(submission, RunSpec(task=task, format=fmt, num_episodes=episodes, first_seed=first_seed))


def preset_variant(task: str, fmt: str = "text", options: dict | None = None) -> dict:
    """The stored variant of a run of `task` played under its suite's paper preset
    (arena.protocol: a comparable run), as run_variant writes it for such a run."""
    from envs.registry import suite_of

    preset = suite_of(task).paper_preset
    return {"format": fmt, "options": dict(options or {}), **(dict(preset.strategy) if preset else {})}


def preset_episodes(task: str) -> int:
    """The episodes a run of `task` plays under its suite's paper preset."""
    from envs.registry import get_task_class, suite_of

    return suite_of(task).paper_preset.episodes_of(get_task_class(task))


def as_preset(run):
    """`run` (made by run_create without a preset) as its suite's paper preset would have
    planned it: the preset's settings in its variant and at least its episodes (the
    episodes beyond those played stay unplayed): a comparable run (arena.protocol)."""
    from arena.models import Run

    variant = {**run.variant, **preset_variant(run.task, run.variant.get("format", "text"), run.variant.get("options"))}
    Run.objects.filter(pk=run.pk).update(variant=variant, num_episodes=max(run.num_episodes, preset_episodes(run.task)))
    run.refresh_from_db()
    return run
