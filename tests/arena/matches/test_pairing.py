"""The next round's pairs (arena.matches.ratings.pairs_for_round): the least certain
outcomes first, each player at most once, never a player against itself."""

from arena.matches.ratings import pair_gains, pairs_for_round


def _played(first, second, wins, losses):
    return [(first, second, 1.0)] * wins + [(first, second, 0.0)] * losses


def test_each_player_plays_at_most_once_and_never_itself():
    players = [1, 2, 3, 4, 5, 2]
    pairs = pairs_for_round("chess", players, [])
    seated = [player for pair in pairs for player in pair]
    assert len(pairs) == 2 and len(seated) == len(set(seated)) == 4
    assert all(a != b for a, b in pairs)
    assert pairs == pairs_for_round("chess", players, [])  # reproducible
    assert pairs_for_round("chess", [1], []) == [] and pairs_for_round("chess", [], []) == []


def test_two_equals_who_never_met_play_before_a_foregone_conclusion():
    # a and b are alike (30–10 against random) and never met; c, well measured, beats
    # everyone: a v b is the open question, c v random the most foregone one.
    results = _played("a", "random", 30, 10) + _played("b", "random", 30, 10) + _played("c", "random", 180, 20)
    results += _played("c", "a", 90, 30) + _played("c", "b", 90, 30)
    pairs = pairs_for_round("tictactoe", ["random", "a", "b", "c"], results)
    assert {frozenset(pair) for pair in pairs} == {frozenset({"a", "b"}), frozenset({"random", "c"})}
    gains = pair_gains(["random", "a", "b", "c"], results)
    assert gains[("a", "b")] > gains[("random", "a")] > gains[("a", "c")] > gains[("random", "c")]


def test_a_player_whose_rating_is_barely_known_is_worth_playing_even_if_stronger():
    # c won 39 of 40 against random: its rating rests on few informative games, so
    # learning where it stands against a beats confirming a v b's likely even score.
    results = _played("a", "random", 30, 10) + _played("b", "random", 30, 10) + _played("c", "random", 39, 1)
    gains = pair_gains(["random", "a", "b", "c"], results)
    assert gains[("a", "c")] > gains[("a", "b")]


def test_a_well_measured_pair_teaches_less_than_a_barely_measured_one():
    few = pair_gains(["a", "b"], _played("a", "b", 2, 2))[("a", "b")]
    many = pair_gains(["a", "b"], _played("a", "b", 100, 100))[("a", "b")]
    assert many < few


def test_two_groups_that_never_met_are_paired_across():
    results = _played("a", "b", 25, 25) + _played("c", "d", 25, 25)
    pairs = pairs_for_round("connect_four", ["a", "b", "c", "d"], results)
    assert len(pairs) == 2
    assert all(len({pair[0] in "ab", pair[1] in "ab"}) == 2 for pair in pairs), pairs


def test_games_of_players_not_offered_still_inform_the_pairs():
    # Only a and b are offered; their games against x tell that they are far apart.
    results = _played("a", "x", 40, 0) + _played("x", "b", 40, 0)
    close = pair_gains(["a", "b"], _played("a", "x", 20, 20) + _played("x", "b", 20, 20))[("a", "b")]
    assert pair_gains(["a", "b"], results)[("a", "b")] < close
    assert pairs_for_round("chess", ["a", "b"], results) == [("a", "b")]
