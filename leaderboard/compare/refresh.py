"""The paired comparisons someone looked at, computed again when one of their runs
changes, on the write side's time rather than the next visitor's.

The write side announces each committed episode end (arena.services.episodes
.run_results_changed, sent after the commit by the process that finished it: a worker).
For every game of the run that the comparison page computed lately
(leaderboard.compare.summaries.compared_pairs), its summary is computed from the runs as
they now are, by the same code and under the same cache key as a page would, and kept:
the next visit reads it instead of resampling (bench/read_pages.py, "compare
submissions, after a change"). A game nobody compared is left to its first visit.
"""

from __future__ import annotations

from leaderboard.compare.submissions import suite_for
from leaderboard.compare.summaries import compared_pairs, game_summaries
from leaderboard.selectors.runs import runs_by_id


def refresh_compared(sender=None, *, run_id: int, **kwargs) -> int:
    """Compute and keep the summaries of the compared games `run_id` is part of; the
    number of games looked at (those already current cost a cache read)."""
    pairs = compared_pairs(run_id)
    if not pairs:
        return 0
    # A taken-down run is in no comparison a page shows (runs_with_results): its games
    # are not worth the resampling.
    runs = runs_by_id({pk for pair in pairs for pk in pair}, taken_down=False)
    games = [
        (suite_for(runs[a].task).primary_metric, runs[a], runs[b])
        for a, b in pairs
        if a in runs and b in runs and suite_for(runs[a].task) is not None
    ]
    game_summaries(games)
    return len(games)
