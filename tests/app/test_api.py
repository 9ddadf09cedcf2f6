"""The JSON API over the referee: typed tables, turns, scores, dice, best move; errors as sentences."""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import app as app_module


@pytest.mark.parametrize(
    ("table", "loose", "ok", "valid", "points"),
    [
        ("R1 R2 R3 | K5 B5 O5", "", True, [True, True], 21),
        ("R1 R2 J", "", True, [True], 6),
        ("R7 R9 R8", "", False, [False], 0),
        ("K13 K1 K2", "", False, [False], 0),
        ("K5 B5 O5 R5 | R3 R4 R5", "", True, [True, True], 32),
        ("R1 R2 R3", "K9", False, [True], 6),
        ("R1 R2 R3 | R1 R2 R3 | R1 R2 R3", "", False, [True, True, True], 18),  # three copies in classic
    ],
)
def test_table_check(client: TestClient, table: str, loose: str, ok: bool, valid: list[bool], points: int) -> None:
    r = client.post("/api/table/check", json={"table": table, "loose": loose})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["ok"] is ok
    assert [s["valid"] for s in data["sets"]] == valid
    assert data["points"] == points
    assert data["summary"]
    for s in data["sets"]:
        assert s["summary"]  # every set's verdict in words
        assert ("points" in s["summary"]) is s["valid"]


def test_table_check_accepts_a_list_of_sets(client: TestClient) -> None:
    r = client.post("/api/table/check", json={"table": ["R1 R2 R3", "K5 B5 O5"]})
    assert r.json()["ok"] is True and len(r.json()["sets"]) == 2


def test_xp_rules_allow_three_copies(client: TestClient) -> None:
    table = "R1 R2 R3 | R1 R2 R3 | R1 R2 R3"
    assert client.post("/api/table/check", json={"table": table, "rules": {"name": "xp"}}).json()["ok"] is True


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"table": "R1 X2 R3"}, '"X2" is not a tile'),
        ({"table": "R1 R14 R3"}, "numbers run 1-13"),
        ({"table": "R1 R2", "rules": {"opening_minimum": 999}}, "opening_minimum"),
        ({"table": "R1 R2", "rules": {"name": "deluxe"}}, "name"),
        ({"tablex": "R1"}, "table"),
        ({"table": "R1", "extra": 1}, "extra"),
    ],
)
def test_bad_input_is_a_422_sentence(client: TestClient, body: dict, words: str) -> None:
    r = client.post("/api/table/check", json=body)
    assert r.status_code == 422
    assert words in r.json()["detail"]


def test_opening(client: TestClient) -> None:
    ok = client.post("/api/opening/check", json={"sets": "K10 K11 K12"}).json()
    assert ok["ok"] and ok["points"] == 33 and ok["reached"]
    short = client.post("/api/opening/check", json={"sets": "R1 R2 R3 | K5 B5 O5"}).json()
    assert not short["ok"] and short["points"] == 21 and "21" in short["summary"]
    fifty = client.post("/api/opening/check", json={"sets": "K10 K11 K12", "rules": {"opening_minimum": 50}}).json()
    assert not fifty["reached"] and fifty["minimum"] == 50


def test_turn_check_legal_and_illegal(client: TestClient) -> None:
    legal = client.post("/api/turn/check", json={
        "before": "R1 R2 R3 | K5 B5 O5", "after": "R1 R2 R3 R4 | K5 B5 O5 | K10 K11 K12",
        "rack_before": "R4 K10 K11 K12 B1", "opened": True}).json()
    assert legal["ok"], legal
    assert sorted(legal["laid"]) == ["K10", "K11", "K12", "R4"]
    assert legal["summary"].startswith("Legal turn")
    opening = client.post("/api/turn/check", json={
        "before": "R1 R2 R3", "after": "R1 R2 R3 | K10 K11 K12", "opened": False}).json()
    assert opening["ok"] and opening["opening_points"] == 33
    touched = client.post("/api/turn/check", json={
        "before": "R1 R2 R3", "after": "R1 R2 R3 R4 | K10 K11 K12", "opened": False}).json()
    assert not touched["ok"] and touched["summary"].startswith("Not a legal turn")
    not_from_rack = client.post("/api/turn/check", json={
        "before": "R1 R2 R3", "after": "R1 R2 R3 R4", "rack_before": "K9", "opened": True}).json()
    assert not not_from_rack["ok"] and not_from_rack["violations"]


def test_score_worked_example_003(client: TestClient) -> None:
    """docs/rules.md section 7 (003): losers hold 43, 26, 18 -> -43, -26, -18, winner +87."""
    r = client.post("/api/score", json={"racks": {"W": "", "A": "K1 R1 B11 J", "B": "K4 K5 B7 O2 R8", "C": "O5 O13"},
                                        "winner": "W"})
    assert r.status_code == 200, r.text
    assert r.json()["scores"] == {"W": 87, "A": -43, "B": -26, "C": -18}
    assert r.json()["summary"]


def test_score_stalemate_lowest_rack_wins(client: TestClient) -> None:
    r = client.post("/api/score", json={"racks": {"A": "K1 K2", "B": "R10", "C": "O5 O6"}, "winner": None}).json()
    assert r["stalemate"] and r["winners"] == ["A"]
    assert r["scores"] == {"A": 15, "B": -7, "C": -8}


def test_score_winner_with_tiles_is_refused(client: TestClient) -> None:
    r = client.post("/api/score", json={"racks": {"A": "K1", "B": "R10"}, "winner": "A"})
    assert r.status_code == 422 and "A" in r.json()["detail"]


def test_penalty_follows_the_rule_set(client: TestClient) -> None:
    plain = client.post("/api/penalty", json={}).json()
    assert plain["draw"] == 1 and plain["code"] == "timeout_no_play"
    classic = client.post("/api/penalty", json={"touched_table": True, "laid": "R4"}).json()
    assert classic["draw"] == 3 and classic["table_restored"] and classic["back_to_rack"] == ["R4"]
    spanish = client.post("/api/penalty", json={"touched_table": True, "rules": {"timeout_penalty": "return_to_pool"}}).json()
    assert spanish["draw"] == 1 and spanish["policy"] == "return_to_pool"


def test_dice_best(client: TestClient) -> None:
    r = client.post("/api/dice/best", json={"faces": "R1 R2 R3 R4 R5 R6 R7 R8 R9"})
    assert r.status_code == 200, r.text
    assert r.json()["score"] == 30  # all nine in one run (docs/rules.md section 8, rule 6)
    bad = client.post("/api/dice/best", json={"faces": "R1 R2"})
    assert bad.status_code == 422 and bad.json()["detail"]


def test_dice_photo_without_a_dice_reader_is_501(client: TestClient) -> None:
    assert client.get("/api/health").json()["dice_photos"] is False  # the fixture loads no models
    r = client.post("/api/dice/read", files={"photo": ("dice.jpg", b"\xff\xd8", "image/jpeg")})
    assert r.status_code == 501 and "type the nine faces" in r.json()["detail"]


class _DiceReading:
    def __init__(self, codes: list[str]) -> None:
        self.codes = codes

    def to_dict(self) -> dict:
        faces = [{"tile": c, "box": [10.0 * i, 0.0, 10.0 * i + 9, 9.0], "confidence": 0.9} for i, c in enumerate(self.codes)]
        ok = len(self.codes) == 9
        return {"image": {"width": 1000, "height": 750}, "faces": faces, "ok": ok,
                "message": None if ok else f"{len(self.codes)} dice found: the photo must show all nine.",
                "doubts": []}


class _DiceReader:
    def __init__(self, codes: list[str]) -> None:
        self.codes = codes

    def read_dice(self, image):  # noqa: ANN001, ANN201
        return _DiceReading(self.codes)


@pytest.mark.parametrize(
    ("codes", "ok", "score"),
    [("R1 R2 R3 R4 R5 R6 R7 R8 R9".split(), True, 30), ("R1 R2 R3 R4".split(), False, None)],
)
def test_dice_photo_with_a_dice_reader(tmp_path, codes: list[str], ok: bool, score: int | None) -> None:  # noqa: ANN001
    from tests.app.conftest import BlankReader
    from tests.app.corpus import sample_jpeg

    application = app_module.create_app(app_module.Settings(db_path=tmp_path / "d.db", load_models=False),
                                        reader=BlankReader(), dice_reader=_DiceReader(codes))
    with TestClient(application) as c:
        assert c.get("/api/health").json()["dice_photos"] is True
        r = c.post("/api/dice/read", files={"photo": ("dice.jpg", sample_jpeg(), "image/jpeg")})
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["faces"] == " ".join(codes) and data["ok"] is ok and len(data["dice"]) == len(codes)
        assert (data["best"] or {}).get("score") == score
        assert (data["message"] is None) is ok
        bad = c.post("/api/dice/read", files={"photo": ("dice.jpg", b"not a photo at all" * 10, "image/jpeg")})
        assert bad.status_code == 415, bad.text


def test_table_check_says_whether_the_tiles_can_be_rearranged(client: TestClient) -> None:
    r = client.post("/api/table/check", json={"table": "R1 R2 | R3 K5 B5 O5"})
    assert r.status_code == 200
    data = r.json()
    assert data["ok"] is False and data["rearranged"] == [["R1", "R2", "R3"], ["K5", "B5", "O5"]]
    assert data["summary"].endswith("Rearranged, the same tiles make valid sets.")
    none = client.post("/api/table/check", json={"table": "R1 R2 | K9"}).json()
    assert none["rearranged"] == [] and "missing, extra or misread" in none["summary"]
    assert client.post("/api/table/check", json={"table": "R1 R2 R3"}).json()["rearranged"] is None
    # The table after a turn gets the same answer.
    turn = client.post("/api/turn/check", json={"before": "R1 R2 R3", "after": "R1 R2 | R3 R4", "rack_before": "R4"}).json()
    assert turn["table"]["rearranged"] == [["R1", "R2", "R3", "R4"]]


def test_suggest(client: TestClient) -> None:
    r = client.post("/api/suggest", json={"table": "R1 R2 R3 | K5 B5 O5", "rack": "R4 O9"})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["found"] and "R4" in data["placed"] and data["steps"]
    assert any("R4" in s for s in data["sets"])
    none = client.post("/api/suggest", json={"table": "R1 R2 R3", "rack": "K9", "opened": False}).json()
    assert none["found"] is False and none["summary"]
    # The exact tie-break: the fewest table tiles moved, and the flag saying it is proven.
    exact = client.post("/api/suggest", json={"table": "K1 K2 K3 K4 K5 K6 K7", "rack": "B4 O4"})  # the default
    assert exact.status_code == 200 and exact.json()["least_moved"] is True and len(exact.json()["moved"]) == 4
    quick = client.post("/api/suggest", json={"table": "K1 K2 K3 K4 K5 K6 K7", "rack": "B4 O4", "tiebreak": "estimate"})
    assert quick.status_code == 200 and quick.json()["least_moved"] is False
    points = client.post("/api/suggest", json={"table": "K1 K2 K3 K4 K5 K6 K7", "rack": "B4 O4", "objective": "points"})
    assert points.status_code == 200 and points.json()["least_moved"] is True and len(points.json()["moved"]) == 4
    bad = client.post("/api/suggest", json={"table": "R1 R2 R3", "rack": "R4", "tiebreak": "best"})
    assert bad.status_code == 422
    # A table nothing can make valid: a clear 422 naming the set, not "no move".
    broken = client.post("/api/suggest", json={"table": "R1 R2 R3 | K5 B5", "rack": "K9"})
    assert broken.status_code == 422 and "K5 B5" in broken.json()["detail"]


def test_rules_catalog_and_resolve(client: TestClient) -> None:
    presets = client.get("/api/rules").json()["presets"]
    assert presets["classic"]["copies"] == 2 and presets["xp"]["copies"] == 3
    resolved = client.post("/api/rules/resolve", json={"name": "classic", "jokers_in_opening": False}).json()
    assert resolved["jokers_in_opening"] is False and resolved["opening_minimum"] == 30


def test_health(client: TestClient) -> None:
    data = client.get("/api/health").json()
    assert data["ok"] and data["models_loaded"]  # the stand-in reader counts as loaded
    assert data["max_upload_mb"] == 25


def test_without_models_photos_answer_503_and_typed_flows_work(tmp_path) -> None:  # noqa: ANN001
    application = app_module.create_app(app_module.Settings(db_path=tmp_path / "x.db", load_models=False))
    with TestClient(application) as c:
        assert c.get("/api/health").json()["models_loaded"] is False
        r = c.post("/api/photo/read", files={"photo": ("t.jpg", b"x", "image/jpeg")})
        assert r.status_code == 503 and "type the tiles" in r.json()["detail"]
        assert c.post("/api/table/check", json={"table": "R1 R2 R3"}).json()["ok"]


def test_every_json_route_has_pydantic_models(client: TestClient) -> None:
    """OpenAPI at /docs: every JSON route declares a response model (CSV/JPEG routes excepted)."""
    spec = client.get("/openapi.json").json()
    assert client.get("/docs").status_code == 200
    for route in client.app.routes:
        if not isinstance(route, APIRoute) or not route.path.startswith("/api/"):
            continue
        if route.path.endswith((".csv", "/overlay")):
            continue
        assert route.response_model is not None, route.path
        for method in route.methods:
            op = spec["paths"][route.path][method.lower()]
            ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
            assert "$ref" in str(ok["content"]["application/json"]["schema"]), route.path
            if method == "POST" and "requestBody" in op:
                assert "$ref" in str(op["requestBody"]), route.path


def test_the_page_is_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'capture="environment"' in page.text
    assert 'accept="image/*"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200, asset
    js = client.get("/static/app.js").text
    assert "getUserMedia" in js and "/api/" in js
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "")  # nothing fetched from the network


def test_unknown_match_is_404(client: TestClient) -> None:
    r = client.get("/api/matches/999")
    assert r.status_code == 404 and "999" in r.json()["detail"]


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/api/table/check", {"table": "R1 " * 5000}),
        ("/api/table/check", {"table": ["R1 R2 R3"] * 500}),
        ("/api/suggest", {"table": "R1 R2 R3", "rack": "K1 " * 2000}),
        ("/api/dice/best", {"faces": "R1 " * 500}),
        ("/api/score", {"racks": {f"P{i}": "" for i in range(20)}, "winner": "P0"}),
        ("/api/matches", {"players": ["x" * 200, "B"]}),
    ],
)
def test_oversized_requests_are_refused_quickly(client: TestClient, route: str, body: dict) -> None:
    r = client.post(route, json=body)
    assert r.status_code == 422 and "at most" in r.json()["detail"]


def test_api_docs_work_offline(client: TestClient) -> None:
    """/docs and /redoc load Swagger UI and ReDoc from this server, not from a CDN."""
    pytest.importorskip("fastapi_offline", reason="fastapi-offline (local Swagger UI files) is not installed")
    for page, asset in (("/docs", "/docs-assets/swagger-ui-bundle.js"), ("/redoc", "/docs-assets/redoc.standalone.js")):
        html = client.get(page).text
        assert asset in html and "cdn." not in html and "fonts.googleapis" not in html
        assert client.get(asset).status_code == 200


def test_every_operation_is_grouped_in_the_docs(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    tags = {p: op.get("tags") for p, ops in spec["paths"].items() for op in ops.values()}
    assert all(tags.values()), [p for p, t in tags.items() if not t]
    assert {t[0] for t in tags.values()} == {"photos", "referee", "Rummikub Dice", "score sheets", "server"}
