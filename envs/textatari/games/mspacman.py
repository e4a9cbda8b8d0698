"""Ms. Pac-Man: the translator reads Ms. Pac-Man (`player_x`, `player_y`,
`player_direction`), the four ghosts (`enemy_blinky_x`/`_y`, `enemy_pinky_…`,
`enemy_inky_…`, `enemy_sue_…`), the fruit (`fruit_x`, `fruit_y`), the dots eaten
(`dots_eaten_count`), the lives and the score.

Measured on the emulator: x grows to the right, y grows downwards; Ms. Pac-Man starts
at x=88, y=98 and the ghosts wait in their pen around x=88, y=80; directions 0, 1, 2,
3 are up, right, down, left; the fruit reads x=0 when there is none. The maze's walls
are not in the map, so they are not told.
"""

from envs.textatari.games.phrases import at, relative
from envs.textatari.verbaliser import GameVerbaliser, Snapshot

GHOSTS = (("blinky", "Blinky (red)"), ("pinky", "Pinky (pink)"), ("inky", "Inky (cyan)"), ("sue", "Sue (orange)"))
DIRECTIONS = {0: "up", 1: "right", 2: "down", 3: "left"}


class MsPacman(GameVerbaliser):
    game = "mspacman"
    title = "Ms. Pac-Man"
    action_set = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT")
    synopsis = (
        "You guide Ms. Pac-Man through a maze, eating the dots along its corridors while four ghosts chase "
        "her. Positions are in screen units: x grows to the right, y grows downwards; she starts at x=88, "
        "y=98, and the ghosts' pen is around x=88, y=80. The maze's walls are not described."
    )
    goal = (
        "Dots, power pellets, fruit and frightened ghosts score points; eating every dot clears the maze. A "
        "ghost that catches Ms. Pac-Man costs a life, and the game ends when the lives are gone."
    )
    action_meanings = {
        "NOOP": "keep going the way she is heading",
        "UP": "turn up", "RIGHT": "turn right", "LEFT": "turn left", "DOWN": "turn down",
        "UPRIGHT": "turn up or right, whichever opens first", "UPLEFT": "turn up or left, whichever opens first",
        "DOWNRIGHT": "turn down or right, whichever opens first",
        "DOWNLEFT": "turn down or left, whichever opens first",
    }
    nouns = ("ghost", "dot", "pellet", "fruit", "maze", "pen", "tunnel", "corridor")
    proper_names = ("Ms. Pac-Man", "Pac-Man", "Blinky", "Pinky", "Inky", "Sue")
    manual = (
        "Ms. Pac-Man: eat every dot in the maze while four ghosts hunt you.\n"
        "Controls: the joystick turns Ms. Pac-Man into the next corridor in that direction; she keeps "
        "moving until a wall stops her. A diagonal takes whichever of its two turns comes first.\n"
        "Scoring: each dot 10 points; each of the four power pellets near the corners 50 points. After a "
        "power pellet the ghosts turn blue for a short time and flee; eating them then scores 200, 400, "
        "800 and 1,600 for the first to the fourth. Fruit that drifts through the maze is worth a bonus "
        "when eaten.\n"
        "Tunnels at the sides of the maze lead across to the opposite side, and ghosts slow down inside "
        "them.\n"
        "A ghost that touches Ms. Pac-Man when it is not blue costs a life; the game ends when the last "
        "life is lost. Eating all the dots leads to the next maze.\n"
        "Advice: clear one region at a time, keep an escape route away from the nearest ghost, and save "
        "the power pellets for when ghosts are close so that you can eat them."
    )
    expert_horizon = 2
    expert_candidates = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN")

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        x, y = ram["player_x"], ram["player_y"]
        heading = DIRECTIONS.get(ram["player_direction"], "nowhere")
        sentences = {"you": f"Ms. Pac-Man is {at(x, y)}, heading {heading}."}
        ghosts = []
        for key, name in GHOSTS:
            gx, gy = ram[f"enemy_{key}_x"], ram[f"enemy_{key}_y"]
            ghosts.append((abs(gx - x) + abs(gy - y), f"{name} {at(gx, gy)}, {relative(gx - x, gy - y)}"))
        ghosts.sort(key=lambda pair: pair[0])
        sentences["ghosts"] = "Ghosts, nearest first: " + "; ".join(text for _, text in ghosts) + "."
        if ram["fruit_x"]:
            sentences["fruit"] = f"A fruit is {at(ram['fruit_x'], ram['fruit_y'])}."
        sentences["dots"] = f"Dots eaten in this maze: {ram['dots_eaten_count']}."
        sentences["lives"] = self.lives_sentence(snapshot)
        sentences["score"] = self.score_sentence(snapshot)
        return sentences

    def expert_value(self, snapshot: Snapshot) -> float:
        # Lives and points decide; otherwise keep away from the nearest ghost.
        ram = snapshot.ram
        x, y = ram["player_x"], ram["player_y"]
        nearest = min(abs(ram[f"enemy_{key}_x"] - x) + abs(ram[f"enemy_{key}_y"] - y) for key, _ in GHOSTS)
        return min(nearest, 60) / 100.0
