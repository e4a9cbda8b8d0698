"""The leaderboards as tables of plain values, for the CSV and JSON downloads: the overall
leaderboard (leaderboard.boards.overall.Board) and a task's leaderboard (the rows of
leaderboard.selectors.runs.leaderboard_rows), with the columns their pages show.

CSV values are the figures at the precision the page shows them (a metric's digits,
tokens as integers, cost in USD to 4 decimals), so a downloaded table reads like the
page; the JSON of the overall leaderboard gives the same rows with unrounded numbers.
An empty CSV cell is a figure the page shows as "—".
"""

from __future__ import annotations

from arena.protocol import RowProtocol, row_protocol
from leaderboard.boards.harness import overall_row_harness, run_standing, runs_behind
from leaderboard.boards.overall import AVERAGE_DIGITS, AVERAGE_LABEL, Board, Cell, Column, Row
from leaderboard.selectors.ranking import LeaderboardRow

COST_DIGITS = 4
RATING_DIGITS = 0  # head-to-head ratings, in Elo-scale points
RATING_HEADER = ["Head-to-head rating", "Head-to-head rating 95 % low", "Head-to-head rating 95 % high"]


def _rounded(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _unit(unit: str) -> str:
    return f" ({unit})" if unit else ""


def _kind(submission) -> str:
    return "baseline" if submission.is_baseline else submission.kind


def overall_header(board: Board) -> list[str]:
    header = ["Rank", "Submission", "Model", "Kind"]
    header += [f"{AVERAGE_LABEL} (%)", f"{AVERAGE_LABEL} s.e. (%)"]
    for column in board.columns:
        name = f"{column.suite.title} · {column.title}{_unit(column.unit)}"
        header += [name, f"{column.suite.title} · {column.title} s.e.{_unit(column.unit)}"]
        if not column.summary:
            header.append(f"{column.suite.title} · {column.title} episodes")
    header += ["Tokens in", "Tokens out", "Cost (USD)", *RATING_HEADER, "Model page", "Harness", "Protocol"]
    return header


def _cell_values(cell: Cell) -> list[str]:
    digits = cell.column.digits
    values = [_rounded(cell.figure.mean, digits), _rounded(cell.figure.stderr, digits)]
    if not cell.column.summary:
        values.append(str(cell.figure.episodes) if cell.figure.episodes else "")
    return values


def overall_record(row: Row, base_url: str) -> list[str]:
    digits = AVERAGE_DIGITS
    values = [
        "" if row.rank is None else str(row.rank), row.submission.name, row.submission.model, _kind(row.submission),
        _rounded(row.average.mean, digits), _rounded(row.average.stderr, digits),
    ]
    for cell in row.cells:
        values += _cell_values(cell)
    values += [
        str(row.tokens_in), str(row.tokens_out), _rounded(row.cost_usd, COST_DIGITS), *_rating_values(row),
        base_url + row.submission.get_absolute_url(), overall_row_harness(row).summary, _protocol(row).text,
    ]
    return values


def _rating_values(row: Row) -> list[str]:
    rating = row.rating
    if rating is None:
        return ["", "", ""]
    return [_rounded(rating.rating, RATING_DIGITS), _rounded(rating.low, RATING_DIGITS),
            _rounded(rating.high, RATING_DIGITS)]


def overall_csv_rows(board: Board, base_url: str) -> list[list[str]]:
    """The header, then one record per row, in the page's order: the comparable rows,
    then the custom ones (unranked; their "Protocol" says so)."""
    rows = [*board.rows, *board.custom_rows]
    return [overall_header(board), *(overall_record(row, base_url) for row in rows)]


def _protocol(row: Row) -> RowProtocol:
    return row.protocol if row.protocol is not None else row_protocol(runs_behind(row))


def _figure_json(figure) -> dict:
    return {"mean": figure.mean, "stderr": figure.stderr, "episodes": figure.episodes}


def column_json(column: Column) -> dict:
    return {
        "id": column.id, "suite": column.suite.id, "title": column.title, "summary": column.summary,
        "unit": column.unit, "higher_is_better": column.higher_is_better, "digits": column.digits,
    }


def overall_json_row(row: Row, base_url: str) -> dict:
    return {
        "rank": row.rank,
        "submission": {
            "id": row.submission.pk, "name": row.submission.name, "model": row.submission.model,
            "kind": _kind(row.submission), "url": base_url + row.submission.get_absolute_url(),
        },
        "average_progress": {**_figure_json(row.average), "partial": row.average_partial},
        "cells": {
            cell.column.id: {
                **_figure_json(cell.figure), "partial": cell.partial,
                "url": base_url + cell.url if cell.url else None,
            }
            for cell in row.cells
        },
        "tokens_in": row.tokens_in,
        "tokens_out": row.tokens_out,
        "cost_usd": row.cost_usd,
        "rating": None if row.rating is None else {
            "rating": row.rating.rating, "low": row.rating.low, "high": row.rating.high,
            "games": row.rating.record.games,
        },
        "harness": _harness_json(row),
        "protocol": _protocol(row).to_json(),
    }


def _harness_json(row: Row) -> dict:
    harness = overall_row_harness(row)
    return {
        "runs": harness.runs,
        "runs_not_current": len(harness.older),
        "notes": harness.notes,
    }


def task_header(metrics) -> list[str]:
    header = ["Rank", "Submission", "Model", "Kind", "Variant"]
    for metric in metrics:
        unit = _unit(metric.unit.strip())
        header += [f"{metric.label}{unit}", f"{metric.label} s.e.{unit}", f"{metric.label} episodes without a value"]
    header += [
        "Episodes", "Failed episodes", "Illegal actions (%)", "Tokens in", "Tokens out", "Cached tokens in",
        "Cost (USD)", "Status", "Run page", "Harness version", "Harness current",
    ]
    return header


def task_record(row: LeaderboardRow, base_url: str) -> list[str]:
    run = row.run
    values = ["" if row.rank is None else str(row.rank), run.submission.name, run.submission.model,
              _kind(run.submission), run.settings.label(baseline=run.submission.is_baseline)]
    for value in row.metrics:
        digits = value.metric.digits
        values += [_rounded(value.mean, digits), _rounded(value.stderr, digits), str(value.missing)]
    illegal = run.illegal_rate
    values += [
        str(run.episodes_done), str(run.episodes_failed), _rounded(None if illegal is None else 100 * illegal, 1),
        str(run.tokens_spent_in), str(run.tokens_spent_out), str(run.cached_tokens_in),
        _rounded(run.cost_usd, COST_DIGITS), run.status, base_url + run.get_absolute_url(),
        *_harness_cells(run),
    ]
    return values


def _harness_cells(run) -> list[str]:
    """The run's harness version, and "yes" or the note saying how it differs."""
    standing = run_standing(run)
    if standing is None:
        return [run.harness_version, ""]
    return [standing.played.value, "yes" if standing.is_current else standing.note]


def task_csv_rows(metrics, rows: list[LeaderboardRow], base_url: str) -> list[list[str]]:
    return [task_header(metrics), *(task_record(row, base_url) for row in rows)]
