"""Crafter's steps (a cpu_bound task) run on the simulators' threads, one a core
(arena.play.simulators), other blocking tasks on asyncio's default executor."""

import asyncio
import contextvars
import threading

from arena.play import simulators
from arena.play.runner import _Playthrough
from envs.registry import make

seen = contextvars.ContextVar("seen", default="unset")


def test_computing_runs_on_a_simulator_thread_with_the_callers_context():
    def where(value):
        return threading.current_thread().name, seen.get(), value

    async def call():
        seen.set("the caller's")
        return await simulators.computing(where, 7)

    name, context_value, value = asyncio.run(call())
    assert name.startswith("arena-sim") and context_value == "the caller's" and value == 7
    assert simulators._executor._max_workers == simulators.cores()


def _thread_of_step(task_id: str, **options) -> str:
    task = make(task_id, "text", **options)
    playthrough = _Playthrough.__new__(_Playthrough)
    playthrough.task = task
    try:
        return asyncio.run(playthrough.off_loop(lambda: threading.current_thread().name))
    finally:
        task.close()


def test_crafter_steps_on_the_simulators_threads_and_textworld_on_the_default_executor():
    assert make("balrog/crafter", "text").cpu_bound
    assert _thread_of_step("balrog/crafter").startswith("arena-sim")
    assert not make("balrog/textworld-cooking", "text").cpu_bound
    assert _thread_of_step("balrog/textworld-cooking").startswith("asyncio")
