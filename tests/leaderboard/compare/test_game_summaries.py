"""The paired comparison's per-game figures kept by the runs' aggregates, and each game's
seeds on a page of their own when a comparison lists too many for one page."""

import re

import pytest

from tests.support.episodes import scripted_run

pytestmark = pytest.mark.django_db


def _two_games(make_model_submission):
    a, b = make_model_submission(name="A"), make_model_submission(name="B")
    runs = {
        "gridworld": (scripted_run(a, [1.0, 0.0, 1.0, 1.0]), scripted_run(b, [0.0, 0.0, 0.5, 1.0])),
        "tictactoe": (scripted_run(a, [1.0, 1.0, 0.0, 1.0], task="lmact/tictactoe"),
                      scripted_run(b, [0.0, 1.0, 0.0, 0.0], task="lmact/tictactoe")),
    }
    return a, b, runs


def test_the_figures_are_read_from_the_episodes_once_until_a_run_changes(client, make_model_submission, monkeypatch):
    from arena.models import Run
    from leaderboard.compare import summaries

    reads = []
    real = summaries.episode_values
    monkeypatch.setattr(summaries, "episode_values", lambda *args: reads.append(args) or real(*args))
    a, b, runs = _two_games(make_model_submission)
    first = client.get(f"/api/compare/?a={a.pk}&b={b.pk}").json()
    assert [game["mean_difference"] for game in first["games"]] == [pytest.approx(0.375), pytest.approx(0.5)]
    assert len(reads) == 1  # both games' episodes in one read (one metric)
    assert client.get(f"/compare/?a={a.pk}&b={b.pk}").status_code == 200
    assert client.get(f"/api/compare/?a={a.pk}&b={b.pk}").json() == first and len(reads) == 1
    # A run's aggregates changed (an episode finished, a run re-folded): that game is read again.
    grid_a = runs["gridworld"][0]
    Run.objects.filter(pk=grid_a.pk).update(score_sum=grid_a.score_sum - 1.0)
    client.get(f"/api/compare/?a={a.pk}&b={b.pk}")
    assert len(reads) == 2 and reads[-1][0] == [grid_a.pk, runs["gridworld"][1].pk]


def test_a_comparison_with_too_many_seeds_opens_each_games_seeds_on_their_own(client, make_model_submission, monkeypatch):
    from leaderboard.compare import submissions

    monkeypatch.setattr(submissions, "SEED_ROWS_ON_PAGE", 5)  # 8 shared seeds in all
    a, b, runs = _two_games(make_model_submission)
    page = client.get(f"/compare/?a={a.pk}&b={b.pk}").content.decode()
    assert "8 shared seeds in all, too many for one page" in page
    assert 'class="seed-replay"' not in page
    # The summary still holds every game's figures.
    assert page.count("A better") + page.count("not distinguishable") == 2
    links = re.findall(r'<a class="seed-table-link" href="([^"]+)">The 4 shared seeds, one by one</a>', page)
    tictactoe_a = runs["tictactoe"][0]
    assert f"?a={a.pk}&amp;b={b.pk}&amp;seeds={tictactoe_a.pk}#seeds-{tictactoe_a.pk}" in links and len(links) == 2
    one_game = client.get(f"/compare/?a={a.pk}&b={b.pk}&seeds={tictactoe_a.pk}").content.decode()
    assert one_game.count('class="seed-replay"') == 4 and f'id="seeds-{tictactoe_a.pk}"' in one_game
    assert len(re.findall(r'class="seed-table-link"', one_game)) == 1  # the other game keeps its link
    # The API lists every seed of every game whatever the page shows.
    assert [len(game["seeds"]) for game in client.get(f"/api/compare/?a={a.pk}&b={b.pk}").json()["games"]] == [4, 4]


def test_a_few_seeds_stay_on_the_page(client, make_model_submission):
    a, b, _ = _two_games(make_model_submission)
    page = client.get(f"/compare/?a={a.pk}&b={b.pk}").content.decode()
    assert page.count('class="seed-replay"') == 8 and "seed-table-link" not in page


def test_a_cache_that_cannot_answer_costs_the_comparison_its_speed_not_the_page(client, make_model_submission, monkeypatch):
    from leaderboard.compare import summaries

    class DownCache:
        def get_many(self, *args, **kwargs):
            raise ConnectionError("cache down")

        set_many = get_many

    monkeypatch.setattr(summaries, "cache", DownCache())
    a, b, _ = _two_games(make_model_submission)
    response = client.get(f"/compare/?a={a.pk}&b={b.pk}")
    assert response.status_code == 200 and "+0.375" in response.content.decode()


def _finish_one_more(run, seed: int, score: float) -> None:
    """A worker finishes one more episode of `run` (the real write path, its commit's
    callbacks run as after a real commit)."""
    from arena.models import Episode
    from arena.services.episodes import episode_claim, episode_finish
    from tests.support.episodes import WORKER, record_step

    episode = Episode.objects.create(run=run, index=seed, seed=seed)
    assert episode_claim(episode.pk, WORKER)
    record_step(episode.pk, 0, "up", done=True)
    episode_finish(episode.pk, WORKER, score=score, end_reason="step limit")


def _count_resamplings(monkeypatch) -> list:
    from leaderboard.compare import paired

    calls = []
    real = paired.bootstrap_interval
    monkeypatch.setattr(paired, "bootstrap_interval", lambda *args, **kwargs: calls.append(args) or real(*args, **kwargs))
    return calls


def test_after_an_episode_ends_the_compared_games_figures_are_ready_before_the_next_visit(
    client, make_model_submission, monkeypatch, django_capture_on_commit_callbacks,
):
    from django.core.cache import cache

    a, b, runs = _two_games(make_model_submission)
    url = f"/api/compare/?a={a.pk}&b={b.pk}"
    assert client.get(url).json()["games"][0]["mean_difference"] == pytest.approx(0.375)  # someone compares them
    resamplings = _count_resamplings(monkeypatch)
    grid_a, grid_b = runs["gridworld"]
    for run, score in ((grid_a, 1.0), (grid_b, 0.0)):
        with django_capture_on_commit_callbacks(execute=True):
            _finish_one_more(run, 4, score)
    assert len(resamplings) == 2  # the write side computed the changed game after each commit

    served = client.get(url).json()
    assert len(resamplings) == 2  # the visit after the change resampled nothing
    assert served["games"][0]["mean_difference"] == pytest.approx(0.5) and served["games"][0]["shared_seeds"] == 5
    # The write side's figures are the ones the page computes itself (same seed, same resamples).
    cache.clear()
    assert client.get(url).json() == served
    assert len(resamplings) == 4  # both games computed by the request this time


def test_a_game_nobody_compared_costs_the_write_side_nothing(make_model_submission, monkeypatch,
                                                             django_capture_on_commit_callbacks):
    a, b, runs = _two_games(make_model_submission)
    resamplings = _count_resamplings(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        _finish_one_more(runs["gridworld"][0], 4, 1.0)
    assert resamplings == []
