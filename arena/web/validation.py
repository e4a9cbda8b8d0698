"""A submission's fields and endpoint checked, for the submission form and the REST API alike
(what it asks to play is checked in arena.web.task_choice)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError

from arena.clients.reasoning_params import ReasoningSetting, reasoning_problems
from arena.models import Submission
from arena.clients.urlguard import UnsafeURL, check_url
from envs.registry import all_tasks

MAX_DEMONSTRATIONS = 512
MAX_TOKENS_LIMIT = 131072
# The largest context window offered today is 10M tokens (Llama 4 Scout).
MAX_CONTEXT_WINDOW = 10_000_000
MAX_TOKEN_BUDGET_PER_RUN = 10**12
MAX_HISTORY_WINDOW = 1000
MAX_CONCURRENT_REQUESTS = 256
# Keys are sent in one HTTP header; servers refuse headers past 8 KB.
MAX_API_KEY_LENGTH = 4096

_MONEY = {"max_digits": 10, "decimal_places": 4, "min_value": Decimal("0")}

#: The limits of a submission's numeric settings, as keyword arguments that Django's form
#: fields and DRF's serializer fields both take: the form (arena.web.forms) and the API
#: (arena.web.api_serializers) build their fields from this one table, so they refuse the same values
#: with the same words.
SUBMISSION_LIMITS: dict[str, dict] = {
    "temperature": {"min_value": 0.0, "max_value": 2.0},
    "max_tokens": {"min_value": 1, "max_value": MAX_TOKENS_LIMIT},
    "thinking_budget_tokens": {"min_value": 1, "max_value": MAX_TOKENS_LIMIT},
    "num_demonstrations": {"min_value": 0, "max_value": MAX_DEMONSTRATIONS},
    "history_window": {"min_value": 1, "max_value": MAX_HISTORY_WINDOW},
    "context_window": {"min_value": 1024, "max_value": MAX_CONTEXT_WINDOW},
    "max_concurrent_requests": {"min_value": 1, "max_value": MAX_CONCURRENT_REQUESTS},
    "price_input_per_mtok": _MONEY,
    "price_output_per_mtok": _MONEY,
    "price_cached_input_per_mtok": _MONEY,
    "budget_tokens_per_run": {"min_value": 1, "max_value": MAX_TOKEN_BUDGET_PER_RUN},
    "budget_usd_per_run": _MONEY,
}


def validate_base_url(url: str) -> str:
    url = (url or "").strip()
    if not url:
        raise ValidationError("Enter the base URL of the endpoint, e.g. https://api.example.com/v1.")
    try:
        check_url(url, allow_loopback=settings.ARENA_ALLOW_LOOPBACK)
    except UnsafeURL as exc:
        raise ValidationError(str(exc)) from None
    return url.rstrip("/")


# Unicode's bidirectional formatting characters (UAX #9 §2): U+202E in a name shown on
# the leaderboard would reverse the text after it, so a name could read as another's.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def refuse_bidi_controls(text: str, what: str) -> str:
    found = sorted({f"U+{ord(char):04X}" for char in text or "" if char in BIDI_CONTROLS})
    if found:
        raise ValidationError(
            f"The {what} holds Unicode direction controls ({', '.join(found)}), which would make it read "
            "differently from what it is; remove them."
        )
    return text


def validate_model_name(model: str) -> str:
    model = (model or "").strip()
    if not model:
        raise ValidationError("Enter the model name the endpoint expects, e.g. gpt-4o or llama-3.1-8b-instruct.")
    return refuse_bidi_controls(model, "model name")


def validate_api_key(key: str) -> str:
    """`key` without surrounding whitespace, or a ValidationError saying what in it
    cannot go into an HTTP header. A line break would let the key inject headers, and
    the HTTP library's refusal would quote it in a public error; a non-ASCII character
    cannot be encoded at all. The message says where, never what the key holds."""
    key = (key or "").strip()
    if len(key) > MAX_API_KEY_LENGTH:
        raise ValidationError(f"The API key is {len(key):,} characters long; a key can be at most {MAX_API_KEY_LENGTH:,}.")
    for position, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        raise ValidationError(
            f"The API key contains {_what_char(char)} at character {position}. A key is sent in an HTTP header, "
            "so it can only hold visible ASCII characters (letters, digits, punctuation): paste the key alone."
        )
    return key


def _what_char(char: str) -> str:
    if char in "\r\n":
        return "a line break"
    if char == "\t":
        return "a tab"
    if char == " ":
        return "a space"
    if char < " " or char == "\x7f":
        return "a control character"
    return "a non-ASCII character"


def check_submission_fields(fields: dict, add_error) -> None:
    """The rules that span fields, shared by the submission form and the API; problems
    go to `add_error(field, message)`. A model name is needed except by an agent
    endpoint (the agent picks its own); a cost budget needs prices. Normalises
    `fields["model"]` in place."""
    try:
        refuse_bidi_controls(fields.get("name") or "", "name")
    except ValidationError as exc:
        add_error("name", exc.messages[0])
    provider = fields.get("provider")
    if provider == Submission.PROVIDER_AGENT:
        fields["model"] = (fields.get("model") or "").strip()
        try:
            refuse_bidi_controls(fields["model"], "model name")
        except ValidationError as exc:
            add_error("model", exc.messages[0])
    elif provider and "model" in fields:
        try:
            fields["model"] = validate_model_name(fields["model"])
        except ValidationError as exc:
            add_error("model", exc.messages[0])
    if provider:
        setting = ReasoningSetting(
            effort=fields.get("reasoning_effort") or "", budget_tokens=fields.get("thinking_budget_tokens")
        )
        for field, message in reasoning_problems(
            provider, fields.get("base_url") or "", fields.get("model") or "", setting,
            temperature=fields.get("temperature"), max_tokens=fields.get("max_tokens") or 0,
        ):
            add_error(field, message)
    if provider == Submission.PROVIDER_AGENT and fields.get("head_to_head"):
        add_error(
            "head_to_head",
            "Head-to-head matches call a chat model; an agent endpoint answers the suites' step protocol instead.",
        )
    if fields.get("budget_usd_per_run") is not None and fields.get("price_input_per_mtok") is None and fields.get(
        "price_output_per_mtok"
    ) is None:
        add_error("budget_usd_per_run", "A cost budget needs prices per million tokens.")


def probe_submission_endpoint(*, provider: str, base_url: str, api_key: str, model: str, stated_context_window=None):
    """Probe an endpoint once (arena.probe) with the operator's settings; one that is
    playing the arena's episodes now is sent no completion (it would take their slot)."""
    from arena.probe import ProbeResult, probe_endpoint_sync
    from arena.selectors import endpoint_playing

    try:
        validate_api_key(api_key)
    except ValidationError as exc:
        # A key stored before keys were checked (the "Test endpoint" button and the
        # endpoint form probe with the stored one): no HTTP library can send it.
        return ProbeResult(provider=provider, field_errors={"api_key": exc.messages[0]})
    return probe_endpoint_sync(
        provider=provider, base_url=base_url, api_key=api_key or "", model=model or "",
        stated_context_window=stated_context_window, allow_loopback=settings.ARENA_ALLOW_LOOPBACK,
        timeout_seconds=settings.ARENA_PROBE_TIMEOUT_SECONDS, endpoint_busy=endpoint_playing(base_url),
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


def check_endpoint(cleaned: dict, add_error, *, task_variants=None, api_key: str | None = None, known=None):
    """Shared by the submission form, the endpoint form and the API: probe the endpoint
    in `cleaned` and report what stops it from being played as field errors through
    `add_error(field, message)`. The probe result, or None when the fields were already
    invalid (nothing is probed then). `known`, a result the caller already has for this
    very endpoint (arena.web.preview_probe), is used instead of probing again."""
    if not cleaned.get("base_url") or not cleaned.get("provider"):
        return None
    probe = known or probe_submission_endpoint(
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
