"""The model page (/submissions/<id>/): every run with its suite's metric, where it
stands among the other submissions, its scaling curves, the pick of a comparison."""

import random
import re

import pytest
from django.contrib.auth.models import User

from arena.services.episodes import episode_claim, episode_finish
from arena.services.submissions import experiment_create
from arena.models import Experiment
from tests.support.episodes import scripted_run

pytestmark = pytest.mark.django_db


def _page(client, submission) -> str:
    response = client.get(submission.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def _section(page: str, suite: str) -> str:
    return re.search(rf'<section class="suite-results" id="results-{suite}">(.*?)</section>', page, re.S).group(1)


def test_results_are_grouped_by_suite_with_each_suites_metric(client, make_model_submission):
    model = make_model_submission(name="Grouped")
    scripted_run(model, [1.0, 0.0, 1.0, 1.0], preset=False)
    scripted_run(model, [0] * 2, task="infogather/single-feature", fmt="text", preset=False,
                 metrics=[{"steps_to_sufficient_information": 3}, {"steps_to_sufficient_information": 6}])
    page = _page(client, model)
    lmact, infogather = _section(page, "lmact"), _section(page, "infogather")
    assert "Score, higher is better" in lmact and "0.750 ± 0.250" in lmact and "4 / 4" in lmact
    assert "Steps to sufficient information, lower is better" in infogather and "4.50 ± 1.50" in infogather
    assert page.index('id="results-lmact"') < page.index('id="results-infogather"')


def test_a_run_stands_among_the_other_submissions_best_runs_with_baselines_as_ticks(client, baseline,
                                                                                   make_model_submission):
    mine, better, worse = (make_model_submission(name=n) for n in ("Mine", "Better one", "Worse one"))
    scripted_run(mine, [0.5, 0.5])
    scripted_run(better, [1.0, 1.0])
    scripted_run(better, [0.0, 0.0])  # only its best run counts
    scripted_run(worse, [0.0, 0.25])
    scripted_run(baseline("expert"), [1.0, 1.0])
    strip = _section(_page(client, mine), "lmact")
    assert "2 of 3" in strip
    assert "<title>Better one: 1.000</title>" in strip and "<title>Worse one: 0.125</title>" in strip
    assert "Better one: 0.000" not in strip
    assert '<line class="strip-baseline"' in strip and "Expert (baseline): 1.000" in strip


def test_a_lone_submission_is_shown_as_the_only_one(client, make_model_submission):
    alone = make_model_submission(name="Alone")
    scripted_run(alone, [0.5, 1.0])
    page = _page(client, alone)
    assert "only submission" in page and 'id="compare-form"' not in page


def test_the_page_offers_a_comparison_with_submissions_that_share_a_task(client, baseline, make_model_submission):
    mine = make_model_submission(name="Mine")
    scripted_run(mine, [0.5])
    rnd = baseline("random")
    scripted_run(rnd, [0.0])
    scripted_run(baseline("expert"), [1.0], task="lmact/tictactoe")  # nothing in common
    page = _page(client, mine)
    form = re.search(r'<form method="get" action="/compare/".*?</form>', page, re.S).group(0)
    assert f'name="a" value="{mine.pk}"' in form and f'<option value="{rnd.pk}">' in form
    assert "Expert" not in form


def test_the_owner_keeps_the_experiment_form_and_sees_the_sweeps_scaling_curve(client, make_model_submission):
    owner = User.objects.create_user("owner", password="x-long-password-1")
    model = make_model_submission(name="Swept")
    model.owner = owner
    model.save()
    experiment = experiment_create(
        model, kind=Experiment.SWEEP, task="lmact/gridworld", format="ascii", num_episodes=1, max_demonstrations=1
    )
    assert "fig-sweep" not in _page(client, model)
    for run in experiment.runs.all():
        assert episode_claim(run.episodes.get().id, "w")
        episode_finish(run.episodes.get().id, "w", score=1.0, end_reason="step limit")
    client.force_login(owner)
    page = _page(client, model)
    assert f'data-figure="fig-sweep-{experiment.pk}-score"' in page
    assert "Queue experiment" in page and "Cancel all unfinished runs" in page


def test_the_standing_strips_written_in_python_are_the_templates_byte_for_byte():
    from django.template.loader import get_template

    from leaderboard.model_page import Mark, Standing
    from leaderboard.templatetags.standing_strips import standing_strip

    template = get_template("leaderboard/_standing_strip.html")
    strips = [
        Standing(Mark("me <b>", 0.5, "0.50", 120.25), [Mark("A&B", 0.1, "0.10", 30.05), Mark("C", 0.9, "0.90", 200.0)],
                 [Mark("Random", 0.0, "0.00", 4.0), Mark("Expert", 1.0, "1.00", 176.0)], 2, 3),
        Standing(Mark("alone", 3.0, "3", 90.0), [], [], 1, 1),
    ]
    draw = random.Random(5)
    strips.append(Standing(Mark("me", 0.5, "0.50", 0.05), [
        Mark(f"m{n}", 0.0, "0", x) for n, x in enumerate([draw.uniform(4, 176) for _ in range(200)] + [4.0, 176.0, 12.25, 12.35])
    ], [], 3, 205))
    for standing in strips:
        assert standing_strip(standing) == template.render({"standing": standing})
