"""The token estimate's two ways of counting (arena.strategies.tokens): the by-kind scan used for
ASCII text without "_" gives exactly the piece-by-piece count, on random texts made of
every kind of character and on the texts the arena really estimates."""

import random

from arena.strategies.tokens import text_tokens, text_tokens_by_piece
from envs.registry import make

ALPHABET = " \n\t\r\x0b\x0c\x1c\x1f\x00\x7fabcXYZqwertyu0123456789#./-:,!()[]{}\"'    "


def test_random_ascii_texts_count_the_same_both_ways():
    rng = random.Random(32)
    for _ in range(20000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60)))
        assert text_tokens(text) == text_tokens_by_piece(text), repr(text)


def test_known_counts():
    assert text_tokens("") == 0
    assert text_tokens("go north") == 2  # two short words; the space joins the next piece
    assert text_tokens("abcdefghijkl") == 3  # a long word: one token per four letters
    assert text_tokens("12345") == 3  # digit pairs
    assert text_tokens("a      b") == 4  # a run of six spaces: two tokens
    assert text_tokens("# . #\n# P #") == 5 + 1 + 1  # five symbols, the newline, the letter


def test_texts_outside_the_fast_path_are_counted_piece_by_piece():
    for text in ("snake_case words", "café au lait", "x_1 = 2"):
        assert text_tokens(text) == text_tokens_by_piece(text)
    assert text_tokens("snake_case") == 2  # "snake", then "_case" (a piece that starts with "_")


def test_game_observations_count_the_same_both_ways():
    for task_id, fmt in (("lmact/gridworld", "ascii"), ("lmact/chess", "pgn"), ("lmact/tictactoe", "ascii-annotated")):
        task = make(task_id, fmt)
        observation = task.reset(3)
        for _ in range(5):
            assert text_tokens(observation.text) == text_tokens_by_piece(observation.text)
            result = task.step(task.legal_actions()[0])
            if result.done:
                break
            observation = result.observation
