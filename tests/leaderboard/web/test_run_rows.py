"""The task leaderboards' rows are written in Python (leaderboard.templatetags.run_rows)
for speed; they must be the markup the template wrote, byte for byte, in every branch:
baselines, tie marks with and without a comparison, moderation marks, missing values,
failed episodes, cut-off answers, cached tokens, shipped figures, older harnesses."""

import pytest
from django.template import engines

from arena.models import Run, Submission
from envs.registry import suite_of
from leaderboard.boards.neighbours import NeighbourMark
from leaderboard.selectors.runs import Filters, leaderboard_by_suite, leaderboard_rows
from leaderboard.templatetags.run_rows import run_rows, task_sections
from tests.conftest import as_preset, new_run

pytestmark = pytest.mark.django_db

# The rows of templates/leaderboard/_run_table.html as the template language wrote them
# before they were written in Python (the reference this test holds them to).
TEMPLATE_ROWS = """{% load arena_format protocol_marks %}{% for row in rows %}
    <tr class="{% if row.submission.is_baseline %}baseline-row{% endif %}">
      <td class="num">{% if row.rank %}{% with mark=row.neighbour_mark %}{% if mark %}{% if mark.compare_url %}<a class="tie-mark" href="{{ mark.compare_url }}" title="{{ mark.explanation }} Open the paired comparison.">≈</a>{% else %}<span class="tie-mark" title="{{ mark.explanation }}">≈</span>{% endif %} {% endif %}{% endwith %}{{ row.rank }}{% elif row.submission.is_baseline %}<span class="badge baseline">baseline</span>{% else %}<span class="badge custom" title="Custom settings: not ranked against the paper's protocol">custom</span>{% endif %}</td>
      <td><a href="{{ row.submission.get_absolute_url }}">{{ row.submission.name }}</a>{% if row.submission.moderation %}{% include "arena/_moderation_mark.html" with item=row.submission %}{% endif %}{% if row.run.moderation %}{% include "arena/_moderation_mark.html" with item=row.run %}{% endif %}</td>
      <td>{{ row.submission.model|default:"—" }}</td>
      <td class="variant">{{ row.run|variant_label }}{% run_protocol_line row.run %}</td>
      {% for value in row.metrics %}<td class="num">{% if forloop.first %}<a href="{{ row.run.get_absolute_url }}">{{ value|metric }}</a>{% if value.missing %} <span class="muted" title="episodes that {{ value.metric.missing_means|default:'have no value' }}">({{ value.missing }} without)</span>{% endif %}{% else %}{{ value|metric }}{% endif %}</td>{% endfor %}
      <td class="num">{{ row.run.episodes_done }}{% if row.run.episodes_failed %} <span class="muted">(+{{ row.run.episodes_failed }} failed)</span>{% endif %}</td>
      <td class="num">{{ row.run.illegal_rate|percent }}{% if row.run.cut_off_total %}<br><span class="muted cut-off" title="steps whose answer reached the token limit, not counted as illegal">{{ row.run.cut_off_rate|percent }} cut off</span>{% endif %}</td>
      <td class="num">{{ row.run.tokens_spent_in|compact }} / {{ row.run.tokens_spent_out|compact }}{% if row.run.cached_tokens_in %}<br><span class="muted">{{ row.run.cached_tokens_in|compact }} cached</span>{% endif %}</td>
      <td class="num">{{ row.run.cost_usd|usd }}</td>
      <td><span class="badge status-{{ row.run.status|slugify }}">{{ row.run.status }}</span>{% if row.run.shipped_figures %} <span class="badge shipped-figures" title="figures shipped with the arena ({{ row.run.shipped_figures.file }}), played by its own runner on {{ row.run.shipped_figures.generated|slice:':10' }}; not played on this machine">shipped figures</span>{% endif %}{% include "leaderboard/_harness_mark.html" with run=row.run %}</td>
    </tr>
  {% empty %}
    <tr><td colspan="{{ columns|length|add:9 }}" class="muted">No finished episodes yet.</td></tr>
  {% endfor %}"""
TASK = "infogather/single-feature"


def _reference(rows) -> str:
    return engines["django"].from_string(TEMPLATE_ROWS).render({"rows": rows})


def _finished(run, **fields):
    values = {"episodes_done": 3, "score_sum": 1.5, "score_sq_sum": 1.25, "status": "finished", **fields}
    Run.objects.filter(pk=run.pk).update(**values)


@pytest.fixture
def rows_of_every_kind(baseline, make_model_submission):
    steps = {"n": 2, "sum": 9.0, "sumsq": 41.0, "missing": 1}
    identified = {"n": 3, "sum": 2.0, "sumsq": 2.0}
    _finished(new_run(baseline("random"), task=TASK, fmt="text"), metric_sums={"identified": identified})
    plain = make_model_submission(name="Plain <model>", model="")
    _finished(as_preset(new_run(plain, task=TASK, fmt="text")), metric_sums={"steps_to_sufficient_information": steps},
              episodes_failed=2, cut_off_total=3, steps_total=40, cached_tokens_in=12_345, tokens_spent_in=2_000_000,
              tokens_spent_out=999, illegal_fraction_sum=0.5, illegal_episodes=3)
    flagged = make_model_submission(name="Flagged & Co")
    Submission.objects.filter(pk=flagged.pk).update(moderation="flagged", moderation_reason='under "review"')
    run = as_preset(new_run(flagged, task=TASK, fmt="text"))
    _finished(run, moderation="verified", moderation_reason="", harness_version="v0+deadbeef",
              shipped_figures={"file": "figures/a.json", "generated": "2026-01-02T03:04:05"})
    _finished(as_preset(new_run(flagged, task=TASK, fmt="text", first_seed=100)), harness_version="imported", status="running")
    _finished(new_run(flagged, task=TASK, fmt="text", first_seed=200), metric_sums={"steps_to_sufficient_information": steps})
    rows = leaderboard_rows(TASK)
    ranked = [row for row in rows if row.rank]
    assert len(ranked) == 3 and len(rows) == 5
    assert rows[-1].rank is None and not rows[-1].submission.is_baseline  # custom settings: last, unranked
    ranked[1].neighbour_mark = NeighbourMark(ranked[0], ranked[1], True, 3, -0.5, 0.25)
    ranked[2].neighbour_mark = NeighbourMark(ranked[1], ranked[2], False, 0, None, None)
    return rows


def test_the_rows_written_in_python_are_the_templates_rows_byte_for_byte(rows_of_every_kind):
    written = run_rows(rows_of_every_kind)
    assert written == _reference(rows_of_every_kind)
    # Every branch above is in the markup compared.
    for part in ("badge baseline", "badge custom", "protocol-preset", "protocol-custom", "tie-mark", "/compare/", "moderation-flagged", "moderation-verified",
                 "without)", "failed)", "cut off", "cached", "shipped figures", "harness-old", "harness-version",
                 "Plain &lt;model&gt;", "Flagged &amp; Co", "&quot;review&quot;", "—"):
        assert part in written, part
    assert len(suite_of(TASK).metrics) > 1


# templates/leaderboard/index.html's loop over the suites' task leaderboards as the
# template language wrote it before leaderboard.templatetags.run_rows.task_sections.
TEMPLATE_SECTIONS = """{% load arena_format %}{% for board in suites %}
<section class="suite-section" id="suite-{{ board.suite.id }}">
  <h3>{{ board.suite.title }} <span class="muted">{{ board.suite.id }}</span></h3>
  <p>{{ board.suite.description }}</p>
  {% include "leaderboard/_ranking_rule.html" with suite=board.suite %}
  {% for entry in board.tasks %}
  <section class="task-section" id="{{ entry.task.id|slugify }}">
    <h4><a href="{{ entry.task|task_url }}">{{ entry.task.title }}</a> <span class="muted">{{ entry.task.id }}</span></h4>
    {% include "leaderboard/_run_table.html" with rows=entry.rows columns=board.suite.metrics %}
    {% if entry.ranked_cut %}<p class="more-rows"><a href="{{ entry.task|task_url }}{% if task_filter_query %}?{{ task_filter_query }}{% endif %}">All {{ entry.ranked_total }} ranked runs of {{ entry.task.title }} →</a> <span class="muted">the top {{ front_page_rows }} and the baselines are shown here</span></p>{% endif %}
  </section>
  {% endfor %}
</section>
{% endfor %}"""


@pytest.mark.parametrize("filter_query", ["", "mode=llm&strategy=cot"])
def test_the_task_sections_written_in_python_are_the_templates_byte_for_byte(rows_of_every_kind, make_model_submission, filter_query):
    second = make_model_submission(name="Second")
    _finished(new_run(second, task="lmact/tictactoe", fmt="ascii"))
    _finished(new_run(second, task=TASK, fmt="text", first_seed=200))
    suites = leaderboard_by_suite(Filters(), top=1)
    entries = [entry for board in suites for entry in board.tasks]
    # A cut table, a table of one row and tasks without rows are all in the markup compared.
    assert any(entry.ranked_cut for entry in entries) and any(not entry.rows for entry in entries)
    assert any(entry.rows and not entry.ranked_cut for entry in entries)
    context = {"suites": suites, "task_filter_query": filter_query, "front_page_rows": 1}
    written = task_sections(suites, filter_query, 1)
    assert written == engines["django"].from_string(TEMPLATE_SECTIONS).render(context)
    assert "No finished episodes yet." in written and "ranked runs of" in written
    if filter_query:
        assert "?mode=llm&amp;strategy=cot" in written


def test_a_task_without_rows_says_so(client):
    page = client.get(f"/tasks/{TASK}/").content.decode()
    assert "No finished episodes yet." in page


@pytest.mark.parametrize("value", [
    None, 0, 1, -1, 0.5, 1e-9, 999.95, 1e3, 12_345_678, -12_345_678, 9.99e12, 1e300, float("inf"), float("-inf"), float("nan"),
])
def test_the_numbers_a_row_writes_unescaped_hold_nothing_escape_would_replace(value):
    # run_rows writes percent, compact and usd without escaping them (a row has six):
    # whatever number they are given, the text is the same escaped or not.
    from leaderboard.templatetags.arena_format import compact, percent, usd
    from leaderboard.templatetags.run_rows import escape

    for formatter in (percent, compact, usd):
        try:
            text = formatter(value)
        except (OverflowError, ValueError):
            continue  # nothing written: the page fails the same way with or without escaping
        assert escape(text) == text, (formatter.__name__, value, text)


@pytest.mark.parametrize("unit", ["", " %", " steps", " <&{0}>"])
@pytest.mark.parametrize("digits", [0, 1, 3])
@pytest.mark.parametrize("mean, stderr", [
    (None, None), (0.0, None), (-0.0, 0.0), (12.345678, 0.98765), (-1e300, 1e-9), (float("inf"), float("nan")),
])
def test_a_metric_cell_is_the_escaped_metric_filter(unit, digits, mean, stderr):
    # run_rows writes each value from its metric's format patterns, built once per page.
    from envs.suite import MEAN_SUMMED_REWARD, Metric
    from leaderboard.selectors.ranking import MetricValue
    from leaderboard.templatetags.arena_format import metric
    from leaderboard.templatetags.run_rows import _metric_text, escape

    described = Metric("m", "M", True, MEAN_SUMMED_REWARD, unit=unit, digits=digits)
    value = MetricValue(described, mean, stderr, 3, 0)
    parts: dict = {}
    assert _metric_text(value, parts) == escape(metric(value))
    assert _metric_text(value, parts) == escape(metric(value))  # from the patterns kept
