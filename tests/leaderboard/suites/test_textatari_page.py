"""The TextAtari suite page (/suites/textatari/): the human-normalised score per game for
every submission × scenario × agent × step limit, the random and expert baselines as
reference rows, and the relative-performance chart of two rows (TextAtari §3.3,
App. E, Figs. 6–39)."""

import json
import math
import statistics

import pytest

from envs.registry import get_suite
from django.utils import timezone

from arena.metrics import fold
from arena.models import Episode, Run, Submission
from arena.services.submissions import baseline_submission
from envs.registry import tasks_of
from envs.textatari.scores import normalised_score
from leaderboard.suites.textatari_chart import percentage_change

pytestmark = pytest.mark.django_db

PAGE = "/suites/textatari/"


def played_run(submission, game, scores, *, scenario=None, max_steps=None, **strategy):
    """A finished run of `textatari/<game>` as the runner leaves it: one episode per
    game score, each episode's metrics folded into the run."""
    options = {}
    if scenario:
        options["scenario"] = scenario
    if max_steps:
        options["max_steps"] = max_steps
    sums = {}
    for score in scores:
        sums = fold(sums, {"normalised_score": normalised_score(game, score, max_steps or 1000), "game_score": score})
    now = timezone.now()
    # Planned under TextAtari's paper preset (a comparable row, arena.protocol), with
    # the chain-of-thought agents' memory where they reason, then the test's settings.
    preset = get_suite("textatari").paper_preset
    variant = {"format": "text", "options": options, **preset.strategy}
    if strategy.get("chain_of_thought"):
        variant.update(preset.chain_of_thought_strategy)
    variant.update(strategy)
    run = Run.objects.create(
        submission=submission, task=f"textatari/{game}", variant=variant,
        num_episodes=max(len(scores), preset.episodes), status=Run.FINISHED, started_at=now, finished_at=now, episodes_done=len(scores),
        score_sum=sum(scores), score_sq_sum=sum(s * s for s in scores), steps_total=10 * len(scores), metric_sums=sums,
    )
    for index, score in enumerate(scores):
        Episode.objects.create(
            run=run, index=index, seed=index, status=Episode.FINISHED, score=score, num_steps=10,
            end_reason="game over", metrics={"normalised_score": normalised_score(game, score, max_steps or 1000), "game_score": score},
        )
    return run


def mean_se_percent(game, scores):
    values = [100 * normalised_score(game, score, 1000) for score in scores]
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


@pytest.fixture
def model(db):
    return Submission.objects.create(name="Tiny model", kind=Submission.KIND_MODEL, model="tiny")


@pytest.fixture
def baselines(db):
    random_, expert = baseline_submission("random", "Random legal actions"), baseline_submission("expert", "Expert")
    for game in ("pong", "breakout"):
        played_run(random_, game, [-21, -20, -21] if game == "pong" else [1, 2, 3])
        played_run(expert, game, [-5, -3, -4] if game == "pong" else [10, 12, 14])
    return random_, expert


def _row(response, submission, scenario=""):
    return next(r for r in response.context["rows"] if r.submission.pk == submission.pk and r.scenario == scenario)


def test_with_baselines_only_every_game_is_a_column_and_baselines_are_unranked_reference_rows(client, baselines):
    response = client.get(PAGE)
    assert response.status_code == 200
    page = response.content.decode()
    columns = response.context["columns"]
    assert {game.task_id for game in columns} == set(tasks_of("textatari")) and len(columns) == 23
    for cls in tasks_of("textatari").values():
        assert f'href="/tasks/textatari/{cls.id.split("/")[1]}/"' in page
    rows = response.context["rows"]
    assert [row.submission.policy for row in rows] == ["expert", "random"]
    assert all(row.rank is None and row.scenario == "" for row in rows)
    assert page.count("badge baseline") == 2
    random_row = _row(response, baselines[0])
    mean, se = mean_se_percent("pong", [-21, -20, -21])
    assert random_row.cell("pong").normalised.mean == pytest.approx(mean)
    assert f"{mean:.1f} ± {se:.1f}" in page
    assert "Pick two rows, A and B" in page


def test_a_cell_is_the_mean_and_se_over_its_episodes_and_links_to_them(client, model):
    one = played_run(model, "pong", [-21, -15, -18], scenario="basic")
    response = client.get(PAGE)
    cell = _row(response, model, "basic").cell("pong")
    mean, se = mean_se_percent("pong", [-21, -15, -18])
    assert (cell.normalised.mean, cell.normalised.stderr) == (pytest.approx(mean), pytest.approx(se))
    assert cell.normalised.episodes == 3 and cell.url == one.get_absolute_url()
    # A second run of the same configuration pools its episodes; the cell lists both runs' episodes.
    two = played_run(model, "pong", [-10], scenario="basic")
    cell = _row(client.get(PAGE), model, "basic").cell("pong")
    assert cell.normalised.mean == pytest.approx(mean_se_percent("pong", [-21, -15, -18, -10])[0])
    assert cell.url == f"/suites/textatari/episodes/?runs={one.pk},{two.pk}"
    listed = client.get(cell.url).context["rows"]
    assert len(listed) == 4


def test_rows_split_by_scenario_agent_and_step_limit_and_are_ranked(client, model, baselines):
    played_run(model, "pong", [-15, -14], scenario="basic")
    played_run(model, "breakout", [5, 6], scenario="basic")
    played_run(model, "pong", [-5, -6], scenario="manual")
    played_run(model, "pong", [-1, -2], scenario="manual", chain_of_thought=True)
    played_run(model, "pong", [10, 11], scenario="manual", max_steps=100)
    rows = [row for row in client.get(PAGE).context["rows"] if not row.submission.is_baseline]
    described = [(row.scenario, row.agent.split(" ·")[0], row.max_steps, row.rank) for row in rows]
    # Two games played ranks first; then the higher mean.
    assert described == [
        ("basic", "Naive", 1000, 1), ("manual", "Naive", 100, 2), ("manual", "CoT", 1000, 3),
        ("manual", "Naive", 1000, 4),
    ]
    basic = rows[0]
    assert basic.mean.mean == pytest.approx(statistics.fmean([basic.cell("pong").normalised.mean,
                                                               basic.cell("breakout").normalised.mean]))
    assert not basic.complete and basic.games_played == 2


def test_game_scores_show_on_hover_and_with_the_toggle(client, model):
    played_run(model, "breakout", [4, 8], scenario="obscured")
    page = client.get(PAGE).content.decode()
    assert 'title="Breakout: game score 6.0 ± 2.0' in page
    toggled = client.get(PAGE, {"show": "score"}).content.decode()
    assert 'data-game="breakout"' in toggled
    assert ">6.0 ± 2.0</a>" in toggled and ">6.0 ± 2.0</a>" not in page


def test_illegal_answers_are_counted_under_the_cell_and_the_rows_mean_not_passed_off_as_noop(client, model):
    clean = played_run(model, "pong", [-20, -21], scenario="basic")
    sloppy = played_run(model, "breakout", [0, 1], scenario="basic")
    Run.objects.filter(pk=sloppy.pk).update(illegal_total=5)  # 5 of its 20 steps
    response = client.get(PAGE)
    row = _row(response, model, "basic")
    assert (row.cell("breakout").illegal.illegal, row.cell("breakout").illegal.steps) == (5, 20)
    assert row.cell("pong").illegal.illegal == 0 and clean.steps_total == 20
    assert (row.illegal.illegal, row.illegal.steps) == (5, 40)
    page = response.content.decode()
    assert "5 of 20 answers illegal (25.0 %), played as NOOP" in page  # the breakout cell's hover
    assert '<div class="muted cell-illegal">5 illegal</div>' in page
    assert "12.5 % illegal" in page  # the row, 5 of 40 steps


def test_filters_narrow_the_rows_and_keep_the_baselines(client, model, baselines):
    played_run(model, "pong", [-15], scenario="basic")
    played_run(model, "pong", [-12], scenario="manual", chain_of_thought=True)
    played_run(model, "pong", [-12], scenario="manual", max_steps=100)

    def shown(**query):
        return sorted((row.submission.kind, row.scenario, row.max_steps) for row in client.get(PAGE, query).context["rows"])

    assert shown(scenario="manual") == [
        ("baseline", "", 1000), ("baseline", "", 1000), ("model", "manual", 100), ("model", "manual", 1000),
    ]
    assert shown(strategy="cot") == [("baseline", "", 1000), ("baseline", "", 1000), ("model", "manual", 1000)]
    assert shown(steps="100") == [("model", "manual", 100)]
    # Unknown values are ignored.
    assert len(shown(scenario="nonsense", steps="7", strategy="x")) == 5


def test_the_chart_draws_the_percentage_change_per_game_and_each_rows_normalised_average(client, model, baselines):
    played_run(model, "pong", [-10, -12], scenario="basic")
    played_run(model, "breakout", [2, 4], scenario="basic")
    played_run(model, "pong", [-5, -3], scenario="reference")
    played_run(model, "breakout", [6, 6], scenario="reference")
    response = client.get(PAGE)
    a, b = _row(response, model, "basic"), _row(response, model, "reference")
    response = client.get(PAGE, {"a": a.key, "b": b.key})
    chart = response.context["chart"]
    assert chart["compared"] == 2 and not chart["empty"]
    bars = chart["figure"]["data"][0]
    changes = dict(zip(bars["y"], bars["x"]))
    assert changes["Pong"] == pytest.approx(100 * (-4 - -11) / 11)
    assert changes["Breakout"] == pytest.approx(100 * (6 - 3) / 3)
    lines = sorted(shape["x0"] for shape in chart["figure"]["layout"]["shapes"])
    expected = sorted(
        statistics.fmean([100 * statistics.fmean(normalised_score(g, s, 1000) for s in scores) for g, scores in pairs])
        for pairs in ([("pong", [-10, -12]), ("breakout", [2, 4])], [("pong", [-5, -3]), ("breakout", [6, 6])])
    )
    assert lines == pytest.approx(expected)
    page = response.content.decode()
    assert 'data-figure="fig-relative-performance"' in page and "relative-empty" not in page


def test_two_submissions_compare_on_the_games_they_share_and_a_zero_score_has_no_bar(client, model, baselines):
    played_run(model, "pong", [-10], scenario="basic")
    played_run(model, "freeway", [0, 0], scenario="basic")
    other = Submission.objects.create(name="<b>Other</b> %{x}", kind=Submission.KIND_MODEL)
    played_run(other, "pong", [-20], scenario="basic")
    played_run(other, "freeway", [3], scenario="basic")
    response = client.get(PAGE)
    a, b = _row(response, model, "basic"), _row(response, other, "basic")
    chart = client.get(PAGE, {"a": a.key, "b": b.key}).context["chart"]
    assert chart["compared"] == 1 and chart["undefined"] == ["Freeway"]
    names = " ".join(trace.get("name", "") for trace in chart["figure"]["data"])
    assert "<b>" not in names and "%{" not in names
    # The random baseline against the model: pong only.
    random_row = _row(response, baselines[0])
    chart = client.get(PAGE, {"a": random_row.key, "b": a.key}).context["chart"]
    assert chart["figure"]["data"][0]["y"] == ["Pong"]


def test_the_chart_explains_what_is_missing(client, model, baselines):
    played_run(model, "skiing", [-9000], scenario="basic")
    response = client.get(PAGE)
    model_row, random_row = _row(response, model, "basic"), _row(response, baselines[0])
    page = client.get(PAGE, {"a": model_row.key, "b": random_row.key}).content.decode()
    assert "no games in common" in page and "fig-relative-performance" not in page
    assert "Pick two different rows" in client.get(PAGE, {"a": model_row.key, "b": model_row.key}).content.decode()
    assert "Pick two rows, A and B" in client.get(PAGE, {"a": model_row.key, "b": "999.basic.x.1000"}).content.decode()


def test_the_page_states_the_paper_protocol_and_where_the_arena_departs_from_it(client):
    page = client.get(PAGE).content.decode()
    assert "No finished episodes yet." in page
    assert "four scenarios, 1,000 steps and five seeds" in page
    assert "PPO" in page and "lookahead planner" in page


def test_percentage_change_is_relative_to_the_size_of_a():
    assert percentage_change(-20, -10) == pytest.approx(50.0)
    assert percentage_change(10, 5) == pytest.approx(-50.0)
    assert percentage_change(0, 5) is None
    assert json.dumps(percentage_change(4, 4)) == "0.0"


def test_agents_are_named_as_in_the_paper(client, model):
    played_run(model, "pong", [-9], scenario="basic", chain_of_thought=True, reflection="recent", history_window=1)
    played_run(model, "pong", [-8], scenario="basic", chain_of_thought=True, reflection="best", history_window=1)
    played_run(model, "pong", [-7], scenario="basic", reflection="best", self_correction=True, history_window=16)
    agents = sorted(row.agent for row in client.get(PAGE).context["rows"])
    assert agents == [
        "Reflexion_last · history 1", "Reflexion_max (no CoT) · history 16, self-correction", "Reflexion_max · history 1",
    ]


def test_the_front_page_cites_the_figures_the_suite_page_draws(client):
    suite_page = client.get(PAGE).content.decode()
    front_page = client.get("/").content.decode()
    assert "Figs. 6–39" in suite_page
    assert "relative-performance charts (Figs. 6–39)" in front_page


def test_the_page_shows_where_the_anchors_come_from_and_the_experts_reference_episodes(client):
    from envs.textatari.scenarios import reference_coverage
    from envs.textatari.scores import anchors

    page = client.get(PAGE)
    rows = {row.game.name: row for row in page.context["anchor_rows"]}
    assert len(rows) == 23
    pong = rows["pong"]
    assert [figures.max_steps for figures in pong.by_limit] == [100, 1000, 10000, 100000]
    assert pong.by_limit[0] == anchors("pong", 100) and pong.by_limit[0].source == "measured"
    assert pong.reference == reference_coverage("pong")
    html = page.content.decode()
    assert 'id="textatari-anchors"' in html and "the arena's own" in html
    assert f"{pong.reference['expert_score']:.0f} in {pong.reference['episode_steps']} steps" in html


# The per-game cells the page's template looped over before leaderboard.templatetags.
# textatari_cells wrote them in Python.
CELLS_LOOP = """      {% for cell in row.cells %}
      <td class="num">{% if cell.runs %}<a class="textatari-cell" data-game="{{ cell.game.name }}" href="{{ cell.url }}" title="{{ cell.hover }}">{% if show_scores %}{{ cell.score_text }}{% else %}{{ cell.normalised_text }}{% endif %}</a>{% if cell.flagged %}<sup class="anchor-flag" title="anchor gap negative or within random play's spread">†</sup>{% endif %}
        <div class="muted cell-other">{% if show_scores %}{{ cell.normalised_text }} %{% else %}score {{ cell.score_text }}{% endif %}</div>{% with illegal=cell.illegal %}{% if illegal.illegal %}
        <div class="muted cell-illegal">{{ illegal.illegal }} illegal</div>{% endif %}{% endwith %}{% else %}—{% endif %}</td>
      {% endfor %}"""


def test_the_cells_written_in_python_are_the_templates_byte_for_byte(client, model, baselines):
    from django.template import engines

    from leaderboard.templatetags.textatari_cells import textatari_cells

    played_run(model, "pong", [-20, -21], scenario="basic")
    sloppy = played_run(model, "breakout", [0, 1], scenario="basic")
    Run.objects.filter(pk=sloppy.pk).update(illegal_total=1234)  # past a thousand: no separator either way
    rows = client.get(PAGE).context["rows"]
    assert any(not cell.runs for row in rows for cell in row.cells)  # a game a row did not play: "—"
    for row in rows:
        for show_scores in (False, True):
            reference = engines["django"].from_string(CELLS_LOOP).render({"row": row, "show_scores": show_scores})
            assert "      " + textatari_cells(row, show_scores) == reference
    row = _row(client.get(PAGE), model, "basic")
    row.cells = [row.cell("breakout")]
    row.cells[0].flagged = True  # an anchor gap within random play's spread
    reference = engines["django"].from_string(CELLS_LOOP).render({"row": row, "show_scores": False})
    assert "      " + textatari_cells(row, False) == reference and "anchor-flag" in reference
