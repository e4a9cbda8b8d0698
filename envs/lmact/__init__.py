"""The LMAct suite (lmact.txt): importing this package registers its tasks."""

from envs.lmact import gridworld, tictactoe  # noqa: F401
