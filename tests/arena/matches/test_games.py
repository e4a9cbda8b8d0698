"""The games table: PettingZoo plays the moves, the texts are LMAct's."""

import chess
import pytest

from arena.matches.games import GAMES, new_game
from arena.matches.seats import ModelSeat
from arena.models import Submission
from arena.strategies.lmact_prompt import SEPARATOR, ZERO_SHOT_PREAMBLE, answer_instruction
from envs.lmact import chess as lmact_chess
from envs.lmact import tictactoe as lmact_tictactoe


def test_chess_starts_from_lmacts_opening_with_its_legal_moves_and_board():
    game = new_game("chess", 11)
    opening = lmact_chess.opening_for_seed(11)
    assert game.opening_moves == list(opening.moves)
    assert game.board.fen() == opening.board().fen()
    assert list(game.legal_moves()) == lmact_chess.legal_sans(opening.board())
    side = opening.board().turn
    assert game.seat_to_move == (0 if side == chess.WHITE else 1)
    assert game.observation(game.seat_to_move) == lmact_chess.board_ascii(opening.board(), side, annotated=True)
    assert game.position_text() == opening.board().fen()


def test_chess_ends_by_pettingzoo_rules_with_the_first_seats_score():
    game = new_game("chess", 0)
    game.env.unwrapped.board.set_fen("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")  # mate in one for White
    game.play("Qg7#")
    assert game.ending().first_score == 1.0 and game.ending().reason == "White wins"


def test_tictactoe_names_cells_as_lmact_does():
    game = new_game("tictactoe", 2)
    mark = game.opening_moves[0]
    expected = lmact_tictactoe.play("." * 9, lmact_tictactoe.CELLS.index(mark))
    assert game.observation(0) == lmact_tictactoe.board_text(expected, "x", annotated=True)
    assert mark not in game.legal_moves() and len(game.legal_moves()) == 8
    game.play("b2")
    after = lmact_tictactoe.play(expected, lmact_tictactoe.CELLS.index("b2"))
    assert game.position_text() == lmact_tictactoe.board_text(after, "x")


def test_connect_four_drops_into_numbered_columns():
    game = new_game("connect_four", 0)
    before = game.position_text().splitlines()
    game.play("4")
    after = game.position_text().splitlines()
    assert after[-1] == "1 2 3 4 5 6 7"
    assert [row.split()[3] for row in after[:-1]].count(".") == [row.split()[3] for row in before[:-1]].count(".") - 1
    assert game.ending() is None and set(game.legal_moves()) <= {str(c) for c in range(1, 8)}


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_both_games_of_a_pair_start_alike_and_an_unknown_game_is_refused(slug):
    assert new_game(slug, 5).position_text() == new_game(slug, 5).position_text()
    with pytest.raises(ValueError):
        new_game("go", 0)


def test_the_prompt_is_lmacts_zero_shot_layout():
    submission = Submission(name="m", base_url="http://example.org/v1", model="m", chain_of_thought=True)
    game = new_game("tictactoe", 3)
    legal = list(game.legal_moves())
    text, observation = ModelSeat(submission).prompt(game, game.seat_to_move, legal)
    assert text.startswith(ZERO_SHOT_PREAMBLE)
    assert "you play O, and it is your turn" in text
    assert SEPARATOR + "Observation:\n" + observation in text
    assert ", ".join(legal) in text
    assert text.endswith(answer_instruction(demonstrations=False, show_legal=True, chain_of_thought=True, listable=True))


def test_the_catalogue_names_every_game_the_arena_plays():
    """The read side names the games from arena.matches.catalogue without loading their
    engines; it must list exactly the games that can be played, in the same order, with
    the seats and board the games themselves use."""
    from arena.matches.catalogue import GAME_SPECS, GAME_TITLES

    assert list(GAME_TITLES) == list(GAME_SPECS) == list(GAMES)
    for slug, spec in GAME_SPECS.items():
        game = GAMES[slug]
        assert (game.title, game.seat_names, game.renderer) == (spec.title, spec.seat_names, spec.renderer)


def test_the_web_processes_do_not_load_the_game_engines():
    """The match pages, their live channel and the rating pages read the catalogue: a web
    process serving them never imports PettingZoo or Stockfish's wrapper."""
    import subprocess
    import sys

    probe = (
        "import sys, django; django.setup(); import config.asgi; "
        "from django.urls import get_resolver; get_resolver().url_patterns; "
        "import leaderboard.web.match_views, leaderboard.match_payloads, leaderboard.match_consumer; "
        "print(sorted(m for m in ('pettingzoo', 'arena.matches.games', 'envs.lmact.stockfish') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert done.stdout.strip().splitlines()[-1] == "[]"
