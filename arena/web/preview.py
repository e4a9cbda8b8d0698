"""The preview of a submission: the runs it would queue and what they would cost, worked
out before anything is created. The submission form's "Preview" button and
`POST /api/submissions/?dry_run=1` both show `submission_preview(...)`; creating the
submission queues the very runs it lists (the same `arena.services.submissions.run_specs`).

How the token estimate is made (also stated on the page, `ESTIMATE_METHOD`): each run
plays its episodes for the task's typical length (`TaskSpec.typical_steps`, the random
baseline's mean length measured through the arena; the step limit when unmeasured),
and every call's prompt is the measured size of the task's first prompt in that format,
plus what each earlier step kept in the prompt adds, plus the demonstrations, capped at
the model's context window (envs.measured.PromptSize, measured by bench/prompt_sizes.py;
for a task with swept options, the mean over its option combinations).
A naive answer is the action's measured size; with chain of thought the length of the
reasoning is the model's own, so the answer budget counts whole (an upper bound).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from decimal import Decimal

from arena.models import Submission
from arena.services.runs import RunSpec, run_variant
from arena.strategies.context import answer_reserve
from arena.variant import Variant
from envs.core import IMAGE_FORMATS
from envs.registry import get_suite, get_task_class, make

ESTIMATE_METHOD = (
    "Tokens are estimated per run: episodes × the task's typical episode length (the random baseline's, measured "
    "through the arena; the step limit where unmeasured) × a prompt of the size measured for the task and "
    "format — its first prompt, plus each earlier step the prompt keeps (all of LMAct's trajectory, the history "
    "window elsewhere), plus demonstrations — capped at the context window. A task whose options are swept has "
    "one figure for all its runs, the mean over them. Answers: the action's measured size when naive, the whole "
    "answer budget with chain of thought. Counts follow arena.strategies.tokens (within 0.8–1.5× of real tokenizers) and "
    "OpenAI's image rule."
)


def earlier_steps_in_prompt(task_cls, *, history_window: int, step: int) -> int:
    """How many earlier steps the prompt of step `step` holds: all of them in LMAct's
    growing trajectory (LMAct §2.3); elsewhere the history window, which counts the
    current observation, or the window the task's paper fixes (AdventureGame)."""
    if get_suite(task_cls.suite).frozen_prefix:
        return step
    window = task_cls.chat_history_window or history_window
    return min(step, max(0, window - 1))


@dataclasses.dataclass(frozen=True)
class PreviewRun:
    """One run the submission would queue."""

    task: str
    task_title: str
    suite_title: str
    format: str
    options: dict
    label: str  # format · options · strategy, as run pages say it (arena.variant)
    paper_preset: bool
    episodes: int
    max_steps: int
    calls_at_most: int
    tokens_in: int | None  # None: no measured prompt size for this task and format
    tokens_out: int | None
    ruled_out: str = ""  # why the endpoint cannot play it (the submission is refused)
    warning: str = ""  # why its episodes may end early

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Preview:
    runs: tuple[PreviewRun, ...]
    # What the probe found out, the part that does not change from one probe to the
    # next (latency does): provider, model_found, context_window(_source), accepts_images.
    endpoint: dict | None
    answers_bounded: bool  # output estimate counts whole answer budgets (chain of thought)
    cost_usd: float | None
    method: str = ESTIMATE_METHOD
    # A local server with fewer slots than the concurrent requests allowed (slots_note).
    slots_note: str = ""

    @property
    def episodes(self) -> int:
        return sum(run.episodes for run in self.runs)

    @property
    def calls_at_most(self) -> int:
        return sum(run.calls_at_most for run in self.runs)

    @property
    def tokens_in(self) -> int:
        return sum(run.tokens_in or 0 for run in self.runs)

    @property
    def tokens_out(self) -> int:
        return sum(run.tokens_out or 0 for run in self.runs)

    @property
    def unestimated(self) -> list[str]:
        """Task variants left out of the token estimate (no measured prompt size)."""
        return list(dict.fromkeys(f"{run.task}:{run.format}" for run in self.runs if run.tokens_in is None))

    @property
    def ruled_out(self) -> list[str]:
        return list(dict.fromkeys(f"{run.task}:{run.format}" for run in self.runs if run.ruled_out))

    @property
    def fingerprint(self) -> str:
        """Names exactly the runs listed: the page sends it back with "Create", and a
        submission whose runs differ from the preview's is shown again, not created."""
        listed = [[run.task, run.format, run.options, run.episodes, run.label] for run in self.runs]
        return hashlib.sha256(json.dumps(listed, sort_keys=True, default=str).encode()).hexdigest()[:20]

    def to_json(self) -> dict:
        return {
            "runs": [run.to_json() for run in self.runs],
            "totals": {
                "runs": len(self.runs), "episodes": self.episodes, "model_calls_at_most": self.calls_at_most,
                "tokens_in_estimate": self.tokens_in, "tokens_out_estimate": self.tokens_out,
                "tokens_out_is_upper_bound": self.answers_bounded, "cost_usd_estimate": self.cost_usd,
            },
            "not_estimated": self.unestimated,
            "ruled_out": self.ruled_out,
            "endpoint": self.endpoint,
            "slots_note": self.slots_note,
            "estimate_method": self.method,
            "fingerprint": self.fingerprint,
        }


ENDPOINT_FINDINGS = ("provider", "model_found", "context_window", "context_window_source", "accepts_images")


def submission_preview(runs: list[RunSpec], *, fields: dict, probe=None) -> Preview:
    """The preview of a submission whose cleaned `fields` (the form's or the API's)
    make `runs` (validation.plan_runs), with the endpoint probe's result. An agent
    endpoint chooses its own prompts and is only checked against the URL rules, so it
    gets neither a token estimate nor endpoint findings."""
    submission = Submission(**{k: v for k, v in fields.items() if k in _SUBMISSION_FIELDS})
    if probe is not None:
        submission.endpoint_probe = probe.to_json()
    window = submission.effective_context_window
    agent = submission.provider == Submission.PROVIDER_AGENT
    previewed = [_preview_run(spec, submission, window, estimate=not agent) for spec in runs]
    bounded = any(
        Variant.from_dict(run_variant(submission, spec)).chain_of_thought for spec in runs
    ) and not agent
    tokens_in = sum(run.tokens_in or 0 for run in previewed)
    tokens_out = sum(run.tokens_out or 0 for run in previewed)
    cost = submission.cost_usd(tokens_in, tokens_out) if not agent else None
    endpoint, note = None, ""
    if probe is not None and not agent:
        found = probe.to_json()
        endpoint = {key: found[key] for key in ENDPOINT_FINDINGS}
        note = slots_note(found.get("server_slots"), submission.max_concurrent_requests)
    return Preview(runs=tuple(previewed), endpoint=endpoint, answers_bounded=bounded, cost_usd=cost, slots_note=note)


def slots_note(server_slots: int | None, concurrent_requests: int) -> str:
    """What a server reporting fewer slots than the requests allowed in flight (llama.cpp's
    /props) means for play: an episode leases a slot for its life and keeps its prompt
    cached there (arena.clients.limits); the episodes past the slots share them call by
    call, and each turn can evict the other's cached prompt, read again whole next time."""
    if not server_slots or concurrent_requests <= server_slots:
        return ""
    if server_slots == 1:
        shared, advice = "the episodes share it call by call", "1 concurrent request (under Advanced) plays one episode at a time, its prompt cached"
    else:
        shared = f"the episodes past its {server_slots} slots take turns on them"
        advice = f"{server_slots} concurrent requests (under Advanced) play one episode per slot, each with its prompt cached"
    return (
        f"The server runs {server_slots} slot{'s' if server_slots != 1 else ''} and you allow {concurrent_requests} "
        f"concurrent requests: {shared}, and each turn can evict another episode's cached prompt, so that its next "
        f"call reads the whole prompt again. {advice}."
    )


_SUBMISSION_FIELDS = {field.name for field in Submission._meta.concrete_fields} - {"id"}


def _preview_run(spec: RunSpec, submission: Submission, window: int | None, *, estimate: bool) -> PreviewRun:
    task_cls = get_task_class(spec.task)
    variant = Variant.from_dict(run_variant(submission, spec))
    task = make(spec.task, spec.format, **spec.options)
    try:
        max_steps = task.max_steps  # options and settings may change it (infogather, Crafter)
        plays_images = not task.observation_is_text()
    finally:
        task.close()
    calls_per_step = 2 if variant.self_correction else 1
    reflection_calls = 1 if variant.plays_in_order else 0
    _, max_tokens = variant.generation(submission)
    tokens = _estimate(task_cls, spec.format, variant, max_steps, window, max_tokens) if estimate else None
    tokens_in = tokens_out = None
    warning = ""
    if tokens is not None:
        per_episode_in, per_episode_out, first_prompt = tokens
        tokens_in, tokens_out = per_episode_in * spec.num_episodes, per_episode_out * spec.num_episodes
        if window and first_prompt > window - answer_reserve(window, max_tokens):
            warning = (
                f"its first prompt is about {first_prompt:,} tokens and the {window:,}-token window cannot hold it: "
                "episodes may end at once (“context window exhausted”)"
            )
    ruled_out = ""
    if plays_images and submission.accepts_images is False:
        ruled_out = "the model refused the probe's image"
    return PreviewRun(
        task=spec.task, task_title=task_cls.title, suite_title=get_suite(task_cls.suite).title, format=spec.format,
        options=dict(spec.options), label=variant.label(), paper_preset=bool(spec.strategy),
        episodes=spec.num_episodes, max_steps=max_steps,
        calls_at_most=spec.num_episodes * (max_steps * calls_per_step + reflection_calls),
        tokens_in=tokens_in, tokens_out=tokens_out, ruled_out=ruled_out, warning=warning,
    )


def _estimate(task_cls, fmt: str, variant: Variant, max_steps: int, window: int | None, max_tokens: int):
    """(input tokens, output tokens) of one episode and the size of the shortest first
    prompt the protocol allows (demonstrations are the first thing left out to fit a
    window), or None without a measured prompt size (see the module docstring)."""
    size = task_cls.spec.prompt_sizes.get(fmt)
    if size is None:
        return None
    steps = max(1, round(min(task_cls.spec.typical_steps or max_steps, max_steps)))
    answer_budget = answer_reserve(window, max_tokens)
    cap = window - answer_budget if window else None
    demonstrations = variant.num_demonstrations * size.per_demonstration
    prompts = []
    for step in range(steps):
        kept = earlier_steps_in_prompt(task_cls, history_window=variant.history_window, step=step)
        prompt = size.first + kept * size.per_step + demonstrations
        prompts.append(min(prompt, cap) if cap else prompt)
    answer = answer_budget if variant.chain_of_thought else size.answer
    calls_per_step = 2 if variant.self_correction else 1
    # Self-correction's second call sends the prompt again with the first answer.
    tokens_in = sum(prompts) * calls_per_step + (steps * answer if variant.self_correction else 0)
    tokens_out = steps * answer * calls_per_step
    if variant.plays_in_order:
        # Reflexion: one more call after the episode, over the whole conversation.
        tokens_in += prompts[-1]
        tokens_out += answer_budget
    return tokens_in, tokens_out, size.first
