"""The baselines of head-to-head play are real players of known strength: the Connect
Four searcher takes a win and stops one, and beats random moves; the tic-tac-toe
perfect player never loses and the tactician wins or blocks; Stockfish at level 6
beats level 0 and the greedy capturer takes what it can; every baseline answers a legal move, the same one for the same dice."""

import random

import pytest

from arena.matches.anchors import ANCHORS, anchor_move, anchors_of
from arena.matches.connect_four_search import Position, best_columns
from arena.matches.games import TicTacToeGame, new_game


def _grid(rows: list[str]) -> list[int]:
    """Six rows of seven, top row first: 'X' the first player (1), 'O' the second (2)."""
    marks = {".": 0, "X": 1, "O": 2}
    return [marks[cell] for row in rows for cell in row]


EMPTY_ROWS = ["......."] * 3


def test_the_searcher_takes_a_win_and_blocks_the_other_sides():
    three_in_a_row = _grid(EMPTY_ROWS + [".......", "O......", "OXXX..."])
    assert best_columns(Position.from_grid(three_in_a_row, to_move=1), depth=6) == [4]  # X completes X X X _
    must_block = _grid(EMPTY_ROWS + ["X......", "X......", "XOO...."])
    assert best_columns(Position.from_grid(must_block, to_move=2), depth=2) == [0]  # O stops the column


def _play(game_slug, first_policy, second_policy, seed):
    game = new_game(game_slug, seed)
    engines = ({}, {})
    policies = (first_policy, second_policy)
    try:
        while game.ending() is None:
            seat = game.seat_to_move
            move = anchor_move(policies[seat], game, random.Random(f"{seed}:{game.plies}"), engines[seat])
            assert move in game.legal_moves()
            game.play(move)
        return game.ending().first_score
    finally:
        for seat_engines in engines:
            for engine in seat_engines.values():
                engine.close()
        game.close()


def test_the_deeper_searcher_beats_random_moves_at_connect_four():
    scores = [_play("connect_four", "connect-four-search-2", "random", seed) for seed in range(6)]
    scores += [1 - _play("connect_four", "random", "connect-four-search-2", seed) for seed in range(6)]
    assert sum(scores) >= 11


def test_the_perfect_player_never_loses_and_the_tactician_beats_random_moves():
    for seed in range(6):
        assert _play("tictactoe", "tictactoe-perfect", "tictactoe-tactician", seed) >= 0.5
        assert _play("tictactoe", "tictactoe-tactician", "tictactoe-perfect", seed) <= 0.5
        assert _play("tictactoe", "tictactoe-perfect", "random", seed) >= 0.5
    tactician = [_play("tictactoe", "tictactoe-tactician", "random", seed) for seed in range(10)]
    assert sum(tactician) >= 7


def _tictactoe_after(moves):
    game = TicTacToeGame()  # the empty board, no opening
    for move in moves:
        game.play(move)
    return game


def test_the_tactician_takes_its_win_else_blocks():
    win = _tictactoe_after(["a1", "b1", "a2", "b2"])  # X to move, a1 a2 held
    assert anchor_move("tictactoe-tactician", win, random.Random(0), {}) == "a3"
    block = _tictactoe_after(["a1", "b1", "c3", "b2"])  # X cannot win; O threatens b3
    assert anchor_move("tictactoe-tactician", block, random.Random(0), {}) == "b3"


@pytest.mark.parametrize("policy", [a.policy for a in anchors_of("chess")])
def test_every_chess_baseline_answers_a_legal_move_and_the_same_one_for_the_same_dice(policy):
    game = new_game("chess", 7)
    engines = {}
    try:
        first = anchor_move(policy, game, random.Random("dice"), engines)
        again = anchor_move(policy, game, random.Random("dice"), engines)
        assert first in game.legal_moves() and first == again
    finally:
        for engine in engines.values():
            engine.close()
        game.close()


def test_the_capturer_mates_when_it_can_and_else_takes_the_biggest_piece():
    game = new_game("chess", 0)
    game.board.set_fen("6k1/5ppp/8/8/8/8/4p3/R3K3 w - - 0 1")  # Ra8 mates; Kxe2 would take a pawn
    assert anchor_move("chess-capturer", game, random.Random(0), {}) == "Ra8#"
    game.board.set_fen("4k3/8/8/3q4/8/3p4/4P3/4K2R w K - 0 1")  # exd3 takes a pawn; nothing takes the queen
    assert anchor_move("chess-capturer", game, random.Random(0), {}) == "exd3"
    game.close()


def test_the_capturer_beats_or_draws_random_moves():
    scores = [_play("chess", "chess-capturer", "random", seed) for seed in range(3)]
    assert min(scores) >= 0.5


def test_stockfish_level_6_beats_level_0():
    scores = [_play("chess", "stockfish-level-6", "stockfish-level-0", seed) for seed in range(2)]
    assert sum(scores) >= 1.5


def test_every_game_has_random_moves_and_two_engines():
    for game in ("chess", "tictactoe", "connect_four"):
        policies = [anchor.policy for anchor in anchors_of(game)]
        assert policies[0] == "random" and len(policies) >= 3
    assert all(len(policy) <= 32 for policy in ANCHORS)  # Submission.policy's length
