"""Match and dice score sheets through the API: scoring, standings, persistence, CSV, transactions."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import BlankReader
from webapp import store as store_module
from webapp.runtime import Settings

# docs/rules.md section 7, the 000/001 sheet: players A-D, four games.
#   (+24,-5,-16,-3), (-6,-11,+22,-5), (-32,-13,-2,+47), (-10,-25,+41,-6)
#   totals A -24, B -54, C +45, D +33; games won A 1, C 2, D 1: C wins the match.
GAMES = [
    ("A", {"A": "", "B": "K5", "C": "R7 B9", "D": "O3"}),
    ("C", {"A": "R6", "B": "B11", "C": "", "D": "K5"}),
    ("D", {"A": "R10 B12 K10", "B": "B13", "C": "O2", "D": ""}),
    ("C", {"A": "K10", "B": "B12 B13", "C": "", "D": "O6"}),
]


def _new_match(client: TestClient, players: list[str], rounds: int = 1, **rules: object) -> dict:
    r = client.post("/api/matches", json={"name": "Friday", "players": players, "rounds": rounds,
                                          "rules": {"name": "classic", **rules}})
    assert r.status_code == 201, r.text
    return r.json()


def test_worked_example_match(client: TestClient) -> None:
    match = _new_match(client, ["A", "B", "C", "D"])
    for number, (winner, racks) in enumerate(GAMES, start=1):
        r = client.post(f"/api/matches/{match['id']}/games", json={"racks": racks, "winner": winner,
                                                                   "expected_number": number})
        assert r.status_code == 201, r.text
    match = client.get(f"/api/matches/{match['id']}").json()
    assert [g["scores"] for g in match["games"]] == [
        {"A": 24, "B": -5, "C": -16, "D": -3},
        {"A": -6, "B": -11, "C": 22, "D": -5},
        {"A": -32, "B": -13, "C": -2, "D": 47},
        {"A": -10, "B": -25, "C": 41, "D": -6},
    ]
    standings = {s["player"]: (s["total"], s["games_won"]) for s in match["standings"]}
    assert standings == {"A": (-24, 1), "B": (-54, 0), "C": (45, 2), "D": (33, 1)}
    assert match["standings"][0]["player"] == "C"
    assert match["finished"] and match["winner"] == "C" and match["next_game"] is None
    assert "C wins" in match["summary"]
    late = client.post(f"/api/matches/{match['id']}/games", json={"racks": GAMES[0][1], "winner": "A"})
    assert late.status_code == 422 and "over" in late.json()["detail"]


def test_csv_export(client: TestClient) -> None:
    match = _new_match(client, ["A", "B", "C", "D"])
    for winner, racks in GAMES:
        client.post(f"/api/matches/{match['id']}/games", json={"racks": racks, "winner": winner})
    client.post(f"/api/matches/{match['id']}/penalties", json={"player": "B", "touched_table": True})
    r = client.get(f"/api/matches/{match['id']}/export.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][:8] == ["Game", "Round", "Winner", "Ending", "A", "B", "C", "D"]
    assert rows[1][:8] == ["1", "1", "A", "Rummikub", "24", "-5", "-16", "-3"]
    assert rows[1][8:] == ["", "K5", "R7 B9", "O3"]
    total = next(row for row in rows if row and row[0] == "Total")
    won = next(row for row in rows if row and row[0] == "Games won")
    assert total[4:8] == ["-24", "-54", "45", "33"] and won[4:8] == ["1", "0", "2", "1"]
    assert any(row and row[1] == "B" and row[2] == "3" for row in rows)  # the penalty line


def test_sheet_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "keep.db"
    first = app_module.create_app(Settings(db_path=db, load_models=False), reader=BlankReader())
    with TestClient(first) as c:
        match = _new_match(c, ["Ana", "Ben"], rounds=2)
        c.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "R5 J"}, "winner": "Ana"})
        sheet = c.post("/api/dice/sheets", json={"players": ["Ana"], "turns": 6}).json()
        c.post(f"/api/dice/sheets/{sheet['id']}/turns", json={"player": "Ana", "faces": "R1 R2 R3 R4 R5 R6 R7 R8 R9"})
    second = app_module.create_app(Settings(db_path=db, load_models=False), reader=BlankReader())
    with TestClient(second) as c:
        again = c.get(f"/api/matches/{match['id']}").json()
        assert again["games"][0]["scores"] == {"Ana": 35, "Ben": -35}
        assert again["next_game"] == 2 and again["next_round"] == 1
        assert c.get(f"/api/dice/sheets/{sheet['id']}").json()["totals"] == {"Ana": 30}


def test_crash_inside_the_write_leaves_no_half_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    application = app_module.create_app(Settings(db_path=tmp_path / "crash.db", load_models=False), reader=BlankReader())
    real = store_module._insert_score
    calls = {"n": 0}

    def dying(*args: object) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk unplugged")  # the game row and one score row are written by now
        real(*args)

    with TestClient(application, raise_server_exceptions=False) as c:
        match = _new_match(c, ["Ana", "Ben", "Chen"])
        monkeypatch.setattr(store_module, "_insert_score", dying)
        r = c.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "K5", "Chen": "R9"},
                                                              "winner": "Ana"})
        assert r.status_code == 500 and "try again" in r.json()["detail"]
        monkeypatch.setattr(store_module, "_insert_score", real)
        after = c.get(f"/api/matches/{match['id']}").json()
        assert after["games"] == [] and after["next_game"] == 1
        ok = c.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "K5", "Chen": "R9"},
                                                               "winner": "Ana"})
        assert ok.status_code == 201 and ok.json()["match"]["games"][0]["number"] == 1


def test_double_submit_is_refused(client: TestClient) -> None:
    match = _new_match(client, ["Ana", "Ben"], rounds=3)
    body = {"racks": {"Ana": "", "Ben": "R5"}, "winner": "Ana", "expected_number": 1}
    assert client.post(f"/api/matches/{match['id']}/games", json=body).status_code == 201
    again = client.post(f"/api/matches/{match['id']}/games", json=body)
    assert again.status_code == 409 and "already on the score sheet" in again.json()["detail"]
    assert len(client.get(f"/api/matches/{match['id']}").json()["games"]) == 1


def test_stalemate_and_undo(client: TestClient) -> None:
    match = _new_match(client, ["Ana", "Ben", "Chen"], rounds=1)
    r = client.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "K1 K2", "Ben": "R10", "Chen": "O5"},
                                                               "winner": None})
    assert r.status_code == 201
    game = r.json()["match"]["games"][0]
    assert game["ending"] == "stalemate" and game["winners"] == ["Ana"]
    undone = client.delete(f"/api/matches/{match['id']}/games/last").json()
    assert undone["games"] == [] and undone["next_game"] == 1
    assert client.delete(f"/api/matches/{match['id']}/games/last").status_code == 404


@pytest.mark.parametrize(
    ("racks", "winner", "status", "words"),
    [
        ({"Ana": "", "Zoe": "K1"}, "Ana", 422, "Zoe"),
        ({"Ana": ""}, "Ana", 422, "Ben"),
        ({"Ana": "K1", "Ben": "K2"}, "Ana", 422, "Ana"),
        ({"Ana": "", "Ben": "K99"}, "Ana", 422, "K99"),
    ],
)
def test_bad_games_are_refused(client: TestClient, racks: dict, winner: str, status: int, words: str) -> None:
    match = _new_match(client, ["Ana", "Ben"])
    r = client.post(f"/api/matches/{match['id']}/games", json={"racks": racks, "winner": winner})
    assert r.status_code == status and words in r.json()["detail"]
    assert client.get(f"/api/matches/{match['id']}").json()["games"] == []


def test_target_points_variant(client: TestClient) -> None:
    match = _new_match(client, ["Ana", "Ben"], rounds=20, match_scoring="target_points", target_points=50)
    r = client.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "K13 K12 R11"},
                                                               "winner": "Ana"}).json()["match"]
    assert not r["finished"] and r["standings"][0]["collected"] == 36
    r = client.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "O9 O8"},
                                                               "winner": "Ana"}).json()["match"]
    assert r["finished"] and r["winner"] == "Ana"


def test_penalty_is_logged_with_the_match_rules(client: TestClient) -> None:
    match = _new_match(client, ["Ana", "Ben"], timeout_penalty="return_to_pool")
    r = client.post(f"/api/matches/{match['id']}/penalties", json={"player": "Ben", "touched_table": True})
    assert r.status_code == 201
    assert r.json()["penalty"]["policy"] == "return_to_pool" and r.json()["logged"]["tiles"] == 1
    assert client.get(f"/api/matches/{match['id']}").json()["penalties"][0]["player"] == "Ben"
    assert client.post(f"/api/matches/{match['id']}/penalties", json={"player": "Zoe"}).status_code == 409


def test_match_player_rules(client: TestClient) -> None:
    assert client.post("/api/matches", json={"players": ["Ana"]}).status_code == 422
    r = client.post("/api/matches", json={"players": ["A", "B"], "rules": {"name": "xp"}})
    assert r.status_code == 422 and "5 to 6" in r.json()["detail"]
    r = client.post("/api/matches", json={"players": ["Ana", "ana"]})
    assert r.status_code in (409, 422)
    assert client.get("/api/matches").json()["matches"] == []


def test_list_and_delete_matches(client: TestClient) -> None:
    first = _new_match(client, ["A", "B"])
    second = _new_match(client, ["C", "D"])
    assert [m["id"] for m in client.get("/api/matches").json()["matches"]] == [second["id"], first["id"]]
    assert client.delete(f"/api/matches/{first['id']}").json()["deleted"]
    assert [m["id"] for m in client.get("/api/matches").json()["matches"]] == [second["id"]]
    assert client.delete(f"/api/matches/{first['id']}").status_code == 404


def test_dice_sheet_game(client: TestClient) -> None:
    sheet = client.post("/api/dice/sheets", json={"players": ["Ana", "Ben"], "turns": 2}).json()
    assert sheet["next_player"] == "Ana" and not sheet["complete"]
    rolls = [("Ana", "R1 R2 R3 R4 R5 R6 R7 R8 R9"), ("Ben", "R1 R2 R3 K5 B5 O5 J K9 B12"),
             ("Ana", "K1 B2 O3 R4 K5 B6 O7 R8 K9"), ("Ben", "R1 R2 R3 R4 R5 R6 R7 R8 R9")]
    for player, faces in rolls:
        assert sheet["next_player"] == player
        r = client.post(f"/api/dice/sheets/{sheet['id']}/turns", json={"player": player, "faces": faces})
        assert r.status_code == 201, r.text
        sheet = r.json()
    assert sheet["complete"] and sheet["next_player"] is None
    assert sheet["totals"]["Ana"] == 30 + sheet["entries"][2]["score"]
    assert sheet["entries"][0]["arrangement"]["score"] == 30
    refused = client.post(f"/api/dice/sheets/{sheet['id']}/turns", json={"player": "Ana", "faces": rolls[0][1]})
    assert refused.status_code == 422 and "all 2 turns" in refused.json()["detail"]
    rows = list(csv.reader(io.StringIO(client.get(f"/api/dice/sheets/{sheet['id']}/export.csv").content.decode("utf-8-sig"))))
    assert rows[0] == ["Turn", "Ana", "Ben"] and rows[1][1] == "30" and rows[-1][0] == "Total"
    assert [int(x) for x in rows[-1][1:]] == [sheet["totals"]["Ana"], sheet["totals"]["Ben"]]


def test_dice_sheet_limits(client: TestClient) -> None:
    assert client.post("/api/dice/sheets", json={"players": [f"P{i}" for i in range(9)]}).status_code == 422
    sheet = client.post("/api/dice/sheets", json={"players": ["Solo"]}).json()
    assert sheet["turns"] == 6
    bad = client.post(f"/api/dice/sheets/{sheet['id']}/turns", json={"player": "Solo", "faces": "R1 R1 R2"})
    assert bad.status_code == 422
    assert client.get(f"/api/dice/sheets/{sheet['id']}").json()["entries"] == []
