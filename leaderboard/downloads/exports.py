"""Episodes and runs as downloadable files: an episode as JSON Lines, a run as a zip of
its episodes' JSON Lines plus `run.json`.

An episode's JSONL holds, on its first line, the episode header (what was played, by
which submission, with which prompt prefix) and then one line per step with the step as
stored: its prompt parts, completion, actions, calls and reward. The prefix and the steps'
`prompt_added` parts are those the arena rebuilds prompts from
(arena.strategies.lmact_prompt.rebuild_prompt, arena.strategies.history.rebuild_messages), so
the file alone rebuilds the exact prompt of every step. Image parts name their PNG by
hash; each line's `images` maps those hashes to the URL that serves them.

The endpoint's address, its key and the owner are never written: the header names the
submission by its name, model and generation settings only. A step's error is the
endpoint's message only in the owner's and staff's downloads (`detailed`); others get
its kind (arena.endpoints.public_errors).

Everything is produced by generators that read the steps EXPORT_CHUNK_STEPS at a time
(by index, each chunk a query of its own), so an episode of 100,000 steps streams in
bounded memory. Imported episodes (results copied from another leaderboard) are not
exported: their logs hold no prompts, and a file that claims to rebuild prompts would
not.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Iterable, Iterator

from asgiref.sync import sync_to_async
from django.core.serializers.json import DjangoJSONEncoder

from arena.models import Episode, Run, Step, StoredImage, Submission
from arena.endpoints.public_errors import public_step_error
from leaderboard.selectors.episodes import episode_ids_of_run, episode_with_run, steps_chunk

EXPORT_CHUNK_STEPS = 200
FORMAT_VERSION = 1
# The submission's fields an export may show: what was evaluated, never where it lives.
SUBMISSION_FIELDS = (
    "name", "kind", "policy", "provider", "model", "temperature", "max_tokens", "num_demonstrations",
    "context_window", "show_legal_actions", "chain_of_thought", "answer_markers", "history_window",
    "keep_reasoning", "self_correction", "reflection", "source",
)
STEP_FIELDS = (
    "index", "observation_text", "prompt_added", "completion", "reasoning", "parsed_action", "executed_action",
    "legal", "cut_off", "reward", "done", "end_reason", "tokens_in", "tokens_out", "cached_tokens_in",
    "reasoning_tokens", "latency_ms", "error", "info",
)
IMPORTED_REFUSAL = (
    "Imported episodes are not exported: the results they were imported from hold no prompts, so the file "
    "could not rebuild what the model was shown."
)


class NotExportable(Exception):
    """The episode or run cannot be exported; the message says why, for the user."""


def exportable(submission: Submission) -> None:
    if submission.is_imported:
        raise NotExportable(IMPORTED_REFUSAL)


def _line(data: dict) -> bytes:
    return (json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _image_urls(parts: Iterable, *shas: str | None) -> dict[str, str]:
    found = [part.get("sha") for part in parts if isinstance(part, dict) and part.get("type") == "image"]
    return {sha: StoredImage.url_of(sha) for sha in [*found, *shas] if sha}


def submission_summary(submission: Submission) -> dict:
    summary = {field: getattr(submission, field) for field in SUBMISSION_FIELDS}
    summary["id"] = submission.pk
    return summary


def episode_header(episode: Episode) -> dict:
    run = episode.run
    return {
        "kind": "episode",
        "format_version": FORMAT_VERSION,
        "episode": episode.pk,
        "run": run.pk,
        "task": run.task,
        "format": run.variant.get("format", ""),
        "variant": run.variant,
        "seed": episode.seed,
        "index": episode.index,
        "status": episode.status,
        "score": episode.score,
        "num_steps": episode.num_steps,
        "illegal_steps": episode.illegal_steps,
        "cut_off_steps": episode.cut_off_steps,
        "tokens_in": episode.tokens_in,
        "tokens_out": episode.tokens_out,
        "end_reason": episode.end_reason,
        "metrics": episode.metrics,
        "first_trimmed_step": episode.first_trimmed_step,
        "demonstration_seeds": episode.demonstration_seeds,
        "demonstrations_capped": episode.demonstrations_capped,
        "prompt_prefix": episode.prompt_prefix,
        "final_observation_text": episode.final_observation_text,
        "final_observation_image": episode.final_observation_image_id,
        "images": _image_urls(episode.prompt_prefix, episode.final_observation_image_id),
        "submission": submission_summary(run.submission),
    }


def step_line(step: Step, detailed: bool = False) -> dict:
    data = {field: getattr(step, field) for field in STEP_FIELDS}
    if not detailed:
        data["error"] = public_step_error(step.error)
    data["kind"] = "step"
    data["observation_image"] = step.observation_image_id
    data["calls"] = step.calls_with_completions
    data["created_at"] = step.created_at
    data["images"] = _image_urls(step.prompt_added, step.observation_image_id, (step.info or {}).get("viewer_frame"))
    return data


def steps_in_chunks(episode_id: int) -> Iterator[Step]:
    """The episode's steps in order, read EXPORT_CHUNK_STEPS at a time by index (never
    all at once)."""
    chunk = EXPORT_CHUNK_STEPS
    after = -1
    while True:
        rows = steps_chunk(episode_id, after, chunk)
        yield from rows
        if len(rows) < chunk:
            return
        after = rows[-1].index


def episode_jsonl(episode: Episode, detailed: bool = False) -> Iterator[bytes]:
    """The episode as JSON Lines, a chunk of lines at a time (steps' errors in full when
    `detailed`)."""
    yield _line(episode_header(episode))
    buffer: list[bytes] = []
    for step in steps_in_chunks(episode.pk):
        buffer.append(_line(step_line(step, detailed)))
        if len(buffer) >= EXPORT_CHUNK_STEPS:
            yield b"".join(buffer)
            buffer = []
    if buffer:
        yield b"".join(buffer)


def run_summary(run: Run) -> dict:
    return {
        "kind": "run",
        "format_version": FORMAT_VERSION,
        "run": run.pk,
        "task": run.task,
        "variant": run.variant,
        "status": run.status,
        "first_seed": run.first_seed,
        "num_episodes": run.num_episodes,
        "episodes_done": run.episodes_done,
        "episodes_failed": run.episodes_failed,
        "score_mean": run.score_mean,
        "score_stderr": run.score_stderr,
        "illegal_rate": run.illegal_rate,
        "steps_total": run.steps_total,
        "tokens_in": run.tokens_in,
        "tokens_out": run.tokens_out,
        "metric_sums": run.metric_sums,
        "submission": submission_summary(run.submission),
        "episodes": [],
    }


class _Sink(io.RawIOBase):
    """A write-only stream whose bytes are taken out as they come: zipfile writes the
    archive into it and the generator hands each piece on (no seeking, so zipfile
    writes data descriptors after each member)."""

    def __init__(self):
        self.pending = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.pending += data
        return len(data)

    def take(self) -> bytes:
        data = bytes(self.pending)
        self.pending.clear()
        return data


def run_zip(run: Run, detailed: bool = False) -> Iterator[bytes]:
    """The run as a zip: `episode-<index>.jsonl` per episode, then `run.json` with the
    run's aggregates and the list of its episodes. Streamed: only the current chunk of
    one episode is ever held."""
    sink = _Sink()
    summary = run_summary(run)
    with zipfile.ZipFile(sink, mode="w", compression=zipfile.ZIP_DEFLATED) as archive:
        # The ids first (small), then each episode on its own: no cursor stays open
        # across the steps' queries.
        for episode_id in episode_ids_of_run(run):
            episode = episode_with_run(episode_id)
            name = f"episode-{episode.index:05d}.jsonl"
            summary["episodes"].append(
                {"file": name, "episode": episode.pk, "seed": episode.seed, "status": episode.status,
                 "score": episode.score, "num_steps": episode.num_steps}
            )
            with archive.open(name, mode="w", force_zip64=True) as member:
                for piece in episode_jsonl(episode, detailed):
                    member.write(piece)
                    if len(sink.pending) > 1 << 20:
                        yield sink.take()
            yield sink.take()
        archive.writestr("run.json", json.dumps(summary, cls=DjangoJSONEncoder, ensure_ascii=False, indent=1))
    yield sink.take()


async def served_async(chunks: Iterator[bytes]):
    """`chunks` handed to an ASGI server one at a time. Django would read a synchronous
    iterator to its end into memory before sending any of it; here each `next` runs in
    Django's thread for synchronous code (where database access is allowed)."""
    step = sync_to_async(next, thread_sensitive=True)
    end = object()
    while True:
        piece = await step(chunks, end)
        if piece is end:
            return
        if piece:
            yield piece
