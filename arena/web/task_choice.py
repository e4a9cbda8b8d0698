"""What a submission asks to play, checked for the form and the API alike: the tasks and
formats chosen (by task, by suite, by observation mode), their settings and the paper's
sweeps, the runs planned from them, and the episodes one submitter may queue."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

from arena.services.queued_cap import check_queued_room
from arena.services.submissions import run_specs
from envs.core import IMAGE_FORMATS
from envs.registry import all_suites, all_tasks, tasks_of


# Which observations a submission plays: BALROG reports language-only (LLM) and
# vision-language (VLM) results apart; LLM mode leaves the image formats out.
MODE_LLM = "llm"
MODE_VLM = "vlm"
MODE_CHOICES = [
    (MODE_LLM, "LLM: text observations only"),
    (MODE_VLM, "VLM: text and image observations"),
]


def formats_in_mode(task_cls, mode: str) -> tuple[str, ...]:
    """The task's observation formats a submission in `mode` may play."""
    if mode == MODE_LLM:
        return tuple(fmt for fmt in task_cls.formats if fmt not in IMAGE_FORMATS)
    return tuple(task_cls.formats)


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


def validate_suite_ids(values, *, with_preset: bool = False) -> list[str]:
    """Suite ids as given (whole suites, or the suites played as in their paper),
    each known and, with `with_preset`, offering a paper preset."""
    suites = all_suites()
    for value in values:
        if value not in suites:
            raise ValidationError(f"Unknown suite {value!r}; the suites are {', '.join(suites)}.")
        if with_preset and suites[value].paper_preset is None:
            raise ValidationError(f"{suites[value].title} has no paper preset.")
    return list(dict.fromkeys(values))


def choose_task_variants(fields: dict, add_error) -> list[tuple[str, str]] | None:
    """Shared by the submission form and the API: every task variant a submission
    plays — those named ("tasks", parsed) and, for each whole suite ("suites"), every
    task in every format the mode allows — in the suites' and tasks' order, duplicates
    merged; or None after reporting what is wrong through `add_error(field, message)`."""
    mode = fields.get("mode") or MODE_VLM
    named = list(fields.get("tasks") or [])
    if mode == MODE_LLM:
        images = [f"{task_id}:{fmt}" for task_id, fmt in named if fmt in IMAGE_FORMATS]
        if images:
            add_error("tasks", f"LLM mode plays text observations only, not {', '.join(images)}: "
                               "choose VLM mode or leave these out.")
            return None
    whole = [
        (task_id, fmt)
        for suite_id in fields.get("suites") or []
        for task_id, task_cls in tasks_of(suite_id).items()
        for fmt in formats_in_mode(task_cls, mode)
    ]
    if not named and not whole:
        add_error("tasks", "Choose at least one task, or a whole suite.")
        return None
    try:
        return merge_task_variants(_in_catalogue_order(named + whole))
    except ValidationError as exc:
        add_error("tasks", exc.messages[0])
        return None


def plan_runs(fields: dict, variants: list[tuple[str, str]], add_error) -> list | None:
    """Shared by the submission form and the API: the runs (RunSpec) of the
    chosen task variants, with the task settings, the suites played as in their paper
    ("paper_protocol") and the episodes per task in `fields`; or None after reporting
    what is wrong through `add_error(field, message)`. On success `fields` holds the
    variants ("tasks") and the cleaned task settings."""
    try:
        task_settings = check_task_settings(fields.get("task_settings"), variants)
    except ValidationError as exc:
        add_error("task_settings", exc.messages[0])
        return None
    paper = frozenset(fields.get("paper_protocol") or ())
    try:
        check_paper_sweeps(task_settings, paper)
    except ValidationError as exc:
        add_error("task_settings", exc.messages[0])
        return None
    runs = run_specs(variants, fields.get("episodes_per_task") or 1, task_settings, paper)
    try:
        check_episode_volume(runs)
    except ValidationError as exc:
        # Where the episode counts came from: the submitter's number, or only presets.
        own = any(not spec.strategy for spec in runs)
        add_error("episodes_per_task" if own else "paper_protocol", exc.messages[0])
        return None
    fields["tasks"], fields["task_settings"] = variants, task_settings
    return runs


def _in_catalogue_order(variants: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Task variants as the suites list them: suite order, then each suite's tasks and
    formats in their declared order (what the preview and the submission page show)."""
    position = {}
    for suite_rank, suite_id in enumerate(all_suites()):
        for task_rank, (task_id, task_cls) in enumerate(tasks_of(suite_id).items()):
            for format_rank, fmt in enumerate(task_cls.formats):
                position[(task_id, fmt)] = (suite_rank, task_rank, format_rank)
    return sorted(variants, key=lambda variant: position[variant])


def merge_task_variants(values) -> list[tuple[str, str]]:
    """Parse the chosen "task:format" entries (or take them parsed), merge duplicates
    (the same task and format named twice is one run, not two) and hold the count to
    the operator's limit."""
    merged = list(dict.fromkeys(value if isinstance(value, tuple) else parse_task_variant(value) for value in values))
    limit = settings.ARENA_MAX_TASKS_PER_SUBMISSION
    if len(merged) > limit:
        raise ValidationError(
            f"At most {limit} different tasks per submission; this one names {len(merged)}. "
            "Split it into several submissions."
        )
    return merged


def check_task_settings(value, task_variants: list[tuple[str, str]]) -> dict[str, dict]:
    """Validate {task id: {setting: value}} for the chosen tasks: a setting is one the
    task offers (Task.settings, e.g. BALROG's invalid-action feedback or a shorter
    Crafter episode) with one of its allowed values, or an option the task sweeps
    (Task.variant_options) with the values to play: a list of some of its values, or
    one value (infogather at 3 colours only). Choosing every value is the whole sweep,
    and is left out of the cleaned settings."""
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError("Task settings are an object: {task id: {setting: value}}.")
    chosen = {task_id for task_id, _ in task_variants}
    cleaned: dict[str, dict] = {}
    for task_id, chosen_settings in value.items():
        if task_id not in chosen:
            raise ValidationError(f"Settings for {task_id!r}, which is not one of the chosen tasks.")
        if not isinstance(chosen_settings, dict):
            raise ValidationError(f"The settings of {task_id} are an object: {{setting: value}}.")
        task_cls = all_tasks()[task_id]
        offered, swept = task_cls.settings, task_cls.variant_options
        kept = {}
        for name, setting in chosen_settings.items():
            if name in swept:
                values = _swept_values(task_id, name, setting, swept[name])
                if len(values) < len(swept[name]):
                    kept[name] = values
                continue
            if name not in offered:
                names = ", ".join([*offered, *swept]) or "none"
                raise ValidationError(f"{task_id} has no setting {name!r} (its settings: {names}).")
            if not _allowed(setting, offered[name]):
                allowed = ", ".join(map(str, offered[name]))
                raise ValidationError(f"{task_id}: {name} must be one of {allowed}; got {setting!r}.")
            kept[name] = setting
        if kept:
            cleaned[task_id] = kept
    return cleaned


def _allowed(value, values: tuple) -> bool:
    # 1 == True in Python: a value must also be of the type of the option's values.
    return value in values and type(value) is type(values[0])


def _swept_values(task_id: str, name: str, chosen, values: tuple) -> list:
    """The values of a swept option a submission plays, in the option's order."""
    picked = chosen if isinstance(chosen, list) else [chosen]
    allowed = ", ".join(map(str, values))
    if not picked:
        raise ValidationError(f"{task_id}: choose at least one value of {name} ({allowed}), or leave it out to play them all.")
    for value in picked:
        if not _allowed(value, values):
            raise ValidationError(f"{task_id}: the values of {name} are {allowed}; got {value!r}.")
    return [value for value in values if value in picked]


def check_paper_sweeps(task_settings: dict[str, dict], paper_protocol: frozenset[str]) -> None:
    """A suite played as in its paper plays every value its tasks sweep (the paper's
    figures are over all of them)."""
    for task_id, chosen in task_settings.items():
        task_cls = all_tasks()[task_id]
        narrowed = [name for name in chosen if name in task_cls.variant_options]
        if narrowed and task_cls.suite in paper_protocol:
            raise ValidationError(
                f"{task_id} is played as in its paper, which plays every value of {', '.join(narrowed)}; "
                "to play some values only, do not play its suite as in the paper."
            )


def check_episode_volume(runs, *, what: str = "submission") -> None:
    """Refuse a submission or an experiment whose runs (a list of RunSpec) would
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


def check_queued_episodes(owner, runs, *, what: str = "submission") -> None:
    """Refuse a submission or an experiment that would take its owner past
    ARENA_MAX_QUEUED_EPISODES_PER_USER episodes waiting in the queue, over all their
    submissions (arena.services.queued_cap, which holds it again when they are created)."""
    check_queued_room(owner, sum(spec.num_episodes for spec in runs), what=what)
