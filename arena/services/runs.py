"""Writes of runs: creating them with their episodes, queueing their episodes (after the
commit, in the queue's fair order), finishing a run when its last episode ends.

Queue messages are sent from `transaction.on_commit`, so a worker never takes a message
for an episode it cannot read yet.
"""

from __future__ import annotations

import dataclasses
from functools import partial

from django.db import transaction
from django.db.models import ExpressionWrapper, F, FloatField, Value
from django.utils import timezone

from arena import queue
from arena.models import Episode, Experiment, Run, Submission
from arena.services.prepared import Prepared
from arena.variant import Variant
from envs.registry import suite_of


@dataclasses.dataclass(frozen=True)
class RunSpec:
    task: str
    format: str
    num_episodes: int
    first_seed: int = 0
    options: dict = dataclasses.field(default_factory=dict)
    # Strategy settings the run plays whatever the submission says: its suite's paper
    # preset (envs.suite.PaperPreset.strategy), when the submitter chose it.
    strategy: dict = dataclasses.field(default_factory=dict)


def enqueue_on_commit(episode_ids: list[int], *, resume: bool = False) -> None:
    """Queue the episodes once the transaction commits (with `resume`, ahead of those
    of their kind not started yet), each in its fair turn (arena.queue), noting when
    their message was sent (arena.play.requeue) and its priority (the run page's queue
    position)."""
    episode_ids = list(episode_ids)
    if not episode_ids:
        return
    priorities = queue.priorities(_queue_flows(episode_ids), resume=resume)
    Episode.objects.filter(pk__in=episode_ids).update(enqueued_at=timezone.now())
    _note_priorities(priorities)
    transaction.on_commit(partial(queue.enqueue_episodes, priorities))


def enqueue_at(priorities: dict[int, float]) -> None:
    """Queue the episodes again with these priorities once the transaction commits
    (arena.services.turns: an episode that gave its turn takes the other's place)."""
    _note_priorities(priorities)
    transaction.on_commit(partial(queue.enqueue_episodes, priorities))


def episode_turn_given_back(episode_id: int, *, resume: bool) -> bool:
    """A worker took the episode's message but will not play it now (its endpoint has
    no turn free, arena.play.worker): queue it again behind its flow's other episodes
    (with `resume`, among the interrupted ones), so that the next flow's episode comes
    first. False if it is no longer queued (claimed, cancelled): nothing is sent."""
    with transaction.atomic():
        if not Episode.objects.filter(pk=episode_id, status=Episode.QUEUED).exists():
            return False
        enqueue_on_commit([episode_id], resume=resume)
    return True


def _note_priorities(priorities: dict[int, float]) -> None:
    """Store each episode's message priority; one UPDATE per stretch of consecutive ids
    whose priorities fall by one (a run's episodes in one turn order), as a bulk update
    of 5,000 rows took 9 s."""
    stretches: list[list] = []  # [first id, last id, priority of the first]
    for pk, priority in sorted(priorities.items()):
        if stretches and pk == stretches[-1][1] + 1 and priority == stretches[-1][2] - (pk - stretches[-1][0]):
            stretches[-1][1] = pk
        else:
            stretches.append([pk, pk, priority])
    alone: dict[float, list[int]] = {}
    for first, last, priority in stretches:
        if first == last:
            alone.setdefault(priority, []).append(first)
        else:
            Episode.objects.filter(pk__range=(first, last)).update(
                queue_priority=ExpressionWrapper(Value(priority + first) - F("pk"), output_field=FloatField())
            )
    for priority, pks in alone.items():
        Episode.objects.filter(pk__in=pks).update(queue_priority=priority)


def _queue_flows(episode_ids: list[int]) -> list[tuple[queue.Flow, list[int]]]:
    """The episodes by the flow they take turns in, in the order given: a baseline's
    run (so every task's baseline rows grow together), or a user's account — all their
    submissions and experiments together, so that twenty submissions take one turn, as
    a newcomer's one does. A submission without an owner (made by a script) is a flow
    of its own."""
    rows = Episode.objects.filter(pk__in=episode_ids).values_list(
        "pk", "run_id", "run__submission_id", "run__submission__kind", "run__submission__owner_id"
    )
    flow_of = {pk: _flow(run_id, submission_id, kind, owner_id) for pk, run_id, submission_id, kind, owner_id in rows}
    flows: dict[queue.Flow, list[int]] = {}
    for pk in episode_ids:
        if pk in flow_of:
            flows.setdefault(flow_of[pk], []).append(pk)
    return list(flows.items())


def _flow(run_id: int, submission_id: int, kind: str, owner_id: int | None) -> queue.Flow:
    if kind == Submission.KIND_BASELINE:
        return queue.Flow(f"run:{run_id}", True)
    if owner_id is not None:
        return queue.Flow(f"owner:{owner_id}", False)
    return queue.Flow(f"submission:{submission_id}", False)


def run_variant(submission: Submission, spec: RunSpec, overrides: dict | None = None) -> dict:
    """The variant a run of `spec` gets: the submission's strategy settings (copied, so
    the run stays interpretable if they change), then what the spec fixes (a paper
    preset), then `overrides` (experiments vary them). The preview reads it too, from an
    unsaved submission, so it shows what the runs will play."""
    variant = {
        "format": spec.format,
        "options": dict(spec.options),
        "num_demonstrations": 0 if submission.is_baseline else submission.num_demonstrations,
        "show_legal_actions": submission.show_legal_actions,
        "chain_of_thought": submission.chain_of_thought,
    }
    if submission.answer_markers:
        variant["answer_markers"] = True
    if submission.lenient_parsing:
        variant["lenient_parsing"] = True
    if not submission.is_baseline:
        variant.update(
            history_window=submission.history_window,
            keep_reasoning=submission.keep_reasoning,
            self_correction=submission.self_correction,
            reflection=submission.reflection,
        )
    variant.update(spec.strategy)
    preset = suite_of(spec.task).paper_preset
    if spec.strategy and preset is not None and preset.chain_of_thought_strategy and variant["chain_of_thought"]:
        variant.update(preset.chain_of_thought_strategy)
    variant.update(overrides or {})
    if not suite_of(spec.task).reflection:
        # The LMAct protocol (LMAct §2.3) has no reflection between episodes.
        variant["reflection"] = "none"
    return variant


def run_create(
    submission: Submission, spec: RunSpec, *, overrides: dict | None = None, experiment: Experiment | None = None
) -> Run:
    """Create a run with its episodes and queue them once the transaction commits; its
    variant is `run_variant(submission, spec, overrides)`."""
    return run_create_with_variant(
        submission, task=spec.task, variant=run_variant(submission, spec, overrides),
        first_seed=spec.first_seed, num_episodes=spec.num_episodes, experiment=experiment,
    )


def run_create_with_variant(
    submission: Submission, *, task: str, variant: dict, first_seed: int, num_episodes: int,
    experiment: Experiment | None = None,
) -> Run:
    """Create a run of an already resolved variant (a re-run keeps its older run's) with
    its episodes, queued once the transaction commits, under the submission's budgets."""
    with transaction.atomic():
        run = Run.objects.create(
            submission=submission,
            experiment=experiment,
            task=task,
            variant=variant,
            budget_tokens=submission.budget_tokens_per_run,
            budget_usd=submission.budget_usd_per_run,
            first_seed=first_seed,
            num_episodes=num_episodes,
        )
        Episode.objects.bulk_create(
            Episode(run=run, index=i, seed=first_seed + i) for i in range(num_episodes)
        )
        episode_ids = list(run.episodes.order_by("index").values_list("id", flat=True))
        if plays_in_order(run):
            # Reflexion carries lessons from one episode to the next: one at a time.
            episode_ids = episode_ids[:1]
        enqueue_on_commit(episode_ids)
    return run


def plays_in_order(run: Run) -> bool:
    return Variant.of(run).plays_in_order


def enqueue_next_in_order(run_id: int) -> None:
    run = Run.objects.only("variant").get(pk=run_id)
    if plays_in_order(run):
        following = run.episodes.filter(status=Episode.QUEUED).order_by("index").values_list("id", flat=True).first()
        if following is not None:
            enqueue_on_commit([following])


def finish_run_if_complete(run_id: int) -> None:
    now = timezone.now()
    # Statements the ORM wrote once (arena.services.prepared), run at every episode's end.
    _FINISH_RUN.execute(run_id=run_id, now=now)
    _FAIL_RUN.execute(run_id=run_id, now=now)


_FINISH_RUN = Prepared(
    lambda run_id, now: Run.objects.filter(
        pk=run_id, episodes_done__gt=0, status__in=[Run.QUEUED, Run.RUNNING]
    ).filter(num_episodes__lte=F("episodes_done") + F("episodes_failed")).update(status=Run.FINISHED, finished_at=now),
    fields={"now": Run._meta.get_field("finished_at")},
)
_FAIL_RUN = Prepared(
    lambda run_id, now: Run.objects.filter(
        pk=run_id, episodes_done=0, status__in=[Run.QUEUED, Run.RUNNING], num_episodes__lte=F("episodes_failed")
    ).update(status=Run.FAILED, finished_at=now),
    fields={"now": Run._meta.get_field("finished_at")},
)


def run_budget_reached(run_id: int) -> bool:
    run = Run.objects.select_related("submission").only(
        "budget_tokens", "budget_usd", "tokens_spent_in", "tokens_spent_out", "cached_tokens_in",
        "cache_write_tokens_in", "status", "submission__price_input_per_mtok", "submission__price_output_per_mtok",
        "submission__price_cached_input_per_mtok",
    ).get(pk=run_id)
    return run.status == Run.BUDGET_EXHAUSTED or run.budget_reached
