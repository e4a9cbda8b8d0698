"""TextAtari's games (TextAtari §2.1), one task each: the spec table the registry reads
(envs.spec). Every row plays envs.textatari.tasks.TextAtariTask with the row's game's
verbaliser (envs.textatari.games); the title is the game's name as the verbaliser
tells it. 1,000 steps by default (§3.1: to save cost); a run may play 100, 10,000 or
100,000 (§1: up to 100,000)."""

from envs.spec import TaskSpec

STEP_LIMITS = (1000, 100, 10000, 100000)

# In the order of the suite's pages: alphabetical, as TextAtari's tables list them.
_GAMES = (
    ("asteroids", "Asteroids"), ("battlezone", "Battle Zone"), ("berzerk", "Berzerk"), ("bowling", "Bowling"),
    ("boxing", "Boxing"), ("breakout", "Breakout"), ("demonattack", "Demon Attack"), ("freeway", "Freeway"),
    ("frostbite", "Frostbite"), ("hero", "H.E.R.O."), ("montezumarevenge", "Montezuma's Revenge"),
    ("mspacman", "Ms. Pac-Man"), ("pitfall", "Pitfall!"), ("pong", "Pong"), ("privateeye", "Private Eye"),
    ("qbert", "Q*bert"), ("riverraid", "River Raid"), ("seaquest", "Seaquest"), ("skiing", "Skiing"),
    ("spaceinvaders", "Space Invaders"), ("tennis", "Tennis"), ("venture", "Venture"),
    ("videopinball", "Video Pinball"),
)

TASKS = tuple(
    TaskSpec(
        id=f"textatari/{game}", entry_point="envs.textatari.tasks:TextAtariTask", title=title,
        max_steps=STEP_LIMITS[0], formats=("text",), settings={"max_steps": STEP_LIMITS}, game={"game": game},
    )
    for game, title in _GAMES
)
