"""Head-to-head runs itself (arena.matches.continuous): with nobody running a command,
each pass queues the baselines of every game against each other, a newly opted-in model
at once and ahead of them, within the model's endpoint concurrency and its owner's cap;
baselines stop once a pair has played its games; a model whose endpoint keeps failing
waits."""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.matches import continuous, services
from arena.matches.anchors import anchors_of
from arena.matches.models import Match
from arena.matches.scheduler import anchors
from arena.services.submissions import submission_create

pytestmark = pytest.mark.django_db


def _model(name, owner=None, concurrency=4):
    return submission_create(
        owner=owner, api_key="sk-test-canary-0123456789", runs=[],
        fields={"name": name, "base_url": "https://models.example.org/v1", "model": "fake", "max_tokens": 64,
                "num_demonstrations": 0, "head_to_head": True, "max_concurrent_requests": concurrency},
    )


def _open(submission=None):
    matches = Match.objects.filter(status__in=continuous.OPEN)
    if submission is not None:
        matches = matches.filter(first=submission) | matches.filter(second=submission)
    return matches


def test_a_fresh_arena_queues_its_baselines_at_every_game_and_not_twice():
    queued = continuous.schedule_due()
    games = {m.game for m in queued}
    assert games == {"chess", "tictactoe", "connect_four"}
    assert all(m.first.is_baseline and m.second.is_baseline for m in queued)
    # Every game's baselines are real engines besides random legal moves.
    assert {a.policy for a in anchors_of("chess")} >= {"random", "stockfish-level-0", "stockfish-level-3"}
    assert {a.policy for a in anchors_of("tictactoe")} >= {"random", "tictactoe-perfect"}
    assert {a.policy for a in anchors_of("connect_four")} >= {"random", "connect-four-search-6"}
    # Both colours of one opening per pair; the pairs queued are not queued again while
    # they play, and no more baseline-only matches join the line meanwhile.
    for match in queued:
        assert Match.objects.filter(pair_key=match.pair_key).count() == 2
    assert continuous.schedule_due() == []


def test_a_pair_that_played_its_games_is_done(settings):
    settings.ARENA_H2H_PAIR_GAMES = 2
    random_player, perfect, tactician = anchors("tictactoe")
    for first, second in ((random_player, perfect), (perfect, random_player), (random_player, tactician),
                          (tactician, random_player), (perfect, tactician), (tactician, perfect)):
        Match.objects.create(game="tictactoe", first=first, second=second, status=Match.FINISHED, result=0.5)
    assert [m for m in continuous.schedule_due() if m.game == "tictactoe"] == []


def test_a_new_model_plays_at_once_within_its_endpoint_and_ahead_of_the_baselines():
    continuous.schedule_due()  # the baselines' matches come first in time
    model = _model("newcomer", concurrency=1)
    queued = continuous.schedule_due()
    # One pair (its two games) at once: one call at a time per game, two games in all,
    # however many games it could play.
    assert len(queued) == 2 and all(model in (m.first, m.second) for m in queued)
    assert _open(model).count() == 2
    assert continuous.schedule_due() == []
    # The match worker takes the newcomer's before the older baseline-only ones.
    taken = services.next_queued_match("w")
    assert model.pk in (taken.first_id, taken.second_id)
    # Baseline-only matches wait while users' episodes play (the worker says so).
    Match.objects.filter(first=model).update(status=Match.CANCELLED)
    Match.objects.filter(second=model).update(status=Match.CANCELLED)
    assert services.next_queued_match("w", baselines_only_too=False) is None
    assert services.next_queued_match("w", baselines_only_too=True) is not None


def test_a_wider_endpoint_plays_more_games_at_once_but_its_owner_stays_within_the_cap(settings):
    settings.ARENA_H2H_MATCHES_PER_USER = 4
    owner = get_user_model().objects.create_user("owner", password="pw-0123456789")
    first = _model("one", owner=owner, concurrency=8)
    second = _model("two", owner=owner, concurrency=8)
    continuous.schedule_due()
    assert _open(first).count() + _open(second).count() <= 4
    assert _open(first).count() >= 2
    alone = _model("wide", concurrency=8)
    continuous.schedule_due()
    continuous.schedule_due()
    assert _open(alone).count() > 2  # several games at once: its endpoint takes 8 calls


def test_a_model_whose_endpoint_keeps_failing_waits():
    model = _model("down")
    random_player = anchors("chess")[0]
    for _ in range(continuous.FAILURES_BEFORE_PAUSE):
        Match.objects.create(game="chess", first=model, second=random_player, status=Match.FAILED,
                             error="a model endpoint failed", finished_at=timezone.now())
    queued = continuous.schedule_due()
    assert queued and not any(model in (m.first, m.second) for m in queued)
