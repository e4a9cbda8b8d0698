"""BALROG's result files, read with every number checked and written back the same way
(balrog-ai/BALROG, evaluator: one JSON per episode and one CSV of its steps).

An episode's CSV has one row per step: the action the model output, its reasoning, the
observation that followed, the reward and whether the episode ended. When the output
was not a valid action, BALROG executed the default action and the observation opens
with a line saying so (BALROG §3) — older logs keep that line in the CSV, newer ones
only list the outputs in the run JSON's `failed_candidates`.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re

from arena.balrog_results.files import MalformedSubmission

CSV_COLUMNS = ("Step", "Action", "Reasoning", "Observation", "Reward", "Done")
RUN_FILE = re.compile(r"_run_(?P<number>\d+)\.json$")
ENVIRONMENT_SUMMARY = "{environment}_summary.json"
# BALROG's feedback after an invalid output, at the start of the next observation.
INVALID_ACTION = re.compile(
    r"\A\s*Your previous output action: '(?P<output>.*?)' is not a valid action\. "
    r"Defaulted to action: (?P<executed>[^\n]*)",
    re.DOTALL,
)
# Fields of a run JSON kept in the arena's own columns (episode and steps), and those
# never kept: the worker process that played it.
EPISODE_COLUMNS = ("input_tokens", "output_tokens", "num_steps", "seed", "episode_return", "progression")
DROPPED = ("process_num",)
# What may not leave the machine that played: the endpoint's address and any credential.
SECRET_CLIENT_KEY = re.compile(r"url|key|secret|token|password|header", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class StepRow:
    index: int
    action: str
    reasoning: str
    observation: str
    reward: float
    done: bool

    @property
    def invalid_feedback(self) -> re.Match | None:
        """BALROG's invalid-action line, when this step's output was not a valid action."""
        return INVALID_ACTION.match(self.observation)


@dataclasses.dataclass(frozen=True)
class EpisodeFile:
    """One episode: its run JSON (checked) and its steps."""

    path: str
    number: int  # the NN of `_run_NN`
    task: str
    seed: int | None  # None: the run JSON logs none (older BALROG versions)
    progression: float  # 0–1
    episode_return: float
    done: bool
    input_tokens: int
    output_tokens: int
    failed_candidates: list
    # What else the JSON holds (mission, achievements, agent, client without its
    # address…), kept with the episode so that an export writes it back.
    record: dict
    steps: list[StepRow]
    num_steps: int = 0  # what the run JSON says (the CSV's rows, when it is there)
    # What the submission does not hold for this episode (SEED_NOT_LOGGED, NO_TRAJECTORY).
    gaps: tuple[str, ...] = ()

    @property
    def illegal_steps(self) -> int:
        """Invalid outputs: the steps the CSV marks with BALROG's line, or the outputs the
        JSON lists, whichever counts more (newer logs mark no step)."""
        marked = sum(1 for row in self.steps if row.invalid_feedback)
        return max(marked, len(self.failed_candidates))


def load_json(data: bytes, path: str) -> dict:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedSubmission(f"{path}: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise MalformedSubmission(f"{path}: not a JSON object")
    return value


def number(value, path: str, field: str, *, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise MalformedSubmission(f"{path}: {field} is {value!r}, not a number")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"from {low:g} to {high:g}" if high is not None else f"at least {low:g}"
        raise MalformedSubmission(f"{path}: {field} is {value!r}, out of range ({bounds})")
    return float(value)


def count(value, path: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedSubmission(f"{path}: {field} is {value!r}, not a count (a whole number ≥ 0)")
    return value


def without_secrets(client: dict) -> dict:
    """A run's client settings without the endpoint's address or any credential."""
    return {key: value for key, value in client.items() if not SECRET_CLIENT_KEY.search(key)}


def read_steps(data: bytes, path: str) -> list[StepRow]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedSubmission(f"{path}: not UTF-8 text ({exc})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if reader.fieldnames is None or sorted(reader.fieldnames) != sorted(CSV_COLUMNS):
        raise MalformedSubmission(
            f"{path}: the columns are {', '.join(reader.fieldnames or ['none'])}; "
            f"a BALROG trajectory has {', '.join(CSV_COLUMNS)}"
        )
    rows = []
    try:
        for line, row in enumerate(reader, start=2):
            if None in row or any(value is None for value in row.values()):
                raise MalformedSubmission(f"{path}, line {line}: not one value per column")
            rows.append(_step_row(row, len(rows), f"{path}, line {line}"))
    except csv.Error as exc:
        raise MalformedSubmission(f"{path}: not CSV ({exc})") from None
    return rows


def _step_row(row: dict, expected_index: int, where: str) -> StepRow:
    if row["Step"].strip() != str(expected_index):
        raise MalformedSubmission(f"{where}: Step is {row['Step']!r}, expected {expected_index}")
    try:
        reward = float(row["Reward"])
    except ValueError:
        raise MalformedSubmission(f"{where}: Reward is {row['Reward']!r}, not a number") from None
    if not math.isfinite(reward):
        raise MalformedSubmission(f"{where}: Reward is {row['Reward']!r}, not a finite number")
    if row["Done"] not in ("True", "False"):
        raise MalformedSubmission(f"{where}: Done is {row['Done']!r}, not True or False")
    return StepRow(
        index=expected_index, action=row["Action"], reasoning=row["Reasoning"], observation=row["Observation"],
        reward=reward, done=row["Done"] == "True",
    )


# What a real submission may lack for an episode; the episode is imported all the same
# (it counts in the figures, as in the submission's summary) and says what it lacks.
SEED_NOT_LOGGED = "seed not logged"
NO_TRAJECTORY = "no trajectory"


def read_episode(json_path: str, json_data: bytes, csv_path: str, csv_data: bytes | None) -> EpisodeFile:
    """One episode from its run JSON and its CSV. Older BALROG versions log no seed, and
    some submissions keep a run JSON without its CSV: such an episode is read with what
    is there and its gaps named (`EpisodeFile.gaps`)."""
    run = load_json(json_data, json_path)
    missing = [field for field in ("task", "progression", "num_steps") if field not in run]
    if missing:
        raise MalformedSubmission(f"{json_path}: no {', '.join(missing)}")
    if not isinstance(run["task"], str) or not run["task"]:
        raise MalformedSubmission(f"{json_path}: task is {run['task']!r}, not a task name")
    gaps = []
    seed = run.get("seed")
    if seed is None:
        gaps.append(SEED_NOT_LOGGED)
    elif isinstance(seed, bool) or not isinstance(seed, int):
        raise MalformedSubmission(f"{json_path}: seed is {seed!r}, not a whole number")
    failed = run.get("failed_candidates", [])
    if not isinstance(failed, list):
        raise MalformedSubmission(f"{json_path}: failed_candidates is not a list")
    num_steps = count(run["num_steps"], json_path, "num_steps")
    if csv_data is None:
        gaps.append(NO_TRAJECTORY)
        steps = []
    else:
        steps = read_steps(csv_data, csv_path)
        if num_steps != len(steps):
            raise MalformedSubmission(f"{json_path}: num_steps is {num_steps} but {csv_path} has {len(steps)} steps")
    record = {key: value for key, value in run.items() if key not in EPISODE_COLUMNS + DROPPED}
    if isinstance(record.get("client"), dict):
        record["client"] = without_secrets(record["client"])
    return EpisodeFile(
        path=json_path,
        number=int(RUN_FILE.search(json_path).group("number")),
        task=run["task"],
        seed=seed,
        progression=number(run["progression"], json_path, "progression", low=0, high=1),
        episode_return=number(run.get("episode_return", 0.0), json_path, "episode_return"),
        done=bool(run.get("done", True)),
        input_tokens=count(run.get("input_tokens", 0), json_path, "input_tokens"),
        output_tokens=count(run.get("output_tokens", 0), json_path, "output_tokens"),
        failed_candidates=failed,
        record=record,
        steps=steps,
        num_steps=num_steps,
        gaps=tuple(gaps),
    )


def check_summary(summary: dict, path: str) -> None:
    """summary.json: the environments' figures and the average, each within range."""
    environments = summary.get("environments")
    if not isinstance(environments, dict) or not environments:
        raise MalformedSubmission(f"{path}: no environments")
    for name, figures in environments.items():
        if not isinstance(figures, dict):
            raise MalformedSubmission(f"{path}: environments.{name} is not an object")
        check_figures(figures, path, f"environments.{name}.")
    number(summary.get("average_progress"), path, "average_progress", low=0, high=100)
    number(summary.get("standard_error"), path, "standard_error", low=0)


def check_figures(figures: dict, path: str, prefix: str = "") -> None:
    number(figures.get("progression_percentage"), path, f"{prefix}progression_percentage", low=0, high=100)
    number(figures.get("standard_error"), path, f"{prefix}standard_error", low=0)
    count(figures.get("episodes_played"), path, f"{prefix}episodes_played")


# -- writing -------------------------------------------------------------------------


def csv_number(value: float) -> str:
    """A reward as BALROG's CSVs show it: 0, 1, 0.037."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_steps(rows: list[StepRow]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([row.index, row.action, row.reasoning, row.observation, csv_number(row.reward), str(row.done)])
    return out.getvalue().encode("utf-8")


def write_json(value: dict) -> bytes:
    return json.dumps(value, indent=4, ensure_ascii=False).encode("utf-8")
