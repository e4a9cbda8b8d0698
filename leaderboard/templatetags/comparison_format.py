"""Numbers of the paired comparison, in the metric's precision (envs.suite.Metric.digits)."""

from django import template

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
