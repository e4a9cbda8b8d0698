"""The ratings as data (/api/ratings/?game=…): JSON with the rows, the anchor and each
pair's record; CSV with the page's table at its precision; a bad game or format is a 400
that names it."""

import csv
import io

import pytest

from tests.support.rated_matches import finished, model, play_scripted, random_baseline

pytestmark = pytest.mark.django_db


@pytest.fixture
def scripted():
    anchor = random_baseline()
    strong, weak = model("Strong"), model("Weak")
    play_scripted("tictactoe", {anchor: 1000.0, weak: 1150.0, strong: 1500.0}, count=150, seed=9)
    island_a, island_b = model("IslandA"), model("IslandB")
    finished("tictactoe", island_a, island_b, 0.5)
    return anchor, strong, weak


def test_the_json_holds_the_rows_the_anchor_and_each_pairs_record(client, scripted):
    anchor, strong, weak = scripted
    data = client.get("/api/ratings/?game=tictactoe").json()
    assert data["game"] == "tictactoe" and data["title"] == "Tic-tac-toe" and data["matches"] == 151
    assert data["anchor"] == {"id": anchor.pk, "name": "Random", "policy": "random", "rating": 1000.0}
    assert data["bootstrap_resamples"] == 1000 and data["method"].endswith("/ratings/method/")
    names = [row["submission"]["name"] for row in data["rows"]]
    assert names[:3] == ["Strong", "Weak", "Random"] and set(names[3:]) == {"IslandA", "IslandB"}
    top = data["rows"][0]
    assert top["rank"] == 1 and top["low"] < top["rating"] < top["high"]
    assert top["games"] == top["wins"] + top["draws"] + top["losses"] > 0
    island = data["rows"][3]
    assert island["rank"] is None and island["rating"] is None and "not connected" in island["note"]
    pair = next(p for p in data["pairs"] if p["submission"] == strong.pk and p["against"] == anchor.pk)
    back = next(p for p in data["pairs"] if p["submission"] == anchor.pk and p["against"] == strong.pk)
    assert pair["games"] == back["games"] and pair["wins"] == back["losses"]
    assert pair["score_rate"] + back["score_rate"] == pytest.approx(1.0)
    assert top["rank_best"] == 1 and top["rank_best"] <= top["rank"] <= top["rank_worst"]
    # The win-rate matrix: the same records as a square, null where two never met.
    matrix = data["matrix"]
    i, j = matrix["players"].index(strong.pk), matrix["players"].index(anchor.pk)
    assert matrix["score_rate"][i][j] == pytest.approx(pair["score_rate"]) and matrix["games"][i][j] == pair["games"]
    assert matrix["score_rate"][i][i] is None
    island = matrix["players"].index(next(r["submission"]["id"] for r in data["rows"] if r["submission"]["name"] == "IslandA"))
    assert matrix["games"][island][j] is None


def test_the_csv_is_the_pages_table(client, scripted):
    response = client.get("/api/ratings/?game=tictactoe&format=csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="arena-ratings-tictactoe.csv"' in response["Content-Disposition"]
    records = list(csv.reader(io.StringIO(response.content.decode())))
    header, rows = records[0], records[1:]
    assert header[:9] == ["Rank", "Rank best", "Rank worst", "Submission", "Model", "Kind", "Rating", "95 % low", "95 % high"]
    named = {row[3]: dict(zip(header, row)) for row in rows}
    assert named["Random"]["Rating"] == named["Random"]["95 % low"] == "1000" and named["Random"]["Kind"] == "baseline"
    assert int(named["Strong"]["95 % low"]) < int(named["Strong"]["Rating"]) < int(named["Strong"]["95 % high"])
    assert named["IslandA"]["Rating"] == "" and named["IslandA"]["Games"] == "1" and named["IslandA"]["Draws"] == "1"
    assert named["Strong"]["Model page"].endswith(f"/submissions/{scripted[1].pk}/")


def test_the_first_game_is_the_default_and_an_empty_arena_answers_empty(client):
    data = client.get("/api/ratings/").json()
    assert data["game"] == "chess" and data["anchor"] is None and data["rows"] == [] and data["matches"] == 0
    random_baseline()
    data = client.get("/api/ratings/?game=chess").json()
    assert data["anchor"]["rating"] == 1000.0 and data["rows"] == [] and data["pairs"] == []
    assert client.get("/api/ratings/?game=chess&format=csv").content.decode().count("\n") == 1  # the header


def test_a_bad_game_or_format_is_a_400_that_names_it(client):
    response = client.get("/api/ratings/?game=checkers")
    assert response.status_code == 400 and "checkers" in response.json()["game"][0]
    assert "connect_four" in response.json()["game"][0]
    response = client.get("/api/ratings/?game=chess&format=xml")
    assert response.status_code == 400 and "format" in response.json()
