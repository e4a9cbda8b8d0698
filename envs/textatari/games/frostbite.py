"""Frostbite: the translator reads Frostbite Bailey (`player_x`, `player_y`), the four
rows of ice floes (`top_row_iceflow_x`, `second_…`, `third_…`, `fourth_row_iceflow_x`),
the creatures of each row (`enemy_x_0` … `_3`), the bear (`enemy_bear_x`), the igloo
(`igloo_blocks_count`), the lives and the score.

Measured on the emulator: x grows to the right, y grows downwards; Bailey stands on the
shore at y=27 and lands on the ice rows at y=53, 79, 105 and 131; the igloo counter reads
255 before the first block and then counts blocks from 0, so the blocks built are that
byte plus one; a row's creature byte is 0 when the row has none.
"""

from envs.textatari.verbaliser import GameVerbaliser, Snapshot

SHORE_Y = 27
ROW_YS = (53, 79, 105, 131)
ROWS = ("top", "second", "third", "fourth")
IGLOO_BLOCKS = 16


def standing_on(y: int) -> str:
    if y <= SHORE_Y:
        return "on the shore"
    for name, row_y in zip(ROWS, ROW_YS):
        if abs(y - row_y) <= 4:
            return f"on the {name} row of ice floes"
    return "in mid-jump"


class Frostbite(GameVerbaliser):
    game = "frostbite"
    title = "Frostbite"
    action_set = (
        "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT", "DOWNLEFT",
        "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
    )
    synopsis = (
        "You are Frostbite Bailey, building an igloo on the shore of an arctic sea by jumping across four rows "
        "of drifting ice floes; every floe you land on while it is white adds a block. Positions are in screen "
        "units: x grows to the right, y grows downwards (the shore is at y=27, the ice rows at y=53, 79, 105 "
        "and 131)."
    )
    goal = (
        "Each new block scores points; once the igloo is complete, walking into it ends the level with a "
        "bonus for the temperature left. Falling into the sea, being pushed off by a creature, or freezing "
        "when the temperature reaches zero costs a life; the game ends when the lives are gone."
    )
    action_meanings = {
        "FIRE": "reverse the direction of the ice floes you stand on (costs a block)",
        "UP": "jump up, toward the shore", "DOWN": "jump down, toward the sea",
        "RIGHT": "walk right", "LEFT": "walk left",
        "UPRIGHT": "jump up while walking right", "UPLEFT": "jump up while walking left",
        "DOWNRIGHT": "jump down while walking right", "DOWNLEFT": "jump down while walking left",
        "UPFIRE": "jump up (with the button)", "RIGHTFIRE": "walk right (with the button)",
        "LEFTFIRE": "walk left (with the button)", "DOWNFIRE": "jump down (with the button)",
        "UPRIGHTFIRE": "jump up and right (with the button)", "UPLEFTFIRE": "jump up and left (with the button)",
        "DOWNRIGHTFIRE": "jump down and right (with the button)", "DOWNLEFTFIRE": "jump down and left (with the button)",
    }
    nouns = ("bailey", "igloo", "block", "floe", "ice", "shore", "sea", "bear", "bird", "crab", "clam", "fish")
    proper_names = ("Frostbite Bailey",)
    manual = (
        "Frostbite: help Frostbite Bailey build an igloo before he freezes.\n"
        "Controls: UP and DOWN jump between the shore and the four rows of ice floes; LEFT and RIGHT walk. "
        "FIRE reverses the drift of the floes you stand on, at the cost of one igloo block.\n"
        "Building: each row of floes is white until Bailey lands on it, which adds a block to the igloo "
        "and turns the row blue; when all four rows are blue they turn white again. The igloo needs 16 "
        "blocks; when it is complete, go back to the shore and walk in to finish the level.\n"
        "Scoring: each block scores points; entering the igloo scores a bonus for every degree of "
        "temperature left. Catching fish gives extra points.\n"
        "Dangers: the temperature counts down from 45 degrees and Bailey freezes at zero. Missing a floe "
        "drops him into the sea. Birds, crabs and clams on the floes push him off; from later levels a "
        "polar bear walks the shore.\n"
        "Each of these costs a life; the game ends when all lives are lost.\n"
        "Advice: jump down row by row, then up row by row, timing each jump so that a floe is below you."
    )
    expert_candidates = ("NOOP", "UP", "RIGHT", "LEFT", "DOWN")
    expert_horizon = 3
    expert_replan = 3

    def describe(self, snapshot: Snapshot) -> dict[str, str]:
        ram = snapshot.ram
        floes = [ram[f"{name}_row_iceflow_x"] for name in ROWS]
        creatures = ram.series("enemy_x")
        rows = []
        for name, floe_x, creature_x in zip(ROWS, floes, creatures):
            extra = f", a creature at x={creature_x}" if creature_x else ""
            rows.append(f"{name} row floes at x={floe_x}{extra}")
        blocks = (ram["igloo_blocks_count"] + 1) % 256
        return {
            "bailey": f"Bailey is at x={ram['player_x']}, y={ram['player_y']}, {standing_on(ram['player_y'])}.",
            "igloo": f"Igloo: {blocks} of {IGLOO_BLOCKS} blocks built.",
            "rows": "Ice: " + "; ".join(rows) + ".",
            "bear": f"The bear is at x={ram['enemy_bear_x']}.",
            "lives": self.lives_sentence(snapshot),
            "score": self.score_sentence(snapshot),
        }

    def expert_value(self, snapshot: Snapshot) -> float:
        # Blocks are what the level is won with.
        return float((snapshot.ram["igloo_blocks_count"] + 1) % 256)
