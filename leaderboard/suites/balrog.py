"""Read side of the BALROG suite page: BALROG's leaderboard (BALROG §3, "Evaluation"),
one row per submission and one column per environment.

A cell is the progress ± standard error over the pooled episodes of the submission's
runs of that environment's tasks, as BALROG computes it (envs.balrog.catalog); the
average is the mean of the environments' figures. The numbers come from the runs'
folded progress (Run.metric_sums); episodes and steps are never read.

Imported submissions (results played elsewhere) have a section of their own and no
rank, unless the page is asked to rank them with the arena's own submissions. Runs
played with custom settings rather than BALROG's preset (arena.protocol) make rows of
a table of their own, never ranked against the preset's. A folder
of BALROG's repository imported without trajectories (Submission.balrog_figures_only)
has no runs: its row shows the figures its summary.json reports, with nothing to replay.

The VLM board's average is over the environments with an image mode
(IMAGE_MODE_ENVIRONMENTS), as BALROG's VLM leaderboard and its submissions' summaries
average: TextWorld is text only.
"""

from __future__ import annotations

import dataclasses
import re

from arena.models import Run, Submission
from arena.protocol import IMPORTED, RowProtocol, is_comparable, row_protocol
from envs.balrog.catalog import (
    ENVIRONMENTS,
    IMAGE_MODE_ENVIRONMENTS,
    NO_EPISODES,
    Environment,
    Figure,
    environment_of,
)
from envs.registry import tasks_of
from envs.suite import Suite
from leaderboard.boards.cells import episodes_url, grouped, mean_of, pooled_runs
from leaderboard.boards.harness import without_superseded
from leaderboard.selectors.runs import lean_suite_runs
from leaderboard.selectors.submissions import figures_only_submissions

# BALROG's two leaderboards: language only, and with images (a run in an image format).
MODES = {"llm": "LLM", "vlm": "VLM"}


@dataclasses.dataclass
class Cell:
    environment: Environment
    figure: Figure
    runs: list[Run]
    url: str  # the episodes behind the figure: the run's page, or a list of the runs' episodes


@dataclasses.dataclass
class Row:
    submission: Submission
    cells: list[Cell]  # in BALROG's order of environments, one per environment
    average: Figure
    tokens_in: int | None  # None: not reported (a submission of figures only)
    tokens_out: int | None
    # Whether the average is BALROG's overall figure: every environment of the mode
    # played (six for LLM, the five with an image mode for VLM; "partial" otherwise),
    # or the figure a submission of figures only reports.
    complete: bool
    rank: int | None = None
    figures_only: bool = False  # the figures summary.json reports; no episode to replay
    listing: Listing | None = None  # BALROG's metadata.yaml, for an imported row
    protocol: RowProtocol | None = None  # the protocol its runs were played under

    @property
    def environments_played(self) -> int:
        return sum(1 for cell in self.cells if cell.figure.episodes)

    @property
    def played_titles(self) -> list[str]:
        return [cell.environment.title for cell in self.cells if cell.figure.episodes]


@dataclasses.dataclass
class Board:
    mode: str
    ranked: list[Row]  # the arena's own submissions (and the imported ones when asked)
    imported: list[Row]  # imported submissions, in a section of their own
    # The arena's own runs with custom settings (not BALROG's preset): apart, unranked.
    custom: list[Row] = dataclasses.field(default_factory=list)


# Where a folder of BALROG's leaderboard repository is published (its default branch).
REPOSITORY_FOLDER_URL = "https://github.com/balrog-ai/experiments/tree/main/submissions/{folder}"
# metadata.yaml names no organisation; BALROG's site shows the logo at org_logo, a
# GitHub account's picture (github.com/<account>.png): that account is the organisation.
GITHUB_LOGO = re.compile(r"\Ahttps://github\.com/(?P<account>[A-Za-z0-9-]{1,39})\.png(\?.*)?\Z")


@dataclasses.dataclass(frozen=True)
class Listing:
    """What BALROG's site shows beside an imported row, from its metadata.yaml."""

    organisation: str
    date: str
    verified: bool
    links: list[tuple[str, str]]  # (label, address)


def listing_of(submission: Submission) -> Listing | None:
    """The row's BALROG listing; None for a submission not imported from BALROG."""
    metadata, folder = submission.balrog_metadata or {}, submission.balrog_folder
    if not metadata and not folder:
        return None
    logo = GITHUB_LOGO.match(str(metadata.get("org_logo") or ""))
    links = []
    site = metadata.get("site")
    if isinstance(site, str) and site.startswith(("https://", "http://")):
        links.append(("site", site))
    if folder.startswith(("LLM/", "VLM/")):
        links.append(("folder", REPOSITORY_FOLDER_URL.format(folder=folder)))
    return Listing(
        organisation=logo.group("account") if logo else "",
        date=str(metadata.get("date") or ""),
        verified=metadata.get("verified") is True,
        links=links,
    )


def required_environments(mode: str) -> tuple[Environment, ...]:
    """The environments a row of this mode needs for BALROG's average."""
    return IMAGE_MODE_ENVIRONMENTS if mode == "vlm" else ENVIRONMENTS


def _row(suite: Suite, submission: Submission, runs: list[Run], mode: str) -> Row:
    by_environment = grouped(runs, lambda run: environment_of(run.task, run.options))
    cells = []
    for environment in ENVIRONMENTS:
        behind = by_environment.get(environment, [])
        cells.append(Cell(environment, pooled_runs(behind, suite), behind, episodes_url(suite, behind) if behind else ""))
    played = {cell.environment for cell in cells if cell.figure.episodes}
    return Row(
        submission=submission,
        protocol=row_protocol(runs),
        cells=cells,
        average=mean_of(cell.figure for cell in cells) if runs else NO_EPISODES,
        tokens_in=sum(run.tokens_in for run in runs),
        tokens_out=sum(run.tokens_out for run in runs),
        complete=set(required_environments(mode)) <= played,
        listing=listing_of(submission) if submission.is_imported else None,
    )


def _reported_row(submission: Submission) -> Row:
    """A submission of figures only: its summary.json's figures, as BALROG's site shows
    them (Submission.balrog_reported)."""
    reported = submission.balrog_reported
    environments = reported.get("environments", {})
    cells = []
    for environment in ENVIRONMENTS:
        figures = environments.get(environment.name)
        figure = (
            Figure(figures["progression_percentage"], figures["standard_error"], figures["episodes_played"])
            if figures else NO_EPISODES
        )
        cells.append(Cell(environment, figure, [], ""))
    return Row(
        submission=submission,
        cells=cells,
        average=Figure(reported["average_progress"], reported["standard_error"], sum(c.figure.episodes for c in cells)),
        tokens_in=reported.get("total_input_tokens"),
        tokens_out=reported.get("total_output_tokens"),
        complete=True,
        figures_only=True,
        listing=listing_of(submission),
        # Played under BALROG's own harness, with the generation its summary.json names.
        protocol=RowProtocol(
            IMPORTED, (submission.temperature,), (submission.max_tokens,), (), (submission.lenient_parsing,), ()
        ),
    )


def _order(rows: list[Row], ranked_kinds: tuple[str, ...]) -> list[Row]:
    """Rows with BALROG's average first (every environment of the mode played), then
    more environments played (an average over fewer is not comparable), then the higher
    average. Only submissions of `ranked_kinds` get a rank: baselines are reference
    rows, and imported results rank only when asked."""
    rows = sorted(
        rows,
        key=lambda row: (
            not row.complete, 0 if row.complete else -row.environments_played, -(row.average.mean or 0.0),
            row.submission.pk,
        ),
    )
    rank = 0
    for row in rows:
        if row.submission.kind in ranked_kinds:
            rank += 1
            row.rank = rank
    return rows


def arena_tasks(suite: Suite) -> dict[Environment, list[str]]:
    """The suite's registered tasks by BALROG environment: an environment without any
    still has a column (imported results fill it)."""
    tasks: dict[Environment, list[str]] = {environment: [] for environment in ENVIRONMENTS}
    for task_id in tasks_of(suite.id):
        environment = environment_of(task_id)
        if environment is not None:
            tasks[environment].append(task_id)
    return tasks


def board(suite: Suite, *, mode: str, rank_imported: bool = False) -> Board:
    """The leaderboard of one mode ("llm" or "vlm"). With `rank_imported`, imported
    submissions are ranked with the arena's own instead of listed apart."""
    # A submission's runs under BALROG's preset and its custom runs are two rows.
    by_submission: dict[tuple[int, bool], list[Run]] = {}
    for run in without_superseded(lean_suite_runs(suite.id, images=mode == "vlm")):
        if environment_of(run.task, run.options) is not None:
            by_submission.setdefault((run.submission_id, is_comparable(run)), []).append(run)
    rows, custom = [], []
    for (_, comparable), submission_runs in by_submission.items():
        (rows if comparable else custom).append(_row(suite, submission_runs[0].submission, submission_runs, mode))
    rows += [_reported_row(submission) for submission in figures_only_submissions(mode)]
    custom = _order(custom, ())
    if rank_imported:
        return Board(mode, _order(rows, (Submission.KIND_MODEL, Submission.KIND_IMPORTED)), [], custom)
    own = [row for row in rows if not row.submission.is_imported]
    imported = [row for row in rows if row.submission.is_imported]
    return Board(mode, _order(own, (Submission.KIND_MODEL,)), _order(imported, ()), custom)
