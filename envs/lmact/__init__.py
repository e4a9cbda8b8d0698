"""The LMAct suite (lmact.txt): importing this package registers its tasks."""

from envs.lmact import chess, crossword, gridworld, tictactoe  # noqa: F401
from envs.lmact import cheetah, phoenix  # noqa: F401
