"""Reads for the leaderboard pages and API. Numbers come from the aggregates kept on
`Run` (updated when episodes finish), never from scanning steps."""

from __future__ import annotations

import dataclasses

from arena.models import Run
from envs.registry import all_tasks


@dataclasses.dataclass
class LeaderboardRow:
    rank: int | None
    run: Run

    @property
    def submission(self):
        return self.run.submission


def _scored_runs(task_id: str | None = None):
    runs = Run.objects.select_related("submission").filter(episodes_done__gt=0)
    if task_id:
        runs = runs.filter(task=task_id)
    return runs


def leaderboard_rows(task_id: str) -> list[LeaderboardRow]:
    """Model runs ranked by mean score (ties: more episodes first); baselines unranked
    reference rows, placed by their score."""
    runs = sorted(
        _scored_runs(task_id),
        key=lambda r: (-(r.score_mean or 0.0), -r.episodes_done, r.pk),
    )
    rows, rank = [], 0
    for run in runs:
        if run.submission.is_baseline:
            rows.append(LeaderboardRow(rank=None, run=run))
        else:
            rank += 1
            rows.append(LeaderboardRow(rank=rank, run=run))
    return rows


def leaderboard_by_task() -> list[tuple[type, list[LeaderboardRow]]]:
    runs_by_task: dict[str, list[Run]] = {}
    for run in _scored_runs():
        runs_by_task.setdefault(run.task, []).append(run)
    sections = []
    for task_id, cls in sorted(all_tasks().items()):
        sections.append((cls, leaderboard_rows(task_id) if task_id in runs_by_task else []))
    return sections


@dataclasses.dataclass
class ScalingPoint:
    label: str
    num_demonstrations: int
    score_mean: float
    score_stderr: float | None
    illegal_rate: float | None
    episodes: int


def scaling_points(task_id: str, fmt: str) -> tuple[dict[str, list[ScalingPoint]], dict[str, Run]]:
    """Model runs of one task/format grouped into curves over the number of
    demonstrations (one curve per model and prompt setting), and the baseline runs."""
    curves: dict[str, list[ScalingPoint]] = {}
    baselines: dict[str, Run] = {}
    for run in _scored_runs(task_id).filter(variant__format=fmt).order_by("created_at"):
        if run.submission.is_baseline:
            baselines[run.submission.policy] = run
            continue
        variant = run.variant
        label = run.submission.model or run.submission.name
        flags = []
        if variant.get("chain_of_thought"):
            flags.append("CoT")
        if not variant.get("show_legal_actions", True):
            flags.append("no legal list")
        if flags:
            label += f" ({', '.join(flags)})"
        curves.setdefault(label, []).append(
            ScalingPoint(
                label=label,
                num_demonstrations=run.num_demonstrations,
                score_mean=run.score_mean,
                score_stderr=run.score_stderr,
                illegal_rate=run.illegal_rate,
                episodes=run.episodes_done,
            )
        )
    for points in curves.values():
        points.sort(key=lambda p: p.num_demonstrations)
    return curves, baselines
