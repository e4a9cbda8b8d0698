from django import template
from django.utils.html import json_script

from arena.models import Episode, Run

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
def usd(value):
    if value is None:
        return "—"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


@register.filter
def variant_label(run):
    """The run's observation format, options and prompt strategy, in a few words."""
    v = run.variant
    parts = [v.get("format", "")]
    for name, value in v.get("options", {}).items():
        words = name.replace("num_", "").replace("_", " ")
        if value is True:
            parts.append(words)
        elif value is not False:
            parts.append(f"{value} {words}")
    if not run.submission.is_baseline:
        parts.append("CoT" if v.get("chain_of_thought") else "naive")
        parts.append(f"{v.get('num_demonstrations', 0)} demos")
        if not v.get("show_legal_actions", True):
            parts.append("no legal list")
        if v.get("self_correction"):
            parts.append("self-correction")
        if v.get("reflection", "none") != "none":
            parts.append(f"reflexion ({v['reflection']})")
        if v.get("replay_control"):
            parts.append("replay control")
    return " · ".join(p for p in parts if p)


@register.filter
def task_url(task):
    """The task page of a task class or a task id such as "lmact/gridworld"."""
    from django.urls import reverse

    suite, name = getattr(task, "id", task).split("/", 1)
    return reverse("leaderboard:task", args=[suite, name])


@register.filter
def mean_se(summary, style=""):
    """A metric summary ({"mean", "stderr"}) as "mean ± se"; style "pct" shows percent."""
    if not summary or summary.get("mean") is None:
        return "—"
    scale, unit, digits = (100.0, " %", 1) if style == "pct" else (1.0, "", 2)
    mean = summary["mean"] * scale
    if summary.get("stderr") is None:
        return f"{mean:.{digits}f}{unit}"
    return f"{mean:.{digits}f} ± {summary['stderr'] * scale:.{digits}f}{unit}"


@register.simple_tag
def status_vocabulary():
    """The statuses of episodes and runs, and which of them are terminal, as the JSON
    block "status-vocabulary" that static/js/arena.js reads: scripts never spell them."""
    vocabulary = {
        "episode": {"statuses": [value for value, _ in Episode.STATUS_CHOICES], "terminal": list(Episode.TERMINAL)},
        "run": {"statuses": [value for value, _ in Run.STATUS_CHOICES], "terminal": list(Run.TERMINAL)},
    }
    return json_script(vocabulary, "status-vocabulary")
