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
    # The units tried largest first, the magnitude taken once (a front page writes some
    # fifteen hundred token counts; the loop over a tuple of units cost more than them).
    magnitude = abs(number)
    if magnitude >= 1e9:
        return f"{number / 1e9:.1f}B"
    if magnitude >= 1e6:
        return f"{number / 1e6:.1f}M"
    if magnitude >= 1e3:
        return f"{number / 1e3:.1f}k"
    return f"{number:.0f}"


@register.filter
def usd(value):
    if value is None:
        return "—"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


@register.filter
def variant_label(run):
    """The run's observation format, options and prompt strategy, in a few words."""
    return run.settings.label(baseline=run.submission.is_baseline)


@register.filter
def task_url(task):
    """The task page of a task class or a task id such as "lmact/gridworld"; for a task
    the catalogue does not hold (imported results of an environment the arena does not
    play yet), its suite's page when the suite has one."""
    from django.urls import reverse

    from envs.registry import get_suite, get_task_class

    task_id = getattr(task, "id", task)
    suite, name = task_id.split("/", 1)
    # Looked up without copying the catalogue: the front page asks for every task twice.
    try:
        get_task_class(task_id)
    except KeyError:
        try:
            if get_suite(suite).page:
                return reverse("leaderboard:suite", args=[suite])
        except KeyError:
            pass
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


@register.filter
def metric(value):
    """A run's metric (leaderboard.selectors.ranking.MetricValue) as "mean ± se" in the metric's
    unit and precision, or an em dash when no episode has a value."""
    if value is None or value.mean is None:
        return "—"
    digits, unit = value.metric.digits, value.metric.unit
    if value.stderr is None:
        return f"{value.mean:.{digits}f}{unit}"
    return f"{value.mean:.{digits}f} ± {value.stderr:.{digits}f}{unit}"


@register.filter
def ranking_metric(run):
    """The run's value of the metric that ranks it on its task's leaderboard (the
    primary metric of the task's suite); None for a task no longer in the catalogue."""
    from envs.registry import suite_of
    from leaderboard.selectors.ranking import metric_value

    try:
        return metric_value(run, suite_of(run.task).primary_metric)
    except KeyError:
        return None


@register.simple_tag
def status_vocabulary():
    """The statuses of episodes and runs, and which of them are terminal, as the JSON
    block "status-vocabulary" that static/js/arena.js reads: scripts never spell them."""
    vocabulary = {
        "episode": {"statuses": [value for value, _ in Episode.STATUS_CHOICES], "terminal": list(Episode.TERMINAL)},
        "run": {"statuses": [value for value, _ in Run.STATUS_CHOICES], "terminal": list(Run.TERMINAL)},
    }
    return json_script(vocabulary, "status-vocabulary")


@register.filter
def figure(value, digits=1):
    """A figure (mean, stderr, episodes) as "mean ± se" at `digits` decimals; the mean
    alone without a standard error; an em dash without a mean."""
    if value is None or value.mean is None:
        return "—"
    if value.stderr is None:
        return f"{value.mean:.{digits}f}"
    return f"{value.mean:.{digits}f} ± {value.stderr:.{digits}f}"


@register.filter
def unrounded(value):
    """A number as Python writes it in full (repr), for sorting in the browser; "" for None."""
    return "" if value is None else repr(float(value))


SIGNIFICANT_DIGITS = 4


@register.filter
def sig(value, digits=SIGNIFICANT_DIGITS):
    """A score or reward with `digits` significant digits (0.0033670236888049576 →
    0.003367, 29.123456 → 29.12, 12345.6 → 12346); integers stay whole, None is "—".
    static/js/arena.js (Arena.fmtScore) writes numbers the same way in the player."""
    if value is None or value == "":
        return "—"
    try:
        number = float(value)
        digits = int(digits)
    except (TypeError, ValueError):
        return value
    if number != number or number in (float("inf"), float("-inf")):
        return str(number)
    if number == int(number):
        return str(int(number))
    if abs(number) >= 10 ** digits:
        return f"{number:.0f}"
    text = f"{number:.{digits}g}"
    return text if "e" not in text else f"{number:.{digits - 1}e}"
