"""Bradley–Terry ratings with bootstrap intervals (arena.matches.ratings.table): scripted
players of known strength come out in their order with intervals around the truth; a
perfect record stays finite; players not connected to the anchor get no rating."""

import math

import numpy as np
import pytest

from arena.matches.ratings import ANCHOR_RATING, Game, games_of, rate
from arena.matches.ratings.bradley_terry import fit_strengths

# Four scripted players and the random anchor, true Elo-scale ratings (random = 1000).
TRUE_RATINGS = {"random": 1000.0, "weak": 1100.0, "fair": 1250.0, "good": 1400.0, "strong": 1600.0}


def simulated_games(seed: int, count: int = 400, truth=TRUE_RATINGS) -> list[tuple[str, str, float]]:
    """Games between random pairs, each scored as Bradley–Terry with these ratings
    implies: the first seat's expected score is 1 / (1 + 10^((R_b − R_a)/400)), some of it
    as draws (draws cost both sides half, so the expected score is unchanged)."""
    rng = np.random.default_rng(seed)
    names = list(truth)
    games = []
    for _ in range(count):
        i, j = rng.choice(len(names), 2, replace=False)
        first, second = names[i], names[j]
        expected = 1 / (1 + 10 ** ((truth[second] - truth[first]) / 400))
        draw = 0.4 * min(expected, 1 - expected)
        u = rng.random()
        score = 1.0 if u < expected - draw / 2 else 0.5 if u < expected + draw / 2 else 0.0
        games.append((first, second, score))
    return games


def test_scripted_players_come_out_in_the_order_of_their_strength():
    ratings = rate(simulated_games(seed=7), anchor="random", seed="chess")
    assert [entry.player for entry in ratings.players] == ["strong", "good", "fair", "weak", "random"]
    assert [entry.rank for entry in ratings.players] == [1, 2, 3, 4, 5]
    assert ratings.games == 400 and ratings.resamples == 1000


def test_the_intervals_contain_the_true_ratings_in_most_cases():
    covered = total = 0
    for seed in range(12):
        ratings = rate(simulated_games(seed), anchor="random", seed=seed)
        for entry in ratings.rated:
            if entry.player != "random":
                total += 1
                covered += entry.low <= TRUE_RATINGS[entry.player] <= entry.high
                assert entry.low < entry.rating < entry.high
    # 95 % intervals: 48 chances; 40 covered would already be a poor 83 %.
    assert covered >= 40, f"{covered} of {total} intervals hold the true rating"


def test_the_anchor_holds_its_rating_exactly():
    ratings = rate(simulated_games(seed=3), anchor="random", anchor_rating=1500.0)
    anchor = ratings.of("random")
    assert anchor.rating == anchor.low == anchor.high == 1500.0


def test_the_same_games_give_the_same_intervals_and_another_seed_other_ones():
    games = simulated_games(seed=5)
    once, again = rate(games, "random", seed="chess"), rate(games, "random", seed="chess")
    other = rate(games, "random", seed="connect_four")
    assert [(p.low, p.high) for p in once.players] == [(p.low, p.high) for p in again.players]
    assert [(p.low, p.high) for p in once.players] != [(p.low, p.high) for p in other.players]
    assert [p.rating for p in once.players] == [p.rating for p in other.players]


def test_without_a_prior_two_players_get_the_maximum_likelihood_difference():
    # 7 points of 10: the MLE of the log-odds difference is log(7/3).
    strengths = fit_strengths(2, np.array([0]), np.array([1]), np.array([10.0]), np.array([7.0]), prior_sd=1e6)
    assert strengths[0] - strengths[1] == pytest.approx(math.log(7 / 3), abs=1e-6)


def test_draws_count_half_a_win_each():
    ratings = rate([("even", "random", 0.5)] * 6 + [("random", "even", 0.5)] * 6, "random")
    assert ratings.of("even").rating == pytest.approx(ANCHOR_RATING, abs=1e-6)
    record = ratings.of("even").record
    assert (record.games, record.wins, record.draws, record.losses, record.points) == (12, 0, 12, 0, 6.0)


def test_a_perfect_record_gets_a_finite_rating_marked_as_resting_on_the_prior():
    games = simulated_games(seed=11) + [("perfect", "random", 1.0)] * 10 + [("strong", "perfect", 0.0)] * 10
    games += [("hopeless", "random", 0.0)] * 10
    ratings = rate(games, "random")
    perfect, hopeless = ratings.of("perfect"), ratings.of("hopeless")
    assert perfect.rank == 1 and math.isfinite(perfect.rating) and math.isfinite(perfect.high)
    assert perfect.rating > ratings.of("strong").rating
    assert hopeless.rating < ANCHOR_RATING and math.isfinite(hopeless.low)
    assert perfect.unbeaten_or_winless and hopeless.unbeaten_or_winless
    assert not ratings.of("strong").unbeaten_or_winless


def test_players_not_connected_to_the_anchor_are_listed_without_a_rating():
    connected = simulated_games(seed=2)
    island = [("island-a", "island-b", 1.0), ("island-b", "island-a", 0.5)]
    ratings = rate(connected + island, "random", players=["a-newcomer"])
    alone = rate(connected, "random")
    for name in ("island-a", "island-b", "a-newcomer"):
        entry = ratings.of(name)
        assert entry.rating is None and entry.rank is None and entry.low is None
    assert [p.player for p in ratings.unrated] == ["island-a", "island-b", "a-newcomer"]  # most games first
    assert ratings.of("island-a").record.games == 2
    # The island changes nothing of the others' ratings.
    assert [p.rating for p in ratings.rated] == [p.rating for p in alone.rated]


def test_no_games_and_games_without_the_anchor_rate_nobody():
    empty = rate([], "random", players=["random", "model"])
    assert empty.rated == [] and empty.games == 0 and not empty.anchor_played and empty.resamples == 0
    without_anchor = rate([("a", "b", 1.0), ("b", "a", 0.0)], "random")
    assert without_anchor.rated == [] and without_anchor.games == 2


def test_the_pair_records_are_the_score_matrix_both_ways():
    ratings = rate([("a", "random", 1.0), ("random", "a", 0.5), ("a", "random", 0.0)], "random")
    assert ratings.pairs[("a", "random")].points == 1.5 and ratings.pairs[("a", "random")].games == 3
    assert ratings.pairs[("random", "a")].score_rate == 0.5
    assert (ratings.pairs[("a", "random")].wins, ratings.pairs[("random", "a")].wins) == (1, 1)


def test_match_rows_and_triples_are_read_alike_and_bad_ones_are_named():
    class FinishedMatch:
        first_id, second_id, result = 4, 9, 1.0

    assert games_of([FinishedMatch(), (9, 4, 0.5), Game(4, 9, 0)]) == [Game(4, 9, 1.0), Game(9, 4, 0.5), Game(4, 9, 0.0)]
    with pytest.raises(ValueError, match="not 1, 0.5 or 0"):
        games_of([(1, 2, 0.7)])
    with pytest.raises(ValueError, match="against itself"):
        games_of([(1, 1, 1.0)])
    with pytest.raises(ValueError, match="not 1, 0.5 or 0"):
        games_of([(1, 2, None)])


def test_the_prior_moves_a_mixed_record_little_and_holds_a_perfect_one_as_docs_say():
    # docs/ratings.md, "Prior": 60 of 100 → 70.2 points (70.4 without it); 20 of 20 → about 690.
    mixed = rate([("a", "random", 1.0)] * 60 + [("a", "random", 0.0)] * 40, "random", resamples=0)
    assert mixed.of("a").rating - ANCHOR_RATING == pytest.approx(70.2, abs=0.05)
    assert 400 * math.log10(60 / 40) == pytest.approx(70.4, abs=0.05)
    perfect = rate([("p", "random", 1.0)] * 20, "random", resamples=0)
    assert perfect.of("p").rating - ANCHOR_RATING == pytest.approx(690, abs=5)
