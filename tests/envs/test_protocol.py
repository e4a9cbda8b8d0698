"""The game protocol (envs/core.py) as lmact/tictactoe and lmact/gridworld honour it.

The rules of each game are tested in tests/envs/lmact/; this file checks what every
task owes the arena, in every observation format: observations of the right kind,
illegal-action substitution (LMAct §2.4), episode ends, determinism.
"""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from envs.core import Observation, RandomLegalPolicy, StepResult, Task, baselines_of
from envs.lmact import gridworld, tictactoe
from envs.registry import all_tasks, make
from envs.spec import TaskSpec

ROOT = Path(__file__).resolve().parents[2]
TASKS = ("lmact/tictactoe", "lmact/gridworld")
CASES = [(task_id, fmt) for task_id in TASKS for fmt in all_tasks()[task_id].formats]


def payload(observation: Observation):
    """What an observation shows, comparable with ==."""
    image = observation.image.tobytes() if observation.image is not None else None
    return (observation.text, image)


def test_it_registers_both_tasks_in_the_lmact_suite_with_a_description():
    tasks = all_tasks()
    assert issubclass(tasks["lmact/tictactoe"], tictactoe.TicTacToe)
    assert issubclass(tasks["lmact/gridworld"], gridworld.GridWorld)
    for task_id in TASKS:
        cls = tasks[task_id]
        assert issubclass(cls, Task) and cls.suite == "lmact"
        assert "LMAct §2.2" in cls.description
        assert set(baselines_of(cls)) == {"random", "expert"}
    assert tasks["lmact/tictactoe"].formats == ("ascii", "ascii-annotated", "rgb")
    assert tasks["lmact/gridworld"].formats == ("ascii", "ascii-annotated", "coords", "rgb")
    assert (tasks["lmact/tictactoe"].max_steps, tasks["lmact/gridworld"].max_steps) == (100, 25)
    assert tasks["lmact/tictactoe"].score_range == (-1, 1)
    assert tasks["lmact/gridworld"].score_range == (0, 1)


def test_it_rejects_an_unknown_format():
    with pytest.raises(ValueError):
        make("lmact/gridworld", "fen")


@pytest.mark.parametrize("task_id,fmt", CASES)
def test_it_shows_text_for_text_formats_and_an_rgb_image_for_rgb(task_id, fmt):
    task = make(task_id, fmt)
    observations = [task.reset(4)]
    observations.append(task.step(task.legal_actions()[0]).observation)
    for observation in observations:
        if fmt == "rgb":
            assert observation.text is None
            assert isinstance(observation.image, Image.Image) and observation.image.mode == "RGB"
            assert observation.image.size == (192, 192)
        else:
            assert observation.image is None and observation.text.strip()


@pytest.mark.parametrize("task_id,fmt", CASES)
def test_it_lets_the_random_policy_play_only_legal_actions(task_id, fmt):
    for seed in range(15 if fmt != "rgb" else 4):
        task = make(task_id, fmt)
        task.reset(seed)
        policy = RandomLegalPolicy(seed)
        while True:
            legal_now = task.legal_actions()
            action = policy.act(task)
            assert action in legal_now
            result = task.step(action)
            assert result.legal and result.executed_action == action
            if result.done:
                break
        assert task.steps_taken <= task.max_steps
        assert result.end_reason in {"won", "lost", "draw", "reached the target", "step limit"}


@pytest.mark.parametrize("task_id,fmt", CASES)
def test_it_replays_the_same_episode_from_the_same_seed_including_substitutions(task_id, fmt):
    def run():
        task = make(task_id, fmt)
        trace = [payload(task.reset(1234)), task.initial_state_key()]
        policy = RandomLegalPolicy(99)
        for i in range(task.max_steps):
            # Every other action is gibberish, so the seeded substitution is exercised.
            result = task.step("pass" if i % 2 == 0 else policy.act(task))
            trace.append((result.executed_action, result.legal, result.reward, result.end_reason, payload(result.observation)))
            if result.done:
                break
        return trace

    assert run() == run()


def _answer(task, seed: int, step: int, gibberish: bool) -> str:
    """What an agent answers at `step`: with `gibberish`, every other answer is not an
    action, so the task's substitution for an illegal action is exercised; otherwise,
    and on the other steps, a random action seeded by the episode's seed and the step (by
    the step alone, every seed would draw the same first actions: where one of them ends
    the game, as AdventureGame's `done` does, no seed would give a long episode)."""
    if gibberish and step % 2 == 0:
        return "pass?"
    rng = random.Random(seed * 1009 + step)
    legal = task.legal_actions()
    return rng.choice(legal) if legal else task.random_action(rng)


def _play(task_id: str, seed: int, gibberish: bool, replayed=(), limit: int = 12) -> list:
    """The results of an episode of at most `limit` steps whose first steps execute
    `replayed` (the stored actions of an interrupted attempt), as the arena resumes."""
    task = make(task_id)
    task.reset(seed)
    results = [task.step(action) for action in replayed]
    while not task.done and len(results) < limit:
        results.append(task.step(_answer(task, seed, len(results), gibberish)))
    task.close()
    return results


@pytest.mark.parametrize("task_id", sorted(all_tasks()))
def test_an_episode_resumed_from_its_executed_actions_goes_on_as_the_uninterrupted_one(task_id):
    """The arena resumes an interrupted episode by replaying its stored executed actions
    on a fresh task of the same seed (arena.play.runner): from there the same answers must
    give the same game, whatever the task drew for the illegal answers before. Tasks
    that end an episode at its first illegal answer are played with legal ones."""
    played = _play(task_id, 11, gibberish=True)
    gibberish = not (played[0].done and not played[0].legal)
    # The first seed from 11 on whose episode is long enough to be interrupted.
    for seed in range(11, 41):
        played = _play(task_id, seed, gibberish)
        if len(played) >= 3:
            break
    assert len(played) >= 3, "no episode long enough to interrupt"

    for resume_after in sorted({1, len(played) // 2, len(played) - 1}):
        stored = [r.executed_action for r in played[:resume_after]]
        resumed = _play(task_id, seed, gibberish, replayed=stored, limit=len(played))
        assert [(r.executed_action, r.legal, r.reward, r.done) for r in resumed[resume_after:]] == [
            (r.executed_action, r.legal, r.reward, r.done) for r in played[resume_after:]
        ], f"diverged after step {resume_after}"


@pytest.mark.parametrize("task_id", TASKS)
def test_it_starts_from_different_states_for_different_seeds(task_id):
    keys = set()
    for seed in range(100):
        task = make(task_id)
        task.reset(seed)
        keys.add(task.initial_state_key())
    assert len(keys) >= 90


@pytest.mark.parametrize("task_id", TASKS)
def test_it_counts_an_illegal_action_as_a_step_and_substitutes_a_legal_one(task_id):
    task = make(task_id)
    task.reset(8)
    for text in ("", "UP", "A1", "move up", "a 1"):
        if task_id == "lmact/gridworld" and task.steps_taken >= task.max_steps - 1:
            break
        before = task.steps_taken
        legal_now = task.legal_actions()
        result = task.step(text)
        assert result.legal is False
        assert result.executed_action in legal_now
        assert task.steps_taken == before + 1
        if result.done:
            break


@pytest.mark.parametrize("task_id", TASKS)
def test_it_refuses_to_step_before_reset_and_after_the_end(task_id):
    task = make(task_id)
    with pytest.raises(RuntimeError):
        task.step("up")
    task.reset(0)
    while not (result := task.step(task.expert_action())).done:
        pass
    with pytest.raises(RuntimeError):
        task.step(task.legal_actions()[0] if task.legal_actions() else "a1")


class TickerGame(Task):
    """A game that never ends by itself: only the protocol's step limit stops it."""

    def _reset(self, seed: int) -> Observation:
        if seed < 0:
            raise ValueError("no such episode")
        self.counts_seen = []
        return Observation(text="0")

    def _step(self, action_text: str) -> StepResult:
        self.counts_seen.append(self.steps_taken)
        return StepResult(Observation(text=str(self.steps_taken)), 1.0, False, False, True, action_text)

    def legal_actions(self) -> list[str]:
        return ["tick"]

    def initial_state_key(self) -> str:
        return "ticker"

    def expert_action(self) -> str:
        return "tick"


Ticker = TickerGame.for_spec(TaskSpec(id="test/ticker", entry_point=TickerGame, title="Ticker", max_steps=3, formats=("text",)))


@pytest.mark.parametrize("task_id", sorted(all_tasks()))
def test_every_task_refuses_a_step_before_reset_with_a_clear_error(task_id):
    task = all_tasks()[task_id]()
    with pytest.raises(RuntimeError, match=r"call reset\(seed\) before step\(\)"):
        task.step("anything")
    task.close()


def test_it_refuses_a_step_after_the_end_until_the_next_reset():
    task = Ticker()
    task.reset(0)
    while not task.step("tick").done:
        pass
    assert task.done
    with pytest.raises(RuntimeError, match="the episode is over"):
        task.step("tick")
    task.reset(1)
    assert not task.done and task.steps_taken == 0
    assert not task.step("tick").done


def test_the_step_limit_truncates_with_the_end_reason_step_limit_counting_each_step_once():
    task = Ticker()
    task.reset(0)
    results = [task.step("tick") for _ in range(task.max_steps)]
    assert [r.done for r in results] == [False, False, True]
    last = results[-1]
    assert (last.terminated, last.truncated, last.end_reason, last.reward) == (False, True, "step limit", 1.0)
    # The game saw each step counted exactly once, already including the step it played.
    assert task.counts_seen == [1, 2, 3] and task.steps_taken == task.max_steps == 3


def test_a_real_game_is_cut_at_its_step_limit_by_the_protocol():
    task = make("lmact/gridworld", "ascii")
    task.reset(0)
    task._player, task._target = (1, 1), (10, 10)
    results = [task.step("up") for _ in range(task.max_steps)]  # into the wall, every time
    assert not any(r.done for r in results[:-1])
    assert (results[-1].truncated, results[-1].end_reason) == (True, "step limit")
    assert task.steps_taken == 25


def test_a_failed_reset_leaves_no_episode_to_step():
    task = Ticker()
    with pytest.raises(ValueError):
        task.reset(-1)
    with pytest.raises(RuntimeError, match="before step"):
        task.step("tick")


def test_it_maps_scores_onto_progress_between_0_and_100():
    ttt, grid = make("lmact/tictactoe"), make("lmact/gridworld")
    assert (ttt.progress(-1), ttt.progress(0), ttt.progress(1)) == (0, 50, 100)
    assert (grid.progress(0), grid.progress(1)) == (0, 100)


def test_it_ends_a_full_board_without_a_line_as_a_draw():
    task = make("lmact/tictactoe", "ascii")
    task.reset(0)
    # x (the agent) fills c3: no line for anyone, and the board is full.
    task._board, task._agent = "xox" "xoo" "ox.", "x"
    result = task.step("c3")
    assert (result.reward, result.terminated, result.truncated, result.end_reason) == (0.0, True, False, "draw")
    assert result.info["opponent_action"] is None


def test_it_truncates_tictactoe_at_its_step_limit():
    task = make("lmact/tictactoe", "ascii")
    task.reset(0)
    task._board, task._agent = "." * 9, "x"
    task.max_steps = 1  # the real limit (100) is never reached: a game lasts at most 5 agent moves
    result = task.step("b2")
    assert (result.terminated, result.truncated, result.end_reason, result.reward) == (False, True, "step limit", 0.0)


def test_it_prefers_reaching_the_target_to_the_step_limit_on_the_last_step():
    task = make("lmact/gridworld", "ascii")
    task.reset(0)
    task._player, task._target = (1, 1), (1, 2)
    for _ in range(24):
        assert not task.step("up").done
    result = task.step("right")
    assert (result.terminated, result.truncated, result.end_reason) == (True, False, "reached the target")


def test_it_never_imports_django():
    code = (
        "import sys; import envs.registry as r; r.all_tasks(); import envs.demos, envs.render; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)
