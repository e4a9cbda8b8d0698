"""Writes of submissions and experiments: a submission with the runs it asked for, the
experiments (demonstration sweeps, the ablation grid, the replay control) of an existing
one, the baselines' submissions. What runs a task gets (its options, its sweeps) is
decided here, for the form, the API and the management commands alike.
"""

from __future__ import annotations

import itertools
import secrets

from django.db import transaction

from arena.models import Experiment, Submission
from arena.moderation import refuse_if_taken_down
from arena.services.queued_cap import hold_queued_room
from arena.services.runs import RunSpec, run_create
from envs.registry import get_task_class, suite_of


def submission_create(*, owner, fields: dict, api_key: str, runs: list[RunSpec]) -> Submission:
    """Create a model submission and its runs, all or nothing.

    An agent endpoint gets a fresh signing secret; it is available once, as
    `submission.new_agent_secret`, for the response that shows it to the submitter.
    QueuedCapReached (and nothing created) when its episodes would take the owner past
    the cap of queued episodes, counted with the owner's row locked.
    """
    with transaction.atomic():
        hold_queued_room(owner, sum(spec.num_episodes for spec in runs))
        submission = Submission(owner=owner, kind=Submission.KIND_MODEL, **fields)
        submission.set_api_key(api_key)
        submission.new_agent_secret = None
        if submission.provider == Submission.PROVIDER_AGENT:
            submission.new_agent_secret = secrets.token_urlsafe(32)
            submission.set_agent_secret(submission.new_agent_secret)
        submission.save()
        for spec in runs:
            run_create(submission, spec)
    return submission


def option_combinations(task_cls, *, for_models: bool = True, chosen: dict | None = None) -> list[dict]:
    """Every combination of the task's variant options ([{}] for tasks without), or of
    the values `chosen` for some of them (validation.check_task_settings: a first try
    may play infogather at 3 colours only). Baselines do not read prompts, so for them
    prompt-only options keep their default."""
    chosen = chosen or {}
    names = [n for n in task_cls.variant_options if for_models or n not in task_cls.prompt_options]
    values = [chosen.get(name, task_cls.variant_options[name]) for name in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def run_specs(
    task_variants: list[tuple[str, str]],
    episodes: int,
    task_settings: dict | None = None,
    paper_protocol: frozenset[str] | set[str] = frozenset(),
) -> list[RunSpec]:
    """The runs of a model submission: each chosen task and format, once per
    combination of the task's options (e.g. infogather's 3–10 colours, §4.4) or of the
    values the submission chose for them, with the settings chosen for the task
    (validation.check_task_settings) on top. Tasks of the suites in `paper_protocol`
    play their suite's paper preset: its strategy settings and its episodes; the others
    play `episodes` with the submission's own settings."""
    task_settings = task_settings or {}
    specs = []
    for task_id, fmt in task_variants:
        task_cls = get_task_class(task_id)
        preset = suite_of(task_id).paper_preset if task_cls.suite in paper_protocol else None
        chosen = task_settings.get(task_id, {})
        swept = {name: values for name, values in chosen.items() if name in task_cls.variant_options}
        fixed = {name: value for name, value in chosen.items() if name not in task_cls.variant_options}
        for combo in option_combinations(task_cls, chosen=swept):
            specs.append(
                RunSpec(
                    task=task_id, format=fmt, options={**combo, **fixed},
                    num_episodes=preset.episodes_of(task_cls) if preset else episodes,
                    strategy=dict(preset.strategy) if preset else {},
                )
            )
    return specs


def demonstration_counts(maximum: int) -> list[int]:
    """0, 1, 2, 4, … up to `maximum` (LMAct §3.2 sweeps powers of two)."""
    counts, n = [0], 1
    while n <= maximum:
        counts.append(n)
        n *= 2
    return counts


# LMAct evaluates 100 episodes per point (LMAct §2.4): the default of an experiment's
# runs, which a user may lower (the run page then says how many of the 100 were played).
PAPER_EPISODES_PER_RUN = 100


def experiment_create(
    submission: Submission, *, kind: str, task: str, format: str, num_episodes: int, max_demonstrations: int = 0
) -> Experiment:
    """A sweep, an ablation grid or a replay-control experiment, with its runs queued.

    - sweep: one run per number of demonstrations 0, 1, 2, 4, … ≤ max_demonstrations;
    - ablation: legal actions × chain of thought with one demonstration (§3, App. C.4);
    - replay: one demonstration replayed with teacher forcing, no chain of thought,
      no legal actions (App. C.2).

    TakenDown (nothing created) when the operators took the submission down.
    """
    if submission.is_baseline:
        raise ValueError("experiments are for model submissions")
    spec = RunSpec(task=task, format=format, num_episodes=num_episodes)
    with transaction.atomic():
        # Read again under the lock: the operators may have taken it down since the form was read.
        refuse_if_taken_down(Submission.objects.select_for_update().get(pk=submission.pk))
        adding = num_episodes * len(experiment_grid(kind, max_demonstrations))
        hold_queued_room(submission.owner, adding, what="experiment")
        experiment = Experiment.objects.create(
            submission=submission, kind=kind, task=task, format=format,
            config={"num_episodes": num_episodes, "max_demonstrations": max_demonstrations},
        )
        for overrides in experiment_grid(kind, max_demonstrations):
            run_create(submission, spec, overrides=overrides, experiment=experiment)
    return experiment


def experiment_run_specs(*, kind: str, task: str, format: str, num_episodes: int, max_demonstrations: int = 0):
    """The runs an experiment would create, one RunSpec each (what the episode cap counts)."""
    return [RunSpec(task=task, format=format, num_episodes=num_episodes)] * len(experiment_grid(kind, max_demonstrations))


def experiment_grid(kind: str, max_demonstrations: int = 0) -> list[dict]:
    """The variant overrides of an experiment's runs, one dict per run."""
    if kind == Experiment.SWEEP:
        return [{"num_demonstrations": n} for n in demonstration_counts(max_demonstrations)]
    if kind == Experiment.ABLATION:
        return [
            {"num_demonstrations": 1, "show_legal_actions": legal, "chain_of_thought": cot}
            for legal in (False, True)
            for cot in (False, True)
        ]
    if kind == Experiment.REPLAY:
        return [{"num_demonstrations": 1, "show_legal_actions": False, "chain_of_thought": False, "replay_control": True}]
    raise ValueError(f"unknown experiment kind {kind!r}")


def baseline_submission(policy: str, name: str) -> Submission:
    submission, _ = Submission.objects.get_or_create(
        kind=Submission.KIND_BASELINE, policy=policy, defaults={"name": name}
    )
    return submission
