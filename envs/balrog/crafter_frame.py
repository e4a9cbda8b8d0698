"""Crafter's frame, pixel for pixel the one crafter 1.8.3 draws, in fewer Python steps.

Every step of a Crafter episode draws the frame (the observation of an image run, the
replay's picture of a text run, and at night the draw of random numbers the game
depends on). crafter's local view looks up each of its 63 cells through the world's
accessors and loops over every creature of the 64×64 world to find the few in view;
with the lighting's numpy passes that was most of a step's CPU. Here the cells' materials
come from one slice of the world's material map, the creatures in view from one slice of
its object map (a cell holds one object at most, so the order they are drawn in cannot
matter), and the light is blended with the same operations in the same order on fewer
temporary arrays. The night's noise, the colour filter and the blending of a creature
into its cell are crafter's own functions, unchanged.

`tests/envs/balrog/test_crafter_frame.py` compares every frame with crafter's own
drawing through days, nights and sleep.
"""

from __future__ import annotations

import numpy as np
from crafter import engine
from PIL import Image, ImageEnhance

OUTSIDE = 127  # the grey crafter leaves in a cell beyond the edge of the world


class LocalView(engine.LocalView):
    """crafter's LocalView, drawn from slices of the world's maps."""

    def __call__(self, player, unit):
        self._unit = np.array(unit)
        self._center = np.array(player.pos)
        world = self._world
        width, height = (int(cells) for cells in self._grid)
        unit_x, unit_y = int(unit[0]), int(unit[1])
        left, top = (int(value) for value in self._center - self._offset)
        # The part of the view inside the world, in world and in view coordinates.
        x0, y0 = max(left, 0), max(top, 0)
        x1, y1 = min(left + width, int(self._area[0])), min(top + height, int(self._area[1]))
        canvas = np.full((width * unit_x, height * unit_y, 3), OUTSIDE, np.uint8)
        materials = world._mat_map[x0:x1, y0:y1]
        for material in np.unique(materials).tolist():
            texture = self._textures.get(world._mat_names[material], unit)[..., :3]
            for x, y in zip(*np.nonzero(materials == material)):
                cell_x, cell_y = (x + x0 - left) * unit_x, (y + y0 - top) * unit_y
                canvas[cell_x: cell_x + unit_x, cell_y: cell_y + unit_y] = texture
        occupied = world._obj_map[x0:x1, y0:y1]
        for x, y in zip(*np.nonzero(occupied)):
            creature = world._objects[occupied[x, y]]
            texture = self._textures.get(creature.texture, unit)
            engine._draw_alpha(canvas, np.array([x + x0 - left, y + y0 - top]) * unit, texture)
        canvas = self._light(canvas, world.daylight)
        if player.sleeping:
            canvas = self._sleep(canvas)
        return canvas

    def _light(self, canvas, daylight):
        night = canvas
        if daylight < 0.5:
            night = self._noise(night, 2 * (0.5 - daylight), 0.5)
        night = np.array(ImageEnhance.Color(Image.fromarray(night.astype(np.uint8))).enhance(0.4))
        night = self._tint(night, (0, 16, 64), 0.5)
        # daylight * canvas + (1 - daylight) * night, on two arrays instead of four.
        lit = daylight * canvas
        night *= 1 - daylight
        lit += night
        return lit

    def _tint(self, canvas, color, amount):
        # (1 - amount) * canvas + amount * color, on one array instead of three.
        tinted = (1 - amount) * canvas
        tinted += amount * np.array(color)
        return tinted


def draw(env) -> np.ndarray:
    """crafter.Env.render() at the Env's own size: the local view above the inventory,
    centred on a black canvas, rows first."""
    size = env._size
    unit = size // env._view
    canvas = np.zeros(tuple(size) + (3,), np.uint8)
    local_view = env._local_view(env._player, unit)
    item_view = env._item_view(env._player.inventory, unit)
    border = (size - unit * env._view) // 2
    x, y = int(border[0]), int(border[1])
    width, local_height = local_view.shape[:2]
    # Written part by part: crafter joins them first, which turns the inventory's bytes
    # into floats and back, unchanged.
    canvas[x: x + width, y: y + local_height] = local_view
    canvas[x: x + width, y + local_height: y + local_height + item_view.shape[1]] = item_view
    return canvas.transpose((1, 0, 2))
