"""The rating pages (/ratings/ is the first game's, /ratings/<game>/, /ratings/all/):
four scripted models of known strength and the random anchor come out in their order
with their intervals and rank ranges; the anchor, the records and the win-rate matrix
are shown; "all games" is over the players who played every game; what has no rating
says why."""

import re

import pytest

from arena.models import Match, Submission
from tests.support.rated_matches import finished, model, play_scripted, random_baseline

pytestmark = pytest.mark.django_db

STRENGTHS = {"Weak": 1100.0, "Fair": 1250.0, "Good": 1400.0, "Strong": 1600.0}


@pytest.fixture
def scripted():
    """Four models of known strength and the random player, 300 chess matches."""
    anchor = random_baseline()
    players = {name: model(name) for name in STRENGTHS}
    truth = {anchor: 1000.0, **{players[name]: rating for name, rating in STRENGTHS.items()}}
    play_scripted("chess", truth, count=300, seed=4)
    return anchor, players


def _table_rows(html: str) -> list[str]:
    table = html.split('id="rating-table"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr class="[^"]*" data-submission="\d+">(.*?)</tr>', table, re.S)


def _names(html: str) -> list[str]:
    return [re.search(r'class="model-page"[^>]*>([^<]+)<', row).group(1) for row in _table_rows(html)]


def test_the_chess_page_orders_the_scripted_models_as_their_strengths_imply(client, scripted):
    html = client.get("/ratings/chess/").content.decode()
    assert _names(html) == ["Strong", "Good", "Fair", "Weak", "Random"]
    rows = _table_rows(html)
    for row, name in zip(rows, ["Strong", "Good", "Fair", "Weak"]):
        rating, low, high = map(int, re.search(r"<strong>(\d+)</strong> <span class=\"muted\">\[(\d+), (\d+)\]", row).groups())
        assert low < rating < high
    assert "<strong>1000</strong>" in rows[-1] and 'class="badge anchor"' in rows[-1]
    assert "300 finished matches" in html
    assert re.search(r"Anchored on <a[^>]*>Random</a>\s*\(the random player\), fixed at <strong>1000</strong>", html)
    assert 'href="/ratings/method/"' in html


def test_each_row_shows_its_games_and_record_and_the_matrix_its_scores(client, scripted):
    anchor, players = scripted
    strong = players["Strong"]
    html = client.get("/ratings/chess/").content.decode()
    as_first = Match.objects.filter(first=strong)
    as_second = Match.objects.filter(second=strong)
    wins = as_first.filter(result=1.0).count() + as_second.filter(result=0.0).count()
    draws = as_first.filter(result=0.5).count() + as_second.filter(result=0.5).count()
    games = as_first.count() + as_second.count()
    row = _table_rows(html)[0]
    assert f">{games}</td>" in row and f"{wins} / {draws} / {games - wins - draws}" in row
    matrix = html.split('id="win-matrix"', 1)[1].split("</table>", 1)[0]
    assert matrix.count("<th scope=\"row\">") == 5
    versus_random = Match.objects.filter(first=strong, second=anchor) | Match.objects.filter(first=anchor, second=strong)
    assert f"({versus_random.count()})" in matrix


def test_a_model_with_no_match_and_an_island_are_listed_without_a_rating(client, scripted):
    model("Newcomer")
    island_a, island_b = model("IslandA"), model("IslandB")
    finished("chess", island_a, island_b, 1.0)
    html = client.get("/ratings/chess/").content.decode()
    rows = dict(zip(_names(html), _table_rows(html)))
    assert "no finished match yet" in rows["Newcomer"] and "no rating" in rows["Newcomer"]
    assert "not connected to the anchor" in rows["IslandA"] and "no rating" in rows["IslandB"]
    assert set(_names(html)[-3:]) == {"Newcomer", "IslandA", "IslandB"}
    assert re.search(r'<td class="num rank" data-sort="">—</td>', rows["IslandA"])  # no rank


def test_a_perfect_record_is_rated_and_marked(client):
    anchor, crusher = random_baseline(), model("Crusher")
    for index in range(8):
        finished("tictactoe", crusher, anchor, 1.0) if index % 2 else finished("tictactoe", anchor, crusher, 0.0)
    html = client.get("/ratings/tictactoe/").content.decode()
    row = _table_rows(html)[0]
    assert "Crusher" in row and "won every game: the rating rests on the prior" in row
    assert re.search(r"<strong>(\d+)</strong>", row)


def test_only_finished_matches_of_visible_submissions_count(client, scripted):
    anchor, players = scripted
    before = client.get("/ratings/chess/").content.decode()
    Match.objects.create(game="chess", first=players["Weak"], second=anchor, status=Match.RUNNING)
    Match.objects.create(game="chess", first=players["Weak"], second=anchor, status=Match.FAILED)
    finished("connect_four", players["Weak"], anchor, 1.0)
    assert client.get("/ratings/chess/").content.decode() == before
    Submission.objects.filter(pk=players["Strong"].pk).update(moderation=Submission.HIDDEN, moderation_reason="x")
    hidden = client.get("/ratings/chess/").content.decode()
    assert "Strong" not in _names(hidden) and _names(hidden)[0] == "Good"


def test_ratings_are_per_game_first_and_all_games_only_over_who_played_every_game(client, scripted):
    anchor, players = scripted
    # The first game's page is the ratings' first page.
    assert _names(client.get("/ratings/").content.decode()) == ["Strong", "Good", "Fair", "Weak", "Random"]
    for game in ("connect_four", "tictactoe"):
        play_scripted(game, {anchor: 1000.0, players["Weak"]: 1100.0, players["Fair"]: 1250.0}, count=30, seed=1)
    html = client.get("/ratings/all/").content.decode()
    # Strong and Good played chess alone: they do not top "all games".
    assert _names(html) == ["Fair", "Weak", "Random"]
    assert "One fit over the matches of every game together" in html
    assert re.search(r'id="left-out">2 players who played only some of the games are left out', html)
    assert ">All games</a>" in html and "<span class=\"muted\">All games</span>" in html
    connect_four = client.get("/ratings/connect_four/").content.decode()
    assert set(_names(connect_four)[:3]) == {"Weak", "Fair", "Random"} and "30 finished matches" in connect_four
    # The opted-in models that played only chess are listed without a Connect Four rating.
    assert all("no finished match yet" in row for row in _table_rows(connect_four)[3:])


def test_each_rated_row_shows_its_rank_range_from_the_bootstrap(client, scripted):
    html = client.get("/ratings/chess/").content.decode()
    ranges = [re.search(r'class="muted rank-range"[^>]*>\[(\d+)(?:–(\d+))?\]', row) for row in _table_rows(html)]
    bounds = [(int(m.group(1)), int(m.group(2) or m.group(1))) for m in ranges]
    for rank, (best, worst) in enumerate(bounds, start=1):
        assert best <= rank <= worst
    # 300 games tell the strongest from the random player beyond doubt.
    assert bounds[0][0] == 1 and bounds[-1] == (5, 5)


def test_before_any_match_the_pages_say_so(client):
    random_baseline()
    model("Lonely")
    for path in ("/ratings/", "/ratings/chess/", "/ratings/tictactoe/", "/ratings/connect_four/", "/ratings/all/"):
        response = client.get(path)
        assert response.status_code == 200
        html = response.content.decode()
        assert 'id="ratings-empty"' in html and "0 finished matches" in html and 'id="win-matrix"' not in html
        assert "Lonely" in html and "no finished match yet" in html


def test_without_a_random_baseline_nobody_is_rated_and_the_page_says_why(client):
    a, b = model("A"), model("B")
    finished("chess", a, b, 1.0)
    html = client.get("/ratings/chess/").content.decode()
    assert "No random baseline exists yet" in html and 'id="rating-table"' not in html


def test_an_unknown_game_is_not_found_and_the_method_page_shows_the_document(client):
    assert client.get("/ratings/checkers/").status_code == 404
    method = client.get("/ratings/method/").content.decode()
    assert "Bradley–Terry" in method and "bootstrap" in method and "pairs_for_round" in method


def test_the_navigation_and_the_front_page_link_the_rating_pages(client):
    html = client.get("/").content.decode()
    assert 'href="/ratings/"' in html
