"""LMAct grid world (LMAct §2.2, App. B.2, Fig. A6).

Positions are [row, column] in the 12×12 grid, counted from 0 at the top left;
the outer ring of cells is wall, so the player and the target live on rows and
columns 1–10.
"""

from __future__ import annotations

import functools
import random

from PIL import Image

from envs import render
from envs.core import Observation, StepResult, Task, step_random

SIZE = 12
FREE_CELLS: tuple[tuple[int, int], ...] = tuple((row, col) for row in range(1, SIZE - 1) for col in range(1, SIZE - 1))
ACTIONS = ("up", "down", "left", "right")
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
TILE = 16  # pixels per cell in the rgb format

LEGEND = "Legend: # wall, P player, T target, . floor"


def is_wall(row: int, col: int) -> bool:
    return row in (0, SIZE - 1) or col in (0, SIZE - 1)


def moved(position: tuple[int, int], action: str) -> tuple[int, int]:
    """Where `action` takes the player; a move into a wall leaves it in place."""
    d_row, d_col = MOVES[action]
    row, col = position[0] + d_row, position[1] + d_col
    return position if is_wall(row, col) else (row, col)


def expert_move(player: tuple[int, int], target: tuple[int, int]) -> str:
    """One step along a shortest path: first close the row gap (up/down), then the column gap (left/right)."""
    if player[0] > target[0]:
        return "up"
    if player[0] < target[0]:
        return "down"
    if player[1] > target[1]:
        return "left"
    if player[1] < target[1]:
        return "right"
    raise ValueError("the player is already on the target")


# The empty board, as rows of symbols; each observation copies it and marks two cells.
_EMPTY_ROWS = tuple(
    tuple("#" if is_wall(row, col) else "." for col in range(SIZE)) for row in range(SIZE)
)


def grid_text(player: tuple[int, int], target: tuple[int, int], annotated: bool = False) -> str:
    """The grid, one symbol per cell: LMAct's ASCII format, grid only (LMAct §2.3).
    `annotated` puts a legend line above it ('ascii-annotated')."""
    rows = [list(row) for row in _EMPTY_ROWS]
    rows[target[0]][target[1]] = "T"
    rows[player[0]][player[1]] = "P"
    lines = [" ".join(row) for row in rows]
    return "\n".join([LEGEND, *lines] if annotated else lines)


def coords_text(player: tuple[int, int], target: tuple[int, int]) -> str:
    return repr({"player": list(player), "target": list(target)})


@functools.lru_cache(maxsize=1)
def _background() -> Image.Image:
    image = Image.new("RGB", (SIZE * TILE, SIZE * TILE), (0, 0, 0))
    wall = render.brick_tile(TILE)
    for row in range(SIZE):
        for col in range(SIZE):
            if is_wall(row, col):
                image.paste(wall, (col * TILE, row * TILE))
    return image


def grid_image(player: tuple[int, int], target: tuple[int, int]) -> Image.Image:
    image = _background().copy()
    image.paste(render.target_sprite(TILE), (target[1] * TILE, target[0] * TILE))
    image.paste(render.player_sprite(TILE), (player[1] * TILE, player[0] * TILE))
    return image


class GridWorld(Task):
    score_range = (0.0, 1.0)
    description = (
        "Walk the player to the target in a 12×12 grid whose outer ring is wall, leaving a "
        "10×10 open floor with no obstacles (protocol: LMAct §2.2, App. B.2). The player "
        "and the target start on two different floor cells drawn at random. Actions are 'up', "
        "'down', 'left' and 'right'; walking into a wall leaves the player where it is, and "
        "any other text is replaced by a random one of the four and counted as illegal "
        "(LMAct §2.4). Reaching the target scores 1 and ends the episode; otherwise it "
        "stops after 25 steps with 0. Formats: 'ascii' (the paper's), the grid one symbol "
        "per cell ('#' wall, 'P' player, 'T' target, '.' floor) and nothing else; "
        "'ascii-annotated', the same grid under a legend line naming the symbols (our "
        "addition, to compare against the paper's format); 'coords', {'player': [row, col], 'target': [row, col]} with rows and "
        "columns counted from 0 at the top left of the 12×12 grid (walls included); 'rgb', a "
        "192×192 image of 16-pixel tiles (brick walls, a little person, a bullseye target, "
        "black floor). The sprites are drawn in code rather than taken from Crafter as in the "
        "paper. The expert walks a shortest path, vertical moves first, so it needs at most "
        "18 steps."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._player: tuple[int, int] | None = None

    def _reset(self, seed: int) -> Observation:
        self.seed = seed
        start, goal = random.Random(f"{self.id}/start:{seed}").sample(FREE_CELLS, 2)
        self._start = start
        self._player = start
        self._target = goal
        return self._observe()

    def _step(self, action_text: str) -> StepResult:
        action = action_text.strip()
        legal = action in MOVES
        executed = action if legal else step_random(self, "illegal").choice(ACTIONS)
        self._player = moved(self._player, executed)
        terminated = self._player == self._target
        return StepResult(
            observation=self._observe(),
            reward=1.0 if terminated else 0.0,
            terminated=terminated,
            truncated=False,
            legal=legal,
            executed_action=executed,
            end_reason="reached the target" if terminated else None,
        )

    def legal_actions(self) -> list[str]:
        return list(ACTIONS)

    def initial_state_key(self) -> str:
        if self._player is None:
            raise RuntimeError("call reset(seed) first")
        return f"player={list(self._start)} target={list(self._target)}"

    def expert_action(self) -> str:
        if self._player is None:
            raise RuntimeError("call reset(seed) first")
        return expert_move(self._player, self._target)

    @property
    def player(self) -> tuple[int, int]:
        return self._player

    @property
    def target(self) -> tuple[int, int]:
        return self._target

    def _observe(self) -> Observation:
        if self.format == "rgb":
            return Observation(image=grid_image(self._player, self._target))
        if self.format == "coords":
            return Observation(text=coords_text(self._player, self._target))
        return Observation(text=grid_text(self._player, self._target, annotated=self.format == "ascii-annotated"))
