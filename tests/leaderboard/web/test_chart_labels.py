"""Names are plain text in charts: Plotly reads a subset of HTML in labels (a link among
them) and fills %{…} placeholders in hover templates, so every chart that labels
something with a submitter's name gets the name escaped, shown as written."""

import json

import pytest

from arena.services.runs import RunSpec, run_create
from arena.services.submissions import experiment_create
from arena.models import Experiment, Run
from leaderboard.suites import adventure
from leaderboard.boards.charts import plain_text
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

HOSTILE = '<a href="https://example.com/">LNK</a> %{text} & <b>bold</b> &amp;'
# As Plotly gets it: it draws the entities as the characters, so the name reads as written.
ESCAPED = "&lt;a href=\"https://example.com/\"&gt;LNK&lt;/a&gt; %&#123;text} &amp; &lt;b&gt;bold&lt;/b&gt; &amp;amp;"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _assert_plain(figure):
    """No markup or placeholder of the name in the figure, and the name is in it escaped."""
    strings = list(_strings(figure))
    text = json.dumps(figure)
    assert "<a " not in text and "</a>" not in text and "<b>" not in text, text[:500]
    assert not any("%{text}" in s for s in strings)
    assert any(ESCAPED in s for s in strings), strings


def _finished(run, scores, **fields):
    Run.objects.filter(pk=run.pk).update(
        episodes_done=len(scores), score_sum=sum(scores), score_sq_sum=sum(s * s for s in scores), status="finished",
        **fields,
    )


def test_plain_text_escapes_markup_and_placeholders():
    assert plain_text(HOSTILE) == ESCAPED
    assert plain_text("gpt-4o (chain of thought)") == "gpt-4o (chain of thought)"


def test_task_and_suite_charts_show_a_model_name_as_text(client, make_model_submission):
    submission = make_model_submission(name=HOSTILE, model=HOSTILE)
    _finished(new_run(submission, task="lmact/tictactoe"), [1.0, 0.0])
    replay = experiment_create(
        submission, kind=Experiment.REPLAY, task="lmact/tictactoe", format="ascii", num_episodes=2
    )
    for run in replay.runs.all():
        _finished(run, [1.0, 0.0], metric_sums={"replay_accuracy": {"curve_sum": [2.0, 1.0], "curve_n": [2, 2]}})

    task_page = client.get("/tasks/lmact/tictactoe/")
    ascii_charts = next(c for c in task_page.context["charts"] if c["format"] == "ascii")
    _assert_plain(ascii_charts["score"])
    _assert_plain(ascii_charts["illegal"])
    _assert_plain(task_page.context["replays"][0]["figure"])

    suite_page = client.get("/suites/lmact/")
    tictactoe = next(c for c in suite_page.context["charts"] if c["task"].id == "lmact/tictactoe")
    _assert_plain(tictactoe["figure"])


def test_experiment_charts_show_a_model_name_as_text(client, make_model_submission):
    submission = make_model_submission(name=HOSTILE, model=HOSTILE)
    sweep = experiment_create(
        submission, kind=Experiment.SWEEP, task="lmact/gridworld", format="ascii", num_episodes=2, max_demonstrations=1
    )
    replay = experiment_create(
        submission, kind=Experiment.REPLAY, task="lmact/gridworld", format="ascii", num_episodes=2
    )
    for run in [*sweep.runs.all(), *replay.runs.all()]:
        _finished(run, [1.0, 0.0], metric_sums={"replay_accuracy": {"curve_sum": [2.0, 1.0], "curve_n": [2, 2]}})

    figures = client.get(sweep.get_absolute_url()).context["figures"]
    _assert_plain(figures["score"])
    _assert_plain(figures["illegal"])
    _assert_plain(client.get(replay.get_absolute_url()).context["heatmap"])


def test_infogather_charts_show_a_submission_name_as_text(client, make_model_submission):
    spec = RunSpec(task="infogather/single-feature", format="text", num_episodes=2, options={"num_colours": 3})
    run = run_create(make_model_submission(name=HOSTILE), spec)
    sums = {
        "steps_to_sufficient_information": {"n": 2, "sum": 6.0, "sumsq": 18.0},
        "exploitation_curve": {"curve_sum": [1.0, 2.0], "curve_n": [2, 2]},
    }
    _finished(run, [1.0, 1.0], metric_sums=sums)

    sections = client.get("/suites/infogather/?colours=3").context["sections"]
    single = next(s for s in sections if s["task"].id == "infogather/single-feature")
    _assert_plain(single["steps"])
    _assert_plain(single["curve"])


def test_the_adventure_chart_shows_a_model_name_as_text(make_model_submission):
    submission = make_model_submission(name=HOSTILE, model=HOSTILE)
    turns = {"turns": 12.0, "optimal_turns": 8.0}
    row = adventure.Row(rank=1, submission=submission, result={"experiments": {"basic-easy": turns}}, runs=[])

    _assert_plain(adventure.turns_chart([row]))
