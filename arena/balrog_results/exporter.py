"""A submission's BALROG runs in the layout of BALROG's leaderboard submissions, as a
.tgz: what `importer` reads, and what balrog-ai/experiments accepts.

Written: `<LLM|VLM>/<date>_<agent>-<name>/` with summary.json (BALROG's figures: per
environment the progress and standard error pooled over its tasks' episodes, and their
average, BALROG §3), metadata.yaml, README.md, and per environment its summary and one
run JSON + CSV per finished episode. Never written: the endpoint's address, keys or
signing secrets — the client is described by its provider, model and generation
settings only.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tarfile
from collections import Counter, defaultdict
from typing import BinaryIO

import yaml

from arena.storage import steptext
from arena.balrog_results.format import ENVIRONMENT_SUMMARY, StepRow, write_json, write_steps
from arena.balrog_results.importer import PROGRESS, RECORD, agent_type_of
from arena.balrog_results.parsing import IMAGE_MODE_FOLDER, TEXT_MODE_FOLDER
from arena.models import Episode, Run, Submission
from arena.variant import Variant
from arena.metrics import fold
from envs.balrog.babaisai import ALL_LEVELS
from envs.balrog.babaisai_levels import family_of_seed
from envs.balrog.catalog import (
    BABAISAI,
    BABAISAI_PREFIX,
    BABAISAI_TASK,
    ENVIRONMENTS,
    LEVEL_OPTION,
    Environment,
    Figure,
    average_figure,
    balrog_task,
    environment_of,
    pooled_figure,
)
from envs.core import IMAGE_FORMATS


# The level family a Baba Is AI episode played, among its metrics (envs.balrog.babaisai).
FAMILY_METRIC = "level"


@dataclasses.dataclass
class TaskEpisodes:
    """The finished episodes of one BALROG task ("BabyAI-MixedTrainLocal-v0/goto",
    "env/goto_win"), in the order they are written (run by run, episode by episode)."""

    name: str
    runs: list[Run] = dataclasses.field(default_factory=list)
    episodes: list[Episode] = dataclasses.field(default_factory=list)


def _run_task_names(run: Run) -> tuple[Environment, str | None] | None:
    """The environment of a run and BALROG's name of its task, the name None where each
    episode names its own: a Baba Is AI run over every level family (the seed picks the
    family, envs.balrog.babaisai) and an imported run the catalogue cannot name back."""
    environment = environment_of(run.task, run.options)
    if environment is None:
        return None
    if run.task == BABAISAI_TASK and run.options.get(LEVEL_OPTION, ALL_LEVELS) == ALL_LEVELS:
        return environment, None
    mapped = balrog_task(run.task, run.options)
    return environment, (mapped[1] if mapped else None)


def _episode_task_name(episode: Episode, environment: Environment) -> str | None:
    """BALROG's task of one episode of a run whose episodes name their own: what an
    imported one brought along, else (Baba Is AI) the level family it played."""
    metrics = episode.metrics or {}
    name = (metrics.get(RECORD) or {}).get("task")
    if isinstance(name, str) and name:
        return name
    if environment == BABAISAI:
        family = metrics.get(FAMILY_METRIC)
        if not isinstance(family, str) or not family:
            family = family_of_seed(episode.seed) if episode.seed is not None else ""
        return f"{BABAISAI_PREFIX}{family}" if family else None
    return None


def balrog_episodes(submission: Submission, runs=None) -> dict[Environment, dict[str, TaskEpisodes]]:
    """The submission's finished episodes of BALROG's tasks (of `runs`, a queryset of its
    runs, when given), by environment (in BALROG's order) and task."""
    found: dict[Environment, dict[str, TaskEpisodes]] = defaultdict(dict)
    runs = submission.runs.all() if runs is None else runs
    for run in runs.filter(episodes_done__gt=0).order_by("task", "id"):
        named = _run_task_names(run)
        if named is None:
            continue
        environment, name = named
        for episode in run.episodes.filter(status=Episode.FINISHED).order_by("index"):
            task_name = name or _episode_task_name(episode, environment)
            if task_name is None:
                continue
            task = found[environment].setdefault(task_name, TaskEpisodes(task_name))
            if not task.runs or task.runs[-1] != run:
                task.runs.append(run)
            task.episodes.append(episode)
    return {environment: found[environment] for environment in ENVIRONMENTS if environment in found}


def has_balrog_runs(submission: Submission, runs=None) -> bool:
    """Whether the submission (`runs` of it when given) has finished episodes of BALROG's
    environments to export."""
    # Values, not instances: each instance of `.only()` read a field left out again, one
    # query per run (60 queries on the model page of a submission that played every task).
    runs = (submission.runs.all() if runs is None else runs).filter(episodes_done__gt=0).values_list("task", "variant")
    return any(environment_of(task, Variant.from_dict(variant).options) for task, variant in runs)


def _figures(episodes: list[Episode]) -> dict:
    """BALROG's figures of these episodes' progress (BALROG §3), as the runs fold it."""
    sums: dict = {}
    for episode in episodes:
        sums = fold(sums, {PROGRESS: (episode.metrics or {}).get(PROGRESS)})
    figure = pooled_figure([sums.get(PROGRESS, {})])
    return {
        "progression_percentage": figure.mean,
        "standard_error": figure.stderr,
        "episodes_played": figure.episodes,
    }


def _agent(submission: Submission, images: bool) -> dict:
    return {
        "type": agent_type_of(submission),
        "remember_cot": submission.keep_reasoning,
        "max_history": submission.history_window,
        "max_image_history": 1 if images else 0,
    }


def _client(submission: Submission, runs: list[Run]) -> dict:
    # A paper-preset run samples with the preset's settings, not the submission's.
    temperature, max_tokens = (Variant.of(runs[0]) if runs else Variant()).generation(submission)
    return {
        "client_name": submission.provider,
        "model_id": submission.model or submission.name,
        "generate_kwargs": {"temperature": temperature, "max_tokens": max_tokens},
    }


@dataclasses.dataclass
class Trajectory:
    """An episode's steps as BALROG logs them."""

    rows: list[StepRow]
    invalid_outputs: list[str]  # BALROG's failed_candidates
    executed: Counter  # BALROG's action_frequency


def _trajectory(episode: Episode) -> Trajectory:
    """Each step as a CSV row with the observation that followed its action (the next
    step's, or the episode's final one)."""
    steps = list(
        episode.steps.order_by("index").values(
            "completion", "reasoning", "executed_action", "legal", "observation_text", "reward", "done"
        )
    )
    following = [step["observation_text"] for step in steps[1:]] + [episode.final_observation_text]
    rows = []
    for position, step in enumerate(steps):
        rows.append(
            StepRow(
                index=position, action=step["completion"] or step["executed_action"],
                reasoning=steptext.reasoning_restored(step["reasoning"], step["completion"]),
                observation=following[position] or "", reward=step["reward"], done=step["done"],
            )
        )
    return Trajectory(
        rows=rows,
        invalid_outputs=[step["completion"] for step in steps if not step["legal"]],
        executed=Counter(step["executed_action"] for step in steps),
    )


def _run_json(episode: Episode, task: str, trajectory: Trajectory, agent: dict, client: dict) -> dict:
    """BALROG's run JSON of an episode: what an imported one brought along, with the
    arena's own figures."""
    record = dict((episode.metrics or {}).get(RECORD) or {})
    rows = trajectory.rows
    return {
        **record,
        "task": task,
        "action_frequency": record.get("action_frequency", dict(trajectory.executed)),
        "input_tokens": episode.tokens_in,
        "output_tokens": episode.tokens_out,
        "done": record.get("done", rows[-1].done if rows else True),
        "episode_return": episode.score or 0.0,
        "num_steps": len(rows),
        "failed_candidates": record.get("failed_candidates", trajectory.invalid_outputs),
        "progression": float((episode.metrics or {}).get(PROGRESS, 0.0)) / 100.0,
        **({"seed": episode.seed} if episode.seed is not None else {}),
        "agent": record.get("agent", agent),
        "client": record.get("client", client),
    }


class _Archive:
    def __init__(self, archive: tarfile.TarFile, folder: str, mtime: float):
        self.archive, self.folder, self.mtime = archive, folder, mtime

    def add(self, path: str, data: bytes) -> None:
        info = tarfile.TarInfo(f"{self.folder}/{path}")
        info.size, info.mtime, info.mode = len(data), self.mtime, 0o644
        self.archive.addfile(info, io.BytesIO(data))


def _folder_name(submission: Submission, images: bool) -> str:
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", submission.model.rsplit("/", 1)[-1] or submission.name).strip("-")
    mode = IMAGE_MODE_FOLDER if images else TEXT_MODE_FOLDER
    return f"{mode}/{submission.created_at:%Y%m%d}_{agent_type_of(submission)}-{slug or submission.pk}"


def _first_record(runs: list[Run]) -> dict:
    """What the first imported episode brought along (empty for episodes played here)."""
    metrics = Episode.objects.filter(run__in=runs, status=Episode.FINISHED).values_list("metrics", flat=True).first()
    return (metrics or {}).get(RECORD) or {}


def _export_environment(out: _Archive, environment: Environment, tasks: dict[str, TaskEpisodes], agent, client) -> dict:
    """Write one environment's episodes and summary; its summary as a dict."""
    summary = {**_figures([episode for task in tasks.values() for episode in task.episodes]), "tasks": {}}
    steps = tokens_in = tokens_out = episodes = 0
    for name, task in tasks.items():
        summary["tasks"][name] = _figures(task.episodes)
        for number, episode in enumerate(task.episodes):
            trajectory = _trajectory(episode)
            stem = f"{environment.name}/{name}/{name}_run_{number:02d}"
            out.add(f"{stem}.json", write_json(_run_json(episode, name, trajectory, agent, client)))
            out.add(f"{stem}.csv", write_steps(trajectory.rows))
            steps += len(trajectory.rows)
            tokens_in += episode.tokens_in
            tokens_out += episode.tokens_out
            episodes += 1
    summary["average_steps"] = steps / episodes if episodes else 0.0
    summary["input_tokens"], summary["output_tokens"] = tokens_in, tokens_out
    out.add(f"{environment.name}/{ENVIRONMENT_SUMMARY.format(environment=environment.name)}", write_json(summary))
    return summary


def balrog_submission_export(submission: Submission, stream: BinaryIO, runs=None) -> str:
    """Write the submission's BALROG runs (those of `runs` when given) as a .tgz to
    `stream`; the folder's name."""
    environments = balrog_episodes(submission, runs)
    runs = [run for tasks in environments.values() for task in tasks.values() for run in task.runs]
    images = any(run.format in IMAGE_FORMATS for run in runs)
    folder = _folder_name(submission, images)
    imported = _first_record(runs) if submission.is_imported else {}
    agent = imported.get("agent") or _agent(submission, images)
    client = imported.get("client") or _client(submission, runs)
    with tarfile.open(fileobj=stream, mode="w:gz") as archive:
        out = _Archive(archive, folder, submission.created_at.timestamp())
        summaries = {
            environment.name: _export_environment(out, environment, tasks, agent, client)
            for environment, tasks in environments.items()
        }
        average = average_figure(
            Figure(s["progression_percentage"], s["standard_error"], s["episodes_played"]) for s in summaries.values()
        )
        summary = {
            "average_progress": average.mean,
            "standard_error": average.stderr,
            "environments": {
                name: {key: figures[key] for key in ("progression_percentage", "standard_error", "episodes_played")}
                for name, figures in summaries.items()
            },
            "total_input_tokens": sum(s["input_tokens"] for s in summaries.values()),
            "total_output_tokens": sum(s["output_tokens"] for s in summaries.values()),
            "client": client,
            "agent": agent,
        }
        out.add("summary.json", write_json(summary))
        out.add("metadata.yaml", _metadata(submission, agent))
        out.add("README.md", _readme(submission).encode("utf-8"))
    return folder


def _metadata(submission: Submission, agent: dict) -> bytes:
    """metadata.yaml: the name BALROG's leaderboard shows (an imported submission's own,
    without the agent the import added to it)."""
    name = submission.name.removesuffix(f" ({agent.get('type', '')})") if submission.is_imported else submission.name
    metadata = {"name": name, "date": f"{submission.created_at:%Y-%m-%d}", "trajs": True}
    return yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True).encode("utf-8")


def _readme(submission: Submission) -> str:
    return (
        f"# {submission.name}\n\n"
        f"Exported from the arena in the layout of BALROG's leaderboard submissions ({submission.strategy_label}): "
        "one run JSON and one step CSV per finished episode. Progress and standard errors are computed as BALROG "
        "does (BALROG §3): per environment over the pooled episodes of its tasks (population standard deviation "
        "/ √N), and overall the mean of the environments with √(Σ SE²) / n.\n"
    )
