"""The head-to-head rating pages: /ratings/ (the first game's), /ratings/<game>/ (one
game, or `all`: every game in one fit over the players who played them all), and
/ratings/method/ (docs/ratings.md as written). The numbers are
leaderboard.boards.ratings'; the page only lays them out."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from leaderboard.boards import ratings
from leaderboard.downloads.ratings import row_note

RATINGS_DOC = settings.BASE_DIR / "docs" / "ratings.md"


def ratings_overall(request):
    return _page(request, ratings.default_game())


def ratings_game(request, game):
    if game not in ratings.rated_games() and game != ratings.ALL_GAMES:
        raise Http404(f"no head-to-head game {game}")
    return _page(request, game)


def _page(request, game: str):
    board = ratings.board(game)
    matrix = board.matrix
    return render(request, "leaderboard/ratings.html", {
        "board": board,
        "rows": [(row, row_note(row)) for row in board.rows],
        "matrix": matrix,
        "matrix_columns": [line.row for line in matrix],
        "game_links": [(key, ratings.game_title(key), ratings.page_url(key))
                       for key in [*ratings.rated_games(), ratings.ALL_GAMES]],
        "anchor_title": ratings.ANCHOR_TITLE,
    })


def ratings_method(request):
    return render(request, "leaderboard/ratings_method.html", {"text": RATINGS_DOC.read_text(encoding="utf-8")})
