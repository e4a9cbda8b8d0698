"""Reads of episodes and their steps for the read side: one episode with its run, the
episodes of runs, the steps of a page, a window, an export or the scrubber's marks."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator

from django.db.models import BooleanField, ExpressionWrapper, Q, TextField
from django.db.models.functions import Cast
from django.shortcuts import get_object_or_404

from arena.moderation import not_found, taken_down_for, visible_to
from arena.models import Episode, Run, Step, Submission


def episodes_with_run():
    """Every episode with its run and submission joined (the episodes API's queryset)."""
    return Episode.objects.select_related("run__submission")


def episode_or_404(pk: int, viewer=None, *, owner_reads: bool = False) -> Episode:
    """One episode with its run and submission; a 404 when there is none, or when
    moderation took it down for `viewer` (arena.moderation.taken_down_for, with `owner_reads`)."""
    episode = get_object_or_404(episodes_with_run(), pk=pk)
    if viewer is not None and taken_down_for(viewer, episode.run.submission, episode.run, owner_reads=owner_reads):
        raise not_found(Episode)
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
    # The status is compared here, not in SQL: with both conditions SQLite's planner walks
    # the status index (nearly every episode is finished) instead of the run's, 130 ms a
    # query at 10^5 episodes against 20 ms (the paired comparison makes one per game).
    rows = Episode.objects.filter(run_id__in=list(run_ids)).order_by("index").values_list("status", *fields)
    return [row[1:] for row in rows if row[0] == Episode.FINISHED]


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


# -- Filters on a run's or a task's episodes, and a search in an episode's steps ------


@dataclasses.dataclass(frozen=True)
class EpisodeFilters:
    """What a visitor narrows a list of episodes to (the run page, a task's episodes, the
    episodes API), as Inspect's log viewer filters samples: episodes with an illegal
    answer, with an answer cut off by the token limit, that failed or carry an error,
    that ended for a reason (the step limit, the game's end…), or whose score lies in a
    range. Empty: every episode."""

    illegal: bool = False
    cut_off: bool = False
    error: bool = False
    end_reason: str = ""
    score_min: float | None = None
    score_max: float | None = None

    QUERY = ("illegal", "cut_off", "error", "end_reason", "score_min", "score_max")

    @classmethod
    def from_query(cls, query) -> "EpisodeFilters":
        """The filters of a query string; raises ValueError naming a parameter it cannot read."""
        flags = {}
        for name in ("illegal", "cut_off", "error"):
            raw = query.get(name, "")
            if raw not in ("", "0", "1", "true", "false", "on"):
                raise ValueError(f"{name}: 1 to keep only such episodes, 0 or nothing for all")
            flags[name] = raw in ("1", "true", "on")
        bounds = {}
        for name in ("score_min", "score_max"):
            raw = query.get(name, "").strip()
            try:
                bounds[name] = float(raw) if raw else None
            except ValueError:
                raise ValueError(f"{name}: a number") from None
            if bounds[name] is not None and not math.isfinite(bounds[name]):
                raise ValueError(f"{name}: a finite number")
        return cls(**flags, end_reason=query.get("end_reason", "").strip()[:200], **bounds)

    @property
    def active(self) -> bool:
        return self != EpisodeFilters()

    def query(self) -> dict[str, str]:
        """The filters as query parameters (for the pages' links)."""
        values = {
            "illegal": "1" if self.illegal else "", "cut_off": "1" if self.cut_off else "",
            "error": "1" if self.error else "", "end_reason": self.end_reason,
            "score_min": "" if self.score_min is None else repr(self.score_min),
            "score_max": "" if self.score_max is None else repr(self.score_max),
        }
        return {name: value for name, value in values.items() if value}

    def apply(self, episodes):
        if self.illegal:
            episodes = episodes.filter(illegal_steps__gt=0)
        if self.cut_off:
            episodes = episodes.filter(cut_off_steps__gt=0)
        if self.error:
            episodes = episodes.filter(Q(status=Episode.FAILED) | ~Q(error=""))
        if self.end_reason:
            episodes = episodes.filter(end_reason=self.end_reason)
        if self.score_min is not None:
            episodes = episodes.filter(score__gte=self.score_min)
        if self.score_max is not None:
            episodes = episodes.filter(score__lte=self.score_max)
        return episodes


def filtered_episodes_of_run(run: Run, filters: EpisodeFilters):
    """The run's episodes under `filters` (their run joined), in index order."""
    return filters.apply(run.episodes.all()).select_related("run").order_by("index")


def filtered_episodes_of_task(task_id: str, filters: EpisodeFilters):
    """Every episode of the task's runs (their run and submission joined) under
    `filters`, the newest run first, then by index; the runs the operators hid left out."""
    episodes = Episode.objects.filter(run__task=task_id).exclude(run__moderation=Run.HIDDEN)
    episodes = episodes.exclude(run__submission__moderation=Submission.HIDDEN)
    return filters.apply(episodes).select_related("run__submission").order_by("-run_id", "index")


def end_reasons_of_run(run: Run) -> list[str]:
    """The end reasons the run's episodes have, for the filter's choices."""
    return sorted(set(run.episodes.exclude(end_reason="").values_list("end_reason", flat=True).distinct()))


def end_reasons_of_task(task_id: str) -> list[str]:
    # Of the episodes the task's list shows: a taken-down run's reasons would tell of it.
    episodes = Episode.objects.filter(run__task=task_id).exclude(run__moderation=Run.HIDDEN)
    episodes = episodes.exclude(run__submission__moderation=Submission.HIDDEN)
    return sorted(set(
        episodes.exclude(end_reason="").values_list("end_reason", flat=True).distinct()
    ))


# A search shorter than this matches nearly every step of a long episode.
MIN_STEP_SEARCH_CHARS = 2
# Matches a step search lists at most; its page says when there are more.
STEP_SEARCH_LIMIT = 200
# The texts of a step a search looks in, by the name the page shows.
SEARCHED_STEP_TEXTS = {
    "observation_text": "observation", "prompt_text": "prompt", "completion": "completion",
    "reasoning": "reasoning", "parsed_action": "action", "executed_action": "executed action",
}


def search_steps(episode: Episode, text: str, limit: int = STEP_SEARCH_LIMIT) -> list[dict]:
    """The episode's steps whose observation, prompt parts, completion, reasoning or action
    hold `text` (case-insensitive), in index order, at most `limit` (+1, so the caller
    can tell there are more): each with its index and the names of the texts that hold
    it, and the start of the first such text around the match."""
    steps = Step.objects.filter(episode=episode).annotate(prompt_text=Cast("prompt_added", TextField()))
    found = Q()
    for field in SEARCHED_STEP_TEXTS:
        found |= Q(**{f"{field}__icontains": text})
    rows = steps.filter(found).order_by("index").values_list("index", *SEARCHED_STEP_TEXTS)[: limit + 1]
    needle = text.casefold()
    results = []
    for index, *texts in rows:
        where = [
            label for label, value in zip(SEARCHED_STEP_TEXTS.values(), texts) if value and needle in value.casefold()
        ]
        first = next((value for value in texts if value and needle in value.casefold()), "")
        results.append({"index": index, "where": where, "snippet": _snippet(first, needle)})
    return results


SNIPPET_CHARS = 80


def _snippet(text: str, needle: str) -> str:
    at = text.casefold().find(needle)
    if at < 0:
        return text[: 2 * SNIPPET_CHARS]
    start, end = max(0, at - SNIPPET_CHARS), at + len(needle) + SNIPPET_CHARS
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
