"""The game categories of TextAtari App. C, Tables 6–7, as the suite page groups them."""

from envs.registry import tasks_of
from envs.textatari.catalog import CATEGORIES, category_of

# Tables 6–7, game by game.
TABLES_6_7 = {
    "action": {"asteroids", "battlezone", "berzerk", "demonattack", "hero", "pitfall"},
    "puzzle": {"breakout", "frostbite", "montezumarevenge", "privateeye", "qbert"},
    "sports": {"bowling", "boxing", "pong", "skiing", "tennis"},
    "arcade": {"freeway", "mspacman", "riverraid", "seaquest", "spaceinvaders", "venture", "videopinball"},
}


def test_every_game_is_in_its_category_of_tables_6_and_7():
    assert {category.name: set(category.games) for category in CATEGORIES} == TABLES_6_7
    games = {task_id.split("/", 1)[1] for task_id in tasks_of("textatari")}
    assert games == set().union(*TABLES_6_7.values())
    assert category_of("hero").title == category_of("pitfall").title == "Action"
