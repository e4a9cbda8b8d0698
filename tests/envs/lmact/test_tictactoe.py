"""lmact/tictactoe: rules, openings, the minimax expert, determinism (LMAct §2.2)."""

import collections

from envs.core import ExpertPolicy, RandomLegalPolicy
from envs.lmact import tictactoe
from envs.registry import make


def play_out(task, policy):
    while True:
        result = task.step(policy.act(task))
        if result.done:
            return result


def test_openings_are_reachable_unfinished_and_never_lost_for_the_side_to_move():
    openings = tictactoe.openings()
    assert openings[0] == tictactoe.EMPTY * 9
    assert len(set(openings)) == len(openings)
    for board in openings:
        assert not tictactoe.is_over(board)
        assert tictactoe.minimax_value(board) >= 0
        xs, os = board.count("x"), board.count("o")
        assert xs - os in (0, 1)


def test_legal_actions_are_the_empty_cells_named_row_letter_then_column():
    task = make("lmact/tictactoe", "ascii")
    task.reset(0)
    task._board = "xo." "..." "..x"
    assert task.legal_actions() == ["a3", "b1", "b2", "b3", "c1", "c2"]


def test_an_illegal_action_is_replaced_by_a_random_legal_one_and_flagged():
    task = make("lmact/tictactoe", "ascii")
    task.reset(5)
    before = set(task.legal_actions())
    result = task.step("the middle please")
    assert result.legal is False
    assert result.executed_action in before


def test_winning_gives_plus_one_and_losing_minus_one():
    task = make("lmact/tictactoe", "ascii")
    task.reset(0)
    task._board, task._agent = "xx." "oo." "...", "x"
    result = task.step("a3")
    assert (result.reward, result.terminated, result.end_reason) == (1.0, True, "won")

    task.reset(0)
    # x threatens row a and column 1; o (the agent) can block only one of them.
    task._board, task._agent = "xx." "x.o" ".o.", "o"
    task._opponent_rng.choice = lambda cells: 6  # the opponent completes column 1
    result = task.step("a3")
    assert (result.reward, result.terminated, result.end_reason) == (-1.0, True, "lost")


def test_the_expert_never_loses_and_wins_about_85_percent_of_1000_openings():
    outcomes = collections.Counter()
    for seed in range(1000):
        task = make("lmact/tictactoe", "ascii")
        task.reset(seed)
        outcomes[play_out(task, ExpertPolicy(seed)).end_reason] += 1
    assert outcomes["lost"] == 0
    assert 830 <= outcomes["won"] <= 850, outcomes


def test_the_same_seed_gives_the_same_episode_in_every_format():
    for fmt in ("ascii", "rgb"):
        runs = []
        for _ in range(2):
            task = make("lmact/tictactoe", fmt)
            first = task.reset(42)
            policy = RandomLegalPolicy(42)
            trace = [first.text or first.image.tobytes()]
            while True:
                result = task.step(policy.act(task) + " nonsense" if len(trace) == 2 else policy.act(task))
                trace.append((result.executed_action, result.reward, result.legal, result.observation.text or result.observation.image.tobytes()))
                if result.done:
                    break
            runs.append(trace)
        assert runs[0] == runs[1]


def test_different_seeds_start_from_different_openings():
    keys = set()
    for seed in range(50):
        task = make("lmact/tictactoe", "ascii")
        task.reset(seed)
        keys.add(task.initial_state_key())
    assert len(keys) > 40


def test_the_ascii_observation_names_the_agents_mark_and_the_rgb_one_is_an_image():
    task = make("lmact/tictactoe", "ascii-annotated")
    observation = task.reset(1)
    assert observation.image is None and "X" in observation.text.upper()
    assert observation.text.startswith("You play ") and "  1 2 3" in observation.text
    image = make("lmact/tictactoe", "rgb").reset(1).image
    assert image.mode == "RGB" and image.width >= 100


def test_the_default_ascii_observation_is_the_board_alone():
    # LMAct fidelity (issue 18, item 2): no task description, no labels (LMAct §2.3).
    task = make("lmact/tictactoe")
    assert task.format == "ascii"
    task.reset(1)
    text = task.reset(1).text
    board = task.board.upper()
    assert text == "\n".join(" ".join(board[row * 3 : row * 3 + 3]) for row in range(3))
