"""Who may write when the server is served on the network (issue 15): the join code, two clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from webapp import access
from webapp.access import JoinCodes
from webapp.runtime import Settings

SHARE = ("http://192.0.2.2:8000/",)


@pytest.fixture()
def codes() -> JoinCodes:
    return JoinCodes.new()


@pytest.fixture()
def served(tmp_path: Path, codes: JoinCodes) -> Iterator[tuple[TestClient, TestClient]]:
    """The app as ``--host 0.0.0.0`` starts it: this computer (127.0.0.1) and a phone (192.0.2.9)."""
    access._failures.clear()
    application = app_module.create_app(
        Settings(db_path=tmp_path / "a.db", load_models=False, join=codes, share_urls=SHARE))
    with TestClient(application, client=("127.0.0.1", 50000)) as computer, \
            TestClient(application, client=("192.0.2.9", 50001), follow_redirects=False) as phone:
        yield computer, phone


def _match(client: TestClient) -> int:
    r = client.post("/api/matches", json={"name": "Club night", "players": ["Ana", "Ben"]})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_a_phone_without_the_code_changes_nothing(served: tuple[TestClient, TestClient]) -> None:
    computer, phone = served
    match = _match(computer)
    game = {"racks": {"Ana": "", "Ben": "R5 J"}, "winner": "Ana", "expected_number": 1}
    writes = [
        ("DELETE", f"/api/matches/{match}", None),
        ("POST", f"/api/matches/{match}/games", game),
        ("DELETE", f"/api/matches/{match}/games/last", None),
        ("POST", f"/api/matches/{match}/penalties", {"player": "Ana", "touched_table": False}),
        ("POST", "/api/matches", {"name": "Other", "players": ["Cy", "Di"]}),
        ("POST", "/api/dice/sheets", {"players": ["Ana"], "turns": 2}),
    ]
    for method, path, body in writes:
        r = phone.request(method, path, json=body)
        assert r.status_code == 403, (method, path, r.text)
        assert "joined" in r.json()["detail"] and "Nothing was changed" in r.json()["detail"]
    # Reads too: the names at the table are not for every phone in the room.
    assert phone.get("/api/matches").status_code == 403
    assert phone.get(f"/api/matches/{match}/export.csv").status_code == 403
    state = computer.get(f"/api/matches/{match}").json()
    assert state["games"] == [] and state["penalties"] == []
    assert [m["name"] for m in computer.get("/api/matches").json()["matches"]] == ["Club night"]
    # The page itself, its sentences and the health check stay open: the page asks for the code.
    assert phone.get("/").status_code == 200 and phone.get("/api/strings").status_code == 200
    health = phone.get("/api/health").json()
    assert health["join_required"] is True and health["access"] == "guest"


def test_the_qr_code_link_lets_a_phone_in(served: tuple[TestClient, TestClient], codes: JoinCodes) -> None:
    computer, phone = served
    match = _match(computer)
    share = computer.get("/api/join/share").json()
    assert share["url"] == f"http://192.0.2.2:8000/?join={codes.token}" and share["code"] == codes.short_display
    assert share["svg"].startswith("<svg") and "path" in share["svg"]
    assert phone.get("/api/join/share").status_code == 403  # only the computer shows the code
    r = phone.get(f"/?join={codes.token}")
    assert r.status_code == 303 and r.headers["location"] == "/"  # the code leaves the address bar
    assert "HttpOnly" in r.headers["set-cookie"]
    assert phone.get("/api/health").json()["access"] == "joined"
    assert phone.post(f"/api/matches/{match}/games",
                      json={"racks": {"Ana": "", "Ben": "R5"}, "winner": "Ana", "expected_number": 1}).status_code == 201
    assert phone.delete(f"/api/matches/{match}").status_code == 200


def test_the_short_code_typed(served: tuple[TestClient, TestClient], codes: JoinCodes) -> None:
    computer, phone = served
    wrong = phone.post("/api/join", json={"code": "AAA-AAA" if codes.short != "AAAAAA" else "BBB-BBB"})
    assert wrong.status_code == 403 and "not this table's join code" in wrong.json()["detail"]
    assert phone.post("/api/matches", json={"name": "X", "players": ["A", "B"]}).status_code == 403
    typed = f" {codes.short[:3].lower()} {codes.short[3:].lower()} "  # any case, spaces
    assert phone.post("/api/join", json={"code": typed}).json() == {"joined": True}
    assert phone.post("/api/matches", json={"name": "X", "players": ["A", "B"]}).status_code == 201


def test_guessing_the_short_code_is_stopped(served: tuple[TestClient, TestClient], codes: JoinCodes) -> None:
    _computer, phone = served
    for _ in range(access.MAX_FAILURES):
        assert phone.post("/api/join", json={"code": "nope"}).status_code == 403
    # Even the right code waits now: guessing 10 in ten minutes can't cover 32^6 codes.
    assert phone.post("/api/join", json={"code": codes.short}).status_code == 429
    # Nor can the short code be tried where nothing counts the guesses: the link and the cookie
    # take the long code only.
    assert phone.get(f"/?join={codes.short}").status_code == 200  # the page, no cookie
    phone.cookies.set(access.JOIN_COOKIE, codes.short)
    assert phone.get("/api/health").json()["access"] == "guest"
    assert phone.get("/api/matches").status_code == 403


def test_on_this_computer_nothing_changes(client: TestClient) -> None:
    """Served on 127.0.0.1 (the default): no code, everyone here may write, no QR code."""
    health = client.get("/api/health").json()
    assert health["join_required"] is False and health["access"] == "open"
    assert client.post("/api/matches", json={"name": "Home", "players": ["A", "B"]}).status_code == 201
    assert client.get("/api/join/share").json()["url"] is None


def test_codes() -> None:
    codes = JoinCodes.new()
    assert len(codes.token) >= 16 and len(codes.short) == 6 and not set(codes.short) & set("01IO")
    assert codes.accepts(codes.token) and codes.accepts(codes.short_display.lower())
    assert not codes.accepts("") and not codes.accepts(None) and not codes.accepts(codes.token[:-1])
    assert JoinCodes.new() != codes
