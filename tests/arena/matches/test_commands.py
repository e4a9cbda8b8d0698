"""The commands: `arena_matches round` queues a round, `arena_worker --matches N` plays
matches beside episodes, `arena_matches play` plays them; bad arguments change nothing."""

import pytest
from django.core.management import CommandError, call_command

from arena.matches.anchors import anchors_of
from arena.matches.models import Match
from arena.services.submissions import baseline_submission

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_round_queued_then_played_by_the_episode_worker(capsys, client):
    # Only the baselines play here (no model opted in): random legal moves, the greedy
    # capturer and Stockfish at three levels, in two pairs (one sits out).
    call_command("arena_matches", "round", "chess", "--openings", "1")
    assert "queued 4 chess matches" in capsys.readouterr().out
    call_command("arena_worker", "--until-idle", "--matches", "2")
    matches = list(Match.objects.all())
    assert len(matches) == 4 and {m.status for m in matches} == {Match.FINISHED}
    players = {m.first.policy for m in matches}
    assert len(players) == 4 and players <= {a.policy for a in anchors_of("chess")}
    assert matches[0].opening and matches[0].opening == matches[1].opening
    # The anchors' pages hold no runs, and still show.
    for anchor in (matches[0].first, matches[0].second):
        assert client.get(anchor.get_absolute_url()).status_code == 200
    assert client.get(f"/matches/{matches[0].pk}/").status_code == 200


def test_bad_arguments_queue_nothing():
    baseline_submission("random", "Random")
    with pytest.raises(CommandError):
        call_command("arena_matches", "round", "go")
    with pytest.raises(CommandError):
        call_command("arena_matches", "round", "tictactoe", "--openings", "0")
    assert not Match.objects.exists()
