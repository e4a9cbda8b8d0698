"""The AdventureGame suite (adventuregame.txt): importing this package registers its
nine experiments as tasks (`adventure/basic-easy`, …, `adventure/synthetic-hard`)."""

from envs.adventure import tasks  # noqa: F401
