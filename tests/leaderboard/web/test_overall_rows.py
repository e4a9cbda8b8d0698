"""The compact overall table's rows are written in Python (leaderboard.templatetags
.overall_rows) for speed; they must be the markup the template wrote, byte for byte, in
every branch: ranked and baseline rows, tie marks, ratings and their absence, complete,
partial and missing figures, suites counted in tasks played, older harnesses, names to
escape."""

import datetime
import pytest
from django.template import engines

from arena.matches.ratings.table import PlayerRating, Record
from arena.models import Run
from leaderboard.boards import overall
from leaderboard.templatetags.overall_rows import overall_compact_rows
from tests.leaderboard.boards.test_overall_leaderboard import BALROG_ALL_SIX, _model, _run, play_balrog_adventure_and_pong

pytestmark = pytest.mark.django_db

# templates/leaderboard/_overall_compact.html's loop over the rows as the template
# language wrote it before leaderboard.templatetags.overall_rows.
TEMPLATE_ROWS = """{% load arena_format %}{% for row in rows %}
    <tr class="{% if row.submission.is_baseline %}baseline-row{% endif %}" data-submission="{{ row.submission.pk }}">
      <td class="num" data-sort="{{ row.rank|default_if_none:'' }}">{% if row.rank %}{% if row.tie_explanation %}<a class="tie-mark" href="{{ row.tie_compare_url }}" title="{{ row.tie_explanation }} Open the paired comparison.">≈</a> {% endif %}{{ row.rank }}{% elif row.submission.is_baseline %}<span class="badge baseline">baseline</span>{% elif row.protocol.comparable %}<span class="badge not-ranked" title="No average progress yet: listed apart, not ranked">not ranked</span>{% else %}<span class="badge custom" title="Custom settings: not ranked against the paper's protocol">custom</span>{% endif %}</td>
      <td data-sort="{{ row.submission.name }}"><a class="model-page" href="{{ row.submission.get_absolute_url }}">{{ row.submission.name }}</a>{% if row.submission.moderation %}{% include "arena/_moderation_mark.html" with item=row.submission %}{% endif %}{% include "leaderboard/_row_protocol.html" %}{% include "leaderboard/_row_harness_mark.html" %}</td>
      <td data-sort="{{ row.submission.model }}">{% if row.submission.model_url %}<a class="model-link" href="{{ row.submission.model_url }}" rel="nofollow noopener">{{ row.submission.model|default:"—" }}</a>{% else %}{{ row.submission.model|default:"—" }}{% endif %}{% if row.submission.model_facts %}<div class="muted model-facts">{{ row.submission.model_facts|join:" · " }}</div>{% endif %}</td>
      <td class="num" data-sort="{{ row.average.mean|unrounded }}">{% if row.average.mean is not None %}<strong>{{ row.average|figure:average_digits }}</strong>{% elif row.average_partial %}<span class="badge partial" title="The average needs a complete figure of every suite on the shared scale">partial</span>{% else %}—{% endif %}</td>
      {% if board.has_ratings %}<td class="num overall-rating" data-sort="{% if row.rating %}{{ row.rating.rating|stringformat:'.6f' }}{% endif %}">{% if row.rating %}<a href="{% url 'leaderboard:ratings-game' 'all' %}" title="Head-to-head rating over all games, 95 % interval [{{ row.rating.low|floatformat:0 }}, {{ row.rating.high|floatformat:0 }}], {{ row.rating.record.games }} games">{{ row.rating.rating|floatformat:0 }}</a> <span class="muted">[{{ row.rating.low|floatformat:0 }}, {{ row.rating.high|floatformat:0 }}]</span>{% else %}—{% endif %}</td>{% endif %}
      {% for entry in row.suite_cells %}{% if entry.cell %}{% with cell=entry.cell %}
      <td class="num" data-column="{{ cell.column.id }}" data-sort="{{ cell.figure.mean|unrounded }}">{% if cell.figure.mean is not None %}{% if cell.url %}<a href="{{ cell.url }}">{{ cell.figure|figure:cell.column.digits }}</a>{% else %}{{ cell.figure|figure:cell.column.digits }}{% endif %}{% elif cell.partial %}<span class="badge partial" title="The suite's figure needs every one of its columns: {{ entry.played }} of {{ entry.total }} have one">partial{% if entry.played %} {{ entry.played }}/{{ entry.total }}{% endif %}</span>{% else %}—{% endif %}</td>
      {% endwith %}{% else %}
      <td class="num" data-column="{{ entry.suite.id }}.played" data-sort="{{ entry.played }}">{% if entry.played %}<a href="?{{ per_task_query }}#overall" title="The figures of each task">{{ entry.played }} of {{ entry.total }}</a>{% else %}—{% endif %}</td>
      {% endif %}{% endfor %}
      <td class="num" data-sort="{{ row.cost_usd|unrounded }}">{{ row.cost_usd|usd }}</td>
    </tr>
  {% empty %}
    <tr><td colspan="{{ board.suite_columns|length|add:5 }}" class="muted">No finished episodes in this tab yet.</td></tr>
  {% endfor %}"""
QUERY = "tab=llm&columns=tasks"


@pytest.fixture
def board_of_every_kind(baseline):
    complete = play_balrog_adventure_and_pong(_model("Complete <one>", price_input_per_mtok=1, price_output_per_mtok=2))
    _run(complete, "lmact/gridworld", scores=(1.0, 0.0), fmt="ascii")
    twin = _model(
        "Twin & co", model_organisation="Acme <Labs>", model_release_date=datetime.date(2024, 5, 13),
        model_weights="open", model_url="https://example.org/model?a=1&b=2",
    )
    for index, (task, options) in enumerate(BALROG_ALL_SIX):
        _run(twin, task, [10.0 * index + 1, 10.0 * index + 19], metric="progress", options=options)
    _run(twin, "adventure/basic-easy", [100.0, 0.0, 100.0, 90.0], metric="quality")
    partial = _model("Partial")
    _run(partial, "balrog/crafter", [90.0, 90.0], metric="progress")
    old = _run(partial, "adventure/basic-easy", [100.0, 100.0], metric="quality")
    Run.objects.filter(pk=old.pk).update(harness_version="v0+deadbeef")
    _model("Nothing yet")
    _run(baseline("random"), "balrog/crafter", [5.0, 15.0], metric="progress")
    _run(twin, "balrog/nethack", [3.0, 4.0], metric="progress", preset=False)  # custom: a row of its own
    board = overall.board("llm")
    assert [row.submission.name for row in board.custom_rows] == ["Twin & co"]
    assert [row.rank for row in board.rows].count(None) == 2  # the baseline and the partial row
    return board


def _reference(board, custom=False) -> str:
    rows = board.custom_rows if custom else board.rows
    context = {"board": board, "rows": rows, "average_digits": overall.AVERAGE_DIGITS, "per_task_query": QUERY}
    return engines["django"].from_string(TEMPLATE_ROWS).render(context)


@pytest.mark.parametrize("rated", [False, True])
def test_the_rows_written_in_python_are_the_templates_rows_byte_for_byte(board_of_every_kind, rated):
    board = board_of_every_kind
    if rated:
        board.rows[0].rating = PlayerRating("a", Record(games=12, wins=7), rating=1034.5, low=980.49, high=1100.5)
        board.rows[-1].rating = PlayerRating("b", Record(games=3), rating=999.5, low=-0.4, high=2000.0)
    assert board.rows[1].rank == 2
    board.rows[1].tie_explanation, board.rows[1].tie_compare_url = 'within "1.96" s.e.', "/compare/?a=1&b=2"
    written = overall_compact_rows(board, overall.AVERAGE_DIGITS, QUERY)
    assert written == _reference(board)
    for part in ("badge baseline", "tie-mark", "&quot;1.96&quot;", "badge partial", "harness-old", " of ",
                 "Complete &lt;one&gt;", "Twin &amp; co", "<strong>", "?tab=llm&amp;columns=tasks#overall", "—"):
        assert part in written, part
    assert ("overall-rating" in written) == rated
    custom = overall_compact_rows(board, overall.AVERAGE_DIGITS, QUERY, True)
    assert custom == _reference(board, custom=True)
    assert "badge custom" in custom and "badge custom" not in written
    # BALROG's preset fixes temperature 1 and 8,192 tokens; AdventureGame's plays the submission's 0 and 2,048.
    assert "paper preset · temperature 0/1 · 2,048/8,192 max tokens" in written
    assert "custom · temperature 0 · 2,048 max tokens · 2 episodes per run" in custom


def test_an_empty_tab_says_so(client):
    page = client.get("/?tab=vlm").content.decode()
    assert "No finished episodes in this tab yet." in page
