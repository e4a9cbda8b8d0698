"""BALROG leaderboard submissions for the import, export and page tests: the real one
shipped in fixtures/balrog/, whole or cut down to a few tasks, and arena runs of BALROG
tasks stored as the runner stores them (the tasks need not be registered yet)."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from django.utils import timezone

from arena.metrics import fold
from arena.models import Episode, Run, Step, Submission

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "balrog" / "balrog_submission_llama-3.2-1b.tgz"
FOLDER = "LLM/20241030_naive-Llama-3.2-1B-Instruct"
GOTO = "babyai/BabyAI-MixedTrainLocal-v0/goto"
GOTO_RUN_00 = f"{GOTO}/BabyAI-MixedTrainLocal-v0/goto_run_00"


def unpack(target: Path, keep: tuple[str, ...] | None = None) -> Path:
    """The fixture unpacked under `target`; with `keep`, only the episodes under these
    folders (relative to the submission's folder) stay. The submission's folder."""
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(target, filter="data")
    folder = target / FOLDER
    if keep is not None:
        for run_file in list(folder.rglob("*_run_*.*")):
            relative = run_file.relative_to(folder).as_posix()
            if not any(relative.startswith(prefix + "/") for prefix in keep):
                run_file.unlink()
    return folder


def pack(folder: Path, archive_path: Path) -> Path:
    """A .tgz of a submission folder, under its LLM/VLM parent as in BALROG's repository."""
    with tarfile.open(archive_path, "w:gz") as archive:
        archive.add(folder, arcname=f"{folder.parent.name}/{folder.name}")
    return archive_path


def summary() -> dict:
    """The fixture's own summary.json."""
    with tarfile.open(FIXTURE) as archive:
        return json.load(archive.extractfile(f"{FOLDER}/summary.json"))


def played_run(
    submission: Submission, task: str, *, progress: list[float], fmt: str = "text", options=None, preset: bool = True
) -> Run:
    """A finished run of a BALROG task as the runner leaves it: one two-step episode per
    progress value, the first step an invalid output, progress folded into the run;
    planned under BALROG's paper preset (its settings and at least its episodes: a
    comparable run, arena.protocol) unless `preset` is False."""
    from envs.registry import all_tasks
    from tests.conftest import preset_episodes, preset_variant

    preset = preset and task in all_tasks()  # a task the arena does not play has no preset

    now = timezone.now()
    sums: dict = {}
    for value in progress:
        sums = fold(sums, {"progress": value})
    run = Run.objects.create(
        submission=submission, task=task,
        variant=preset_variant(task, fmt, options) if preset else {"format": fmt, "options": options or {}},
        num_episodes=max(len(progress), preset_episodes(task)) if preset else len(progress), status=Run.FINISHED, started_at=now, finished_at=now,
        episodes_done=len(progress), steps_total=2 * len(progress), illegal_total=len(progress),
        tokens_in=100 * len(progress), tokens_out=10 * len(progress), metric_sums=sums,
    )
    for index, value in enumerate(progress):
        episode = Episode.objects.create(
            run=run, index=index, seed=index, status=Episode.FINISHED, score=value / 100, num_steps=2,
            illegal_steps=1, tokens_in=100, tokens_out=10, end_reason="episode over",
            final_observation_text=f"the end of episode {index}", metrics={"progress": value},
        )
        Step.objects.create(
            episode=episode, index=0, observation_text="a wall 2 steps forward", completion="fly",
            parsed_action="fly", executed_action="go forward", legal=False,
        )
        Step.objects.create(
            episode=episode, index=1, observation_text="a ball 1 step forward", completion="pick up",
            parsed_action="pick up", executed_action="pick up", legal=True, reward=value / 100, done=True,
        )
    return run
