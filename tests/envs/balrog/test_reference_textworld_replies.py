"""TextWorld replies reach the game as BALROG sends them, and games are chosen as
BALROG's harness chooses them (reference outputs of BALROG's own TextWorld environment in
`reference/textworld_replies.json` and `reference/textworld_game_sequence.json`, see
`reference/PROVENANCE.md`).

- Nine real episodes of a leaderboard submission (Claude-3.5-Sonnet): its replies, 759 of
  3,570 of which span several lines, replayed in BALROG's environment on the game its
  harness gave that episode; the arena, given the same replies, must show the same text
  after every step, end at the same step and reach the same progression.
- Scripted replies: chained commands, several lines, the empty reply, out-of-game verbs
  (undo, restart, quit and its answer) and TextWorld's debugging command; save and
  restore, which BALROG sends, play the default action here (they touch files).
- BALROG's unseeded factory gives a task's n-th episode game n mod 25; seed s is the
  arena's (s + 1)-th episode.
"""

import json
from pathlib import Path

import pytest

from arena.strategies.answers import NO_ACTION_READ
from envs.balrog.catalog import FIXED_TASKS, TEXTWORLD
from envs.balrog.textworld_data import family_game_files, game_for_seed
from envs.balrog.textworld_games import GAME_STOPPED, NOTHING_PRINTED, touches_files
from envs.registry import make

REFERENCE_DIR = Path(__file__).parent / "reference"
REPLIES = json.loads((REFERENCE_DIR / "textworld_replies.json").read_text())
SEQUENCE = json.loads((REFERENCE_DIR / "textworld_game_sequence.json").read_text())


def shown(balrog_text: str) -> str:
    # Chat APIs refuse empty messages: where BALROG's game printed nothing the arena says so.
    return balrog_text or NOTHING_PRINTED


def seed_playing(family: str, game_index: int) -> int:
    return (game_index - 1) % len(family_game_files(family))


def replay(episode: dict) -> list[str]:
    """Plays the episode's replies in the arena; the differences from BALROG's, if any."""
    family = episode["task"]
    task = make(FIXED_TASKS[TEXTWORLD][family])
    differences = []
    try:
        first = task.reset(seed_playing(family, episode["game_index"]))
        assert task._game.path.name == episode["game"]
        if first.text != shown(episode["first_text"]):
            differences.append("first observation")
        for number, expected in enumerate(episode["steps"]):
            result = task.step(expected["reply"])
            if touches_files(expected["reply"]):
                # BALROG sends it (saving stops its glulx interpreter, Jericho's writes a
                # file); the arena plays the default action instead and the games part.
                if result.executed_action != task.default_action:
                    differences.append(f"step {number}: {expected['reply']!r} reached the game")
                break
            if result.executed_action != expected["sent"]:
                differences.append(f"step {number}: sent {result.executed_action!r}")
            if "exception" in expected:
                # BALROG's step raises (the interpreter has stopped) and its episode is lost.
                if not (result.terminated and result.observation.text == GAME_STOPPED):
                    differences.append(f"step {number}: the game should have stopped")
                break
            if result.observation.text != shown(expected["text"]):
                differences.append(f"step {number}: text {result.observation.text[:80]!r}")
            ended = result.done or number + 1 >= task.max_steps
            if ended != expected["done"]:
                differences.append(f"step {number}: ended {ended}")
            if ended:
                break
        if not any("exception" in step or touches_files(step["reply"]) for step in episode["steps"]):
            progress = task.episode_metrics()["progress"]
            if progress != pytest.approx(100 * episode["progression"]):
                differences.append(f"progress {progress}")
    finally:
        task.close()
    return differences


def test_the_reference_episodes_hold_multi_line_and_chained_replies():
    replies = [step["reply"] for episode in REPLIES["episodes"] for step in episode["steps"]]
    assert sum("\n" in reply for reply in replies) >= 200
    scripted = [step["reply"] for episode in REPLIES["scripted"] for step in episode["steps"]]
    assert "go east. go west" in scripted and "" in scripted and "save" in scripted


@pytest.mark.parametrize("index", range(len(REPLIES["episodes"])))
def test_a_leaderboard_episodes_replies_play_as_in_balrog(index):
    episode = REPLIES["episodes"][index]
    assert replay(episode) == [], (episode["task"], episode["source"])


@pytest.mark.parametrize("index", range(len(REPLIES["scripted"])))
def test_chained_multi_line_and_out_of_game_replies_play_as_in_balrog(index):
    episode = REPLIES["scripted"][index]
    assert replay(episode) == [], (episode["task"], [step["reply"] for step in episode["steps"]])


@pytest.mark.parametrize("family", sorted(SEQUENCE["games"]))
def test_seed_s_plays_the_game_balrogs_harness_gives_its_episode_s_plus_1(family):
    for episode, game in enumerate(SEQUENCE["games"][family]):
        # BALROG's factory's (episode + 1)-th call in a fresh worker.
        assert game_for_seed(family, episode).path.name == game, episode


@pytest.mark.parametrize(
    "reply,touches",
    [
        ("save", True),
        ("go east. Save", True),
        ("look\nrestore", True),
        ("look then script", True),
        ("transcript on", True),
        ("look", False),
        ("I will save time.\n\ngo east", False),
        ("take saveloy", False),
        ("go east. go west", False),
    ],
)
def test_only_commands_that_read_or_write_files_are_kept_from_the_game(reply, touches):
    assert touches_files(reply) is touches


@pytest.mark.parametrize("family", sorted(SEQUENCE["games"]))
def test_a_robust_cot_reply_without_markers_gets_the_games_answer_to_balrogs_sentence(family):
    """BALROG's robust chain-of-thought agent sends its fixed "no action" sentence to the
    game; the arena's own sentence must get the same answer at the same point."""
    episode = REPLIES["scripted"][[e["task"] for e in REPLIES["scripted"]].index(family)]
    replies = [step["reply"] for step in episode["steps"]]
    at = next(i for i, reply in enumerate(replies) if reply.startswith("Failed to obtain"))
    task = make(FIXED_TASKS[TEXTWORLD][family])
    try:
        task.reset(seed_playing(family, episode["game_index"]))
        for reply in replies[:at]:
            task.step(reply)
        result = task.step(NO_ACTION_READ)
        assert result.executed_action == NO_ACTION_READ
        assert result.observation.text == episode["steps"][at]["text"]
    finally:
        task.close()
