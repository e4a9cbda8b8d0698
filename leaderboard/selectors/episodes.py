"""Reads of episodes and their steps for the read side: one episode with its run, the
episodes of runs, the steps of a page, a window, an export or the scrubber's marks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db.models import BooleanField, ExpressionWrapper, Q
from django.http import Http404
from django.shortcuts import get_object_or_404

from arena.moderation import taken_down_for, visible_to
from arena.models import Episode, Run, Step


def episodes_with_run():
    """Every episode with its run and submission joined (the episodes API's queryset)."""
    return Episode.objects.select_related("run__submission")


def episode_or_404(pk: int, viewer=None) -> Episode:
    """One episode with its run and submission; a 404 when there is none, or when
    moderation took it down for `viewer` (arena.moderation.taken_down_for)."""
    episode = get_object_or_404(episodes_with_run(), pk=pk)
    if viewer is not None and taken_down_for(viewer, episode.run.submission, episode.run):
        raise Http404("no such episode")
    return episode


def episode_with_run(pk: int) -> Episode:
    """One episode with its run and submission; raises Episode.DoesNotExist."""
    return episodes_with_run().get(pk=pk)


def bare_episode_or_404(pk: int, viewer=None) -> Episode:
    if viewer is not None:
        return episode_or_404(pk, viewer)
    return get_object_or_404(Episode, pk=pk)


def episode_exists(pk: int) -> bool:
    """Whether the episode is there for anyone (the live channel has no user): not when
    moderation hid its run or submission."""
    return visible_to(None, Episode.objects.filter(pk=pk), submission="run__submission", run="run").exists()


def episode_status(pk: int) -> str:
    """The episode's status; raises Episode.DoesNotExist."""
    return Episode.objects.values_list("status", flat=True).get(pk=pk)


def episodes_of_run(run: Run):
    """The run's episodes in index order (the run page pages through them)."""
    return run.episodes.order_by("index")


def running_without_a_step(run: Run) -> int:
    """How many of the run's running episodes have recorded no step yet."""
    return run.episodes.filter(status=Episode.RUNNING, num_steps=0).count()


def has_queued_episodes(run: Run) -> bool:
    return run.episodes.filter(status=Episode.QUEUED).exists()


def episode_ids_of_run(run: Run) -> list[int]:
    return list(run.episodes.order_by("index").values_list("pk", flat=True))


def failed_episode_errors(run: Run) -> list[tuple[str, str]]:
    """(error kind, error) of the run's failed episodes, in index order."""
    return list(run.episodes.filter(status=Episode.FAILED).order_by("index").values_list("error_kind", "error"))


def episodes_of_runs(runs: list[Run]):
    """The episodes of `runs` (their run joined), by run then index: a suite page's
    episodes behind a figure."""
    return Episode.objects.filter(run__in=runs).select_related("run").order_by("run_id", "index")


def finished_metrics(runs: list[Run]) -> list[dict]:
    """The per-episode metrics of the runs' finished episodes."""
    return list(Episode.objects.filter(run__in=runs, status=Episode.FINISHED).values_list("metrics", flat=True))


def finished_values(run_ids: Iterable[int], fields: list[str]) -> list[tuple]:
    """`fields` of the runs' finished episodes in index order (a metric's own keys read
    as `metrics__<key>`, never the whole JSON)."""
    rows = Episode.objects.filter(run_id__in=list(run_ids), status=Episode.FINISHED).order_by("index")
    return list(rows.values_list(*fields))


def same_game_episodes(episode: Episode, limit: int = 50) -> list[Episode]:
    """Finished episodes of other runs with the episode's task, format and seed, newest
    run first (their options are compared by the caller: JSON, not a column)."""
    others = (
        Episode.objects.select_related("run__submission")
        .filter(
            seed=episode.seed, run__task=episode.run.task, run__variant__format=episode.run.format,
            status=Episode.FINISHED,
        )
        .exclude(pk=episode.pk)
        .order_by("-run__created_at")
    )
    return list(others[:limit])


def executed_actions(episode: Episode) -> dict[int, str]:
    """Step index → the action the game executed."""
    return dict(episode.steps.values_list("index", "executed_action"))


def counted_steps(episode: Episode) -> int:
    """Rows of the episode's steps (a running episode's counters settle only at its end)."""
    return episode.steps.count()


def step_or_404(episode: Episode, index: int) -> Step:
    return get_object_or_404(episode.steps.all(), index=index)


def steps_after(episode_id: int, after_index: int, through_index: int | None, *, chunk: int) -> Iterator[Step]:
    """The episode's steps after `after_index` (through `through_index` when given), in
    index order, read `chunk` rows at a time: the caller may stop early."""
    steps = Step.objects.filter(episode_id=episode_id, index__gt=after_index).order_by("index")
    if through_index is not None:
        steps = steps.filter(index__lte=through_index)
    return steps.iterator(chunk_size=chunk)


def steps_chunk(episode_id: int, after_index: int, size: int) -> list[Step]:
    """At most `size` steps after `after_index`, in index order."""
    return list(Step.objects.filter(episode_id=episode_id, index__gt=after_index).order_by("index")[:size])


def step_flags(episode_id: int, *, chunk: int) -> Iterator[tuple]:
    """(index, legal, cut_off, reward, done, has an error) of every step, in index order
    (through the (episode, index) index), read `chunk` rows at a time."""
    return (
        Step.objects.filter(episode_id=episode_id)
        .order_by("index")
        .annotate(has_error=ExpressionWrapper(~Q(error=""), output_field=BooleanField()))
        .values_list("index", "legal", "cut_off", "reward", "done", "has_error")
        .iterator(chunk_size=chunk)
    )


def last_step_index(episode: Episode) -> int | None:
    return episode.steps.order_by("-index").values_list("index", flat=True).first()


def frame_rows(episode: Episode, indices: list[int]) -> list[tuple]:
    """(observation image, info) of the chosen steps, in index order."""
    rows = Step.objects.filter(episode=episode, index__in=indices).order_by("index")
    return list(rows.values_list("observation_image_id", "info"))


def first_step_picture(episode: Episode) -> tuple | None:
    """(observation image, info) of the episode's first step, None without steps."""
    return episode.steps.order_by("index").values_list("observation_image_id", "info").first()
