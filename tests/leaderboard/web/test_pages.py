"""The read-side pages a visitor opens."""

import pytest
from django.contrib.auth.models import User
from django.utils.html import escape
from rest_framework.test import APIClient

from arena.services.episodes import worker_heartbeat
from arena.services.submissions import experiment_create
from arena.models import Experiment, Run
from tests.conftest import as_preset, new_run
from tests.support.episodes import scripted_episode

pytestmark = pytest.mark.django_db


def _finished(run, scores):
    Run.objects.filter(pk=run.pk).update(
        episodes_done=len(scores), score_sum=sum(scores), score_sq_sum=sum(s * s for s in scores), status="finished"
    )


def test_the_suite_page_lists_every_task_with_baseline_rows(client, baseline):
    _finished(new_run(baseline("expert"), task="lmact/gridworld"), [1.0, 1.0])
    page = client.get("/suites/lmact/").content.decode()
    assert "Grid world" in page and "Tic-tac-toe" in page
    assert "1.000 ± 0.000" in page and "baseline" in page


def test_a_task_page_draws_the_scaling_charts(client, baseline, make_model_submission):
    _finished(new_run(baseline("random"), task="lmact/tictactoe"), [0.0, 1.0])
    _finished(new_run(make_model_submission(num_demonstrations=4), task="lmact/tictactoe"), [1.0, 0.0, 1.0])
    page = client.get("/tasks/lmact/tictactoe/").content.decode()
    assert 'data-figure="fig-score-ascii"' in page and "Random legal actions" in page
    assert client.get("/tasks/lmact/nothing/").status_code == 404


def test_the_suite_page_shows_best_scores_per_model(client, make_model_submission):
    _finished(new_run(make_model_submission(model="m-1"), task="lmact/gridworld"), [1.0])
    page = client.get("/suites/lmact/").content.decode()
    assert "fig-best-lmact-gridworld" in page and "m-1" in page


@pytest.mark.parametrize("kind", [Experiment.SWEEP, Experiment.ABLATION, Experiment.REPLAY])
def test_experiment_pages_render_before_and_after_results(client, make_model_submission, kind):
    experiment = experiment_create(
        make_model_submission(), kind=kind, task="lmact/gridworld", format="ascii", num_episodes=2, max_demonstrations=2
    )
    assert client.get(experiment.get_absolute_url()).status_code == 200
    for run in experiment.runs.all():
        _finished(run, [1.0, 0.0])
        Run.objects.filter(pk=run.pk).update(metric_sums={"replay_accuracy": {"curve_sum": [2.0, 1.0], "curve_n": [2, 2]}})
    page = client.get(experiment.get_absolute_url()).content.decode()
    assert "0.500 ± 0.500" in page


def test_only_the_owner_can_start_an_experiment_and_bad_input_creates_nothing(client, make_model_submission, settings):
    owner = User.objects.create_user("owner", password="x-long-password-1")
    submission = make_model_submission()
    submission.owner = owner
    submission.save()
    api = APIClient()
    api.force_authenticate(User.objects.create_user("other", password="x-long-password-2"))
    body = {"kind": "sweep", "submission": submission.pk, "task": "lmact/gridworld:ascii", "max_demonstrations": 4}
    assert api.post("/api/experiments/", body, format="json").status_code == 400
    api.force_authenticate(owner)
    bad = api.post("/api/experiments/", {**body, "task": "lmact/gridworld:fen"}, format="json")
    assert bad.status_code == 400 and not Experiment.objects.exists()
    created = api.post("/api/experiments/", body, format="json")
    assert created.status_code == 201, created.content
    assert len(created.json()["runs"]) == 4  # 0, 1, 2, 4 demonstrations


@pytest.mark.django_db(transaction=True)
def test_two_submissions_on_the_same_seed_can_be_compared_side_by_side(client, baseline, play):
    expert = new_run(baseline("expert"), task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=4)
    random_run = new_run(baseline("random"), task="lmact/gridworld", fmt="ascii", episodes=1, first_seed=4)
    play(expert.episodes.get().id, random_run.episodes.get().id)
    left, right = expert.episodes.get(), random_run.episodes.get()
    page = client.get(left.get_absolute_url()).content.decode()
    assert f"/episodes/{left.pk}/compare/{right.pk}/" in page
    compared = client.get(f"/episodes/{left.pk}/compare/{right.pk}/?step=1").content.decode()
    assert "Side by side: step 1" in compared and "Expert" in compared and "Random" in compared
    assert client.get(f"/episodes/{left.pk}/compare/{right.pk}/?step=zzz").status_code == 200


def test_a_waiting_run_says_why_it_is_not_moving(client, baseline):
    from arena.services.episodes import worker_heartbeat
    from arena.services.submissions import experiment_create

    run = new_run(baseline("random"), episodes=2)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "No worker is running" in page
    worker_heartbeat("w1", "host", 1, 3)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Queue position 1:" in page and "3 being played now" in page and "should start at once" in page


def test_a_running_run_whose_episodes_wait_for_the_endpoint_says_so(client, baseline, make_model_submission):
    import time

    from django.core.cache import cache

    from arena.models import Episode
    from arena.play.pace import pace_key
    from arena.endpoints.tenancy import submission_endpoint_key
    from arena.services.episodes import episode_claim
    from tests.support.episodes import record_step

    submission = make_model_submission(max_concurrent_requests=2)
    run = new_run(submission, task="lmact/gridworld", episodes=3)
    first, second, third = run.episodes.order_by("index")
    for episode in (first, second, third):
        assert episode_claim(episode.id, "w1")
    record_step(first.id, 0, "up", worker="w1")
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING)
    worker_heartbeat("w1", "host", 1, 3)

    page = client.get(run.get_absolute_url()).content.decode()
    assert "2 of this run&#x27;s playing episodes have no step yet" in page
    record_step(second.id, 0, "up", worker="w1")
    assert "1 of this run&#x27;s playing episodes has no step yet" in client.get(run.get_absolute_url()).content.decode()
    assert "takes 2 calls at once" in page and "wait for a turn" not in page

    # A worker published the endpoint's pace: its figures are quoted.
    pace = {"limit": 2, "cap": 2, "in_flight": 2, "waiting": 2, "backoffs": 0, "paused_seconds": 0,
            "pause_reason": "", "server": {}, "at": time.time()}
    cache.set(pace_key(submission_endpoint_key(submission)), pace)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "2 calls are in flight there and 2 episodes wait for a turn" in page
    assert "2 episodes waiting for a turn" in client.get(submission.get_absolute_url()).content.decode()

    # Another run of the submission, queued while the endpoint's two turns are taken.
    later = new_run(submission, task="lmact/gridworld", episodes=1)
    page = client.get(later.get_absolute_url()).content.decode()
    assert "The endpoint is busy: 3 episodes of this submission are playing through it" in page and "Queue position" not in page

    # Every claimed episode under way: the queued ones wait for the busy endpoint.
    for episode in (second, third):
        record_step(episode.id, 0, "up", worker="w1")
    Run.objects.filter(pk=later.pk).update(status=Run.RUNNING)
    page = client.get(later.get_absolute_url()).content.decode()
    assert "no step yet" not in page and "The endpoint is busy" in page
    # Nothing waiting at all: nothing to explain.
    assert 'id="run-waiting"' not in client.get(run.get_absolute_url()).content.decode()
    # A baseline's run has no endpoint to wait for.
    played = new_run(baseline("random"), episodes=1)
    assert episode_claim(played.episodes.get().id, "w1")
    Run.objects.filter(pk=played.pk).update(status=Run.RUNNING)
    assert "no step yet" not in client.get(played.get_absolute_url()).content.decode()
    assert Episode.objects.filter(run=run, num_steps=0).count() == 0


@pytest.mark.django_db(transaction=True)  # the queue's messages are sent on commit
def test_a_queued_run_shows_its_queue_position_and_when_it_should_start(client, baseline, settings):
    from django.utils import timezone

    from arena.services.episodes import worker_heartbeat
    from arena.services.submissions import experiment_create
    from arena.models import Episode, Submission

    settings.ARENA_WORKER_CONCURRENCY = 2
    new_run(baseline("random"), episodes=50)  # baselines wait behind users
    other = new_run(Submission.objects.create(name="other", base_url="http://127.0.0.1:9/v1", model="m"), episodes=10)
    mine = new_run(Submission.objects.create(name="mine", base_url="http://127.0.0.1:9/v1", model="m"), episodes=2)
    worker_heartbeat("w1", "host", 1, 2)  # both slots taken
    page = client.get(mine.get_absolute_url()).content.decode()
    # Behind the other submission's first episode only: they take turns.
    assert "Queue position 2: 1 queued episodes go before" in page
    assert "no estimate of the start yet" in page
    Episode.objects.filter(run=other, index__lt=6).update(status=Episode.FINISHED, finished_at=timezone.now())
    page = client.get(mine.get_absolute_url()).content.decode()
    # 6 episodes in ten minutes: 0.6 a minute, two to be taken (those ahead and its own).
    assert "(0.6 episodes a minute) it should start in about 3 min" in page


def _compare(client, left, right):
    response = client.get(f"/episodes/{left.pk}/compare/{right.pk}/")
    return response.context["compare_data"]["first_difference"], response.content.decode()


def test_the_compare_page_states_the_first_step_where_the_actions_differ(client, baseline):
    expert = scripted_episode(baseline("expert"), ["up", "up", "left", "down"])
    random_episode = scripted_episode(baseline("random"), ["up", "up", "right"])

    difference, page = _compare(client, expert, random_episode)

    assert difference == {"index": 2, "left": "left", "right": "right"}
    assert "Executed actions first differ at step 2: Expert played left, Random played right." in page
    assert 'id="first-difference" class="notice compare-difference" data-step="2"' in page


def test_the_compare_page_says_where_one_episode_plays_on_alone(client, baseline):
    expert = scripted_episode(baseline("expert"), ["up", "up"])
    random_episode = scripted_episode(baseline("random"), ["up", "up", "down"])

    difference, page = _compare(client, expert, random_episode)

    assert difference == {"index": 2, "left": None, "right": "down"}
    assert "Executed actions first differ at step 2, where only Random still plays." in page


def test_the_compare_page_says_when_both_episodes_acted_alike(client, baseline):
    expert = scripted_episode(baseline("expert"), ["up", "left"])
    random_episode = scripted_episode(baseline("random"), ["up", "left"])

    difference, page = _compare(client, expert, random_episode)

    assert difference is None
    assert "The executed actions are the same at every step." in page
    assert "mark-differ" not in page


def _task_section(page, task_id):
    """A suite page's section of one task's leaderboard."""
    start = page.index(f'<section class="task-section" id="{task_id.replace("/", "")}">')
    return page[start : page.index("</section>", start)]


def test_the_suite_page_shows_each_tasks_top_runs_and_its_baselines_and_links_to_the_rest(
    client, baseline, make_model_submission
):
    _finished(new_run(baseline("random"), task="lmact/tictactoe"), [-1.0, -1.0])
    for n in range(12):
        # Model 00 scores best, Model 11 worst.
        _finished(as_preset(new_run(make_model_submission(name=f"Model {n:02d}"), task="lmact/tictactoe")), [1.0 - n / 10] * 2)
    section = _task_section(client.get("/suites/lmact/").content.decode(), "lmact/tictactoe")
    assert all(f"Model {n:02d}" in section for n in range(10))
    assert "Model 10" not in section and "Model 11" not in section
    assert "badge baseline" in section  # the baseline ranks last and stays
    assert "All 12 ranked runs of Tic-tac-toe →" in section and 'href="/tasks/lmact/tictactoe/"' in section
    filtered = _task_section(client.get("/suites/lmact/?strategy=naive").content.decode(), "lmact/tictactoe")
    assert 'href="/tasks/lmact/tictactoe/?strategy=naive"' in filtered
    task_page = client.get("/tasks/lmact/tictactoe/").content.decode()
    assert "Model 10" in task_page and "Model 11" in task_page
    # A task with no more runs than the cut has no link.
    assert "ranked runs of" not in _task_section(client.get("/suites/lmact/").content.decode(), "lmact/gridworld")


def test_a_running_episodes_illegal_and_cut_off_counts_wait_for_its_end(client, make_model_submission):
    """Counted when an episode ends: while it runs, its row shows "—", not a 0 beside
    steps the replay shows illegal or cut off."""
    import dataclasses
    import re

    from arena.services.episodes import episode_claim
    from arena.services.steps import StepRecord, step_record

    run = new_run(make_model_submission(), task="lmact/gridworld", episodes=1)
    episode = run.episodes.get()
    assert episode_claim(episode.id, "w1")
    cut_off = StepRecord(
        index=0, observation_text="obs", observation_image=None, prompt_added=[], completion="I think",
        reasoning="", parsed_action=None, executed_action="up", legal=False, reward=0.0, done=False,
        end_reason="", tokens_in=None, tokens_out=None, latency_ms=None, error="", cut_off=True,
    )
    step_record(episode.id, "w1", cut_off)
    step_record(episode.id, "w1", dataclasses.replace(cut_off, index=1, cut_off=False))

    page = client.get(run.get_absolute_url()).content.decode()
    row = re.search(r'<tr>\s*<td class="num"><a href="/episodes/\d+/">0</a>.*?</tr>', page, re.S).group(0)
    cells = re.findall(r'<td class="num">(.*?)</td>', row, re.S)
    # index, seed, score, steps, illegal, cut off
    assert cells[3] == "2"
    assert [re.sub(r"<[^>]+>", "", cell) for cell in cells[4:6]] == ["—", "—"]
    assert '<span id="run-cut-off">—</span>' in page


@pytest.mark.django_db(transaction=True)
def test_an_episode_page_shows_the_instructions_its_model_was_sent(client, make_model_submission, fake_model, play):
    """The exact prompt (docs/design.md §1.2): the opening sent before the first step's
    observation, BALROG's instructions and action list, is on the page, not only in the
    JSONL; each step's panel shows what it added."""
    from arena.models import Episode
    from leaderboard.web.episode_views import SHOWN_OPENING_CHARS

    run = new_run(make_model_submission(base_url=fake_model.base_url), task="balrog/babyai-goto", fmt="text", episodes=1)
    episode = run.episodes.get()
    play(episode.id)
    episode.refresh_from_db()
    instructions = episode.prompt_prefix[0]["text"]
    assert "go forward" in instructions
    page = client.get(episode.get_absolute_url()).content.decode()
    assert 'id="prompt-opening"' in page
    assert escape(instructions) in page

    # LMAct's demonstrations can make it megabytes: the page shows its start.
    Episode.objects.filter(pk=episode.pk).update(prompt_prefix=[{"type": "text", "text": "x" * (SHOWN_OPENING_CHARS + 5)}])
    page = client.get(episode.get_absolute_url()).content.decode()
    assert "x" * SHOWN_OPENING_CHARS in page and "x" * (SHOWN_OPENING_CHARS + 1) not in page
    assert "and 5 more characters" in page


def test_an_episode_of_one_step_is_counted_in_words(client, baseline):
    one = scripted_episode(baseline("expert"), ["up"])
    other = scripted_episode(baseline("random"), ["up", "down"])
    page = client.get(other.get_absolute_url()).content.decode()
    assert "· 1 step · step limit" in page and "1 steps" not in page
    compared = client.get(f"/episodes/{other.pk}/compare/{one.pk}/").content.decode()
    assert "· 1 step · step limit" in compared and "· 2 steps · step limit" in compared
