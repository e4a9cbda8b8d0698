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
