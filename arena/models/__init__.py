"""The write side's data: submissions, runs, episodes, steps and stored images.

Leaderboard numbers are aggregates kept on `Run` and updated when an episode finishes
(docs/design.md §3 "Data volume"), so pages never scan steps.

One module per thing a reader looks for: who is evaluated (submissions.py), what was
asked of it (runs.py), what playing left behind (episodes.py) and the operators' marks
(moderation.py). Everything is imported from here, `arena.models`, as Django expects.
"""

from arena.models.moderation import ModerationAction, Moderated
from arena.models.submissions import CACHE_WRITE_PRICE_FACTOR, Submission, SubmissionEdit
from arena.models.runs import Experiment, Run
from arena.models.episodes import Episode, EpisodeSnapshot, Step, StoredImage, Worker

# Head-to-head matches live in their own room; imported here so Django registers them.
from arena.matches.models import Match, MatchMove  # noqa: E402

__all__ = [
    "CACHE_WRITE_PRICE_FACTOR", "Episode", "EpisodeSnapshot", "Experiment", "Match", "MatchMove",
    "ModerationAction", "Moderated", "Run", "Step", "StoredImage", "Submission", "SubmissionEdit", "Worker",
]
