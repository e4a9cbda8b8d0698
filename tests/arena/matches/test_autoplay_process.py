"""A real worker process, as `make serve` starts it (`arena_worker --matches 2`), and no
command besides: within a minute or two every game's baselines are rated with 95 %
intervals, and a model that opts in afterwards plays its first match within a minute."""

import time

import pytest
from django.db import connection

from arena.matches.ratings import rate
from tests.support.fake_players import ScriptedPlayer
from tests.support.worker_process import Arena

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = ("chess", "tictactoe", "connect_four")
RATED_PLAYERS = 3


@pytest.fixture
def arena():
    arena = Arena(ARENA_H2H_SCHEDULE_SECONDS="0.5", ARENA_ALLOW_LOOPBACK="1")
    yield arena
    arena.close()


def _ratings(arena, game):
    results = arena.query(
        "select first_id, second_id, result from arena_match where game = ? and status = 'finished'", (game,)
    )
    anchor = arena.query("select id from arena_submission where kind = 'baseline' and policy = 'random'")
    if not results or not anchor:
        return None, 0
    return rate(results, anchor=anchor[0][0], resamples=200), len(results)


def _wait_for(condition, timeout, what, arena):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            log = arena.processes[0].log.read_text()[-3000:]
            raise AssertionError(f"{what} not within {timeout} s; worker log:\n{log}")
        time.sleep(1.0)


def test_matches_are_scheduled_and_rated_without_any_command(arena):
    arena.copy_database(connection.settings_dict["NAME"])
    started = time.monotonic()
    arena.start_worker("--matches", "2")

    def every_game_rated():
        for game in GAMES:
            ratings, _ = _ratings(arena, game)
            rated = ratings.rated if ratings else []
            # The anchor's interval is its fixed point; every other's a real range.
            if len(rated) < RATED_PLAYERS or any(p.low >= p.high for p in rated if p.player != ratings.anchor):
                return False
        return True

    _wait_for(every_game_rated, 240, "three rated players at every game", arena)
    baselines_rated_after = time.monotonic() - started
    assert not arena.query("select id from arena_match where status = 'failed'")

    player = ScriptedPlayer("first").start()
    try:
        made = time.monotonic()
        arena.shell(
            "from arena.services.submissions import submission_create\n"
            "submission_create(owner=None, api_key='sk-test-canary-0123456789', runs=[], fields={"
            f"'name': 'newcomer', 'base_url': '{player.base_url}', 'model': 'fake', 'max_tokens': 64,"
            "'num_demonstrations': 0, 'show_legal_actions': True, 'head_to_head': True})"
        )

        def newcomer_played():
            return arena.query(
                "select count(*) from arena_match m join arena_submission s on s.id in (m.first_id, m.second_id)"
                " where s.name = 'newcomer' and m.status = 'finished'"
            )[0][0] > 0

        _wait_for(newcomer_played, 60, "the newcomer's first finished match", arena)
        first_match_after = time.monotonic() - made
    finally:
        player.stop()
    print(f"baselines rated at every game after {baselines_rated_after:.0f} s; "
          f"a new model's first match finished {first_match_after:.0f} s after it opted in")
