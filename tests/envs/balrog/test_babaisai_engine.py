"""The Baba Is AI rules engine (BALROG App. D): pushing, stopping, making and breaking
rules, winning, several YOUs, stacks of things on a cell. The package's own episodes
replay through it in `test_reference_babaisai.py`; these cases name the mechanics. Levels are drawn as maps of their inside (the border is
added around them):

    .  empty     @ baba   b ball   k key   d door   w wall
    B BABA   L BALL   K KEY   D DOOR   W WALL   = IS   Y YOU   ! WIN   S STOP   P PUSH
"""

from envs.balrog.babaisai_engine import Level, Rule, block, obj

OBJECTS = {"@": "baba", "b": "ball", "k": "key", "d": "door", "w": "wall"}
WORDS = {"B": "baba", "L": "ball", "K": "key", "D": "door", "W": "wall", "=": "is", "Y": "you", "!": "win",
         "S": "stop", "P": "push"}


def level_from(*rows: str) -> Level:
    placed = []
    for y, row in enumerate(rows, start=1):
        for x, char in enumerate(row, start=1):
            if char in OBJECTS:
                placed.append((obj(OBJECTS[char]), (x, y)))
            elif char in WORDS:
                placed.append((block(WORDS[char]), (x, y)))
            elif char != ".":
                raise ValueError(f"unknown map character {char!r}")
    return Level(len(rows[0]) + 2, len(rows) + 2, placed)


def picture(level: Level, state) -> list[str]:
    """The inside of the map again, one character per cell: the top thing of the cell."""
    chars = {("baba", False): "@", **{(name, False): c for c, name in OBJECTS.items()},
             **{(name, True): c for c, name in WORDS.items()}}
    grid = [["."] * (level.width - 2) for _ in range(level.height - 2)]
    for cell, i in level.tops(state):
        x, y = level.xy(cell)
        thing = level.things[i]
        grid[y - 1][x - 1] = chars[(thing.name, thing.block)]
    return ["".join(row) for row in grid]


def play(level: Level, *moves: str):
    state = level.start
    for move in moves:
        state = level.step(state, move)
    return state


def test_it_pushes_a_chain_of_rule_blocks_and_push_objects_ahead_of_you():
    level = level_from(
        "@KbL..",
        "......",
        "L=P...",
        "B=Y...",
    )
    assert picture(level, play(level, "right")) == [".@KbL.", "......", "L=P...", "B=Y..."]
    assert picture(level, play(level, "right", "right")) == ["..@KbL", "......", "L=P...", "B=Y..."]
    # A chain of blocks alone would stop at the border; but the ball, PUSH and not STOP,
    # cannot move and so is stepped onto: KEY lands on top of it and baba follows
    # (baba-is-ai pushes what it can, then moves onto anything that is not STOP).
    third = play(level, "right", "right", "right")
    assert picture(level, third) == ["...@KL", "......", "L=P...", "B=Y..."]
    ball, key_block = level.things.index(obj("ball")), level.things.index(block("key"))
    assert third[ball] == third[key_block] and level.stacks(third)[third[ball]] == [ball, key_block]


def test_a_stop_object_blocks_you_and_any_chain_pushed_into_it_but_not_once_the_rule_is_broken():
    level = level_from(
        "@K.w..",
        ".....w",
        "W=S...",
        "......",
        "B=Y...",
    )
    assert picture(level, play(level, "right", "right")) == [".@Kw..", ".....w", "W=S...", "......", "B=Y..."]
    # Walk round and push STOP down out of WALL IS STOP: walls no longer stop anything.
    breaking = ("down", "right", "right", "down")
    state = play(level, *breaking)
    assert level.rules(level.start) == (Rule("wall", "stop"), Rule("baba", "you"))
    assert level.rules(state) == (Rule("baba", "you"),) and picture(level, state)[3] == "..S..."
    state = play(level, *breaking, "up", "left", "left", "up", "right", "right", "right", "right")
    assert picture(level, state)[0] == "...w@K"


def test_you_walk_over_objects_that_are_neither_stop_nor_push_and_lie_on_top_of_them():
    level = level_from("@b.", "...", "B=Y")
    state = play(level, "right")
    ball = level.things.index(obj("ball"))
    assert state[0] == state[ball] == level.cell(2, 1) and level.stacks(state)[state[0]] == [ball, 0]
    assert picture(level, state)[0] == ".@." and not level.is_won(state)
    assert picture(level, play(level, "right", "right"))[0] == ".b@"


def test_a_rule_is_read_left_to_right_and_top_to_bottom_only():
    level = level_from(
        "B....K!",
        "=....==",
        "Y....!K",
        ".......",
        "!=K.Y=B",
        ".@..b..",
    )
    assert level.rules(level.start) == (Rule("baba", "you"), Rule("key", "win"))


def test_pushing_a_block_into_a_row_makes_a_rule_and_pushing_one_out_breaks_it():
    level = level_from(
        "B=Y.....",
        "........",
        "L=..!...",
        ".....@..",
        "........",
    )
    assert level.rules(level.start) == (Rule("baba", "you"),)
    made = ("up", "left", "left")
    assert level.rules(play(level, *made)) == (Rule("baba", "you"), Rule("ball", "win"))
    broken = play(level, *made, "up", "left", "left", "down")
    assert picture(level, broken)[2:4] == ["L@!.....", ".=......"]
    assert level.rules(broken) == (Rule("baba", "you"),)


def test_pushing_a_block_into_a_column_makes_a_rule_and_pushing_one_out_breaks_it():
    level = level_from(
        "B=Y..",
        ".....",
        "..K..",
        "..=..",
        "...!@",
    )
    made = play(level, "left")
    assert picture(level, made)[4] == "..!@." and Rule("key", "win") in level.rules(made)
    broken = play(level, "left", "up", "left")
    assert picture(level, broken)[3] == ".=@.."
    assert level.rules(broken) == (Rule("baba", "you"),)


def test_an_object_both_you_and_win_wins_only_by_a_move_that_leaves_it_in_place():
    level = level_from(
        "B=Y",
        "=..",
        ".!@",
    )
    # The move that makes BABA IS WIN does not win: the win is judged under the rules
    # from before the move, on the cell the move ends on.
    made, won = level.move(level.start, "left")
    assert level.rules(made) == (Rule("baba", "you"), Rule("baba", "win")) and not won
    assert level.move(made, "up") == (play(level, "left", "up"), False)  # onto an empty cell
    assert level.move(made, "down")[1]  # against the border: baba stays on its own cell


def test_every_object_that_is_you_moves_together_and_each_is_blocked_on_its_own():
    level = level_from(
        "@..w.",
        "k....",
        "B=Y..",
        "K=Y..",
        "W=S..",
    )
    baba, key = level.things.index(obj("baba")), level.things.index(obj("key"))
    state = play(level, "right", "right")
    assert [level.xy(state[baba]), level.xy(state[key])] == [(3, 1), (3, 2)]
    assert level.you(state) == [baba, key]
    state = play(level, "right", "right", "right", "right")
    assert [level.xy(state[baba]), level.xy(state[key])] == [(3, 1), (5, 2)]


def test_reaching_a_win_object_wins_and_a_noun_is_noun_line_makes_no_rule():
    level = level_from("@.b", "B=Y", "L=!", "K=L")
    assert level.rules(level.start) == (Rule("baba", "you"), Rule("ball", "win"))
    assert not level.is_won(play(level, "right")) and level.is_won(play(level, "right", "right"))
    assert level.move(play(level, "right"), "right")[1] and not level.move(level.start, "right")[1]
