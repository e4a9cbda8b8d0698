"""LMAct's tasks (LMAct §2.2): the spec table the registry reads (envs.spec)."""

from envs.spec import TaskSpec

TASKS = (
    TaskSpec(
        id="lmact/chess", entry_point="envs.lmact.chess:Chess", title="Chess", max_steps=100,
        formats=("ascii", "ascii-annotated", "fen", "pgn", "rgb"),
    ),
    TaskSpec(id="lmact/crossword", entry_point="envs.lmact.crossword:Crossword", title="Crossword", max_steps=25, formats=("ascii",)),
    TaskSpec(
        id="lmact/gridworld", entry_point="envs.lmact.gridworld:GridWorld", title="Grid world", max_steps=25,
        formats=("ascii", "ascii-annotated", "coords", "rgb"),
    ),
    TaskSpec(
        id="lmact/tictactoe", entry_point="envs.lmact.tictactoe:TicTacToe", title="Tic-tac-toe", max_steps=100,
        formats=("ascii", "ascii-annotated", "rgb"),
    ),
    TaskSpec(id="lmact/cheetah", entry_point="envs.lmact.cheetah:CheetahRun", title="Cheetah run", max_steps=100, formats=("dict",)),
    TaskSpec(id="lmact/phoenix", entry_point="envs.lmact.phoenix:Phoenix", title="Atari Phoenix", max_steps=100, formats=("rgb",)),
)
