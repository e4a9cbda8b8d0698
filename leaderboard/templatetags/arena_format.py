from django import template

register = template.Library()


@register.filter
def score(run):
    """`mean ± standard error` of a run, or an em dash before any episode finished."""
    mean = run.score_mean
    if mean is None:
        return "—"
    stderr = run.score_stderr
    return f"{mean:.3f} ± {stderr:.3f}" if stderr is not None else f"{mean:.3f}"


@register.filter
def percent(value):
    if value is None:
        return "—"
    return f"{100 * value:.1f} %"


@register.filter
def compact(number):
    """12_345_678 → 12.3M; tokens are shown at a glance."""
    if number is None:
        return "—"
    number = float(number)
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(number) >= size:
            return f"{number / size:.1f}{unit}"
    return f"{number:.0f}"


@register.filter
def variant_label(run):
    v = run.variant
    parts = [v.get("format", "")]
    if not run.submission.is_baseline:
        parts.append(f"{v.get('num_demonstrations', 0)} demos")
        if v.get("chain_of_thought"):
            parts.append("CoT")
        if not v.get("show_legal_actions", True):
            parts.append("no legal list")
    return " · ".join(p for p in parts if p)


@register.filter
def task_url(task):
    """The task page of a task class or a task id such as "lmact/gridworld"."""
    from django.urls import reverse

    suite, name = getattr(task, "id", task).split("/", 1)
    return reverse("leaderboard:task", args=[suite, name])
