"""The picture of a Baba Is AI state for the "rgb" format (BALROG §3.2: the image of the
current observation next to its description): 32 pixels a cell as in Baba Is AI, drawn
with simple shapes of our own — coloured shapes for objects, labelled tiles for rule
blocks — rather than the original sprites.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from envs.balrog.babaisai_engine import IS, PUSH, STOP, WIN, YOU, Level, Thing

TILE = 32
BACKGROUND = (18, 18, 24)
BORDER = (70, 70, 78)
PALETTE = {
    "red": (220, 50, 50),
    "green": (60, 190, 80),
    "blue": (60, 110, 230),
    "white": (245, 245, 245),
    "grey": (128, 128, 136),
}
# Rule blocks: nouns in pink, IS in white, each property on a tile of its own colour.
NOUN_TEXT = (230, 80, 170)
PROPERTY_TILES = {YOU: (230, 80, 170), WIN: (235, 200, 40), STOP: (200, 40, 40), PUSH: (150, 100, 50)}


def _font() -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=10)
    except (TypeError, OSError):
        # Pillow without FreeType has only its fixed bitmap font.
        return ImageFont.load_default()


FONT = _font()


def render(level: Level, state: tuple[int, ...]) -> Image.Image:
    image = Image.new("RGB", (level.width * TILE, level.height * TILE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for cell in level.border:
        x, y = level.xy(cell)
        draw.rectangle(_box(x, y, 1), fill=BORDER, outline=BACKGROUND)
    # Each cell's stack bottom first, so that the top thing (the one the game sees) is drawn last.
    for i in sorted(range(len(level.things)), key=lambda i: state[len(level.things) + i]):
        x, y = level.xy(state[i])
        thing = level.things[i]
        if thing.block:
            _draw_block(draw, thing, x, y)
        else:
            _draw_object(draw, thing, x, y)
    return image


def _box(x: int, y: int, inset: int) -> tuple[int, int, int, int]:
    return (x * TILE + inset, y * TILE + inset, (x + 1) * TILE - 1 - inset, (y + 1) * TILE - 1 - inset)


def _draw_block(draw: ImageDraw.ImageDraw, thing: Thing, x: int, y: int) -> None:
    box = _box(x, y, 2)
    tile = PROPERTY_TILES.get(thing.name)
    draw.rounded_rectangle(box, radius=4, fill=tile or (40, 40, 52))
    colour = BACKGROUND if tile else (245, 245, 245) if thing.name == IS else NOUN_TEXT
    centre = (x * TILE + TILE / 2, y * TILE + TILE / 2)
    draw.text(centre, thing.name.upper(), fill=colour, font=FONT, anchor="mm")


def _draw_object(draw: ImageDraw.ImageDraw, thing: Thing, x: int, y: int) -> None:
    colour = PALETTE.get(thing.colour, PALETTE["grey"])
    left, top = x * TILE, y * TILE
    if thing.name == "wall":
        draw.rectangle(_box(x, y, 3), fill=colour)
        draw.line((left + 3, top + TILE // 2, left + TILE - 4, top + TILE // 2), fill=BACKGROUND)
    elif thing.name == "ball":
        draw.ellipse(_box(x, y, 7), fill=colour)
    elif thing.name == "door":
        draw.rectangle(_box(x, y, 5), outline=colour, width=3)
        draw.ellipse((left + 20, top + 15, left + 23, top + 18), fill=colour)
    elif thing.name == "key":
        draw.ellipse((left + 6, top + 6, left + 17, top + 17), outline=colour, width=3)
        draw.line((left + 15, top + 15, left + 26, top + 26), fill=colour, width=3)
        draw.line((left + 21, top + 25, left + 24, top + 22), fill=colour, width=3)
    else:
        # Baba: a white creature with two eyes.
        draw.rounded_rectangle(_box(x, y, 6), radius=8, fill=colour)
        draw.ellipse((left + 11, top + 12, left + 14, top + 15), fill=BACKGROUND)
        draw.ellipse((left + 18, top + 12, left + 21, top + 15), fill=BACKGROUND)
