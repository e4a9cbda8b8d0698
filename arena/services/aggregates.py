"""What an episode's stored steps add to its run's aggregates (docs/design.md §3: leaderboard
numbers are maintained when episodes end, never computed from steps on a page view).

Finishing, failing and re-queueing an episode all go through these, so what a failed
episode played counts exactly once whatever happens to it next."""

from __future__ import annotations

from django.db.models import Count, F, Min, Q, Sum
from django.db.models.functions import Coalesce

from arena.models import Episode, Step
from arena.services.prepared import Prepared


def step_totals(episode: Episode) -> dict:
    """What the episode's stored steps add up to, by one SQL statement the ORM wrote once
    (arena.services.prepared); `step_totals_through_orm` builds it afresh."""
    _, row, columns = _STEP_TOTALS.execute(episode_id=episode.pk)
    return {
        name: value if value is None else _TOTAL_TYPES[name](value)
        for name, value in zip(columns, row)
    }


def step_totals_through_orm(episode: Episode) -> dict:
    return _step_totals_of(episode.steps.all())


def _step_totals_of(steps) -> dict:
    return steps.aggregate(
        steps=Count("id"),
        # An answer cut off by the token limit is counted apart, never as illegal.
        illegal=Count("id", filter=Q(legal=False, cut_off=False)),
        cut_off=Count("id", filter=Q(cut_off=True)),
        reasoning_tokens=Coalesce(Sum("reasoning_tokens"), 0),
        tokens_in=Coalesce(Sum("tokens_in"), 0),
        tokens_out=Coalesce(Sum("tokens_out"), 0),
        calls=Count("id", filter=Q(latency_ms__isnull=False)),
        latency_ms=Coalesce(Sum("latency_ms"), 0.0),
        first_trimmed=Min("index", filter=Q(info__has_key="context")),
    )


# The types the ORM gives each total (its output field's, as Django converts them: a
# PostgreSQL SUM of bigints comes as a Decimal).
_TOTAL_TYPES = {
    "steps": int, "illegal": int, "cut_off": int, "reasoning_tokens": int, "tokens_in": int, "tokens_out": int,
    "calls": int, "latency_ms": float, "first_trimmed": int,
}
_STEP_TOTALS = Prepared(lambda episode_id: _step_totals_of(Step.objects.filter(episode_id=episode_id)))


# The episode fields `apply_step_totals` sets (for `save(update_fields=…)`).
STEP_TOTAL_FIELDS = (
    "num_steps", "illegal_steps", "cut_off_steps", "tokens_in", "tokens_out", "reasoning_tokens", "first_trimmed_step",
)


def apply_step_totals(episode: Episode, totals: dict) -> None:
    episode.num_steps = totals["steps"]
    episode.illegal_steps = totals["illegal"]
    episode.cut_off_steps = totals["cut_off"]
    episode.reasoning_tokens = totals["reasoning_tokens"]
    episode.tokens_in = totals["tokens_in"]
    episode.tokens_out = totals["tokens_out"]
    episode.first_trimmed_step = totals["first_trimmed"]


def played_sums(episode: Episode, totals: dict, *, sign: int, always: bool = False) -> dict:
    """What an episode's steps add to (sign +1) or take from (-1) its run's aggregates.
    Finished episodes always count in the illegal rate; failed or cut-short ones when
    they played at least one step."""
    return {field: F(field) + delta for field, delta in played_deltas(episode, totals, sign=sign, always=always).items()}


def played_deltas(episode: Episode, totals: dict, *, sign: int, always: bool = False) -> dict:
    """The amounts `played_sums` adds to each of the run's fields."""
    steps = episode.num_steps
    counted = 1 if (always or steps) else 0
    illegal_fraction = episode.illegal_steps / steps if steps else 0.0
    return {
        "steps_total": sign * steps,
        "illegal_total": sign * episode.illegal_steps,
        "illegal_fraction_sum": sign * illegal_fraction,
        "illegal_episodes": sign * counted,
        "cut_off_total": sign * episode.cut_off_steps,
        "reasoning_tokens": sign * episode.reasoning_tokens,
        "tokens_in": sign * episode.tokens_in,
        "tokens_out": sign * episode.tokens_out,
        "model_calls": sign * totals["calls"],
        "model_latency_ms": sign * totals["latency_ms"],
    }
