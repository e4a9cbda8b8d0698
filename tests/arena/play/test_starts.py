"""Starts built in start processes (arena.play.starts): crafter's world generated in a
spawned process comes back as the task's own reset builds it, a runner stores the same
steps either way, and a process that dies or fails leaves the episode to the task."""

import asyncio
import logging
import os
import pickle
import signal

import pytest
from asgiref.sync import async_to_sync

from arena.models import Step
from arena.play import starts
from arena.services.runs import RunSpec, run_create
from envs.registry import make


@pytest.fixture(autouse=True)
def fresh_pool():
    starts.shutdown()
    yield
    starts.shutdown()


def _built(task, seed):
    return asyncio.run(starts.built(task, seed))


def test_crafters_world_is_built_in_a_start_process_as_its_reset_builds_it():
    task = make("balrog/crafter", "text")
    before = starts.cpu_seconds()
    built = _built(task, 4)
    assert starts.cpu_seconds() > before  # the process's CPU is counted
    children = starts._pool._processes
    assert children and all(process.pid != os.getpid() for process in children.values())
    elsewhere = task.reset_built(4, built)
    here = make("balrog/crafter", "text").reset(4)
    assert (elsewhere.text, elsewhere.context) == (here.text, here.context)
    assert pickle.loads(built)._seed == 4


def test_tasks_without_a_builder_and_a_switched_off_pool_make_no_process(monkeypatch):
    assert _built(make("balrog/babyai-goto", "text"), 0) is None
    monkeypatch.setattr(starts, "enabled", False)
    assert _built(make("balrog/crafter", "text"), 0) is None
    assert starts._pool is None


def test_a_start_process_that_dies_leaves_the_start_to_the_task_and_a_new_pool_builds_the_next(caplog):
    task = make("balrog/crafter", "text")
    task.start_builder = lambda seed: (os._exit, (3,))
    with caplog.at_level(logging.WARNING, logger="arena.play.starts"):
        assert _built(task, 0) is None
    assert "BrokenProcessPool" in caplog.text and "the task builds it" in caplog.text
    assert starts._pool is None  # the broken pool was let go
    assert pickle.loads(_built(make("balrog/crafter", "text"), 1))._seed == 1


def test_a_builder_that_fails_leaves_the_start_to_the_task_and_keeps_the_pool(caplog):
    task = make("balrog/crafter", "text")
    task.start_builder = lambda seed: (int, ("not a number",))
    with caplog.at_level(logging.WARNING, logger="arena.play.starts"):
        assert _built(task, 0) is None
    assert "ValueError" in caplog.text
    pool = starts._pool
    assert pool is not None
    assert pickle.loads(_built(make("balrog/crafter", "text"), 2))._seed == 2
    assert starts._pool is pool


@pytest.mark.django_db(transaction=True)
def test_a_runner_stores_the_same_steps_with_the_start_built_in_a_start_process(baseline, play, monkeypatch):
    submission = baseline("random")

    def stored(enabled: bool) -> list:
        monkeypatch.setattr(starts, "enabled", enabled)
        run = run_create(submission, RunSpec(task="balrog/crafter", format="text", num_episodes=1,
                                             options={"max_steps": 100}, first_seed=3))
        episode = run.episodes.get()
        before = starts.cpu_seconds()
        play(episode.pk)
        assert (starts.cpu_seconds() > before) == enabled
        episode.refresh_from_db()
        rows = Step.objects.filter(episode=episode).order_by("index").values_list(
            "index", "observation_text", "parsed_action", "executed_action", "reward", "done", "info")
        return [episode.status, episode.score, episode.final_observation_text, episode.metrics, *rows]

    in_the_worker = stored(False)
    in_a_start_process = stored(True)
    assert len(in_the_worker) > 50
    assert in_a_start_process == in_the_worker


def test_ctrl_c_in_the_terminal_is_left_to_the_worker():
    """`make serve`'s Ctrl-C reaches the start processes too: they leave it to the worker,
    which ends them, instead of each printing a KeyboardInterrupt traceback."""
    assert starts._get_pool().submit(signal.getsignal, signal.SIGINT).result(timeout=120) == signal.SIG_IGN
