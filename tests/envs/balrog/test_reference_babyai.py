"""BabyAI against BALROG's own code (reference outputs in `reference/babyai_episodes.json`,
see `reference/PROVENANCE.md`): BALROG builds each task's level with BabyAI-Text's
Minigrid fork and seeds it with `reset(seed=s)`; for seeds 0–9 of the five tasks the
arena must start the same game (mission, grid, agent, step limit, the text BALROG's
wrapper shows), and then, on the same random actions, on the same scripted replies read
as BALROG's naive agent reads them, and with minigrid's BabyAI bot as the expert, execute
the same actions, show the same texts and make the same progress step by step."""

import json
from pathlib import Path

import pytest

from arena.strategies.answers import read_answer
from envs.registry import make

REFERENCE = json.loads((Path(__file__).parent / "reference" / "babyai_episodes.json").read_text())
TASK_IDS = {
    "goto": "balrog/babyai-goto",
    "pickup": "balrog/babyai-pickup",
    "open": "balrog/babyai-open",
    "putnext": "balrog/babyai-putnext",
    "pick_up_seq_go_to": "balrog/babyai-pick-up-seq-go-to",
}
EPISODES = REFERENCE["episodes"]


def episode_id(episode) -> str:
    return f"{episode['task']} seed {episode['seed']}"


@pytest.fixture(scope="module")
def tasks():
    made = {name: make(task_id) for name, task_id in TASK_IDS.items()}
    yield made
    for task in made.values():
        task.close()


def grid_code(level) -> str:
    return "".join("%x" % value for value in level.grid.encode().flatten())


def test_every_task_and_seed_is_covered():
    assert sorted({(e["task"], e["seed"]) for e in EPISODES}) == sorted(
        (name, seed) for name in TASK_IDS for seed in range(10)
    )


@pytest.mark.parametrize("episode", EPISODES, ids=episode_id)
def test_a_seed_starts_balrogs_game(episode, tasks):
    task = tasks[episode["task"]]
    first = task.reset(episode["seed"])
    level, start = task._level, episode["start"]
    assert task.mission == start["mission"]
    assert list(level.grid.encode().shape) == start["grid_shape"]
    assert grid_code(level) == start["grid"]
    assert [int(level.agent_pos[0]), int(level.agent_pos[1]), int(level.agent_dir)] == start["agent"]
    assert task.max_steps == start["max_steps"]
    assert first.text == start["text"]


def play(task, seed: int, choose, reference_steps: list[dict]) -> None:
    task.reset(seed)
    for number, expected in enumerate(reference_steps):
        result = task.step(choose(number))
        assert result.executed_action == expected["action"], number
        assert task.progress_percent() == 100 * expected["progression"], number
        assert result.terminated == expected["done"], number
        if "text" in expected:
            assert result.observation.text == expected["text"], number


@pytest.mark.parametrize("episode", EPISODES, ids=episode_id)
def test_random_actions_play_as_in_balrog(episode, tasks):
    steps = episode["random"]
    play(tasks[episode["task"]], episode["seed"], lambda number: steps[number]["action"], steps)


@pytest.mark.parametrize("episode", EPISODES, ids=episode_id)
def test_scripted_replies_play_as_in_balrog(episode, tasks):
    replies = REFERENCE["scripted_replies"]

    def naive_reading(number: int) -> str:
        return read_answer(replies[number], chain_of_thought=False, markers=False)

    play(tasks[episode["task"]], episode["seed"], naive_reading, episode["scripted"])


@pytest.mark.parametrize("episode", EPISODES, ids=episode_id)
def test_the_expert_plays_as_minigrids_bot_in_balrogs_game(episode, tasks):
    task = tasks[episode["task"]]
    play(task, episode["seed"], lambda number: task.expert_action(), episode["expert"])
    assert episode["expert"][-1]["done"] and task.progress_percent() == 100.0
