"""A BALROG leaderboard submission read and checked, nothing written: its summary.json,
metadata.yaml, per-environment summaries and episode files (arena.balrog_results.format)
gathered into runs by arena task and options, with the name and observation format the
imported submission will carry. A malformed file stops it with a message naming the file."""

from __future__ import annotations

import dataclasses

import yaml

from arena.balrog_results.files import MalformedSubmission, SubmissionFiles
from arena.balrog_results.format import (
    ENVIRONMENT_SUMMARY,
    RUN_FILE,
    EpisodeFile,
    check_figures,
    check_summary,
    load_json,
    read_episode,
)
from arena.balrog_results.reported import published_metadata
from envs.balrog.catalog import ArenaTask, Environment, UnknownTask, arena_task, environment_named


TEXT_FORMAT, IMAGE_FORMAT = "text", "rgb"
# BALROG's repository files submissions by mode: language only, or with images (VLM).
TEXT_MODE_FOLDER, IMAGE_MODE_FOLDER = "LLM", "VLM"


@dataclasses.dataclass
class ParsedRun:
    environment: Environment
    task: ArenaTask
    episodes: list[EpisodeFile]


@dataclasses.dataclass
class ParsedSubmission:
    name: str
    summary: dict
    agent: dict
    client: dict
    format: str
    runs: list[ParsedRun]  # empty: a folder of figures only
    folder: str = ""  # "LLM/20240924_naive-GPT4o": the mode folder and the submission's
    metadata: dict = dataclasses.field(default_factory=dict)


def display_name(name: str, agent_type: str) -> str:
    return f"{name} ({agent_type})" if agent_type else name


def _metadata(files: SubmissionFiles) -> dict:
    if not files.has("metadata.yaml"):
        return {}
    try:
        metadata = yaml.safe_load(files.read("metadata.yaml").decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise MalformedSubmission(f"{files.label}: metadata.yaml is not YAML ({exc})") from None
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise MalformedSubmission(f"{files.label}: metadata.yaml is not a mapping")
    return metadata


def _environment_of_path(path: str) -> Environment:
    try:
        return environment_named(path.split("/", 1)[0])
    except UnknownTask as exc:
        raise MalformedSubmission(f"{path}: {exc}") from None


def _check_environment_summaries(files: SubmissionFiles, environments: set[Environment]) -> None:
    for environment in environments:
        path = f"{environment.name}/{ENVIRONMENT_SUMMARY.format(environment=environment.name)}"
        if not files.has(path):
            continue
        summary = load_json(files.read(path), path)
        check_figures(summary, path)
        tasks = summary.get("tasks", {})
        if not isinstance(tasks, dict):
            raise MalformedSubmission(f"{path}: tasks is not an object")
        for task, figures in tasks.items():
            check_figures(figures if isinstance(figures, dict) else {}, path, f"tasks.{task}.")


def _episodes(files: SubmissionFiles) -> list[tuple[Environment, EpisodeFile]]:
    found = []
    for path in files.paths():
        if "/" not in path or not RUN_FILE.search(path):
            continue
        environment = _environment_of_path(path)
        csv_path = path.removesuffix(".json") + ".csv"
        csv_data = files.read(csv_path) if files.has(csv_path) else None
        episode = read_episode(path, files.read(path), csv_path, csv_data)
        found.append((environment, episode))
    return found


def parse_submission(files: SubmissionFiles) -> ParsedSubmission:
    """Every file read and checked; nothing written. No episode files: a submission of
    figures only (`ParsedSubmission.runs` empty)."""
    summary = load_json(files.read("summary.json"), "summary.json")
    check_summary(summary, "summary.json")
    metadata = _metadata(files)
    agent = summary.get("agent") if isinstance(summary.get("agent"), dict) else {}
    client = summary.get("client") if isinstance(summary.get("client"), dict) else {}
    runs: dict[tuple, ParsedRun] = {}
    for environment, episode in _episodes(files):
        try:
            task = arena_task(environment, episode.task)
        except UnknownTask as exc:
            raise MalformedSubmission(f"{episode.path}: {exc}") from None
        key = (task.task_id, tuple(sorted(task.options.items())))
        runs.setdefault(key, ParsedRun(environment, task, [])).episodes.append(episode)
    for environment_name in summary["environments"]:
        try:
            environment_named(environment_name)
        except UnknownTask as exc:
            raise MalformedSubmission(f"summary.json: {exc}") from None
    summarised = {environment_named(name) for name in summary["environments"]}
    _check_environment_summaries(files, {run.environment for run in runs.values()} | summarised)
    for run in runs.values():
        run.episodes.sort(key=lambda e: (e.number, e.path))
    images = files.mode_folder == IMAGE_MODE_FOLDER or whole_number(agent.get("max_image_history"), 0) > 0
    name = str(metadata.get("name") or client.get("model_id") or files.folder_name)
    return ParsedSubmission(
        name=display_name(name, str(agent.get("type") or "")),
        summary=summary,
        agent=agent,
        client=client,
        format=IMAGE_FORMAT if images else TEXT_FORMAT,
        runs=list(runs.values()),
        folder=_repository_folder(files),
        metadata=published_metadata(metadata),
    )


def _repository_folder(files: SubmissionFiles) -> str:
    """The folder's place under the repository's submissions/ ("LLM/<name>"), or its
    name alone when it was not read from under LLM/ or VLM/."""
    if files.mode_folder in (TEXT_MODE_FOLDER, IMAGE_MODE_FOLDER):
        return f"{files.mode_folder}/{files.folder_name}"
    return files.folder_name


def whole_number(value, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
