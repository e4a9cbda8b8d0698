"""The model page's standing strips (templates/leaderboard/_standing_strip.html) written in
Python: a submission that played every task has some sixty strips of a dozen marks each,
and including the template for each was half of the page's CPU at 10^5 episodes
(bench/read_pages.py). The markup is the template's, byte for byte
(tests/leaderboard/web/test_model_page.py renders both and compares)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


def _text(value) -> str:
    return str(conditional_escape(value))


TENTH = Decimal("0.1")


def _x(mark) -> str:
    """A mark's position as `floatformat:1` writes it (the decimal text of the float
    rounded half up: the strips' positions are never negative or past a thousand),
    without its per-call localisation, most of the strips' cost."""
    return str(Decimal(str(float(mark.x))).quantize(TENTH, rounding=ROUND_HALF_UP))


@register.simple_tag
def standing_strip(standing) -> SafeString:
    """One strip (leaderboard.model_page.Standing), as the include wrote it."""
    width, height, middle = standing.width, standing.height, _text(standing.middle)
    ticks = "".join(
        f'<line class="strip-baseline" x1="{_x(tick)}" x2="{_x(tick)}" y1="3" y2="{_text(height - 3)}">'
        f"<title>{_text(tick.label)} (baseline): {_text(tick.text)}</title></line>"
        for tick in standing.baselines
    )
    dots = "".join(
        f'<circle class="strip-other" cx="{_x(dot)}" cy="{middle}" r="4"><title>{_text(dot.label)}: {_text(dot.text)}</title></circle>'
        for dot in standing.others
    )
    rank = (
        '<span class="muted">only submission</span>' if standing.field == 1
        else f"{_text(standing.rank)} of {_text(standing.field)}"
    )
    return mark_safe(
        # The include's first line is a comment: its output starts with that line's end.
        '\n<div class="standing">\n'
        f'  <svg width="{_text(width)}" height="{_text(height)}" viewBox="0 0 {_text(width)} {_text(height)}" role="img" '
        f'aria-label="rank {_text(standing.rank)} of {_text(standing.field)}; better to the right">\n'
        f'    <line class="strip-axis" x1="4" x2="{_text(width - 4)}" y1="{middle}" y2="{middle}"></line>\n'
        f"    {ticks}\n"
        f"    {dots}\n"
        f'    <circle class="strip-own" cx="{_x(standing.own)}" cy="{middle}" r="6"><title>this run: {_text(standing.own.text)}</title></circle>\n'
        "  </svg>\n"
        f'  <span class="standing-rank">{rank}</span>\n'
        "</div>\n"
    )
