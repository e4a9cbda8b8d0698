"""Two submissions compared on shared seeds (/compare/, /api/compare/), and the mark
between task-leaderboard neighbours the data cannot tell apart."""

import math
import random
import re
import statistics

import pytest

from leaderboard.compare.paired import MARK_MAX_DRAWS, MARK_RESAMPLES, Z_95, bootstrap_interval
from tests.support.episodes import scripted_run

pytestmark = pytest.mark.django_db


def _game(client, a, b):
    response = client.get(f"/api/compare/?a={a.pk}&b={b.pk}")
    assert response.status_code == 200, response.content
    return response.json()


def _steps(values):
    return [{"steps_to_sufficient_information": v} for v in values]


def test_per_seed_differences_agree_with_the_leaderboard_means(client, baseline):
    expert, rnd = baseline("expert"), baseline("random")
    scripted_run(expert, [1.0, 0.5, 1.0, 0.0])
    scripted_run(rnd, [0.5, 0.5, 0.0, 0.25])
    game = _game(client, expert, rnd)["games"][0]
    assert [s["difference"] for s in game["seeds"]] == [0.5, 0.0, 1.0, -0.25]
    # every seed shared: the mean difference is the difference of the leaderboard's means
    assert game["mean_difference"] == pytest.approx(0.625 - 0.3125)
    assert (game["win"], game["tie"], game["loss"]) == (2, 1, 1)
    assert game["seeds"][0]["replay"] == f"/episodes/{game['seeds'][0]['a_episode']}/compare/{game['seeds'][0]['b_episode']}/"


def test_the_bootstrap_interval_contains_the_true_mean_of_a_known_dataset():
    rng = random.Random(3)
    differences = [rng.gauss(1.0, 2.0) for _ in range(400)]
    low, high = bootstrap_interval(differences)
    assert low < 1.0 < high and low > 0  # the true mean inside, 0 outside
    assert high - low < 0.6  # about 2 × 1.96 × 2 / √400 = 0.39 wide
    assert bootstrap_interval(differences) == (low, high)  # fixed seed: the same page every visit
    assert bootstrap_interval([0.4]) is None


def test_a_lower_is_better_metric_counts_fewer_steps_as_a_win(client, make_model_submission):
    a, b = make_model_submission(name="A"), make_model_submission(name="B")
    scripted_run(a, [0] * 5, task="infogather/single-feature", fmt="text", metrics=_steps([3, 5, 4, 2, 2]))
    scripted_run(b, [0] * 5, task="infogather/single-feature", fmt="text", metrics=_steps([6, 5, 7, 6, 5]))
    game = _game(client, a, b)["games"][0]
    assert game["higher_is_better"] is False and game["metric"] == "steps_to_sufficient_information"
    assert (game["win"], game["tie"], game["loss"]) == (4, 1, 0)
    assert game["better"] == "a" and game["ci95"][1] < 0
    page = client.get(f"/compare/?a={a.pk}&b={b.pk}").content.decode()
    assert "A better" in page and "lower is better" in page


def test_unpaired_seeds_and_missing_values_are_counted_not_averaged(client, make_model_submission):
    a, b = make_model_submission(name="A"), make_model_submission(name="B")
    # a plays seeds 0-3, b seeds 2-5; on seed 3 a never reached sufficient information
    scripted_run(a, [0] * 4, task="infogather/single-feature", fmt="text", metrics=_steps([3, 3, 4, None]))
    scripted_run(b, [0] * 4, task="infogather/single-feature", fmt="text", first_seed=2, metrics=_steps([5, 5, 5, 5]))
    game = _game(client, a, b)["games"][0]
    assert (game["shared_seeds"], game["paired"], game["missing"]) == (2, 1, 1)
    assert (game["unpaired_a"], game["unpaired_b"]) == (2, 2)
    assert game["mean_difference"] == -1.0 and game["ci95"] is None  # one pair: no interval
    assert [s["outcome"] for s in game["seeds"]] == ["win", "missing"]
    page = client.get(f"/compare/?a={a.pk}&b={b.pk}").content.decode()
    assert "one paired seed: no interval" in page and "unpaired: 2 A, 2 B" in page


def test_submissions_without_a_shared_game_say_so(client, baseline):
    expert, rnd = baseline("expert"), baseline("random")
    scripted_run(expert, [1.0], task="lmact/gridworld")
    scripted_run(rnd, [0.0], task="lmact/tictactoe")
    assert _game(client, expert, rnd)["games"] == []
    assert "no task × format × variant in common" in client.get(f"/compare/?a={expert.pk}&b={rnd.pk}").content.decode()


def test_the_games_only_one_side_played_are_counted_in_words(client, baseline):
    expert, rnd = baseline("expert"), baseline("random")
    scripted_run(expert, [1.0], task="lmact/gridworld")
    scripted_run(rnd, [0.0], task="lmact/gridworld")
    scripted_run(expert, [1.0], task="lmact/tictactoe")
    page = client.get(f"/compare/?a={expert.pk}&b={rnd.pk}").content.decode()
    assert "Not compared: 1 game only A played, 0 only B played." in page  # not "1 game(s)"


@pytest.mark.parametrize("query", ["", "?a=1", "?b=1", "?a=x&b=1", "?a=1&b=-2", "?a=1&b=1", "?a=1&b=999999",
                                   "?a=1&b=99999999999999999999999"])
def test_bad_parameters_get_a_clear_400(client, baseline, query):
    baseline("expert")  # submission 1 may exist or not: every query stays bad
    for path in ("/compare/", "/api/compare/"):
        response = client.get(path + query)
        assert response.status_code == 400
    assert client.get("/api/compare/" + query).json()["detail"]


def test_the_comparison_api_is_in_the_openapi_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/compare/" in schema["paths"]


def test_the_task_leaderboard_marks_neighbours_the_data_cannot_tell_apart(client, make_model_submission):
    close_a, close_b, far = (make_model_submission(name=n) for n in ("Close A", "Close B", "Far behind"))
    scripted_run(close_a, [1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    scripted_run(close_b, [1.0, 1.0, 0.0, 0.0, 1.0, 0.5])
    scripted_run(far, [-5.0, -5.0, -4.0, -5.0, -6.0, -5.0])
    page = client.get("/tasks/lmact/gridworld/").content.decode()
    marks = re.findall(r'<a class="tie-mark" href="([^"]+)" title="([^"]+)"', page)
    assert len(marks) == 1  # between ranks 1 and 2, not between 2 and 3
    url, title = marks[0]
    assert url == f"/compare/?a={close_a.pk}&amp;b={close_b.pk}"
    assert "Not distinguishable from rank 1" in title and "6 shared seeds" in title


def test_neighbours_without_shared_seeds_are_judged_by_their_standard_errors(client, make_model_submission):
    a, b = make_model_submission(name="A"), make_model_submission(name="B")
    scripted_run(a, [1.0, 0.0, 1.0], first_seed=0)
    scripted_run(b, [1.0, 0.0, 0.5], first_seed=10)
    page = client.get("/tasks/lmact/gridworld/").content.decode()
    assert "they share fewer than two seeds" in page


def test_a_mark_past_its_draw_bound_takes_the_normal_interval_and_stays_close_to_the_bootstrap():
    rng = random.Random(5)
    differences = [rng.gauss(0.3, 1.5) for _ in range(400)]
    resampled = bootstrap_interval(differences, resamples=MARK_RESAMPLES)
    bounded = bootstrap_interval(differences, resamples=MARK_RESAMPLES, max_draws=MARK_MAX_DRAWS)
    mean, spread = statistics.fmean(differences), statistics.stdev(differences)
    half = Z_95 * spread / math.sqrt(len(differences))
    assert bounded == pytest.approx((mean - half, mean + half))
    assert bounded != resampled and bounded == pytest.approx(resampled, abs=0.03)
    few = differences[:100]  # within the bound: resampled as before
    assert bootstrap_interval(few, resamples=MARK_RESAMPLES, max_draws=MARK_MAX_DRAWS) == bootstrap_interval(
        few, resamples=MARK_RESAMPLES
    )


def test_the_marks_are_read_from_the_episodes_once_until_the_ranked_runs_change(client, make_model_submission, monkeypatch):
    from arena.models import Run
    from leaderboard.boards import neighbours

    reads = []
    real = neighbours.episode_values
    monkeypatch.setattr(neighbours, "episode_values", lambda *args: reads.append(args) or real(*args))
    close_a, close_b = make_model_submission(name="Close A"), make_model_submission(name="Close B")
    scripted_run(close_a, [1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    run_b = scripted_run(close_b, [1.0, 1.0, 0.0, 0.0, 1.0, 0.5])

    def marks():
        page = client.get("/tasks/lmact/gridworld/").content.decode()
        return re.findall(r'<a class="tie-mark" href="[^"]+" title="([^"]+)"', page)

    first = marks()
    assert len(first) == 1 and "6 shared seeds" in first[0] and len(reads) == 1
    assert marks() == first and len(reads) == 1  # the same runs, the same aggregates: not read again
    # An aggregate of a ranked run changed (an episode finished, a run was re-folded): read again.
    Run.objects.filter(pk=run_b.pk).update(score_sum=run_b.score_sum - 0.5, score_sq_sum=run_b.score_sq_sum - 0.25)
    assert len(marks()) == 1 and len(reads) == 2
    # A new ranked run: the neighbours differ, read again.
    scripted_run(make_model_submission(name="Far behind"), [-5.0, -5.0, -4.0, -5.0, -6.0, -5.0])
    assert len(marks()) == 1 and len(reads) == 3


def test_a_cache_that_cannot_answer_costs_the_marks_their_speed_not_the_page(client, make_model_submission, monkeypatch):
    from leaderboard.boards import neighbours

    class DownCache:
        def get(self, *args, **kwargs):
            raise ConnectionError("cache down")

        set = get

    monkeypatch.setattr(neighbours, "cache", DownCache())
    close_a, close_b = make_model_submission(name="Close A"), make_model_submission(name="Close B")
    scripted_run(close_a, [1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    scripted_run(close_b, [1.0, 1.0, 0.0, 0.0, 1.0, 0.5])
    response = client.get("/tasks/lmact/gridworld/")
    assert response.status_code == 200
    assert "Not distinguishable from rank 1" in response.content.decode()


# The per-seed loop the page's template ran before leaderboard.templatetags.
# comparison_format.seed_rows wrote the rows in Python.
SEED_ROWS_LOOP = """{% load comparison_format %}{% with m=p.metric %}
    {% for pair in p.pairs %}
      <tr>
        <td class="num">{{ pair.seed }}</td>
        <td class="num">{{ pair.a.value|fixed:m.digits }}</td>
        <td class="num">{{ pair.b.value|fixed:m.digits }}</td>
        <td class="num">{{ pair.difference|signed:m.digits }}</td>
        <td>{% with outcome=p|outcome_of:pair %}<span class="outcome outcome-{{ outcome }}">{{ outcome }}</span>{% endwith %}</td>
        <td><a class="seed-replay" href="{% url 'leaderboard:compare' pair.a.episode_id pair.b.episode_id %}">side by side</a></td>
      </tr>
    {% endfor %}
    {% endwith %}"""


def test_the_seed_rows_written_in_python_are_the_templates_byte_for_byte(make_model_submission):
    from django.template import engines

    from arena.models import Submission
    from leaderboard.compare.submissions import compare_submissions
    from leaderboard.templatetags.comparison_format import seed_rows

    a, b = make_model_submission(name="A"), make_model_submission(name="B")
    scripted_run(a, [0] * 4, task="infogather/single-feature", fmt="text", metrics=_steps([3, 3, 4, None]))
    scripted_run(b, [0] * 4, task="infogather/single-feature", fmt="text", first_seed=2, metrics=_steps([5, 5, 5, 5]))
    scripted_run(a, [1.0, -0.5, 0.25])
    scripted_run(b, [0.5, -0.5, 1.0])
    comparison = compare_submissions(Submission.objects.get(pk=a.pk), Submission.objects.get(pk=b.pk))
    assert len(comparison.games) == 2
    for game in comparison.games:
        reference = engines["django"].from_string(SEED_ROWS_LOOP).render({"p": game.pairing})
        assert f"\n    {seed_rows(game.pairing)}\n    " == reference
