"""Import a BALROG leaderboard submission (a folder or .tgz of balrog-ai/experiments'
`submissions/<LLM|VLM>/<date>_<name>/`) as a submission of kind "imported".

Every episode becomes a finished episode of the arena, with its steps from the CSV, so
that it replays in the player and counts in every aggregate as if it had been played
here: one run per task and options, progress (BALROG §3) as the per-episode metric
"progress" from 0 to 100, steps, invalid outputs and tokens. Nothing is queued.

Real submissions are messy: older BALROG versions log no seed in a run's JSON, and some
submissions keep a run's JSON without its CSV (an episode counted in the summary whose
trajectory was not kept). Such an episode is imported with what is there — it counts in
every figure, so the figures still reproduce `summary.json` — and says what it lacks in
its metrics (`GAPS`: "seed not logged", "no trajectory"); its seed is then unknown
(None) and it has no steps.

A folder without trajectories (BALROG's repository holds many: summary.json, metadata.yaml
and a README only) is imported as its reported figures alone: a submission with no runs,
`balrog_figures_only`, whose leaderboard row shows summary.json's average and
environments with their standard errors (leaderboard.suites.balrog) and says there is
nothing to replay. Every imported submission keeps its folder, metadata.yaml and
summary.json's figures (`Submission.balrog_*`).

The whole folder is read and checked first; a malformed file stops the import with a
message naming it, and the database is written in one transaction. Importing the same
files twice finds the first import by its fingerprint and changes nothing. A folder of
the repository is one row: its figures alone give way to the same folder imported with
its trajectories, and never replace it.
"""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.utils import timezone

from arena.balrog_results.files import SubmissionFiles
from arena.balrog_results.reported import reported_figures
from arena.balrog_results.format import EpisodeFile
from arena.balrog_results.parsing import (
    IMAGE_FORMAT,
    ParsedRun,
    ParsedSubmission,
    parse_submission,
    whole_number,
)
from arena.metrics import fold
from arena.models import Episode, Run, Step, Submission
from envs.harness import IMPORTED

SOURCE = "BALROG leaderboard"
# Where each episode keeps what its run JSON says beyond the arena's columns.
RECORD = "balrog_record"
# Where an episode says what the submission does not hold for it.
GAPS = "balrog_gaps"
PROGRESS = "progress"
STEP_BATCH = 2_000


@dataclasses.dataclass(frozen=True)
class ImportResult:
    submission: Submission
    created: bool  # False: these files had been imported already
    runs: int
    episodes: int
    steps: int
    # How many episodes lack each thing ("seed not logged": 12, …).
    gaps: dict = dataclasses.field(default_factory=dict)


def agent_type_of(submission: Submission) -> str:
    """BALROG's name of the agent a submission's strategy is (naive, cot, robust_naive,
    robust_cot)."""
    kind = "cot" if submission.chain_of_thought else "naive"
    return f"robust_{kind}" if submission.answer_markers else kind


def _submission(parsed: ParsedSubmission, fingerprint: str) -> Submission:
    agent_type = str(parsed.agent.get("type") or "naive")
    generation = parsed.client.get("generate_kwargs") if isinstance(parsed.client.get("generate_kwargs"), dict) else {}
    temperature = generation.get("temperature", 0.0)
    return Submission.objects.create(
        name=parsed.name[:100],
        kind=Submission.KIND_IMPORTED,
        source=SOURCE,
        import_fingerprint=fingerprint,
        model=str(parsed.client.get("model_id") or "")[:200],
        temperature=float(temperature) if isinstance(temperature, int | float) else 0.0,
        max_tokens=max(1, whole_number(generation.get("max_tokens"), 2048)),
        chain_of_thought="cot" in agent_type,
        answer_markers=agent_type.startswith("robust"),
        history_window=max(1, whole_number(parsed.agent.get("max_history"), 16)),
        # BALROG's remember_cot only matters to its chain-of-thought agents.
        keep_reasoning="cot" in agent_type and bool(parsed.agent.get("remember_cot", False)),
        **_listing(parsed),
    )


def _listing(parsed: ParsedSubmission) -> dict:
    """The folder's place, metadata.yaml and summary.json's figures (Submission.balrog_*)."""
    return {
        "balrog_folder": parsed.folder[:200],
        "balrog_metadata": parsed.metadata,
        "balrog_reported": {**reported_figures(parsed.summary), "mode": "vlm" if parsed.format == IMAGE_FORMAT else "llm"},
        "balrog_figures_only": not parsed.runs,
    }


def _run(submission: Submission, parsed: ParsedRun, fmt: str, now) -> Run:
    episodes = parsed.episodes
    progress = [{PROGRESS: 100.0 * e.progression} for e in episodes]
    metric_sums: dict = {}
    for metrics in progress:
        metric_sums = fold(metric_sums, metrics)
    steps = [e.num_steps for e in episodes]
    seeds = [e.seed for e in episodes if e.seed is not None]
    tokens_in = sum(e.input_tokens for e in episodes)
    tokens_out = sum(e.output_tokens for e in episodes)
    return Run.objects.create(
        submission=submission,
        task=parsed.task.task_id,
        variant={
            "format": fmt,
            "options": dict(parsed.task.options),
            "num_demonstrations": 0,
            "show_legal_actions": True,
            "chain_of_thought": submission.chain_of_thought,
            "answer_markers": submission.answer_markers,
            "history_window": submission.history_window,
            "keep_reasoning": submission.keep_reasoning,
            "self_correction": False,
            "reflection": "none",
        },
        first_seed=seeds[0] if seeds else 0,
        num_episodes=len(episodes),
        harness_version=IMPORTED,
        status=Run.FINISHED,
        started_at=now,
        finished_at=now,
        episodes_done=len(episodes),
        score_sum=sum(e.episode_return for e in episodes),
        score_sq_sum=sum(e.episode_return**2 for e in episodes),
        steps_total=sum(steps),
        illegal_total=sum(e.illegal_steps for e in episodes),
        illegal_fraction_sum=sum(e.illegal_steps / n for e, n in zip(episodes, steps) if n),
        # An episode without its trajectory counts its steps (from its JSON) but no
        # stored step rows.
        illegal_episodes=len(episodes),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        tokens_spent_in=tokens_in,
        tokens_spent_out=tokens_out,
        metric_sums=metric_sums,
    )


def _end_reason(episode: EpisodeFile) -> str:
    given = episode.record.get("end_reason")
    if given not in (None, "", -1):
        return str(given)[:200]
    return "episode over" if episode.done else "stopped"


def _steps(episode_row: Episode, episode: EpisodeFile) -> list[Step]:
    """The CSV's rows as the arena's steps. A row's observation is what followed its
    action; the arena stores with each step what the agent saw before acting, so row
    i's observation belongs to step i+1 and the last one is the episode's final
    observation (BALROG does not log the first observation)."""
    steps = []
    for row in episode.steps:
        feedback = row.invalid_feedback
        previous = episode.steps[row.index - 1].observation if row.index else None
        last = row.index == len(episode.steps) - 1
        steps.append(
            Step(
                episode=episode_row,
                index=row.index,
                observation_text=previous,
                completion=row.action,
                reasoning=row.reasoning,
                parsed_action=row.action,
                executed_action=feedback.group("executed").strip() if feedback else row.action,
                legal=feedback is None,
                reward=row.reward,
                done=row.done,
                end_reason=_end_reason(episode) if last and row.done else "",
            )
        )
    return steps


def _store_episodes(run: Run, episodes: list[EpisodeFile], now) -> int:
    rows = Episode.objects.bulk_create(
        Episode(
            run=run, index=index, seed=episode.seed, status=Episode.FINISHED, attempts=1,
            started_at=now, finished_at=now, score=episode.episode_return, num_steps=episode.num_steps,
            illegal_steps=episode.illegal_steps, tokens_in=episode.input_tokens, tokens_out=episode.output_tokens,
            end_reason=_end_reason(episode),
            final_observation_text=episode.steps[-1].observation if episode.steps else None,
            metrics={
                PROGRESS: 100.0 * episode.progression, RECORD: episode.record,
                **({GAPS: list(episode.gaps)} if episode.gaps else {}),
            },
        )
        for index, episode in enumerate(episodes)
    )
    stored = 0
    batch: list[Step] = []
    for row, episode in zip(rows, episodes):
        batch.extend(_steps(row, episode))
        if len(batch) >= STEP_BATCH:
            stored += len(Step.objects.bulk_create(batch))
            batch = []
    stored += len(Step.objects.bulk_create(batch))
    return stored


# One row per folder of BALROG's repository: its figures alone (a copy of the repository
# without trajectories, as fixtures/balrog/experiments ships) give way to the same folder
# with its trajectories, and never replace it.
def _same_folder(parsed: ParsedSubmission):
    if "/" not in parsed.folder:  # not read from under the repository's LLM/ or VLM/
        return Submission.objects.none()
    return Submission.objects.filter(kind=Submission.KIND_IMPORTED, balrog_folder=parsed.folder)


def _same_folder_with_more(parsed: ParsedSubmission) -> Submission | None:
    """An import of the same folder with trajectories, when these files have none."""
    return None if parsed.runs else _same_folder(parsed).filter(balrog_figures_only=False).first()


def _same_folder_with_less(parsed: ParsedSubmission):
    """Imports of the same folder's figures alone, when these files have trajectories."""
    return _same_folder(parsed).filter(balrog_figures_only=True) if parsed.runs else Submission.objects.none()


def _add_listing(submission: Submission, parsed: ParsedSubmission) -> None:
    """An import made before the arena kept a folder's listing gets it (once: the same
    files then change nothing)."""
    if submission.balrog_reported:
        return
    listing = _listing(parsed)
    for field, value in listing.items():
        setattr(submission, field, value)
    submission.save(update_fields=list(listing))


def _already_imported(submission: Submission) -> ImportResult:
    episodes = Episode.objects.filter(run__submission=submission)
    return ImportResult(
        submission, False, submission.runs.count(), episodes.count(), Step.objects.filter(episode__in=episodes).count()
    )


def balrog_submission_import(files: SubmissionFiles) -> ImportResult:
    """Import the submission these files hold (see the module's docstring)."""
    fingerprint = files.fingerprint()
    parsed = parse_submission(files)
    now = timezone.now()
    episodes = steps = 0
    gaps: dict[str, int] = {}
    for parsed_run in parsed.runs:
        for episode in parsed_run.episodes:
            for gap in episode.gaps:
                gaps[gap] = gaps.get(gap, 0) + 1
    with transaction.atomic():
        earlier = Submission.objects.filter(kind=Submission.KIND_IMPORTED, import_fingerprint=fingerprint).first()
        if earlier is None:
            earlier = _same_folder_with_more(parsed)
        if earlier is not None:
            _add_listing(earlier, parsed)
            return _already_imported(earlier)
        _same_folder_with_less(parsed).delete()
        submission = _submission(parsed, fingerprint)
        for parsed_run in parsed.runs:
            run = _run(submission, parsed_run, parsed.format, now)
            steps += _store_episodes(run, parsed_run.episodes, now)
            episodes += len(parsed_run.episodes)
    return ImportResult(submission, True, len(parsed.runs), episodes, steps, gaps)
