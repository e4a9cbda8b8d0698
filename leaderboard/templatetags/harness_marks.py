"""Template filters showing the harness a figure came from (leaderboard.boards.harness)."""

from __future__ import annotations

from django import template

from leaderboard.boards.harness import overall_row_harness, run_standing

register = template.Library()


@register.filter
def harness(run):
    """The run's envs.harness.Standing (None for a task no longer in the catalogue)."""
    return run_standing(run)


@register.filter
def row_harness(row):
    """The leaderboard.boards.harness.RowHarness of an overall row."""
    return overall_row_harness(row)
