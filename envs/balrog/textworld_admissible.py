"""The admissible commands of a TextWorld game, from a second interpreter.

BALROG's TextWorld environment never asks TextWorld for admissible commands, and asking
changes what can be played: TextWorld then follows every command through the game's
logic, and that bookkeeping raises on a reply holding several commands ("go east. go
west"), which BALROG's game plays. So the game an episode plays runs with BALROG's
request only, and the commands the random baseline draws from come from this second
interpreter on the same game, fed the same commands. It is started only when someone
asks for the commands (the random baseline, a strategy listing legal actions).

If the second interpreter cannot follow a command (a chained command, a command that
stops it), the list is unknown from then on and is empty; the game played is unaffected.
Callers hold `textworld_games.TEXTWORLD_LOCK` (TextWorld's parser is not thread-safe).
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


class AdmissibleCommands:
    def __init__(self, game_path: str, interpreter_seed: int, played: list[str]):
        import textworld  # imported on use: TextWorld takes over a second to import

        self._env = textworld.start(game_path, textworld.EnvInfos(admissible_commands=True))
        self._env.seed(interpreter_seed)
        self._state = self._env.reset()
        self._lost = False
        for command in played:
            self.follow(command)

    def follow(self, command: str) -> None:
        """Play `command` here too, as the game played it."""
        if self._lost:
            return
        try:
            self._state, _, _ = self._env.step(command)
        except Exception as error:  # noqa: BLE001 — any failure only ends this copy's bookkeeping
            # TextWorld's bookkeeping raises ValueError on chained commands and
            # GameNotRunningError once the interpreter quit; the list is unknown after it.
            logger.debug("admissible commands lost after %r: %s", command, error)
            self._lost = True

    def now(self) -> list[str]:
        if self._lost:
            return []
        return sorted(self._state.admissible_commands or ())

    def close(self) -> None:
        self._env.close()
