"""BALROG's tasks (BALROG §3, App. A–F): the spec table the registry reads (envs.spec).

The step limits are BALROG's released configuration (per environment's
max_episode_steps; BabyAI's are minigrid's per level). Crafter and NetHack may be
played shorter: a run picks another limit with the `max_steps` setting, the first
value being BALROG's.
"""

from envs.spec import TaskSpec

CRAFTER_STEP_LIMITS = (2000, 1000, 500, 100)
NETHACK_STEP_LIMITS = (100_000, 10_000, 1_000, 100)
TEXTWORLD_STEP_LIMIT = 80
MINIHACK_STEP_LIMIT = 100
BABAISAI_STEP_LIMIT = 100
_TEXT_AND_IMAGE = ("text", "rgb")


def _babyai(name: str, kind: str, title: str, max_steps: int) -> TaskSpec:
    return TaskSpec(
        id=f"balrog/babyai-{name}", entry_point="envs.balrog.babyai:BabyAITask", title=f"BabyAI: {title}",
        max_steps=max_steps, formats=_TEXT_AND_IMAGE,
        game={"kind": kind, "balrog_name": f"BabyAI-MixedTrainLocal-v0/{kind.replace(' ', '_')}"},
    )


def _textworld(name: str, game_class: str, title: str) -> TaskSpec:
    return TaskSpec(
        id=f"balrog/textworld-{name}", entry_point=f"envs.balrog.textworld_games:{game_class}",
        title=f"TextWorld: {title}", max_steps=TEXTWORLD_STEP_LIMIT, formats=("text",),
    )


def _minihack(name: str, game_class: str, title: str, balrog_name: str, **game) -> TaskSpec:
    return TaskSpec(
        id=f"balrog/minihack-{name}", entry_point=f"envs.balrog.minihack:{game_class}", title=f"MiniHack: {title}",
        max_steps=MINIHACK_STEP_LIMIT, formats=_TEXT_AND_IMAGE, game={"balrog_name": balrog_name, **game},
    )


TASKS = (
    _babyai("goto", "goto", "go to", 64),
    _babyai("pickup", "pickup", "pick up", 64),
    _babyai("open", "open", "open", 128),
    _babyai("putnext", "putnext", "put next to", 128),
    _babyai("pick-up-seq-go-to", "pick up seq go to", "pick up then go to", 128),
    TaskSpec(
        id="balrog/crafter", entry_point="envs.balrog.crafter_env:CrafterTask", title="Crafter",
        max_steps=CRAFTER_STEP_LIMITS[0], formats=_TEXT_AND_IMAGE, settings={"max_steps": CRAFTER_STEP_LIMITS},
    ),
    _textworld("treasure-hunter", "TreasureHunter", "Treasure Hunter"),
    _textworld("cooking", "CookingGame", "The Cooking Game"),
    _textworld("coin-collector", "CoinCollector", "Coin Collector"),
    TaskSpec(
        id="balrog/babaisai", entry_point="envs.balrog.babaisai:BabaIsAITask", title="Baba Is AI",
        max_steps=BABAISAI_STEP_LIMIT, formats=_TEXT_AND_IMAGE,
    ),
    _minihack("mazewalk-9x9", "MiniHackExplorerTask", "maze 9×9", "MiniHack-MazeWalk-9x9-v0"),
    _minihack("mazewalk-15x15", "MiniHackExplorerTask", "maze 15×15", "MiniHack-MazeWalk-15x15-v0"),
    _minihack("corridor-r3", "MiniHackExplorerTask", "corridor (3 rooms)", "MiniHack-Corridor-R3-v0"),
    _minihack("corridorbattle-dark", "MiniHackExplorerTask", "corridor battle (dark)", "MiniHack-CorridorBattle-Dark-v0"),
    _minihack("quest-easy", "MiniHackTask", "quest (easy)", "MiniHack-Quest-Easy-v0"),
    _minihack("quest-medium", "MiniHackTask", "quest (medium)", "MiniHack-Quest-Medium-v0"),
    _minihack("boxoban-medium", "MiniHackBoxobanTask", "Boxoban (medium)", "MiniHack-Boxoban-Medium-v0", difficulty="medium"),
    _minihack("boxoban-hard", "MiniHackBoxobanTask", "Boxoban (hard)", "MiniHack-Boxoban-Hard-v0", difficulty="hard"),
    TaskSpec(
        id="balrog/nethack", entry_point="envs.balrog.nethack:NetHackTask", title="NetHack",
        max_steps=NETHACK_STEP_LIMITS[0], formats=_TEXT_AND_IMAGE, settings={"max_steps": NETHACK_STEP_LIMITS},
    ),
)
