"""Berzerk: the translator reads the humanoid (`player_x`, `player_y`), the robots
(`enemy_robots_x_0` … `_7`, `enemy_robots_y_0` … `_8`), Evil Otto (`enemy_evilOtto_x`,
`enemy_evilOtto_y`), the shots (`player_missile_x`/`_y`, `robot_missile_x`/`_y`), the
maze level (`game_level`), the lives and the score.

Measured on the emulator: x grows to the right, y grows downwards (the humanoid starts
at x=6, y=74, at the left door); a robot slot whose y reads 127 or whose x reads 0 is
empty; Otto and the shots read x=0 when absent. Robots are paired x_k with y_k.
"""

from envs.textatari.games.phrases import at, relative
from envs.textatari.verbaliser import GameVerbaliser, Snapshot

EMPTY_ROBOT_Y = 127
ROBOT_SLOTS = 8


class Berzerk(GameVerbaliser):
    game = "berzerk"
    title = "Berzerk"
    action_set = (
        "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
        "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
    )
    synopsis = (
        "You are a humanoid in a maze of electrified walls full of robots that shoot at you; shoot them and "
        "escape through an exit before Evil Otto, a bouncing face that cannot be killed, arrives. Positions "
        "are in screen units: x grows to the right, y grows downwards. The maze's walls are not described."
    )
    goal = (
        "Each robot you destroy scores points, and clearing a room scores a bonus. Touching a wall, a robot, "
        "a shot or Otto costs a life; the game ends when the lives are gone."
    )
    action_meanings = {
        "FIRE": "shoot the way you face",
        "UPFIRE": "shoot up", "RIGHTFIRE": "shoot right", "LEFTFIRE": "shoot left", "DOWNFIRE": "shoot down",
        "UPRIGHTFIRE": "shoot up and right", "UPLEFTFIRE": "shoot up and left",
        "DOWNRIGHTFIRE": "shoot down and right", "DOWNLEFTFIRE": "shoot down and left",
    }
    nouns = ("humanoid", "robot", "maze", "wall", "otto", "exit", "room", "shot")
    proper_names = ("Evil Otto",)
    manual = (
        "Berzerk: survive a maze of rooms guarded by robots.\n"
        "Controls: the joystick walks the humanoid in eight directions. Holding the button and pushing the "
        "joystick fires in that direction instead of walking; the humanoid stands still while it shoots.\n"
        "Robots: they walk toward you and fire back; later rooms hold robots that shoot faster and more "
        "often. A robot dies when shot, when it walks into a wall, or when it collides with another robot. "
        "Each robot destroyed scores points; destroying every robot in a room scores a bonus.\n"
        "Walls are electrified: touching one kills you. Leave a room through one of its open exits to "
        "enter the next; the exit you came in by closes behind you.\n"
        "Evil Otto appears if you stay in a room too long. He bounces toward you through walls and cannot "
        "be destroyed, so do not linger.\n"
        "You lose a life by touching a wall, a robot, a robot's shot or Otto; the game ends when all lives "
        "are lost.\n"
        "Advice: shoot robots from a distance along straight lines, then leave by the nearest exit."
    )
    expert_candidates = ("UP", "RIGHT", "LEFT", "DOWN", "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE")
    expert_horizon = 2
    expert_replan = 3

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        x, y = ram["player_x"], ram["player_y"]
        robots = []
        for slot in range(ROBOT_SLOTS):
            rx, ry = ram[f"enemy_robots_x_{slot}"], ram[f"enemy_robots_y_{slot}"]
            if rx and ry != EMPTY_ROBOT_Y:
                robots.append((abs(rx - x) + abs(ry - y), f"{at(rx, ry)} ({relative(rx - x, ry - y)})"))
        robots.sort(key=lambda pair: pair[0])
        sentences = {
            "you": f"You are {at(x, y)}, in maze room number {ram['game_level']}.",
            "robots": (f"Robots, nearest first: " + "; ".join(text for _, text in robots) + ".")
                      if robots else "No robots are left in this room.",
        }
        if ram["enemy_evilOtto_x"]:
            ox, oy = ram["enemy_evilOtto_x"], ram["enemy_evilOtto_y"]
            sentences["otto"] = f"Evil Otto is {at(ox, oy)}, {relative(ox - x, oy - y)}."
        if ram["robot_missile_x"]:
            sentences["robot shot"] = f"A robot's shot is {at(ram['robot_missile_x'], ram['robot_missile_y'])}."
        sentences["lives"] = self.lives_sentence(snapshot)
        sentences["score"] = self.score_sentence(snapshot)
        return sentences
