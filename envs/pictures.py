"""A picture of each task's game for the Tasks page: what a replay of the game shows at
its start (seed 0).

- Games that draw a picture for the replay (TextAtari's screen, the cheetah's body,
  BALROG's worlds) give that picture, as a text run's replay shows it (a few steps
  in when the game opens on a title card).
- Games played on images (LMAct's rgb formats, Phoenix) give their first image
  observation.
- Text games (TextWorld, AdventureGame, information gathering, the crossword) give
  the opening lines of their first observation, typeset, as the replay shows text.

Pictures are trimmed of the plain margin around them (NetHack's map is mostly
unexplored rock) and scaled to fit a thumbnail.
"""

from __future__ import annotations

import io
import logging
import textwrap

from PIL import Image, ImageChops, ImageDraw, ImageFont

from envs.core import IMAGE_FORMATS, Task

logger = logging.getLogger(__name__)

THUMBNAIL = (240, 160)
SEED = 0
# A picture of this many colours or fewer is a title card; the game is played on
# for at most TITLE_CARD_STEPS steps to show the game itself.
TITLE_CARD_COLOURS = 2
TITLE_CARD_STEPS = 10
# The typeset opening of a text game.
CARD_LINES = 11
CARD_COLUMNS = 34
CARD_BACKGROUND = (250, 250, 247)
CARD_INK = (40, 40, 48)
CARD_FONT_SIZE = 11


def task_picture(cls: type[Task]) -> Image.Image:
    """The task's thumbnail: its replay picture, else its first image observation, else
    its first text observation typeset; a card of its title if the game fails to start."""
    try:
        picture = _drawn_picture(cls)
    except Exception:  # a simulator that cannot start here must not break the page
        logger.exception("%s: no picture of its game; its title stands in", cls.id)
        return text_card(cls.title)
    return picture if picture.size == THUMBNAIL and picture.info.get("card") else _thumbnail(trim(picture))


def _drawn_picture(cls: type[Task]) -> Image.Image:
    text_formats = [fmt for fmt in cls.formats if fmt not in IMAGE_FORMATS]
    image_formats = [fmt for fmt in cls.formats if fmt in IMAGE_FORMATS]
    opening = ""
    for fmt in text_formats[:1]:
        task = cls(fmt)
        try:
            observation = task.reset(seed=SEED)
            opening = observation.text or ""
            picture = _replay_picture(task) if cls.viewer_frames else None
        finally:
            task.close()
        if picture is not None:
            return picture
    for fmt in image_formats[:1]:
        task = cls(fmt)
        try:
            observation = task.reset(seed=SEED)
        finally:
            task.close()
        if observation.image is not None:
            return observation.image.convert("RGB")
        opening = opening or observation.text or ""
    return text_card(opening or cls.title)


def _replay_picture(task: Task) -> Image.Image | None:
    """The replay's picture at the start, or a few steps of the first legal action
    later when the start is a title card (Berzerk opens on its copyright line)."""
    for _ in range(TITLE_CARD_STEPS):
        png = task.viewer_png()
        if png is None:
            return None
        picture = Image.open(io.BytesIO(png)).convert("RGB")
        if len(picture.getcolors(maxcolors=1 << 16) or range(1 << 16)) > TITLE_CARD_COLOURS or task.done:
            return picture
        task.step(task.legal_actions()[0])
    return picture


def _font() -> ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSansMono.ttf", CARD_FONT_SIZE)
    except OSError:
        try:
            return ImageFont.load_default(size=CARD_FONT_SIZE)
        except TypeError:  # Pillow without FreeType
            return ImageFont.load_default()


def text_card(text: str) -> Image.Image:
    """The first lines of `text` typeset in a monospace font, cut to the card."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        # Grids and boards keep their lines (cut at the card's edge); prose wraps.
        wrapped = textwrap.wrap(line, CARD_COLUMNS) if " " in line.strip() else [line[:CARD_COLUMNS]]
        lines += wrapped or [""]
        if len(lines) >= CARD_LINES:
            break
    lines = lines[:CARD_LINES]
    font = _font()
    line_height = CARD_FONT_SIZE + 3
    card = Image.new("RGB", THUMBNAIL, CARD_BACKGROUND)
    draw = ImageDraw.Draw(card)
    for number, line in enumerate(lines):
        draw.text((6, 5 + number * line_height), line, fill=CARD_INK, font=font)
    card.info["card"] = True
    return card


def trim(picture: Image.Image) -> Image.Image:
    """The picture without the plain margin of its top-left corner's colour (one cell
    of margin kept)."""
    background = Image.new(picture.mode, picture.size, picture.getpixel((0, 0)))
    box = ImageChops.difference(picture, background).getbbox()
    if box is None:
        return picture
    left, top, right, bottom = box
    pad = 8
    box = (max(left - pad, 0), max(top - pad, 0), min(right + pad, picture.width), min(bottom + pad, picture.height))
    return picture.crop(box)


def _thumbnail(picture: Image.Image) -> Image.Image:
    """Scaled to fit THUMBNAIL, never enlarged by more than 2× (pixel art stays sharp)."""
    width, height = picture.size
    scale = min(THUMBNAIL[0] / width, THUMBNAIL[1] / height, 2.0)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    resample = Image.NEAREST if scale >= 1 else Image.LANCZOS
    return picture.resize(size, resample)
