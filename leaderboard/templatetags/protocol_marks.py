"""The protocol line of every leaderboard row (arena.protocol): the paper preset or custom
settings, with temperature, output tokens, episodes and parsing. One markup, written here,
for the overall board, the suite pages, the task tables and their Python-written rows."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from arena.protocol import RowProtocol, row_protocol, run_protocol
from leaderboard.boards.harness import runs_behind

register = template.Library()


def protocol_of_row(row) -> RowProtocol:
    """The row's protocol: worked out when the row was built, else from its runs."""
    protocol = getattr(row, "protocol", None)
    return protocol if protocol is not None else row_protocol(runs_behind(row))


def protocol_html(protocol: RowProtocol) -> str:
    return f'<div class="protocol protocol-{escape(protocol.kind)}">{escape(protocol.text)}</div>'


@register.simple_tag
def row_protocol_line(row) -> SafeString:
    """The protocol line of a leaderboard row (overall, suite page)."""
    return mark_safe(protocol_html(protocol_of_row(row)))


@register.simple_tag
def run_protocol_line(run) -> SafeString:
    """The protocol line of one run's row (a task's table)."""
    return mark_safe(protocol_html(row_protocol([run])))


@register.filter
def is_custom_run(run) -> bool:
    return not run_protocol(run).comparable and not run.submission.is_baseline
