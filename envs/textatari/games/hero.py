"""H.E.R.O.: the translator reads Roderick Hero (`player_x`, `player_y`), the power
meter (`power_meter`), the sticks of dynamite (`dynamite_count`), the level and room
(`level_number`, `room_number`), the lives and the score.

Measured on the emulator: x grows to the right; y grows upward — the hero enters the
first shaft at y=139, UP (the helicopter pack) raises y and he comes to rest on the
floor at y=60; the power meter fills to about 80 at the start of a life and drains as
time passes; dynamite starts at 6 and DOWN, on the floor, lays a stick.
"""

from envs.textatari.verbaliser import GameVerbaliser, Snapshot


class Hero(GameVerbaliser):
    game = "hero"
    title = "H.E.R.O."
    action_set = (
        "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
        "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
    )
    synopsis = (
        "You are Roderick Hero, flying down a mine shaft with a helicopter backpack to rescue trapped miners, "
        "room by room, blasting walls with dynamite and shooting creatures with a helmet laser. Positions are "
        "in screen units: x grows to the right, y grows upward (you enter at y=139 and stand on the floor of "
        "the first room at y=60)."
    )
    goal = (
        "Rescuing the miner at the bottom of a level scores a bonus for the power and dynamite left; "
        "creatures shot and walls blown up score too. Touching a creature, lava or your own blast, or "
        "running out of power, costs a life; the game ends when the lives are gone."
    )
    action_meanings = {
        "FIRE": "fire the helmet laser",
        "UP": "fly up",
        "DOWN": "go down (standing on the floor: lay a stick of dynamite)",
        "RIGHT": "move right", "LEFT": "move left",
        "UPRIGHT": "fly up and right", "UPLEFT": "fly up and left",
        "DOWNRIGHT": "go down and right", "DOWNLEFT": "go down and left",
        "UPFIRE": "fly up firing", "RIGHTFIRE": "move right firing", "LEFTFIRE": "move left firing",
        "DOWNFIRE": "go down firing", "UPRIGHTFIRE": "fly up and right firing",
        "UPLEFTFIRE": "fly up and left firing", "DOWNRIGHTFIRE": "go down and right firing",
        "DOWNLEFTFIRE": "go down and left firing",
    }
    nouns = ("hero", "miner", "shaft", "dynamite", "stick", "wall", "laser", "lava", "creature", "lantern")
    proper_names = ("Roderick Hero", "Roderick")
    manual = (
        "H.E.R.O.: descend through a mine to rescue the miners trapped at the bottom of each level.\n"
        "Controls: UP spins the helicopter backpack and lifts you; let go to sink. LEFT and RIGHT move you "
        "sideways. FIRE shoots a short laser beam ahead from your helmet. DOWN, while you stand on the "
        "floor, sets a stick of dynamite; step away before it explodes.\n"
        "Walls that block a passage can be blown up with dynamite or, slowly, burnt through with the laser. "
        "Spiders, bats, snakes and moths kill on touch; shoot them. Lava walls and the blast of your own "
        "dynamite kill too. Knocking out a lantern darkens the room.\n"
        "The power meter drains steadily; when it is empty you lose a life. You carry six sticks of "
        "dynamite per life.\n"
        "Scoring: points for each creature shot and wall destroyed; reaching the miner ends the level with "
        "a bonus for the power and dynamite left.\n"
        "The game ends when all lives are lost.\n"
        "Advice: go down as directly as you can, shoot creatures before you reach them, and use dynamite "
        "for walls to save power."
    )
    expert_candidates = ("FIRE", "UP", "RIGHTFIRE", "LEFTFIRE", "DOWN", "UPRIGHTFIRE")
    expert_horizon = 4
    expert_replan = 3

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        return {
            "hero": f"You are at x={ram['player_x']}, y={ram['player_y']}, in room {ram['room_number']} of "
                    f"level {ram['level_number'] + 1}.",
            "power": f"Power meter: {ram['power_meter']}.",
            "dynamite": f"Dynamite left: {ram['dynamite_count']}.",
            "lives": self.lives_sentence(snapshot),
            "score": self.score_sentence(snapshot),
        }

    def expert_value(self, snapshot: Snapshot) -> float:
        # Going deeper — to later rooms, and lower in a room (y grows upward) — is what
        # leads to the miner.
        ram = snapshot.ram
        return ram["level_number"] * 100.0 + ram["room_number"] * 10.0 - ram["player_y"] / 100.0
