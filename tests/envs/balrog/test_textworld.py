"""BALROG's TextWorld games (BALROG App. C) as a user of the arena sees them: the games
unpack on their own, the walkthrough wins, invalid outputs run "help" with a feedback
line, the objective stays hidden unless asked for, episodes stop at 80 steps and the
same seed replays the same episode."""

import json
import tarfile

import pytest

from envs.balrog import textworld_data
from envs.balrog.protocol import invalid_action_line
from envs.balrog.textworld_games import GAME_STOPPED
from envs.core import RandomLegalPolicy, baselines_of, make_policy
from envs.registry import all_tasks, get_task_class, make

CookingGame = get_task_class("balrog/textworld-cooking")

TREASURE = "balrog/textworld-treasure-hunter"
COOKING = "balrog/textworld-cooking"
COINS = "balrog/textworld-coin-collector"


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    """One cache directory for the module, so the games unpack once and never into the
    user's own cache."""
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("arena-cache")
        patch.setenv("ARENA_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture
def task_of():
    """Makes tasks and closes their interpreters after the test."""
    made = []

    def make_task(task_id, **options):
        made.append(make(task_id, **options))
        return made[-1]

    yield make_task
    for task in made:
        task.close()


def play(task, seed, commands):
    observations = [task.reset(seed).text]
    for command in commands:
        result = task.step(command)
        observations.append(result.observation.text)
        if result.done:
            break
    return observations


def play_policy(task, seed, name):
    task.reset(seed)
    policy = make_policy(type(task), name, seed)
    total = 0.0
    while True:
        result = task.step(policy.act(task))
        total += result.reward
        if result.done:
            return result, total


def test_it_unpacks_the_games_into_an_empty_cache_dir_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path))
    folder = textworld_data.games_dir()
    assert folder.is_relative_to(tmp_path)
    for family in textworld_data.FAMILIES:
        assert len(textworld_data.family_game_files(family)) == 25
    # A second call finds the games and never opens the archive again.
    monkeypatch.setattr(tarfile, "open", lambda *args, **kwargs: pytest.fail("unpacked twice"))
    assert textworld_data.games_dir() == folder
    assert len(textworld_data.family_game_files("coin_collector")) == 25


def test_it_keeps_the_first_complete_copy_when_workers_race(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_CACHE_DIR", str(tmp_path))
    folder = textworld_data.games_dir()
    marker = folder / "coin_collector" / "kept.txt"
    marker.write_text("first copy")
    # A worker that saw no folder and unpacked too loses the rename and drops its copy.
    textworld_data._unpack(folder.parent)
    assert marker.read_text() == "first copy"
    assert [path.name for path in folder.parent.parent.iterdir()] == [folder.parent.name]


def test_it_registers_the_three_families_with_balrogs_names_and_baselines():
    tasks = all_tasks()
    names = {task_id: tasks[task_id].balrog_name for task_id in (TREASURE, COOKING, COINS)}
    assert names == {TREASURE: "treasure_hunter", COOKING: "the_cooking_game", COINS: "coin_collector"}
    for task_id in names:
        cls = tasks[task_id]
        assert cls.max_steps == 80 and cls.blocking and cls.default_action == "help"
        assert cls.settings["objective"] == ("hidden", "shown")
        assert "BALROG App. C" in cls.description
        baselines = baselines_of(cls)
        assert baselines["random"] is RandomLegalPolicy and baselines["walkthrough"].title == "Walkthrough"


@pytest.mark.parametrize("task_id,seed", [(TREASURE, 0), (COINS, 7)])
def test_the_walkthrough_wins_with_progress_100(task_of, task_id, seed):
    task = task_of(task_id)
    result, total = play_policy(task, seed, "walkthrough")
    assert result.terminated and result.end_reason == "won"
    assert total == 1.0 and task.progress_percent() == 100.0
    assert task.episode_metrics() == {"progress": 100.0}


def test_a_walkthrough_longer_than_80_steps_ends_at_the_limit_with_its_partial_score(task_of):
    task = task_of(COOKING)
    result, total = play_policy(task, 0, "walkthrough")  # game 1, cooking_item5_seed_11996: 88 steps
    assert result.truncated and result.end_reason == "step limit" and task.steps_taken == 80
    assert total == result.info["score"] and result.info["max_score"] == 17
    assert task.progress_percent() == pytest.approx(100 * total / 17) and 0 < total < 17


def test_the_cooking_description_names_every_game_the_walkthrough_cannot_win_in_80_steps():
    too_long = []
    for path in textworld_data.family_game_files("the_cooking_game"):
        walkthrough = json.loads(path.with_suffix(".json").read_text())["metadata"]["walkthrough"]
        if len(walkthrough) > 80:
            too_long.append(path.stem.rsplit("_", 1)[-1])
    assert sorted(too_long) == ["11996", "17067", "20939", "5972"]
    assert all(f"_{seed} (" in CookingGame.description for seed in too_long)


def test_an_output_that_would_touch_files_runs_help_and_says_so(task_of):
    task = task_of(COINS)
    first_room = task.reset(0).text.split("=-")[0]
    for output in ("save", "restore", "go north. save", "look\nscript", "transcript"):
        result = task.step(output)
        assert not result.legal and result.executed_action == "help"
        assert result.observation.text.startswith("\n\n" + invalid_action_line("help"))
        assert "Available commands:" in result.observation.text
    # The game still runs: no save or restore got through.
    assert task.step("look").observation.text.startswith(first_room)


def test_quitting_and_confirming_ends_the_episode_at_the_next_step(task_of):
    task = task_of(TREASURE)
    task.reset(0)
    assert task.step("quit").observation.text == "Are you sure you want to quit?"
    assert not task.step("yes").done  # BALROG's game stops here; its next step raises
    result = task.step("look")
    assert result.terminated and result.end_reason == "game stopped"
    assert result.observation.text == GAME_STOPPED and task.progress_percent() == 0.0


def test_the_feedback_line_can_be_switched_off(task_of):
    task = task_of(COINS, silent_invalid_actions=True)
    task.reset(0)
    result = task.step("save")
    assert not result.legal and result.observation.text.startswith("Available commands:")


def test_any_output_is_played_as_balrog_plays_it(task_of):
    task = task_of(TREASURE)
    task.reset(0)
    for output in ("dance wildly", "I will look around.\n\nlook", "go east. go west", "", "undo"):
        result = task.step(output)
        assert result.legal and result.executed_action == output
    result = task.step("dance wildly")
    assert result.observation.text == "That's not a verb I recognise."


def test_a_chained_command_keeps_the_admissible_commands_until_it_cannot_follow(task_of):
    task = task_of(COOKING)
    task.reset(0)
    assert "look" in task.legal_actions()
    task.step("look")
    assert "look" in task.legal_actions()
    # TextWorld's bookkeeping cannot follow a chained command: the game plays it, the
    # list of admissible commands is unknown from then on.
    result = task.step("look. inventory")
    assert result.legal and not result.done
    assert task.legal_actions() == []
    task.reset(0)
    assert "look" in task.legal_actions()


def test_the_objective_is_hidden_by_default_and_shown_on_request(task_of):
    hidden, shown = task_of(TREASURE), task_of(TREASURE, objective="shown")
    hidden_first, shown_first = hidden.reset(2).text, shown.reset(2).text
    objective = hidden._game.objective
    assert objective not in hidden_first and shown_first.startswith(objective)
    # Both drop the title banner and then show the same room (the shown objective's
    # option also tidies runs of blank lines).
    assert "$$" not in hidden_first and "$$" not in shown_first
    assert " ".join(shown_first.split()).endswith(" ".join(hidden_first.split()))
    # Asking the game for its goal reveals nothing either, as in BALROG.
    assert objective not in hidden.step("goal").observation.text
    assert objective in shown.step("goal").observation.text


def test_the_step_limit_ends_the_episode_at_80_steps(task_of):
    task = task_of(COINS)
    task.reset(4)
    results = [task.step("look") for _ in range(80)]
    assert not any(result.done for result in results[:-1])
    assert results[-1].truncated and results[-1].end_reason == "step limit"
    assert task.done and task.progress_percent() == 0.0
    with pytest.raises(RuntimeError):
        task.step("look")


def test_the_random_baseline_draws_from_the_admissible_commands(task_of):
    task = task_of(COOKING)
    task.reset(0)
    policy = RandomLegalPolicy(0)
    for _ in range(10):
        admissible = task.legal_actions()
        assert "look" in admissible and "inventory" in admissible
        action = policy.act(task)
        assert action in admissible
        result = task.step(action)
        assert result.legal
        if result.done:
            break


@pytest.mark.parametrize("task_id", [TREASURE, COOKING, COINS])
def test_the_same_seed_replays_the_same_episode(task_of, task_id):
    commands = ["look", "inventory", "go north", "go east", "go south", "go west", "examine cookbook", "take coin"]
    first = play(task_of(task_id), 9, commands)
    again = play(task_of(task_id), 9, commands)
    assert first == again and len(set(first)) > 2


def test_seeds_25_apart_play_the_same_game(task_of):
    one, other = task_of(COOKING), task_of(COOKING)
    first = one.reset(3).text
    assert other.reset(28).text == first
    assert one.initial_state_key() == other.initial_state_key()
    other.reset(4)
    assert one.initial_state_key() != other.initial_state_key()
    assert one.initial_state_key().startswith("textworld/the_cooking_game/")


def test_the_prompt_lists_the_familys_commands_and_the_step_budget_balrog_announces(task_of):
    task = task_of(COINS)
    task.reset(0)
    prompt = task.instruction_prompt()
    # BALROG's coin collector prompt announces 25 steps (its episodes run 80).
    assert "take coin" in prompt and "go <dir>" in prompt and "25 steps" in prompt and task.max_steps == 80
    assert "unlock ... with ..." not in prompt
    assert "unlock ... with ..." in task_of(TREASURE).instruction_prompt()
