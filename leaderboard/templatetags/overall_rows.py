"""The rows of the overall leaderboard's compact table (templates/leaderboard/
_overall_compact.html, the front page's default), written in Python as the task rows
are (leaderboard.templatetags.run_rows): the template language spent half a
millisecond on each row, most of it resolving variables and including the harness
mark. The markup is the template's, byte for byte (tests/leaderboard/web/
test_overall_rows.py holds the loop it replaced and compares); the values go through
the same filters the template applied."""

from __future__ import annotations

from django import template
from django.template.defaultfilters import floatformat, stringformat
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from leaderboard.boards.harness import overall_row_harness
from leaderboard.templatetags.arena_format import figure, unrounded, usd
from leaderboard.templatetags.protocol_marks import protocol_html, protocol_of_row
from leaderboard.templatetags.run_rows import escape, moderation_mark

register = template.Library()

PARTIAL_AVERAGE = "The average needs a complete figure of every suite on the shared scale"
RATING_TITLE = "Head-to-head rating over all games, 95 % interval"


def _text(value) -> str:
    """A value as the template writes it: escaped unless marked safe."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return escape(value)


def row_harness_mark(row, standings: dict | None = None) -> str:
    """leaderboard/_row_harness_mark.html as included (with its closing newline);
    `standings` shared with the board's other rows (leaderboard.boards.harness.row_harness)."""
    harness = overall_row_harness(row, standings)
    if not harness.older:
        return "\n"
    notes = harness.notes
    more = " (and more)" if len(notes) > 1 else ""
    return f'<div class="harness-old" title="{_text(harness.summary)}">{_text(notes[0] if notes else "")}{more}</div>\n'


def model_cell(submission) -> str:
    """The model's name (linked to the page the submitter gave) and what is known of it:
    organisation, release date, open or closed weights (Submission.model_facts)."""
    name = _text(submission.model or "—")
    if submission.model_url:
        name = f'<a class="model-link" href="{_text(submission.model_url)}" rel="nofollow noopener">{name}</a>'
    facts = submission.model_facts
    return name + (f'<div class="muted model-facts">{_text(" · ".join(facts))}</div>' if facts else "")


NOT_RANKED = (
    '<span class="badge not-ranked" title="No average progress yet: listed apart, not ranked">not ranked</span>'
)


def _rank_cell(row) -> str:
    if not row.rank:
        if not row.submission.is_baseline:
            if row.protocol is not None and row.protocol.comparable:
                return NOT_RANKED  # no average progress yet
            return '<span class="badge custom" title="Custom settings: not ranked against the paper\'s protocol">custom</span>'
        return '<span class="badge baseline">baseline</span>'
    mark = ""
    if row.tie_explanation:
        mark = (
            f'<a class="tie-mark" href="{_text(row.tie_compare_url)}" '
            f'title="{_text(row.tie_explanation)} Open the paired comparison.">≈</a> '
        )
    return f"{mark}{_text(row.rank)}"


def _average_cell(row, digits) -> str:
    if row.average.mean is not None:
        return f"<strong>{_text(figure(row.average, digits))}</strong>"
    if row.average_partial:
        return f'<span class="badge partial" title="{PARTIAL_AVERAGE}">partial</span>'
    return "—"


def _rating_cell(row, ratings_url: str) -> str:
    rating = row.rating
    if not rating:
        return '<td class="num overall-rating" data-sort="">—</td>'
    low, high = _text(floatformat(rating.low, 0)), _text(floatformat(rating.high, 0))
    sort = _text(stringformat(rating.rating, ".6f"))
    return (
        f'<td class="num overall-rating" data-sort="{sort}">'
        f'<a href="{ratings_url}" title="{RATING_TITLE} [{low}, {high}], {_text(rating.record.games)} games">'
        f'{_text(floatformat(rating.rating, 0))}</a> <span class="muted">[{low}, {high}]</span></td>'
    )


def _suite_cell(entry, per_task_query: str) -> str:
    cell = entry.cell
    if cell is None:
        played = (
            f'<a href="?{_text(per_task_query)}#overall" title="The figures of each task">'
            f"{_text(entry.played)} of {_text(entry.total)}</a>"
            if entry.played else "—"
        )
        return (
            f'\n      <td class="num" data-column="{_text(entry.suite.id)}.played" data-sort="{_text(entry.played)}">'
            f"{played}</td>\n      "
        )
    if cell.figure.mean is not None:
        shown = _text(figure(cell.figure, cell.column.digits))
        value = f'<a href="{_text(cell.url)}">{shown}</a>' if cell.url else shown
    elif cell.partial:
        count = f" {_text(entry.played)}/{_text(entry.total)}" if entry.played else ""
        value = (
            f"<span class=\"badge partial\" title=\"The suite's figure needs every one of its columns: "
            f'{_text(entry.played)} of {_text(entry.total)} have one">partial{count}</span>'
        )
    else:
        value = "—"
    return (
        f'\n      <td class="num" data-column="{_text(cell.column.id)}" data-sort="{_text(unrounded(cell.figure.mean))}">'
        f"{value}</td>\n      "
    )


def compact_row(row, average_digits, per_task_query: str, ratings_url: str | None, standings: dict | None = None) -> str:
    """One row (leaderboard.boards.overall.Row) of the compact table; `ratings_url` None
    when the board has no rating column; `standings` shared with the board's other rows."""
    submission = row.submission
    rating = f"{_rating_cell(row, ratings_url)}" if ratings_url is not None else ""
    cells = "".join(_suite_cell(entry, per_task_query) for entry in row.suite_cells)
    return (
        f'\n    <tr class="{"baseline-row" if submission.is_baseline else ""}" data-submission="{_text(submission.pk)}">\n'
        f'      <td class="num" data-sort="{_text("" if row.rank is None else row.rank)}">{_rank_cell(row)}</td>\n'
        f'      <td data-sort="{_text(submission.name)}"><a class="model-page" href="{_text(submission.get_absolute_url())}">'
        f"{_text(submission.name)}</a>{moderation_mark(submission) if submission.moderation else ''}"
        f"{protocol_html(protocol_of_row(row))}{row_harness_mark(row, standings)}</td>\n"
        f'      <td data-sort="{_text(submission.model)}">{model_cell(submission)}</td>\n'
        f'      <td class="num" data-sort="{_text(unrounded(row.average.mean))}">{_average_cell(row, average_digits)}</td>\n'
        f"      {rating}\n"
        f"      {cells}\n"
        f'      <td class="num" data-sort="{_text(unrounded(row.cost_usd))}">{_text(usd(row.cost_usd))}</td>\n'
        "    </tr>\n  "
    )


@register.simple_tag
def overall_compact_rows(board, average_digits, per_task_query: str, custom: bool = False) -> SafeString:
    """Every row of the overall board `board` (leaderboard.boards.overall.Board) in the
    compact table, in order: its comparable rows, or with `custom` its custom ones."""
    ratings_url = _text(reverse("leaderboard:ratings-game", args=["all"])) if board.has_ratings else None
    standings: dict = {}  # the runs' harness standings, by task and version, for every row
    return mark_safe("".join(
        compact_row(row, average_digits, per_task_query, ratings_url, standings)
        for row in (board.custom_rows if custom else board.rows)
    ))
