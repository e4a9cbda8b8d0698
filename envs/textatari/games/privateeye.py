"""Private Eye: the translator reads Pierre Touché (`player_x`, `player_y`,
`player_direction`), the street block (`room_number`), the clock (`clock_0` minutes,
`clock_1` seconds in decimal digits), the dove (`dove_x`, `dove_y`) and the score.

Measured on the emulator: x grows to the right and driving off an edge enters the next
block (left of block 0 is block 31); y grows upward: the car runs at y≈19–20 and a jump
lifts it to about 38; direction 49 faces right and 121 left; the clock starts at 3:00
and counts down.
"""

from envs.textatari.verbaliser import GameVerbaliser, Snapshot

FACING = {49: "right", 121: "left"}


def bcd(value: int) -> int:
    return (value >> 4) * 10 + (value & 0x0F)


class PrivateEye(GameVerbaliser):
    game = "privateeye"
    title = "Private Eye"
    action_set = (
        "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
        "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
    )
    synopsis = (
        "You are the detective Pierre Touché, driving a Model A through the city's streets to find clues and "
        "stolen goods and return them to where they belong, within a time limit. Positions are in screen "
        "units: x grows to the right (driving off an edge enters the next block), y grows upward (a jump "
        "lifts the car)."
    )
    goal = (
        "Finding clues and goods and returning them scores points; thugs who knock you out of the car and "
        "hazards on the road cost points. The game ends when the clock runs out."
    )
    action_meanings = {
        "FIRE": "jump", "RIGHT": "drive right", "LEFT": "drive left",
        "UP": "push up (the car rolls on; no jump)", "DOWN": "push down (the car rolls on)",
        "UPRIGHT": "drive right", "UPLEFT": "drive left",
        "DOWNRIGHT": "drive right", "DOWNLEFT": "drive left",
        "UPFIRE": "jump", "RIGHTFIRE": "jump while driving right", "LEFTFIRE": "jump while driving left",
        "DOWNFIRE": "jump", "UPRIGHTFIRE": "jump while driving right", "UPLEFTFIRE": "jump while driving left",
        "DOWNRIGHTFIRE": "jump while driving right", "DOWNLEFTFIRE": "jump while driving left",
    }
    nouns = ("detective", "car", "clue", "thug", "dove", "block", "street", "window", "building", "pothole")
    proper_names = ("Pierre Touché", "Pierre", "Touché")
    manual = (
        "Private Eye: solve a case in a city of streets and buildings before time runs out.\n"
        "Controls: LEFT and RIGHT drive the car; FIRE makes it jump, over potholes and obstacles, and to "
        "reach clues that pop up in windows.\n"
        "The case: find the clue and the stolen item, then bring the item back to where it belongs; the "
        "city is a loop of blocks, and the direction signs point the way.\n"
        "Hazards: flower pots thrown from windows, birds, potholes and thugs who knock the detective out of "
        "his car. They cost points and time.\n"
        "Scoring: points for each clue and item found and for returning the item; penalties for hits.\n"
        "The game ends when the case's clock, 3 minutes in the first case, runs out.\n"
        "Advice: keep driving and jump to grab anything that appears in a window; avoid the thugs by jumping "
        "over them."
    )
    expert_candidates = ("FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE")
    expert_horizon = 2

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        facing = FACING.get(ram["player_direction"], "ahead")
        return {
            "car": f"You are in block {ram['room_number']}, at x={ram['player_x']}, y={ram['player_y']}, facing {facing}.",
            "clock": f"Time left: {bcd(ram['clock_0'])} min {bcd(ram['clock_1'])} s.",
            "dove": f"The dove is at x={ram['dove_x']}, y={ram['dove_y']}.",
            "score": self.score_sentence(snapshot),
        }
