"""The rows of a task leaderboard's table (templates/leaderboard/_run_table.html), and the
front page's task sections around them (`task_sections`), written in Python: the front page shows up to ten ranked rows and the baselines of each of some
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
from django.template.loader import get_template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst, slugify

from envs import harness
from envs.registry import suite_of
from arena.protocol import row_protocol
from leaderboard.boards.harness import standing_of
from leaderboard.templatetags.protocol_marks import protocol_html
from leaderboard.templatetags.arena_format import compact, percent, task_url, usd

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
def _status_badge(status: str) -> str:
    # The status cell's start depends on the status alone (slugify normalises Unicode and
    # runs two expressions; a page has a few statuses and some seven hundred rows).
    return f'<td><span class="badge status-{escape(slugify(status))}">{escape(status)}</span>'


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
    try:
        suite = suite_of(run.task)
    except KeyError:
        return mark_safe("\n")
    return _harness_mark(run.task, run.harness_version, harness.current_version(suite))


@lru_cache(maxsize=1024)
def _harness_mark(task: str, stored: str, current: str) -> SafeString:
    # The mark depends on these three strings only, and a table's runs share a few.
    standing = standing_of(task, stored)
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
        if not row.run.submission.is_baseline:
            return '<span class="badge custom" title="Custom settings: not ranked against the paper\'s protocol">custom</span>'
        return '<span class="badge baseline">baseline</span>'
    mark, prefix = row.neighbour_mark, ""
    if mark:
        explanation = escape(mark.explanation)
        url = mark.compare_url
        if url:
            prefix = f'<a class="tie-mark" href="{escape(url)}" title="{explanation} Open the paired comparison.">≈</a> '
        else:
            prefix = f'<span class="tie-mark" title="{explanation}">≈</span> '
    return f"{prefix}{row.rank}"  # a rank is an integer: nothing to escape


def _metric_cells(row, run_url: str, metric_parts: dict) -> str:
    cells = []
    for index, value in enumerate(row.metrics):
        # arena_format.metric's text, escaped: its numbers are digits, signs and points
        # (nothing escape replaces, tests/leaderboard/web/test_run_rows.py), so the
        # escaped text is the numbers with the metric's unit escaped, once per metric.
        shown = _metric_text(value, metric_parts)
        if index:
            cells.append(f'<td class="num">{shown}</td>')
            continue
        cell = f'<td class="num"><a href="{escape(run_url)}">{shown}</a>'
        if value.missing:
            means = escape(value.metric.missing_means or "have no value")
            cell += f' <span class="muted" title="episodes that {means}">({escape(value.missing)} without)</span>'
        cells.append(cell + "</td>")
    return "".join(cells)


def _metric_text(value, metric_parts: dict) -> str:
    """escape(arena_format.metric(value)) from the metric's digits and escaped unit,
    kept in `metric_parts` by the metric's identity (with the metric, so that its id
    stays its own): a page writes some two thousand values of a few dozen metrics."""
    mean = value.mean
    if mean is None:
        return "—"
    described = value.metric
    known = metric_parts.get(id(described))
    if known is None or known[0] is not described:
        # metric's f-strings as format patterns built once (their nested precision was
        # worked out again at every value): the same float formatting, the same text.
        digits, unit = described.digits, escape(described.unit).replace("{", "{{").replace("}", "}}")
        known = metric_parts[id(described)] = (
            described, f"{{:.{digits}f}}{unit}", f"{{:.{digits}f}} ± {{:.{digits}f}}{unit}",
        )
    stderr = value.stderr
    if stderr is None:
        return known[1].format(mean)
    return known[2].format(mean, stderr)


def _status_cell(run, marks: dict) -> str:
    cell = _status_badge(run.status)
    shipped = run.shipped_figures
    if shipped:
        source, generated = escape(shipped.get("file", "")), escape(str(shipped.get("generated", ""))[:10])
        cell += (
            f' <span class="badge shipped-figures" title="figures shipped with the arena ({source}), played by its own '
            f'runner on {generated}; not played on this machine">shipped figures</span>'
        )
    # A table's runs are of one task and share a few harness versions: each version's
    # mark is worked out once per table (`marks`, by task and version).
    key = (run.task, run.harness_version)
    mark = marks.get(key)
    if mark is None:
        mark = marks[key] = harness_mark(run)
    return cell + mark + "</td>"


class RowParts:
    """What rows written together share, each worked out once: a submission's cells (the
    front page shows each submission's run of some sixty tasks) and the harness marks, by
    task and harness version."""

    def __init__(self):
        self.submissions: dict[int, tuple[str, str, str]] = {}
        self.harness_marks: dict[tuple[str, str], str] = {}
        self.variants: dict[tuple[int, bool], tuple[object, str]] = {}
        self.metrics: dict[int, tuple[object, str, str]] = {}

    def of_submission(self, submission, submission_url: Callable[[int], str]) -> tuple[str, str, str]:
        """The row's class, the start of its name cell and its model cell."""
        parts = self.submissions.get(submission.id)
        if parts is None:
            name_cell = f'<a href="{escape(submission_url(submission.id))}">{escape(submission.name)}</a>'
            if submission.moderation:
                name_cell += moderation_mark(submission)
            parts = self.submissions[submission.id] = (
                "baseline-row" if submission.is_baseline else "", name_cell, escape(submission.model or "—"),
            )
        return parts


    def variant_cell(self, run, is_baseline: bool) -> str:
        """The run's variant_label, escaped: once per stored variant (runs read together
        share one decoded variant, and its Variant, per text: leaderboard.selectors.runs
        .lean_runs), the stored variant kept with its label so that its id stays its own."""
        stored = run.variant
        key = (id(stored), is_baseline)
        known = self.variants.get(key)
        if known is None or known[0] is not stored:
            # A run's Variant is built from its stored variant alone (arena.variant.Variant.of).
            known = self.variants[key] = (stored, escape(run.settings.label(baseline=is_baseline)))
        return known[1]


def run_row(row, run_url: Callable[[int], str], submission_url: Callable[[int], str], parts: RowParts | None = None) -> str:
    """One row (leaderboard.selectors.ranking.LeaderboardRow) as the table's <tr>; the
    addresses of the run and submission pages from `run_url` and `submission_url`;
    `parts` what the rows written so far with this one have worked out."""
    run = row.run
    parts = RowParts() if parts is None else parts
    submission = run.submission
    row_class, name_cell, model_cell = parts.of_submission(submission, submission_url)
    if run.moderation:
        name_cell += moderation_mark(run)
    # The run's counts are integer columns: nothing in them to escape.
    episodes = f"{run.episodes_done}"
    if run.episodes_failed:
        episodes += f' <span class="muted">(+{run.episodes_failed} failed)</span>'
    # percent, compact and usd write digits, signs, separators and their units only:
    # nothing escape would replace (tests/leaderboard/web/test_run_rows.py holds them).
    illegal = percent(run.illegal_rate)
    if run.cut_off_total:
        illegal += f'<br><span class="muted cut-off" title="{CUT_OFF_TITLE}">{percent(run.cut_off_rate)} cut off</span>'
    tokens = f"{compact(run.tokens_spent_in)} / {compact(run.tokens_spent_out)}"
    if run.cached_tokens_in:
        tokens += f'<br><span class="muted">{compact(run.cached_tokens_in)} cached</span>'
    return (
        f'\n    <tr class="{row_class}">\n'
        f'      <td class="num">{_rank_cell(row)}</td>\n'
        f"      <td>{name_cell}</td>\n"
        f"      <td>{model_cell}</td>\n"
        f'      <td class="variant">{parts.variant_cell(run, submission.is_baseline)}{protocol_html(row_protocol([run]))}</td>\n'
        f"      {_metric_cells(row, run_url(run.id), parts.metrics)}\n"
        f'      <td class="num">{episodes}</td>\n'
        f'      <td class="num">{illegal}</td>\n'
        f'      <td class="num">{tokens}</td>\n'
        f'      <td class="num">{usd(run.cost_at(submission))}</td>\n'
        f"      {_status_cell(run, parts.harness_marks)}\n"
        f"    </tr>\n  "
    )


@register.simple_tag
def run_rows(rows, parts: RowParts | None = None) -> SafeString:
    """Every row of `rows` (leaderboard.selectors.ranking.LeaderboardRow), in order;
    `parts` shared with the other tables of the page, when it has several."""
    return mark_safe(_rows_markup(rows, parts))


def _rows_markup(rows, parts: RowParts | None) -> str:
    # run_rows's markup as a plain string, for a caller that writes it into more (marking
    # it safe copies it: the front page's sixty tables were copied once more each).
    run_url, submission_url = address_of("leaderboard:run"), address_of("leaderboard:submission")
    parts = RowParts() if parts is None else parts
    return "".join([run_row(row, run_url, submission_url, parts) for row in rows])


# The front page's task leaderboards (templates/leaderboard/index.html), written here as
# the rows are: the template language spent about a quarter of a millisecond on each of
# the sixty tasks' sections besides their rows (bench/read_pages.py). The markup is
# index.html's loop over the suites with _run_table.html included, byte for byte
# (tests/leaderboard/web/test_run_rows.py holds the loop it replaced and compares).


def _text(value) -> str:
    """A value as the template writes it: escaped unless marked safe."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return escape(value)


def run_table(rows, columns, row_parts: RowParts | None = None) -> str:
    """leaderboard/_run_table.html as the front page includes it (no reported rows);
    `row_parts` shared with the page's other tables."""
    heads = "".join(
        f'<th class="num" title="{_text(column.description)}">{_text(column.label)}'
        + (f' <span class="muted">(mean ± s.e., {_text(column.direction)})</span>' if index == 0 else "")
        + "</th>"
        for index, column in enumerate(columns)
    )
    if rows:
        body = _rows_markup(rows, row_parts)
    else:
        body = (
            f'\n    <tr><td colspan="{len(columns) + 9}" class="muted">No finished episodes yet.</td></tr>\n  '
        )
    return (
        '\n\n\n<div class="table-wrap"><table class="table leaderboard">\n  <thead>\n    <tr>\n'
        '      <th class="num">Rank</th><th>Submission</th><th>Model</th><th>Variant</th>\n'
        f"      {heads}\n"
        '      <th class="num">Episodes</th>\n'
        '      <th class="num">Illegal actions</th><th class="num">Tokens in / out</th><th class="num">Cost</th>'
        "<th>Status</th>\n"
        "    </tr>\n  </thead>\n  <tbody>\n  "
        f"{body}\n  </tbody>\n  \n</table></div>\n"
    )


@lru_cache(maxsize=256)
def _task_slug(task_id: str) -> str:
    return slugify(task_id)


@lru_cache(maxsize=512)
def _task_address(task_id: str, script_prefix: str) -> str:
    # The task page's address (task_url), escaped: it depends on the catalogue and the
    # prefix only, and the page links each task twice.
    return _text(task_url(task_id))


def _task_section(entry, columns, filter_query: str, shown_rows: int, row_parts: RowParts) -> str:
    task = entry.task
    url = _task_address(task.id, get_script_prefix())
    title, task_id = _text(task.title), _text(task.id)
    more = ""
    if entry.ranked_cut:
        query = f"?{_text(filter_query)}" if filter_query else ""
        more = (
            f'<p class="more-rows"><a href="{url}{query}">All {_text(entry.ranked_total)} ranked runs of {title} →</a> '
            f'<span class="muted">the top {_text(shown_rows)} and the baselines are shown here</span></p>'
        )
    return (
        f'\n  <section class="task-section" id="{_text(_task_slug(task.id))}">\n'
        f'    <h4><a href="{url}">{title}</a> <span class="muted">{task_id}</span></h4>\n'
        f"    {run_table(entry.rows, columns, row_parts)}\n"
        f"    {more}\n"
        "  </section>\n  "
    )


@register.simple_tag
def task_sections(suites, filter_query: str, shown_rows: int) -> SafeString:
    """Every suite's section of the front page (leaderboard.selectors.ranking.SuiteBoard):
    its title, ranking rule and each task's leaderboard, with the link to the task's
    page under the same filters (`filter_query`) when it has more than `shown_rows`."""
    ranking_rule = get_template("leaderboard/_ranking_rule.html")
    # Each submission's cells written once for all the tasks' tables.
    row_parts = RowParts()
    parts = []
    for board in suites:
        suite = board.suite
        parts.append(
            f'\n<section class="suite-section" id="suite-{_text(suite.id)}">\n'
            f'  <h3>{_text(suite.title)} <span class="muted">{_text(suite.id)}</span></h3>\n'
            f"  <p>{_text(suite.description)}</p>\n"
            f"  {ranking_rule.render({'suite': suite})}\n  "
        )
        parts.extend(_task_section(entry, suite.metrics, filter_query, shown_rows, row_parts) for entry in board.tasks)
        parts.append("\n</section>\n")
    return mark_safe("".join(parts))
