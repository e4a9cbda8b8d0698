"""The head-to-head ratings as an API answer and a download: /api/ratings/?game=… (JSON,
or CSV with ?format=csv), the rows of the rating page (leaderboard.boards.ratings) with
the pairwise records in JSON."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from leaderboard.boards import ratings
from leaderboard.downloads.leaderboards import DownloadView

RATING_DIGITS = 0  # Elo-scale points, as the page shows them


def row_note(row: ratings.RatingRow) -> str:
    """Why a row has no rating, or why its rating is held by the prior; "" otherwise."""
    entry = row.entry
    if not entry.record.games:
        return "no finished match yet"
    if not entry.rated:
        return "not connected to the anchor by any chain of matches: no rating"
    if entry.unbeaten_or_winless and not _is_anchor(row):
        side = "won" if entry.record.points else "lost"
        return f"{side} every game: the rating rests on the prior (a bound more than a figure)"
    return ""


def _is_anchor(row: ratings.RatingRow) -> bool:
    """The anchor's rating is fixed, whatever its record: no note on it."""
    return row.submission.is_baseline and row.submission.policy == ratings.ANCHOR_POLICY


def _kind(submission) -> str:
    return "baseline" if submission.is_baseline else submission.kind


def _rounded(value: float | None) -> str:
    return "" if value is None else f"{value:.{RATING_DIGITS}f}"


RATING_HEADER = [
    "Rank", "Rank best", "Rank worst", "Submission", "Model", "Kind", "Rating", "95 % low", "95 % high", "Games", "Wins", "Draws", "Losses",
    "Points", "Note", "Model page",
]


def rating_csv_rows(board: ratings.RatingBoard, base_url: str) -> list[list[str]]:
    records = [RATING_HEADER]
    for row in board.rows:
        entry, record, submission = row.entry, row.record, row.submission
        records.append([
            "" if entry.rank is None else str(entry.rank),
            "" if entry.rank_best is None else str(entry.rank_best),
            "" if entry.rank_worst is None else str(entry.rank_worst), submission.name, submission.model, _kind(submission),
            _rounded(entry.rating), _rounded(entry.low), _rounded(entry.high), str(record.games), str(record.wins),
            str(record.draws), str(record.losses), f"{record.points:g}", row_note(row),
            base_url + submission.get_absolute_url(),
        ])
    return records


def rating_json(board: ratings.RatingBoard, base_url: str) -> dict:
    anchor, matrix = board.anchor, board.matrix
    return {
        "game": board.game,
        "title": board.title,
        "anchor": None if anchor is None else {
            "id": anchor.pk, "name": anchor.name, "policy": anchor.policy, "rating": board.anchor_rating,
        },
        "matches": board.games,
        "bootstrap_resamples": board.resamples,
        "method": base_url + ratings.method_url(),
        "rows": [_json_row(row, base_url) for row in board.rows],
        "left_out": board.left_out,
        "matrix": _matrix_json(matrix),
        "pairs": [
            {"submission": line.row.submission.pk, "against": other.submission.pk, "games": cell.games,
             "wins": cell.wins, "draws": cell.draws, "losses": cell.losses, "score_rate": cell.score_rate}
            for line in matrix
            for other, cell in zip((m.row for m in matrix), line.cells) if cell is not None
        ],
    }


def _matrix_json(matrix: list[ratings.MatrixRow]) -> dict:
    """The pairwise win-rate matrix: `score_rate[i][j]` is player i's score against j
    (wins plus half the draws, over their games), `games[i][j]` their games; null where
    they have not met."""
    return {
        "players": [line.row.submission.pk for line in matrix],
        "score_rate": [[None if cell is None else cell.score_rate for cell in line.cells] for line in matrix],
        "games": [[None if cell is None else cell.games for cell in line.cells] for line in matrix],
    }


def _json_row(row: ratings.RatingRow, base_url: str) -> dict:
    entry, record, submission = row.entry, row.record, row.submission
    return {
        "rank": entry.rank, "rank_best": entry.rank_best, "rank_worst": entry.rank_worst,
        "submission": {
            "id": submission.pk, "name": submission.name, "model": submission.model, "kind": _kind(submission),
            "url": base_url + submission.get_absolute_url(),
        },
        "rating": entry.rating, "low": entry.low, "high": entry.high,
        "games": record.games, "wins": record.wins, "draws": record.draws, "losses": record.losses,
        "points": record.points, "note": row_note(row),
    }


class RatingsView(DownloadView):
    @extend_schema(
        operation_id="ratings",
        description=(
            "Head-to-head ratings of one game (or of all games in one fit, over the players who played every game): "
            "Bradley–Terry on Elo's scale, the random player fixed at 1000, with percentile-bootstrap 95 % intervals "
            "and rank ranges, each submission's games, wins, draws and losses, and (JSON) each pair's record and the "
            "pairwise win-rate matrix. Rank and rating are null for a submission not connected to the anchor by any "
            "chain of finished matches. `?format=csv` gives the page's table at its precision."
        ),
        parameters=[
            OpenApiParameter("game", str, description="chess (default), tictactoe, connect_four, or all"),
            OpenApiParameter("format", str, enum=["json", "csv"], description="json (default) or csv"),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 400: OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request):
        game = request.query_params.get("game", ratings.default_game())
        choices = [*ratings.rated_games(), ratings.ALL_GAMES]
        if game not in choices:
            return Response({"game": [f"Unknown game {game!r}; one of {', '.join(choices)}."]},
                            status=status.HTTP_400_BAD_REQUEST)
        board = ratings.board(game)
        base_url = request.build_absolute_uri("/").rstrip("/")
        if self.wants_csv(request):
            return self.attachment(Response(rating_csv_rows(board, base_url)), f"arena-ratings-{game}.csv")
        response = Response(rating_json(board, base_url))
        if request.query_params.get("format") == "json":
            self.attachment(response, f"arena-ratings-{game}.json")
        return response


ratings_api = RatingsView.as_view()
