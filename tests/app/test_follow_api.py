"""The live referee's routes (/api/referee): a rendered game sent frame by frame, with the shipped models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import require_model
from webapp.runtime import Settings

pytestmark = pytest.mark.model  # the app with the shipped models follows the game


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """Two turns of two players (seed 1: a play, then an opening under 30), 720 px frames."""
    from datasets.render_game import render_game

    out = tmp_path_factory.mktemp("game")
    return out, render_game(out, 2, 1, size=720, max_turns=2, p_violation=0.5, long_turn=False)


@pytest.fixture(scope="module")
def referee_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    require_model()
    db = tmp_path_factory.mktemp("db") / "r.db"
    with TestClient(app_module.create_app(Settings(db_path=db))) as c:
        yield c


@pytest.mark.slow
def test_a_game_frame_by_frame(referee_client: TestClient, game: tuple[Path, dict]) -> None:
    out, truth = game
    c = referee_client
    names = truth["players"]
    k = names.index(truth["first_player"])
    names = names[k:] + names[:k]
    started = c.post("/api/referee/games", json={"names": names, "rules": "classic"})
    assert started.status_code == 200, started.text
    gid = started.json()["id"]
    turns = []
    for i, frame in enumerate(sorted((out / "frames").glob("*.jpg"))):
        r = c.post(f"/api/referee/games/{gid}/frame", files={"frame": ("f.jpg", frame.read_bytes(), "image/jpeg")},
                   data={"t": str(i / 2)})
        assert r.status_code == 200, r.text
        turns += [u["turn"] for u in r.json()["updates"] if "turn" in u]
    assert [t["player"] for t in turns] == [t["player"] for t in truth["turns"]]
    assert turns[0]["ok"] and turns[0]["laid"] == truth["turns"][0]["laid"]
    assert not turns[1]["ok"] and turns[1]["violations"][0]["code"] == "opening_below_minimum"
    state = c.get(f"/api/referee/games/{gid}").json()
    assert len(state["turns"]) == 2 and state["history"]
    # A draw from a pool off camera, told by hand: a draw turn for the next player.
    told = c.post(f"/api/referee/games/{gid}/draw", json={"t": len(turns) + 1000.0})
    assert told.status_code == 200, told.text
    draw = told.json()["updates"][0]["turn"]
    assert (draw["kind"], draw["told"], draw["player"], draw["number"]) == ("draw", True, names[0], 3)
    assert told.json()["state"]["next_player"] == names[1]
    photo = c.get(f"/api/referee/games/{gid}/photo/{state['history'][-1]['index']}")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg" and photo.content[:2] == b"\xff\xd8"
    end = c.post(f"/api/referee/games/{gid}/end", json={"racks": {names[0]: "", names[1]: "R5 K13 J"}, "winner": names[0]})
    assert end.status_code == 200, end.text
    assert end.json()["score"]["scores"] == {names[0]: 48, names[1]: -48}


def test_bad_requests_are_named(referee_client: TestClient) -> None:
    c = referee_client
    r = c.post("/api/referee/games", json={"names": ["Ann", "Ann"]})
    assert r.status_code == 422 and "distinct" in r.json()["detail"]
    r = c.post("/api/referee/games", json={"names": ["Ann", "Bob"], "rules": "poker"})
    assert r.status_code == 422 and "poker" in r.json()["detail"]
    assert c.get("/api/referee/games/nope").status_code == 404
    gid = c.post("/api/referee/games", json={"names": ["Ann", "Bob"]}).json()["id"]
    r = c.post(f"/api/referee/games/{gid}/frame", files={"frame": ("f.jpg", b"not a picture", "image/jpeg")})
    assert r.status_code in (415, 422) and r.json()["detail"]
    r = c.post(f"/api/referee/games/{gid}/draw", json={})
    assert r.status_code == 409 and "not seen the table" in r.json()["detail"]
    r = c.post(f"/api/referee/games/{gid}/end", json={"racks": {"Zed": "R1"}})
    assert r.status_code == 422 and "Zed" in r.json()["detail"]
    assert c.get("/api/referee/strings").json()["tab"] == "Referee"
