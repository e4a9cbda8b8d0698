"""The rows of a task leaderboard's table (templates/leaderboard/_run_table.html), written
in Python: the front page shows up to ten ranked rows and the baselines of each of some
sixty tasks, and the template language spent about 0.3 ms per row on them, most of the
page's cost (bench/read_pages.py). The markup is the template's, byte for byte
(tests/leaderboard/web/test_run_rows.py holds the template it replaced and compares),
escaped as the template escaped it.

The harness and moderation marks of a row are written here too, as the includes the
other pages use (leaderboard/_harness_mark.html, arena/_moderation_mark.html) write
them; the test renders the replaced template with those includes, so the two agree.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import lru_cache

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst, slugify

from leaderboard.boards.harness import run_standing
from leaderboard.templatetags.arena_format import compact, metric, percent, usd, variant_label

register = template.Library()

CUT_OFF_TITLE = "steps whose answer reached the token limit, not counted as illegal"
# A primary key no row has, to reverse a page's address once per table.
_PLACEHOLDER_PK = 987654321987


# The characters html.escape replaces.
_ESCAPED = re.compile("[&<>\"']")


def escape(value) -> str:
    """What the template wrote for a value that is not marked safe (django.utils.html
    .escape without its lazy-string wrapper, which cost more than the escaping); most
    values (numbers, figures, statuses) hold none of the characters it replaces, and
    are returned after one search instead of five replacements."""
    text = value if type(value) is str else str(value)
    return html.escape(text) if _ESCAPED.search(text) else text


@lru_cache(maxsize=64)
def _status_slug(status: str) -> str:
    # slugify normalises Unicode and runs two expressions; a table has a few statuses.
    return slugify(status)


def address_of(view: str) -> Callable[[int], str]:
    """The address of `view`'s page (a route taking one integer pk) for any pk, from one
    `reverse` per script prefix: reversing per row was a tenth of the table's cost, and
    per table still a tenth of the front page's sixty tables' cost."""
    head, tail = _address_parts(view, get_script_prefix())
    return lambda pk: f"{head}{pk}{tail}"


@lru_cache(maxsize=32)
def _address_parts(view: str, script_prefix: str) -> tuple[str, str]:
    # The address depends on nothing else (reverse puts the prefix in front).
    head, _, tail = reverse(view, args=[_PLACEHOLDER_PK]).partition(str(_PLACEHOLDER_PK))
    return head, tail


def moderation_mark(item) -> SafeString:
    """The operators' mark of a flagged or verified submission or run ("" otherwise),
    with the reason in its title; a newline after it, as the include wrote it."""
    if item.moderation not in ("flagged", "verified"):
        return mark_safe("\n")
    title = escape(capfirst(item.get_moderation_display()))
    if item.moderation_reason:
        title += ": " + escape(item.moderation_reason)
    moderation = escape(item.moderation)
    return mark_safe(f' <span class="badge moderation-{moderation}" title="{title}">{moderation}</span>\n')


def harness_mark(run) -> SafeString:
    """The run's harness version, or the note saying it is not its suite's current one
    (leaderboard.boards.harness); a newline after it, as the include wrote it."""
    standing = run_standing(run)
    if not standing:
        return mark_safe("\n")
    if standing.is_current:
        mark = f'<div class="muted harness-version" title="{escape(standing.note)}">v{escape(standing.played.protocol)}</div>'
    else:
        mark = (
            f'<div class="harness-old" data-harness="{escape(standing.played.value)}" '
            f'title="current: {escape(standing.current.value)}">{escape(standing.note)}</div>'
        )
    return mark_safe(mark + "\n")


def _rank_cell(row) -> str:
    if not row.rank:
        return '<span class="badge baseline">baseline</span>'
    mark, prefix = row.neighbour_mark, ""
    if mark:
        explanation = escape(mark.explanation)
        url = mark.compare_url
        if url:
            prefix = f'<a class="tie-mark" href="{escape(url)}" title="{explanation} Open the paired comparison.">≈</a> '
        else:
            prefix = f'<span class="tie-mark" title="{explanation}">≈</span> '
    return f"{prefix}{escape(row.rank)}"


def _metric_cells(row, run_url: str) -> str:
    cells = []
    for index, value in enumerate(row.metrics):
        shown = escape(metric(value))
        if index:
            cells.append(f'<td class="num">{shown}</td>')
            continue
        cell = f'<td class="num"><a href="{escape(run_url)}">{shown}</a>'
        if value.missing:
            means = escape(value.metric.missing_means or "have no value")
            cell += f' <span class="muted" title="episodes that {means}">({escape(value.missing)} without)</span>'
        cells.append(cell + "</td>")
    return "".join(cells)


def _status_cell(run) -> str:
    status = escape(run.status)
    cell = f'<td><span class="badge status-{escape(_status_slug(run.status))}">{status}</span>'
    shipped = run.shipped_figures
    if shipped:
        source, generated = escape(shipped.get("file", "")), escape(str(shipped.get("generated", ""))[:10])
        cell += (
            f' <span class="badge shipped-figures" title="figures shipped with the arena ({source}), played by its own '
            f'runner on {generated}; not played on this machine">shipped figures</span>'
        )
    return cell + harness_mark(run) + "</td>"


def run_row(row, run_url: Callable[[int], str], submission_url: Callable[[int], str]) -> str:
    """One row (leaderboard.selectors.runs.LeaderboardRow) as the table's <tr>; the
    addresses of the run and submission pages from `run_url` and `submission_url`."""
    run, submission = row.run, row.submission
    name_cell = f'<a href="{escape(submission_url(submission.pk))}">{escape(submission.name)}</a>'
    if submission.moderation:
        name_cell += moderation_mark(submission)
    if run.moderation:
        name_cell += moderation_mark(run)
    # The run's counts are integer columns: nothing in them to escape.
    episodes = f"{run.episodes_done}"
    if run.episodes_failed:
        episodes += f' <span class="muted">(+{run.episodes_failed} failed)</span>'
    illegal = escape(percent(run.illegal_rate))
    if run.cut_off_total:
        illegal += f'<br><span class="muted cut-off" title="{CUT_OFF_TITLE}">{escape(percent(run.cut_off_rate))} cut off</span>'
    tokens = f"{escape(compact(run.tokens_spent_in))} / {escape(compact(run.tokens_spent_out))}"
    if run.cached_tokens_in:
        tokens += f'<br><span class="muted">{escape(compact(run.cached_tokens_in))} cached</span>'
    return (
        f'\n    <tr class="{"baseline-row" if submission.is_baseline else ""}">\n'
        f'      <td class="num">{_rank_cell(row)}</td>\n'
        f"      <td>{name_cell}</td>\n"
        f"      <td>{escape(submission.model or '—')}</td>\n"
        f'      <td class="variant">{escape(variant_label(run))}</td>\n'
        f"      {_metric_cells(row, run_url(run.pk))}\n"
        f'      <td class="num">{episodes}</td>\n'
        f'      <td class="num">{illegal}</td>\n'
        f'      <td class="num">{tokens}</td>\n'
        f'      <td class="num">{escape(usd(run.cost_usd))}</td>\n'
        f"      {_status_cell(run)}\n"
        f"    </tr>\n  "
    )


@register.simple_tag
def run_rows(rows) -> SafeString:
    """Every row of `rows` (leaderboard.selectors.runs.LeaderboardRow), in order."""
    run_url, submission_url = address_of("leaderboard:run"), address_of("leaderboard:submission")
    return mark_safe("".join(run_row(row, run_url, submission_url) for row in rows))
