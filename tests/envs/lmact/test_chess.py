"""lmact/chess against the real Stockfish binary (Debian package `stockfish`)."""

from __future__ import annotations

import gc
import random
import subprocess
import sys

import chess
import pytest

from envs.core import RandomLegalPolicy
from envs.lmact import chess as lmact_chess
from envs.lmact.stockfish import Stockfish, weakened_choice
from envs.registry import get_task_class, make


@pytest.fixture
def task():
    task = make("lmact/chess", "ascii")
    yield task
    task.close()


def board_after(*sans: str, fen: str | None = None) -> chess.Board:
    """A position with its move history: `sans` played from the initial position (or `fen`)."""
    board = chess.Board(fen) if fen else chess.Board()
    for san in sans:
        board.push_san(san)
    return board


# -- openings ------------------------------------------------------------------
def test_every_opening_is_playable_and_reaches_a_distinct_position():
    pool = lmact_chess.openings()
    assert len(pool) == 3805  # 3,807 named lines less the two that end in mate
    fens = set()
    for opening in pool:
        board = opening.board()
        assert lmact_chess.game_end(board) is None, opening
        fens.add(board.fen())
    assert len(fens) == len(pool)


def test_seeds_walk_through_the_openings_without_replacement():
    pool = lmact_chess.openings()
    drawn = [lmact_chess.opening_for_seed(seed) for seed in range(500)]
    assert len(set(drawn)) == 500
    assert lmact_chess.opening_for_seed(7) == drawn[7]
    assert lmact_chess.opening_for_seed(7 + len(pool)) == drawn[7]


def test_reset_starts_from_the_opening_with_the_agent_to_move(task):
    task.reset(3)
    opening = lmact_chess.opening_for_seed(3)
    assert task.opening == opening
    assert task.initial_state_key() == opening.board().fen()
    assert task.agent_colour == opening.board().turn
    assert task.board.move_stack == opening.board().move_stack
    assert not task._engine.running  # reset alone never starts the engine


# -- actions -------------------------------------------------------------------
def test_legal_actions_are_the_sorted_san_of_the_legal_moves(task):
    task.reset(0)
    board = task.board
    assert task.legal_actions() == sorted(board.san(move) for move in board.legal_moves)


def test_a_legal_move_is_played_and_answered(task):
    task.reset(0)
    before = len(task.board.move_stack)
    move = task.legal_actions()[0]
    result = task.step(f"  {move} \n")
    assert result.legal and result.executed_action == move
    assert result.info["opponent_action"] in legal_sans_before_last(task.board)
    assert len(task.board.move_stack) == before + 2
    assert task.steps_taken == 1 and not result.done


def legal_sans_before_last(board: chess.Board) -> list[str]:
    previous = board.copy()
    previous.pop()
    return lmact_chess.legal_sans(previous)


@pytest.mark.parametrize("action", ["e2e4", "", "Ke9", "nf3", "Nf3 please", "Action: Nf3"])
def test_anything_but_exact_san_is_replaced_by_a_random_legal_move(action):
    with make("lmact/chess", "fen") as first, make("lmact/chess", "fen") as second:
        first.reset_to(11, board_after("e4", "e5"))
        second.reset_to(11, board_after("e4", "e5"))
        legal_now = first.legal_actions()
        result = first.step(action)
        assert not result.legal
        assert result.executed_action in legal_now
        # The substitute depends on the seed and the step only.
        assert second.step(action).executed_action == result.executed_action


def test_san_must_be_written_as_python_chess_writes_it(task):
    # After 1. e4 f6 2. d4 g5, Qh5 is mate and so is written "Qh5#".
    task.reset_to(0, board_after("e4", "f6", "d4", "g5"))
    assert "Qh5#" in task.legal_actions() and "Qh5" not in task.legal_actions()
    assert not task.step("Qh5").legal


# -- rewards and endings -------------------------------------------------------
def test_mating_wins(task):
    task.reset_to(0, board_after("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"))
    result = task.step("Qxf7#")
    assert result.legal and result.terminated and not result.truncated
    assert (result.reward, result.end_reason) == (1.0, "won")
    assert result.info["opponent_action"] is None
    assert task.legal_actions() == []
    with pytest.raises(RuntimeError):
        task.step("Kd1")


def test_getting_mated_loses(task):
    # Black to move after 1. f3 e5 2. g4? can mate with Qh4#; even the weakest
    # opponent finds a mate in one.
    task.reset_to(0, board_after("f3", "e5"))
    result = task.step("g4")
    assert result.info["opponent_action"] == "Qh4#"
    assert result.terminated and (result.reward, result.end_reason) == (-1.0, "lost")


def test_stalemate_is_a_draw(task):
    task.reset_to(0, board_after(fen="7k/5K2/8/8/8/8/8/6Q1 w - - 0 1"))
    result = task.step("Qg6")
    assert result.terminated and (result.reward, result.end_reason) == (0.0, "draw (stalemate)")


def test_repetition_ends_the_game_as_a_draw():
    board = board_after("Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    assert lmact_chess.game_end(board) is None
    board.push_san("Ng8")  # the initial position for the third time
    assert lmact_chess.game_end(board) == (None, "threefold repetition")


def test_the_episode_stops_at_the_step_limit(task):
    task.max_steps = 2  # the class allows 100; an instance value keeps the test short
    task.reset(1)
    first = task.step(task.legal_actions()[0])
    assert not first.done
    last = task.step(task.legal_actions()[0])
    assert last.truncated and not last.terminated
    assert (last.reward, last.end_reason) == (0.0, "step limit")
    assert get_task_class("lmact/chess").max_steps == 100


# -- determinism ---------------------------------------------------------------
def play(seed: int, plies: int, expert_between: bool = False) -> tuple[list[str], list[str]]:
    with make("lmact/chess", "pgn") as task:
        task.reset(seed)
        policy = RandomLegalPolicy(seed)
        texts, actions = [], []
        for _ in range(plies):
            if expert_between:
                task.expert_action()  # a deep search in between must not change the opponent
            result = task.step(policy.act(task))
            texts.append(result.observation.text)
            actions.append(f"{result.executed_action} {result.info['opponent_action']}")
            if result.done:
                break
        return texts, actions


def test_same_seed_and_moves_give_the_same_game():
    first = play(5, 12)
    assert play(5, 12) == first
    assert play(5, 12, expert_between=True) == first
    assert play(6, 12) != first


def test_weakened_choice_follows_its_dice():
    moves = [chess.Move.from_uci(uci) for uci in ("e2e4", "d2d4", "g1f3", "c2c4")]
    candidates = list(zip(moves, (40, 30, 25, 10)))
    picks = [weakened_choice(candidates, 0, random.Random(k)) for k in range(200)]
    assert picks == [weakened_choice(candidates, 0, random.Random(k)) for k in range(200)]
    assert set(picks) == set(moves)  # at level 0 close moves are all played sometimes
    # A mate is never thrown away for a quiet move, and level 20 plays the best line.
    mate = [(moves[0], 31999), *[(move, 20) for move in moves[1:]]]
    assert {weakened_choice(mate, 0, random.Random(k)) for k in range(200)} == {moves[0]}
    assert {weakened_choice(candidates, 20, random.Random(k)) for k in range(50)} == {moves[0]}


# -- expert --------------------------------------------------------------------
def test_the_expert_beats_the_opponent():
    with make("lmact/chess", "fen") as task:
        for seed in (0, 1):
            task.reset(seed)
            total = 0.0
            for _ in range(60):
                result = task.step(task.expert_action())
                assert result.legal
                total += result.reward
                if result.done:
                    break
            assert (total, result.end_reason) == (1.0, "won"), (seed, task.board.fen())


# -- formats -------------------------------------------------------------------
def test_formats():
    board = board_after("e4", "c5", "Nf3")
    texts = {}
    for fmt in ("ascii", "ascii-annotated", "fen", "pgn"):
        task = make("lmact/chess", fmt)
        texts[fmt] = task.reset_to(0, board).text
        task.close()
    assert texts["fen"] == board.fen()
    # LMAct fidelity (issue 18, item 2): 'ascii' is python-chess's board text alone
    # (LMAct Fig. A3a); the colour line and labels are 'ascii-annotated'.
    assert texts["ascii"] == str(board) and "You play" not in texts["ascii"]
    ascii_lines = texts["ascii-annotated"].splitlines()
    assert ascii_lines[0] == "You play Black."
    assert ascii_lines[1] == "8 r n b q k b n r"
    assert ascii_lines[5] == "4 . . . . P . . ."
    assert ascii_lines[-1] == "  a b c d e f g h"
    assert texts["pgn"].endswith("\n\n1. e4 c5 2. Nf3 *")
    assert '[White "Stockfish"]' in texts["pgn"] and '[Black "Agent"]' in texts["pgn"]

    task = make("lmact/chess", "rgb")
    image = task.reset(0).image
    assert image.size == (256, 256) and image.mode == "RGB"
    task.close()


def test_pgn_keeps_the_opening_and_the_result():
    pgn_task = make("lmact/chess", "pgn")
    try:
        text = pgn_task.reset_to(0, board_after("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6")).text
        assert text.endswith("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 *")
        final = pgn_task.step("Qxf7#").observation.text
        assert '[Result "1-0"]' in final and final.endswith("4. Qxf7# 1-0")
    finally:
        pgn_task.close()


# -- the engine process --------------------------------------------------------
def test_close_is_idempotent_and_collection_stops_the_engine():
    task = make("lmact/chess", "fen")
    task.reset(2)
    task.step(task.legal_actions()[0])
    assert task._engine.running
    task.close()
    task.close()
    assert not task._engine.running

    task = make("lmact/chess", "fen")
    task.reset(2)
    task.expert_action()
    finalizer = task._engine._finalizer
    assert finalizer.alive
    del task
    gc.collect()
    assert not finalizer.alive


def test_one_engine_serves_opponent_and_expert():
    engine = Stockfish()
    try:
        board = board_after("e4", "e5")
        assert engine.best_move(board, nodes=2000) in board.legal_moves
        lines = engine.top_lines(board)
        assert len(lines) == 4 and lines == sorted(lines, key=lambda line: -line[1])
    finally:
        engine.close()


def test_the_envs_package_does_not_import_django():
    code = "import sys, envs.lmact.chess, envs.lmact.crossword; sys.exit('django' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_draw_reasons_read_well():
    bare_kings = board_after(fen="8/8/4k3/8/8/3K4/8/8 w - - 0 1")
    assert lmact_chess.game_end(bare_kings) == (None, "insufficient material")
    assert lmact_chess.game_end(board_after(fen="4k3/8/8/8/8/8/4P3/4K3 w - - 150 120")) == (
        None,
        "seventy-five-move rule",
    )
    assert lmact_chess.game_end(board_after(fen="4k3/8/8/8/8/8/4P3/4K3 w - - 100 90")) == (None, "fifty-move rule")


def test_only_the_pgn_format_stores_a_board_picture_for_the_replay():
    # A move list holds no position the replay could draw; the board texts do (the replay
    # player draws them), and 'rgb' is a picture already.
    for fmt, pictured in (("pgn", True), ("ascii", False), ("fen", False)):
        with make("lmact/chess", fmt) as task:
            task.reset(0)
            png = task.viewer_png()
            assert (png is not None and png.startswith(b"\x89PNG")) == pictured, fmt
