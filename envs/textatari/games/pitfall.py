"""Pitfall!: the translator reads Pitfall Harry (`player_x`, `player_y`), the rolling
logs (`enemy_logs_x`), the scorpion underground (`enemy_scorpion_x`), the swinging vine
(`bottom_of_rope_y`), the clock (`clock_min`, `clock_sec`, decimal digits), the lives
and the score.

Measured on the emulator: x grows to the right and walking off either edge enters the
next scene (x wraps from about 8 to 145); y grows downwards: Harry walks the jungle
floor at y=32, a jump takes him up to y≈23, and the tunnel below lies at larger y; the
clock starts at 20:00 and counts down.
"""

from envs.textatari.verbaliser import GameVerbaliser, Snapshot

GROUND_Y = 32


def bcd(value: int) -> int:
    return (value >> 4) * 10 + (value & 0x0F)


class Pitfall(GameVerbaliser):
    game = "pitfall"
    title = "Pitfall!"
    action_set = (
        "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
        "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
    )
    synopsis = (
        "You are Pitfall Harry, running through a jungle of 255 scenes to find 32 treasures, jumping over "
        "logs, pits, crocodiles and tar pits, swinging on vines, or taking the tunnel below. Positions are "
        "in screen units: x grows to the right (leaving an edge enters the next scene), y grows downwards "
        "(the jungle floor is at y=32, the tunnel below it)."
    )
    goal = (
        "Treasures score points; touching a rolling log costs points. Falling into a pit, water or tar, or "
        "touching a crocodile, scorpion or fire, costs a life; the game ends when the lives are gone or the "
        "20-minute clock runs out."
    )
    action_meanings = {
        "FIRE": "jump", "UP": "climb up a ladder", "DOWN": "climb down a ladder",
        "RIGHT": "run right", "LEFT": "run left",
        "UPRIGHT": "run right (or climb up)", "UPLEFT": "run left (or climb up)",
        "DOWNRIGHT": "run right (or let go of a vine)", "DOWNLEFT": "run left (or let go of a vine)",
        "UPFIRE": "jump", "RIGHTFIRE": "jump to the right", "LEFTFIRE": "jump to the left", "DOWNFIRE": "jump",
        "UPRIGHTFIRE": "jump to the right", "UPLEFTFIRE": "jump to the left",
        "DOWNRIGHTFIRE": "jump to the right", "DOWNLEFTFIRE": "jump to the left",
    }
    nouns = ("harry", "log", "pit", "vine", "rope", "tunnel", "ladder", "scorpion", "crocodile", "treasure",
             "jungle", "tar", "swamp", "scene", "wall")
    proper_names = ("Pitfall Harry",)
    manual = (
        "Pitfall!: find the treasures hidden in a jungle before time runs out.\n"
        "Controls: LEFT and RIGHT run; FIRE jumps, and a running jump carries Harry forward. UP and DOWN "
        "climb ladders between the jungle floor and the tunnel below. Jump to catch a swinging vine and "
        "push DOWN to let go of it.\n"
        "The jungle is a row of scenes; running off a side of the screen enters the neighbouring scene. "
        "Each tunnel step below the ground crosses three scenes above, so the tunnel is a shortcut, but "
        "brick walls block parts of it.\n"
        "Dangers: open pits, water and tar pits (some open and close), crocodiles whose jaws open and "
        "shut, rolling logs, fires, rattlesnakes and, in the tunnel, scorpions. Touching a log only costs "
        "points; the others cost a life.\n"
        "Scoring: you start with 2,000 points; each of the 32 treasures (money bags, silver and gold bars, "
        "diamond rings) adds points.\n"
        "The game ends when Harry's lives are gone or after 20 minutes.\n"
        "Advice: jump over logs rather than run into them, time vine swings so that you land on solid "
        "ground, and use the tunnel to travel fast."
    )
    expert_candidates = ("NOOP", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE", "DOWN")

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        y = ram["player_y"]
        level = "on the jungle floor" if y == GROUND_Y else ("in the air" if y < GROUND_Y else "below the jungle floor")
        return {
            "harry": f"Harry is at x={ram['player_x']}, y={y}, {level}.",
            "hazards": f"A rolling log is at x={ram['enemy_logs_x']}; the tunnel's scorpion is at "
                       f"x={ram['enemy_scorpion_x']}; the vine's lower end is at y={ram['bottom_of_rope_y']}.",
            "clock": f"Time left: {bcd(ram['clock_min'])} min {bcd(ram['clock_sec'])} s.",
            "lives": self.lives_sentence(snapshot),
            "score": f"Points gained or lost since the start: {snapshot.score:g}.",
        }
