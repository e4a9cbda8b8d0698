"""Q*bert: the translator reads Q*bert (`player_column`, `player_x`, `player_y`), the
columns of the red and green enemies (`red_enemy_column`, `green_enemy_column`), the 21
cubes' colours (`tile_color_0` … `_20`), the lives and the score.

Measured on the emulator: Q*bert starts on the top cube; from there DOWN hops down to
the left and RIGHT down to the right, while UP (up-right) and LEFT (up-left) jump off
the pyramid and cost a life. Every cube of the first pyramid reads 148 until Q*bert lands
on it, which changes its colour byte (to 26 on the first level). The map does not say
which byte is which cube, so the translator counts the cubes of each colour code rather
than locating them.
"""

from collections import Counter

from envs.textatari.verbaliser import GameVerbaliser, Snapshot

CUBES = 21


class Qbert(GameVerbaliser):
    game = "qbert"
    title = "Q*bert"
    action_set = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN")
    synopsis = (
        "Q*bert hops from cube to cube on a pyramid of 21 cubes (six rows, one cube at the top), changing "
        "the colour of each cube he lands on, while enemies bounce down the pyramid. Columns are numbered "
        "as the game numbers them; positions are in screen units, x growing to the right."
    )
    goal = (
        "Changing a cube's colour scores points, and turning every cube to the target colour completes the "
        "round. Hopping off the pyramid or being caught by an enemy costs a life; the game ends when the "
        "lives are gone."
    )
    action_meanings = {
        "FIRE": "do nothing (the button has no use)",
        "UP": "hop up and to the right",
        "RIGHT": "hop down and to the right",
        "LEFT": "hop up and to the left",
        "DOWN": "hop down and to the left",
    }
    nouns = ("cube", "pyramid", "disc", "enemy", "ball", "snake")
    proper_names = ("Q*bert", "Coily")
    manual = (
        "Q*bert: change the colour of every cube of a pyramid by hopping on it.\n"
        "Controls: Q*bert hops diagonally, one cube at a time: UP goes up-right, RIGHT down-right, LEFT "
        "up-left and DOWN down-left. The button does nothing.\n"
        "Each cube Q*bert lands on changes to the target colour (on later levels a cube may need two "
        "visits, or may change back when visited again). When all 21 cubes show the target colour the "
        "round is complete and a bonus is scored.\n"
        "Dangers: red balls bounce down the pyramid; a purple ball hatches into Coily the snake, who chases "
        "Q*bert. Touching either, or hopping off the edge of the pyramid, costs a life. Green balls freeze "
        "the enemies for a while, and a green creature is worth points when caught.\n"
        "Spinning discs at the sides carry Q*bert back to the top; Coily, if close behind, falls off "
        "chasing him, for a bonus.\n"
        "Points: 25 for each colour change, more for catching green creatures or luring Coily off.\n"
        "Advice: work from the top down in rows, watch which columns the enemies are in, and keep a disc "
        "as an escape when Coily is near."
    )
    expert_horizon = 4
    expert_replan = 3
    expert_candidates = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN")

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        by_colour = Counter(ram.series("tile_color")).most_common()
        colours = ", ".join(f"{number} of colour {colour}" for colour, number in by_colour)
        return {
            "qbert": f"Q*bert is in column {ram['player_column']}, at x={ram['player_x']}, y={ram['player_y']}.",
            "enemies": f"The red enemy is in column {ram['red_enemy_column']}, the green one in column "
                       f"{ram['green_enemy_column']}.",
            "cubes": f"Cubes by colour code: {colours}.",
            "lives": self.lives_sentence(snapshot),
            "score": self.score_sentence(snapshot),
        }
