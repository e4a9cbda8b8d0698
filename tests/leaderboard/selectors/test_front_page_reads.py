"""The front page reads its runs once for both of its boards (leaderboard.selectors.runs
.front_page_runs): the sets it hands each board are the ones each board's own query
selects, and the boards built from them are the boards built from those queries."""

import pytest

from arena.models import Run
from leaderboard.boards import overall
from leaderboard.selectors.runs import (
    Filters,
    front_page_runs,
    leaderboard_by_suite,
    scored_runs_by_id,
    scored_runs_of_task,
    scored_runs,
)
from leaderboard.selectors.ranking import ranked_rows
from leaderboard.selectors.lean_runs import LEAN_DEFERRED, lean_runs
from envs.registry import suite_of
from tests.conftest import new_run

pytestmark = pytest.mark.django_db

FILTERS = [Filters(), Filters(mode="llm"), Filters(mode="vlm"), Filters(strategy="cot"), Filters(mode="vlm", strategy="naive")]


def _finished(run, scores):
    Run.objects.filter(pk=run.pk).update(
        episodes_done=len(scores), score_sum=sum(scores), score_sq_sum=sum(s * s for s in scores), status="finished"
    )


@pytest.fixture
def runs_of_both_modes(baseline, make_model_submission):
    plain, thinking = make_model_submission(name="Plain"), make_model_submission(name="Thinking", chain_of_thought=True)
    for number, submission in enumerate([baseline("random"), plain, thinking]):
        for task, fmt in (("balrog/babyai-goto", "text"), ("balrog/babyai-goto", "rgb"), ("lmact/tictactoe", "ascii")):
            _finished(new_run(submission, task=task, fmt=fmt), [0.1 * number, 0.2])
    new_run(plain, task="lmact/gridworld")  # no finished episode: on no board


def _ids(runs):
    return [run.pk for run in runs]


@pytest.mark.parametrize("filters", FILTERS, ids=str)
@pytest.mark.parametrize("tab", ["llm", "vlm"])
def test_the_runs_read_once_are_the_runs_each_board_selects(runs_of_both_modes, filters, tab, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):  # the runs, then their submissions
        task_runs, tab_runs = front_page_runs(filters, tab)
    assert _ids(task_runs) == _ids(scored_runs_by_id(filters))
    assert _ids(tab_runs) == _ids(scored_runs_by_id(Filters(mode=tab, strategy=filters.strategy)))
    assert {run.submission.name for run in task_runs} <= {"Random", "Plain", "Thinking"}
    assert 0 < len(tab_runs) < 9


@pytest.mark.parametrize("filters", FILTERS, ids=str)
def test_the_boards_of_the_runs_read_once_are_the_boards_of_their_own_queries(runs_of_both_modes, filters):
    task_runs, tab_runs = front_page_runs(filters, "llm")
    shared = overall.board("llm", filters.strategy, runs=tab_runs)
    own = overall.board("llm", filters.strategy)
    assert [(row.submission.pk, row.rank, row.average, [cell.figure for cell in row.cells]) for row in shared.rows] == [
        (row.submission.pk, row.rank, row.average, [cell.figure for cell in row.cells]) for row in own.rows
    ]
    for board in leaderboard_by_suite(filters, top=1, runs=task_runs):
        for task_board in board.tasks:
            # The task page's ranking (every metric of every run), cut as the front page cuts it.
            full = ranked_rows(board.suite, scored_runs_of_task(task_board.task.id, filters))
            kept = [row for row in full if row.rank is None or row.rank <= 1]
            assert [(row.run.pk, row.rank, row.metrics) for row in task_board.rows] == [
                (row.run.pk, row.rank, row.metrics) for row in kept
            ]
            assert task_board.ranked_total == sum(1 for row in full if row.rank is not None)
            assert all(len(row.metrics) == len(suite_of(row.run.task).metrics) for row in task_board.rows)


def test_the_task_pages_charts_read_once_are_each_formats_own(baseline, make_model_submission):
    """The task page reads a task's runs once for the charts of all its formats
    (scaling_points_by_format, replay_rows_by_format): each format's share is what the
    per-format reads give."""
    from arena.models import Experiment
    from arena.services.submissions import experiment_create
    from leaderboard.selectors.experiment_figures import (
        replay_rows,
        replay_rows_by_format,
        scaling_points,
        scaling_points_by_format,
    )

    task = "lmact/gridworld"
    _finished(new_run(baseline("random"), task=task, fmt="ascii"), [0.0, 1.0])
    _finished(new_run(baseline("expert"), task=task, fmt="coords"), [1.0, 1.0])
    for number, fmt in enumerate(["ascii", "coords", "ascii"]):
        model = make_model_submission(name=f"Model {number}", model=f"m-{number}")
        for kind in (Experiment.SWEEP, Experiment.REPLAY):
            experiment = experiment_create(model, kind=kind, task=task, format=fmt, num_episodes=2, max_demonstrations=2)
            for run in experiment.runs.all():
                _finished(run, [0.1 * number, 0.5])
                Run.objects.filter(pk=run.pk).update(
                    metric_sums={"replay_accuracy": {"curve_sum": [2.0, 1.0 + number], "curve_n": [2, 2]}}
                )
    points, replays = scaling_points_by_format(task), replay_rows_by_format(task)
    assert set(points) == {"ascii", "coords"} and set(replays) == {"ascii", "coords"}
    for fmt in ("ascii", "coords", "rgb"):
        assert points.get(fmt, ({}, {})) == scaling_points(task, fmt)
        assert replays.get(fmt, []) == replay_rows(task, fmt)
    # Two models played ascii, each a sweep and a replay (a curve of its own), and a baseline.
    assert len(points["ascii"][0]) == 4 and set(points["ascii"][1]) == {"random"} and len(replays["ascii"]) == 2


def test_the_lean_runs_are_the_orms_runs_field_for_field(runs_of_both_modes, django_assert_num_queries):
    """lean_runs builds the instances without Model.__init__ and decodes the JSON fields
    itself (orjson, json where the two could differ): every field equals the ORM's,
    integers past 64 bits included; the deferred ones are read when asked for."""
    first, second = Run.objects.filter(episodes_done__gt=0).order_by("id")[:2]
    Run.objects.filter(pk=first.pk).update(
        metric_sums={"steps": {"n": 2, "sum": 1e-310, "sumsq": 2**70, "min": -(2**63) - 1}},
        shipped_figures={"file": "figures/a.json", "generated": "2026-01-02"},
    )
    Run.objects.filter(pk=second.pk).update(metric_sums={"identified": {"n": 3, "sum": 0.1 + 0.2, "sumsq": -0.0}})
    fields = [field.attname for field in Run._meta.concrete_fields]
    read = [name for name in fields if name not in LEAN_DEFERRED]
    assert set(LEAN_DEFERRED) < set(fields)
    with django_assert_num_queries(1):
        lean = lean_runs(scored_runs().order_by("id"))
        lean_values = [[getattr(run, name) for name in read] for run in lean]
    orm = scored_runs().order_by("id")
    assert len(lean) == 9
    # By text: -0.0 and 0.0 are equal numbers.
    assert repr(lean_values) == repr([[getattr(run, name) for name in read] for run in orm])
    # The deferred fields are read when asked for, one query each, as .defer() reads them.
    with django_assert_num_queries(len(LEAN_DEFERRED)):
        assert [getattr(lean[0], name) for name in LEAN_DEFERRED] == [getattr(orm[0], name) for name in LEAN_DEFERRED]
    assert all(not run._state.adding and run._state.db == "default" for run in lean)
    assert lean[0].metric_sums["steps"]["sumsq"] == 2**70 and lean[0].shipped_figures["file"] == "figures/a.json"


@pytest.mark.parametrize("text", [
    '{"a": {"n": 3, "sum": 0.30000000000000004, "sumsq": -0.0}}', '{"big": 18446744073709551616}',
    '{"low": -9223372036854775809}', '{"long": 0.12345678901234567890123}', "[1e400]", "[NaN, -Infinity]",
    '{"a": 1, "a": 2}', '"\\ud800"', "not json", "{}", "null",
])
def test_the_lean_decoding_is_the_json_fields_own(text):
    from django.db import connection
    from leaderboard.selectors.lean_runs import _decoded

    orm = Run._meta.get_field("metric_sums").from_db_value(text, None, connection)
    assert repr(_decoded(text)) == repr(orm)


def test_the_lean_runs_variants_are_each_runs_own(runs_of_both_modes):
    """lean_runs builds one Variant per distinct variant text and gives it to the runs
    that share it: each run's Variant.of is the one its own variant builds, and a
    variant Variant.from_dict refuses still fails when asked for, and only then."""
    from arena.variant import Variant

    first, second, third = Run.objects.filter(episodes_done__gt=0).order_by("id")[:3]
    Run.objects.filter(pk=first.pk).update(variant={"format": "text", "num_demonstrations": "many"})
    Run.objects.filter(pk=third.pk).update(variant=second.variant)  # two runs of one variant
    lean = lean_runs(scored_runs().order_by("id"))
    orm = list(scored_runs().order_by("id"))
    assert [run.variant for run in lean] == [run.variant for run in orm]
    with pytest.raises(ValueError):
        Variant.of(lean[0])
    for run, own in zip(lean[1:], orm[1:]):
        assert Variant.of(run) == Variant.from_dict(own.variant)
        assert run.settings.label(baseline=False) == own.settings.label(baseline=False)
    by_text: dict[str, set[int]] = {}
    for run in lean[1:]:
        by_text.setdefault(repr(run.variant), set()).add(id(Variant.of(run)))
    assert len(by_text) < len(lean) - 1 and all(len(ids) == 1 for ids in by_text.values())


@pytest.mark.parametrize("filters", FILTERS, ids=str)
def test_the_kept_statement_reads_the_runs_the_orm_reads(runs_of_both_modes, filters, django_assert_num_queries):
    """scored_runs_by_id keeps each filter's SQL after its first use: the runs read by
    the kept statement (a change of the data in between) are the ORM's, field for field."""
    fields = [field.attname for field in Run._meta.concrete_fields if field.attname not in LEAN_DEFERRED]

    def values(runs):
        return repr([[getattr(run, name) for name in fields] + [run.submission.name] for run in runs])

    scored_runs_by_id(filters)  # the statement kept, if it was not yet
    Run.objects.filter(task="lmact/tictactoe").update(score_sum=7.5, metric_sums={"x": {"n": 1, "sum": 2.0}})
    Run.objects.filter(task="lmact/gridworld").update(episodes_done=1)
    with django_assert_num_queries(2):  # the runs, their submissions
        kept = scored_runs_by_id(filters)
    assert values(kept) == values(scored_runs(filters=filters).order_by("id"))
    assert any(run.task == "lmact/gridworld" for run in kept) == (filters == Filters() or filters.mode == "llm")
    assert {run.score_sum for run in kept if run.task == "lmact/tictactoe"} <= {7.5}


def test_a_queryset_without_rows_to_ask_for_reads_none(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert lean_runs(Run.objects.filter(pk__in=[])) == []
