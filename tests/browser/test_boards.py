"""In real Chromium against the real site: wherever a board game is shown, its board is
drawn, by the renderer of the game the episode player uses — an LMAct chess episode
(ASCII board), an LMAct tic-tac-toe episode, and head-to-head matches of Connect Four
and chess between the baselines. Screenshots go to ARENA_SCREENSHOTS when it is set."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser

EPISODES = """
import json
from arena.services.runs import RunSpec, run_create
from arena.services.submissions import baseline_submission
random_player = baseline_submission("random", "Random")
runs = [run_create(random_player, RunSpec(task=task, format=fmt, num_episodes=1, first_seed=3))
        for task, fmt in (("lmact/chess", "ascii"), ("lmact/tictactoe", "ascii-annotated"))]
print(json.dumps([run.episodes.get().pk for run in runs]))
"""

EPISODES_DONE = """
import json
from arena.models import Episode
print(json.dumps(sorted(Episode.objects.filter(pk__in={ids}).values_list("status", flat=True))))
"""

MATCHES = """
import json
from arena.matches import services
from arena.matches.scheduler import anchors
random_player, _, searcher = anchors("connect_four")
chess_players = {anchor.policy: anchor for anchor in anchors("chess")}
chess_random, stockfish = chess_players["random"], chess_players["stockfish-level-0"]
four = services.queue_pair("connect_four", searcher, random_player, opening_seed=5, round_number=1)[0]
chess = services.queue_pair("chess", stockfish, chess_random, opening_seed=2, round_number=1)[0]
print(json.dumps([four.pk, chess.pk]))
"""


def _shot(page, name):
    folder = os.environ.get("ARENA_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / name), full_page=True)


def test_episodes_and_matches_of_board_games_draw_their_boards(site, browser):
    chess_episode, tictactoe_episode = site.django(EPISODES)
    matches = site.django(MATCHES)
    subprocess.run([sys.executable, "manage.py", "arena_matches", "play", "--until-idle"],
                   cwd=ROOT, env=site.env, check=True, capture_output=True, timeout=240)
    deadline = time.time() + 240
    while site.django(EPISODES_DONE.format(ids=[chess_episode, tictactoe_episode])) != ["finished", "finished"]:
        assert time.time() < deadline, "the episodes did not finish"
        time.sleep(1)
    page = browser.new_page(viewport={"width": 1280, "height": 900})

    # The chess episode: its observation is python-chess's board text; the board is drawn.
    page.goto(f"{site.url}/episodes/{chess_episode}/")
    board = page.locator("table.chess-board").first
    expect(board).to_be_visible()
    assert board.locator("tr").count() == 9  # eight ranks and the files
    pieces = "".join(board.locator("td").all_inner_texts())
    assert "\u2654" in pieces and "\u265a" in pieces  # both kings
    _shot(page, "chess-episode-replay.png")

    page.goto(f"{site.url}/episodes/{tictactoe_episode}/")
    grid = page.locator("table.tictactoe-board").first
    expect(grid).to_be_visible()
    assert grid.locator("td.ttt-cell").count() == 9 and grid.locator("td.ttt-x").count() >= 1

    # A Connect Four match: the position after the last move, as discs, and the scrubber
    # redraws it (none of the first player's discs before the opening's).
    four, chess = matches
    page.goto(f"{site.url}/matches/{four}/")
    discs = page.locator("#match-board table.connect-four-board")
    expect(discs).to_be_visible()
    assert discs.locator("td.c4-cell").count() == 42
    at_end = discs.locator(".c4-x, .c4-o").count()
    assert at_end > 2
    # The page names the sides X and O: the board says which colour is which.
    legend = discs.locator("caption.c4-legend")
    expect(legend).to_have_text(re.compile(r"^\s*X\s+O\s*$"))
    assert legend.locator(".c4-swatch-x").evaluate("e => getComputedStyle(e).backgroundColor") == discs.locator(
        "td .c4-x").first.evaluate("e => getComputedStyle(e).backgroundColor")
    _shot(page, "connect-four-match.png")
    page.click('[data-go="first"]')
    assert page.locator("#match-board .c4-x, #match-board .c4-o").count() == 2  # the opening's two plies

    page.goto(f"{site.url}/matches/{chess}/")
    expect(page.locator("#match-board table.chess-board")).to_be_visible()
