"""Validation shared by the submission form and the REST API."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

from arena.urlguard import UnsafeURL, check_url
from envs.registry import all_tasks

MAX_DEMONSTRATIONS = 512
MAX_TOKENS_LIMIT = 131072


def task_variant_choices() -> list[tuple[str, str]]:
    """Every task × observation format, as "lmact/gridworld:ascii"."""
    choices = []
    for task_id, cls in sorted(all_tasks().items()):
        for fmt in cls.formats:
            choices.append((f"{task_id}:{fmt}", f"{cls.title} · {fmt}"))
    return choices


def parse_task_variant(value: str) -> tuple[str, str]:
    task_id, _, fmt = value.partition(":")
    cls = all_tasks().get(task_id)
    if cls is None:
        raise ValidationError(f"Unknown task {task_id!r}.")
    if not fmt:
        fmt = cls.formats[0]
    if fmt not in cls.formats:
        raise ValidationError(f"{task_id} has no format {fmt!r}; choose one of {', '.join(cls.formats)}.")
    return task_id, fmt


def validate_base_url(url: str) -> str:
    url = (url or "").strip()
    if not url:
        raise ValidationError("Enter the base URL of the endpoint, e.g. https://api.example.com/v1.")
    try:
        check_url(url, allow_loopback=settings.ARENA_ALLOW_LOOPBACK)
    except UnsafeURL as exc:
        raise ValidationError(str(exc)) from None
    return url.rstrip("/")


def validate_model_name(model: str) -> str:
    model = (model or "").strip()
    if not model:
        raise ValidationError("Enter the model name the endpoint expects, e.g. gpt-4o or llama-3.1-8b-instruct.")
    return model


def probe_submission_endpoint(*, provider: str, base_url: str, api_key: str, model: str, stated_context_window=None):
    """Probe an endpoint once (arena.probe) with the operator's settings."""
    from arena.probe import probe_endpoint_sync

    return probe_endpoint_sync(
        provider=provider, base_url=base_url, api_key=api_key or "", model=model or "",
        stated_context_window=stated_context_window, allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
        timeout_seconds=settings.ARENA_PROBE_TIMEOUT_SECONDS,
    )


def image_tasks_problem(probe, task_variants: list[tuple[str, str]]) -> str | None:
    """Why image tasks cannot be played by this endpoint, or None: a model that refused
    the probe's image part would fail every step of an rgb task."""
    if probe is None or probe.accepts_images is not False:
        return None
    tasks = all_tasks()
    refused = [f"{task_id}:{fmt}" for task_id, fmt in task_variants if not _is_text_format(tasks[task_id], fmt)]
    if not refused:
        return None
    return (
        f"The model does not accept images (it refused the probe's image), so it cannot play "
        f"{', '.join(refused)}. Remove these tasks, or submit a vision-language model."
    )


def _is_text_format(task_cls, fmt: str) -> bool:
    return task_cls(fmt).observation_is_text()


def check_endpoint(cleaned: dict, add_error, *, task_variants=None, api_key: str | None = None):
    """Shared by the submission form, the endpoint form and the API: probe the endpoint
    in `cleaned` and report what stops it from being played as field errors through
    `add_error(field, message)`. The probe result, or None when the fields were already
    invalid (nothing is probed then)."""
    if not cleaned.get("base_url") or not cleaned.get("provider"):
        return None
    probe = probe_submission_endpoint(
        provider=cleaned["provider"], base_url=cleaned["base_url"],
        api_key=cleaned.get("api_key") if api_key is None else api_key,
        model=cleaned.get("model", ""), stated_context_window=cleaned.get("context_window"),
    )
    for field, message in probe.field_errors.items():
        add_error(field, message)
    problem = image_tasks_problem(probe, task_variants or [])
    if problem:
        add_error("tasks", problem)
    return probe


def merge_task_variants(values) -> list[tuple[str, str]]:
    """Parse the chosen "task:format" entries, merge duplicates (the same task and
    format named twice is one run, not two) and hold the count to the operator's limit."""
    merged = list(dict.fromkeys(parse_task_variant(value) for value in values))
    limit = settings.ARENA_MAX_TASKS_PER_SUBMISSION
    if len(merged) > limit:
        raise ValidationError(
            f"At most {limit} different tasks per submission; this one names {len(merged)}. "
            "Split it into several submissions."
        )
    return merged


def check_episode_volume(runs, *, what: str = "submission") -> None:
    """Refuse a submission or an experiment whose runs (a list of services.RunSpec) would
    queue more episodes than the operator allows, counting the runs a task's option
    combinations multiply."""
    total = sum(spec.num_episodes for spec in runs)
    limit = settings.ARENA_MAX_EPISODES_PER_SUBMISSION
    if total <= limit:
        return
    combinations: dict[str, set[str]] = {}
    for spec in runs:
        combinations.setdefault(f"{spec.task}:{spec.format}", set()).add(repr(sorted(spec.options.items())))
    multiplied = [f"{name} plays {len(combos)} runs" for name, combos in combinations.items() if len(combos) > 1]
    why = f" ({'; '.join(multiplied)}, one per combination of its options)" if multiplied else ""
    raise ValidationError(
        f"This {what} would queue {total:,} episodes in {len(runs)} runs{why}; this arena allows "
        f"{limit:,} per {what}. Choose fewer tasks or fewer episodes."
    )
