"""LMAct's experiment figures from the runs' aggregates: curves over the number of
demonstrations (one per model and prompt setting), each model's best run per task (LMAct
Fig. 2) and replay accuracy per step (LMAct Figs. A8–A13)."""

from __future__ import annotations
import dataclasses
from arena.models import Run
from envs.registry import tasks_of
from leaderboard.selectors.runs import scored_runs


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
    return _scaling_points(scored_runs(task_id).filter(variant__format=fmt).order_by("created_at", "id"))


def scaling_points_by_format(task_id: str) -> dict[str, tuple[dict[str, list[ScalingPoint]], dict[str, Run]]]:
    """`scaling_points` of each format the task's runs played, from one read of them
    (the task page draws one pair of charts per format)."""
    by_format: dict[str, list[Run]] = {}
    for run in scored_runs(task_id).order_by("created_at", "id"):
        by_format.setdefault(run.variant.get("format"), []).append(run)
    return {fmt: _scaling_points(runs) for fmt, runs in by_format.items()}


def _scaling_points(runs) -> tuple[dict[str, list[ScalingPoint]], dict[str, Run]]:
    curves: dict[str, list[ScalingPoint]] = {}
    baselines: dict[str, Run] = {}
    for run in runs:
        if run.submission.is_baseline:
            baselines[run.submission.policy] = run
            continue
        label = run.submission.model or run.submission.name
        flags = run.settings.prompt_flags()
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


def best_scores_by_task(suite: str) -> list[tuple[type, list[tuple[str, Run]], dict[str, Run]]]:
    """LMAct Fig. 2: per task, each model's best run over every setting (format,
    demonstrations, prompt flags), and the best baseline runs."""
    sections = []
    for task_id, cls in tasks_of(suite).items():
        best: dict[str, Run] = {}
        baselines: dict[str, Run] = {}
        for run in scored_runs(task_id):
            if run.settings.replay_control:
                continue  # a copying test, not a score
            target = baselines if run.submission.is_baseline else best
            key = run.submission.policy if run.submission.is_baseline else (run.submission.model or run.submission.name)
            if key not in target or (run.score_mean or 0) > (target[key].score_mean or 0):
                target[key] = run
        sections.append((cls, sorted(best.items(), key=lambda kv: -(kv[1].score_mean or 0)), baselines))
    return sections


def replay_rows(task_id: str, fmt: str) -> list[tuple[str, list[float], list[int]]]:
    """LMAct Figs. A8–A13: mean replay accuracy per step, one row per model."""
    return replay_rows_by_format(task_id).get(fmt, [])


def replay_rows_by_format(task_id: str) -> dict[str, list[tuple[str, list[float], list[int]]]]:
    """`replay_rows` of each format of the task, from one read of its replay runs."""
    by_format: dict[str, list] = {}
    runs = scored_runs(task_id).filter(experiment__kind="replay").order_by("created_at", "id")
    for run in runs:
        entry = run.metric_sums.get("replay_accuracy")
        if not entry:
            continue
        curve = [s / n for s, n in zip(entry["curve_sum"], entry["curve_n"])]
        by_format.setdefault(run.variant.get("format"), []).append(
            (run.submission.model or run.submission.name, curve, entry["curve_n"])
        )
    return by_format
