"""Cost against score (leaderboard.boards.cost, cost_chart, cost_views): the Pareto
frontier is computed right, the chart draws it with the dominated submissions grey, the
page and the model page render it."""

import json
from decimal import Decimal

import pytest

from arena.models import Run
from leaderboard.boards.cost_chart import DOMINATED_COLOUR, FRONTIER_COLOUR, frontier_steps
from leaderboard.boards.cost import TOKENS, USD, cost_charts, dominated_flags
from tests.conftest import as_preset
from tests.support.episodes import scripted_run

pytestmark = pytest.mark.django_db

# (name, scores of its two episodes, tokens per episode): C is beaten by B (cheaper and
# better), E by B and D; A, B and D are the frontier.
FIELD = [
    ("A", [0.0, 0.5], 1000),
    ("B", [0.5, 1.0], 2000),
    ("C", [0.5, 0.5], 3000),
    ("D", [1.0, 1.0], 4000),
    ("E", [0.5, 1.0], 5000),
]


def test_dominance_on_a_known_set_of_five_points_with_two_dominated():
    points = [(1.0, 10.0), (2.0, 30.0), (3.0, 20.0), (4.0, 50.0), (5.0, 40.0)]
    assert dominated_flags(points) == [False, False, True, False, True]
    # Lower is better: the same costs with scores where less wins.
    assert dominated_flags([(1.0, 5.0), (2.0, 3.0), (3.0, 4.0), (4.0, 1.0), (5.0, 2.0)], higher_is_better=False) == [
        False, False, True, False, True]
    # Equal points dominate neither; equal cost and a better score does.
    assert dominated_flags([(1.0, 1.0), (1.0, 1.0)]) == [False, False]
    assert dominated_flags([(1.0, 1.0), (1.0, 2.0)]) == [True, False]
    assert dominated_flags([(2.0, 1.0), (1.0, 1.0)]) == [True, False]


@pytest.fixture
def field(make_model_submission, baseline):
    """Five priced model submissions on LMAct's grid world ($1 per million tokens in and
    out), and a baseline (no tokens: left out)."""
    submissions = {}
    for name, scores, tokens in FIELD:
        submission = make_model_submission(
            name=name, price_input_per_mtok=Decimal("1"), price_output_per_mtok=Decimal("1"))
        run = as_preset(scripted_run(submission, scores))
        Run.objects.filter(pk=run.pk).update(tokens_spent_in=tokens * 3 // 2, tokens_spent_out=tokens // 2)
        submissions[name] = submission
    scripted_run(baseline("expert"), [1.0, 1.0])
    return submissions


def _gridworld(charts):
    return next(chart for chart in charts if chart.key == "lmact.gridworld")


def test_the_chart_of_a_task_has_the_frontier_and_greys_the_dominated(field):
    chart = _gridworld(cost_charts("llm"))
    assert chart.axis == USD and chart.axis_label == "cost per episode (USD)"
    assert [p.submission.name for p in chart.points] == ["A", "B", "C", "D", "E"]  # cheapest first
    assert [p.submission.name for p in chart.frontier] == ["A", "B", "D"]
    assert {p.submission.name for p in chart.points if p.dominated} == {"C", "E"}
    a = chart.points[0]
    assert a.usd_per_episode == pytest.approx(0.001) and a.tokens_per_episode == 1000 and a.score == 0.25
    # The staircase: each frontier point's score held until the next, dearer one.
    assert frontier_steps(chart) == ([0.001, 0.002, 0.002, 0.004, 0.004], [0.25, 0.25, 0.75, 0.75, 1.0])
    # The overall chart needs a complete average progress (BALROG and AdventureGame): none here.
    overall = next(chart for chart in cost_charts("llm") if chart.key == "overall")
    assert overall.points == []


def test_a_submission_priced_by_neither_is_left_out_and_the_axis_stays_dollars(client, field, make_model_submission):
    unpriced = make_model_submission(name="No prices", model="some-local-model")
    run = as_preset(scripted_run(unpriced, [1.0, 1.0]))
    Run.objects.filter(pk=run.pk).update(tokens_spent_in=200, tokens_spent_out=0)
    chart = _gridworld(cost_charts("llm"))
    assert chart.axis == USD and chart.unpriced == 1
    assert "No prices" not in [p.submission.name for p in chart.points]
    assert "1 left out: no price, neither given nor in the price catalogue" in client.get("/cost/").content.decode()


def test_a_well_known_model_without_prices_is_costed_at_the_catalogue_price(field, make_model_submission):
    listed = make_model_submission(name="Listed", model="anthropic/claude-3-5-haiku-20241022")
    run = as_preset(scripted_run(listed, [1.0, 1.0]))
    Run.objects.filter(pk=run.pk).update(tokens_spent_in=2_000_000, tokens_spent_out=1_000_000)
    point = _gridworld(cost_charts("llm")).point_of(listed)
    # Claude Haiku 3.5's list price: $0.80 in, $4 out per million tokens; two episodes.
    assert point.usd_per_episode == pytest.approx((2 * 0.80 + 1 * 4.0) / 2)
    assert listed.price_source == "catalogue"
    assert "seen 2026-11-28 on https://docs.anthropic.com/" in listed.catalogue_price_note


def test_the_users_own_prices_win_over_the_catalogue(make_model_submission):
    own = make_model_submission(name="Own", model="claude-sonnet-4", price_input_per_mtok=1, price_output_per_mtok=1)
    assert own.price_source == "own"
    assert own.cost_usd(1_000_000, 1_000_000) == pytest.approx(2.0)
    listed = make_model_submission(name="Listed", model="Claude-Sonnet-4")
    assert listed.cost_usd(1_000_000, 1_000_000) == pytest.approx(3.0 + 15.0)


def test_only_one_chart_of_no_price_at_all_is_in_tokens(make_model_submission):
    unpriced = make_model_submission(name="Local", model="my-local-model")
    run = as_preset(scripted_run(unpriced, [1.0, 1.0]))
    Run.objects.filter(pk=run.pk).update(tokens_spent_in=200, tokens_spent_out=0)
    chart = _gridworld(cost_charts("llm"))
    assert chart.axis == TOKENS and chart.axis_label.startswith("tokens per episode") and chart.unpriced == 0


def test_the_page_draws_the_frontier_and_the_dominated_points(client, field):
    page = client.get("/cost/").content.decode()
    assert 'id="fig-cost-lmact-gridworld"' in page and 'data-figure="fig-cost-lmact-gridworld"' in page
    figure = json.loads(page.split('<script id="fig-cost-lmact-gridworld" type="application/json">')[1].split("</script>")[0])
    traces = {trace["name"]: trace for trace in figure["data"]}
    assert traces["Pareto frontier"]["line"]["color"] == FRONTIER_COLOUR
    assert traces["on the frontier"]["text"] == ["A", "B", "D"]
    assert traces["dominated"]["text"] == ["C", "E"] and traces["dominated"]["marker"]["color"] == DOMINATED_COLOUR
    assert "Expert" not in json.dumps(figure)  # baselines call no model
    assert page.count('class="dominated"') == 2 and page.count('class="frontier"') == 3
    assert 'id="cost-link"' in client.get("/").content.decode()


def test_the_model_page_shows_where_the_submission_sits(client, field):
    page = client.get(field["C"].get_absolute_url()).content.decode()
    assert 'id="cost-against-score"' in page
    assert "dominated: another submission is as cheap and as good, and better on one" in page
    figure = json.loads(page.split('<script id="fig-cost-lmact-gridworld-llm" type="application/json">')[1].split("</script>")[0])
    ringed = next(trace for trace in figure["data"] if trace["name"] == "this submission")
    assert ringed["x"] == [pytest.approx(0.003)] and ringed["y"] == [0.5]
    assert 'class="frontier own-point"' not in page and 'class="dominated own-point"' in page
    assert "on the Pareto frontier" in client.get(field["D"].get_absolute_url()).content.decode()


def test_a_new_arena_names_its_empty_charts_instead_of_drawing_them(client):
    page = client.get("/cost/").content.decode()
    assert 'class="plotly-chart"' not in page
    assert "No model submission has a complete figure with recorded tokens yet" in page
    assert 'href="/submit/"' in page
    assert "No points yet: Overall · Average progress" in page
