"""Numbers of the paired comparison, in the metric's precision (envs.suite.Metric.digits),
and its per-seed rows written in Python (`seed_rows`)."""

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def signed(value, digits=2):
    """A difference with its sign ("+0.25", "−1.00"), or an em dash for None."""
    if value is None:
        return "—"
    text = f"{(0.0 if value == 0 else value):+.{int(digits)}f}"
    return text.replace("-", "−")


@register.filter
def fixed(value, digits=2):
    """A value in fixed precision, or an em dash for None (an episode without a value)."""
    if value is None:
        return "—"
    return f"{value:.{int(digits)}f}"


@register.filter
def interval(bounds, digits=2):
    """A 95 % interval as "[low, high]"."""
    if not bounds:
        return "—"
    low, high = bounds
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


@register.filter
def outcome_of(pairing, pair):
    """"win", "tie", "loss" (for A, in the metric's direction) or "missing"."""
    return pairing.outcome(pair.difference)


@register.simple_tag
def seed_rows(pairing) -> SafeString:
    """The rows of one game's per-seed table, as the template's loop wrote them: a
    comparison of two submissions that played every task lists some 6,000 seeds, and the
    template language spent 2.5 s of CPU on them at 10^5 episodes (bench/read_pages.py);
    tests/leaderboard/compare/test_paired_comparison.py holds them to that loop."""
    digits = pairing.metric.digits
    # One reversal, its two ids replaced per row (reverse per row was a tenth of the rows).
    pattern = reverse("leaderboard:compare", args=[1, 2]).replace("/1/", "/{a}/", 1).replace("/2/", "/{b}/", 1)
    rows = []
    for pair in pairing.pairs:
        outcome = escape(pairing.outcome(pair.difference))
        link = escape(pattern.format(a=pair.a.episode_id, b=pair.b.episode_id))
        rows.append(
            "\n      <tr>\n"
            f'        <td class="num">{escape(pair.seed)}</td>\n'
            f'        <td class="num">{escape(fixed(pair.a.value, digits))}</td>\n'
            f'        <td class="num">{escape(fixed(pair.b.value, digits))}</td>\n'
            f'        <td class="num">{escape(signed(pair.difference, digits))}</td>\n'
            f'        <td><span class="outcome outcome-{outcome}">{outcome}</span></td>\n'
            f'        <td><a class="seed-replay" href="{link}">side by side</a></td>\n'
            "      </tr>\n    "
        )
    return mark_safe("".join(rows))
