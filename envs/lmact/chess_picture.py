"""The chess board as an image, for envs.lmact.chess's image format: a 256-pixel board with
rank and file labels, each piece a silhouette drawn from polygons and ellipses (no font
or image files), sprites cached per piece, colour and square."""

from __future__ import annotations

import functools

import chess
from PIL import Image, ImageDraw

from envs import render


IMAGE_SIZE = 256
_MARGIN = 20
_SQUARE = (IMAGE_SIZE - 2 * _MARGIN) // 8  # 27 px
_LIGHT = (238, 216, 181)
_DARK = (176, 134, 99)
_FRAME = (70, 52, 40)
_LABEL = (235, 225, 210)
_WHITE_PIECE = ((250, 250, 246), (25, 25, 25))  # fill, outline
_BLACK_PIECE = ((28, 28, 28), (230, 230, 226))

# Piece silhouettes on a 0–1 box: polygons and ellipses, drawn in order.
_BASE = ("polygon", ((0.22, 0.88), (0.78, 0.88), (0.78, 0.80), (0.22, 0.80)))
_SHAPES: dict[int, tuple] = {
    chess.PAWN: (
        ("polygon", ((0.36, 0.80), (0.64, 0.80), (0.58, 0.50), (0.42, 0.50))),
        ("ellipse", (0.37, 0.24, 0.63, 0.52)),
        _BASE,
    ),
    chess.ROOK: (
        ("polygon", ((0.32, 0.80), (0.68, 0.80), (0.64, 0.38), (0.36, 0.38))),
        (
            "polygon",
            (
                (0.27, 0.38), (0.73, 0.38), (0.73, 0.16), (0.63, 0.16), (0.63, 0.24), (0.55, 0.24),
                (0.55, 0.16), (0.45, 0.16), (0.45, 0.24), (0.37, 0.24), (0.37, 0.16), (0.27, 0.16),
            ),
        ),
        _BASE,
    ),
    chess.KNIGHT: (
        (
            "polygon",
            (
                (0.30, 0.80), (0.74, 0.80), (0.72, 0.52), (0.66, 0.30), (0.54, 0.18), (0.48, 0.10),
                (0.44, 0.20), (0.32, 0.32), (0.22, 0.50), (0.28, 0.58), (0.40, 0.50), (0.48, 0.46),
                (0.34, 0.66),
            ),
        ),
        _BASE,
    ),
    chess.BISHOP: (
        ("polygon", ((0.36, 0.80), (0.64, 0.80), (0.58, 0.58), (0.42, 0.58))),
        ("ellipse", (0.34, 0.24, 0.66, 0.64)),
        ("ellipse", (0.44, 0.10, 0.56, 0.22)),
        _BASE,
    ),
    chess.QUEEN: (
        (
            "polygon",
            (
                (0.28, 0.80), (0.72, 0.80), (0.80, 0.26), (0.64, 0.54), (0.58, 0.20), (0.50, 0.52),
                (0.42, 0.20), (0.36, 0.54), (0.20, 0.26),
            ),
        ),
        ("ellipse", (0.16, 0.18, 0.26, 0.28)),
        ("ellipse", (0.37, 0.12, 0.47, 0.22)),
        ("ellipse", (0.53, 0.12, 0.63, 0.22)),
        ("ellipse", (0.74, 0.18, 0.84, 0.28)),
        _BASE,
    ),
    chess.KING: (
        ("polygon", ((0.28, 0.80), (0.72, 0.80), (0.78, 0.40), (0.22, 0.40))),
        ("polygon", ((0.46, 0.40), (0.54, 0.40), (0.54, 0.08), (0.46, 0.08))),
        ("polygon", ((0.36, 0.24), (0.64, 0.24), (0.64, 0.16), (0.36, 0.16))),
        _BASE,
    ),
}


@functools.lru_cache(maxsize=None)
def _piece_sprite(piece_type: int, colour: bool, background: tuple[int, int, int]) -> Image.Image:
    tile = Image.new("RGB", (_SQUARE, _SQUARE), background)
    draw = ImageDraw.Draw(tile)
    fill, outline = _WHITE_PIECE if colour == chess.WHITE else _BLACK_PIECE
    scale = _SQUARE - 1
    for kind, geometry in _SHAPES[piece_type]:
        if kind == "polygon":
            draw.polygon([(x * scale, y * scale) for x, y in geometry], fill=fill, outline=outline)
        else:
            x0, y0, x1, y1 = (value * scale for value in geometry)
            draw.ellipse((x0, y0, x1, y1), fill=fill, outline=outline)
    return tile


@functools.lru_cache(maxsize=1)
def _empty_board() -> Image.Image:
    image = Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), _FRAME)
    draw = ImageDraw.Draw(image)
    for row in range(8):
        for col in range(8):
            left, top = _MARGIN + col * _SQUARE, _MARGIN + row * _SQUARE
            colour = _LIGHT if (row + col) % 2 == 0 else _DARK
            draw.rectangle((left, top, left + _SQUARE - 1, top + _SQUARE - 1), fill=colour)
    far = _MARGIN + 8 * _SQUARE
    for k in range(8):
        centre = _MARGIN + k * _SQUARE + _SQUARE // 2
        for edge in (_MARGIN // 2, far + (IMAGE_SIZE - far) // 2):
            render.draw_text_centered(draw, (centre, edge), "abcdefgh"[k], _LABEL, scale=2)  # files
            render.draw_text_centered(draw, (edge, centre), "87654321"[k], _LABEL, scale=2)  # ranks
    return image


def board_image(board: chess.Board) -> Image.Image:
    """A 256×256 diagram from White's side: rank 8 at the top, files a–h left to right, labels on every edge."""
    image = _empty_board().copy()
    for square, piece in board.piece_map().items():
        row, col = 7 - chess.square_rank(square), chess.square_file(square)
        background = _LIGHT if (row + col) % 2 == 0 else _DARK
        image.paste(
            _piece_sprite(piece.piece_type, piece.color, background),
            (_MARGIN + col * _SQUARE, _MARGIN + row * _SQUARE),
        )
    return image
