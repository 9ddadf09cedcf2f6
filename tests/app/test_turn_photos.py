"""A turn from photos (issue 15): one path, the same answer from the photos and from the notation
they fill in, loose tiles included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import turn_photos
from webapp.runtime import Settings


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path, Path]]:
    folder = tmp_path_factory.mktemp("turn")
    before, after, reader = turn_photos(folder)
    with TestClient(app_module.create_app(Settings(db_path=folder / "t.db", load_models=False), reader=reader)) as c:
        yield c, before, after


def _read(client: TestClient, photo: Path) -> dict:
    with photo.open("rb") as f:
        r = client.post("/api/photo/read", files={"photo": f}, data={"mode": "table"})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_notation_a_photo_fills_in_gives_the_photos_verdict(photos: tuple[TestClient, Path, Path]) -> None:
    client, before, after = photos
    with before.open("rb") as b, after.open("rb") as a:
        from_photos = client.post("/api/turn/check-photos", files={"before": b, "after": a},
                                  data={"opened": "true"}).json()["verdict"]
    read_before, read_after = _read(client, before), _read(client, after)
    assert read_before["loose_tiles"] == read_after["loose_tiles"] == "R11 R12"
    typed = client.post("/api/turn/check", json={
        "before": read_before["table"], "after": read_after["table"],
        "loose_before": read_before["loose_tiles"], "loose_after": read_after["loose_tiles"], "opened": True,
    }).json()
    assert typed == from_photos
    assert typed["laid"] == ["B6", "B7", "B8"] and typed["missing"] == [] and typed["left_out"] == ["R11", "R12"]
    assert "2 tiles lie loose in both photos and were left out of the check." in typed["summary"]


def test_tiles_that_went_loose_did_not_leave_the_table() -> None:
    """The false ruling of issue 15: tiles in sets before and lying loose after were said to have
    "left the table" because the loose tiles never reached the check. With them, the turn is judged
    for what it is: the tiles are on the table, loose (which is against the rules for other reasons)."""
    from webapp.api import turn_result
    from webapp.schemas import TurnIn

    body = TurnIn(before="K7 K8 K9 | O2 O3 O4", after="K9 K10 K11 | O5 O6 O7", loose_after="K7 K8 O2 O3 O4",
                  opened=True)
    verdict = turn_result(body)
    assert "table_tile_removed" not in [v["code"] for v in verdict["violations"]]
    assert "left the table" not in verdict["summary"] and verdict["missing"] == []
    assert "loose_tile" in [v["code"] for v in verdict["violations"]]


def test_loose_in_both_is_left_out_for_typed_turns_too(photos: tuple[TestClient, Path, Path]) -> None:
    client, _before, _after = photos
    turn = {"before": "R1 R2 R3", "after": "R1 R2 R3 | K10 K11 K12"}
    verdict = client.post("/api/turn/check", json={**turn, "loose_before": "O5", "loose_after": "O5"}).json()
    assert verdict["ok"] and verdict["left_out"] == ["O5"] and verdict["laid"] == ["K10", "K11", "K12"]
    # Two O5 lay loose before, one is still there after: the other left the table.
    gone = client.post("/api/turn/check", json={**turn, "loose_before": "O5 O5", "loose_after": "O5"}).json()
    assert gone["ok"] is False and gone["missing"] == ["O5"]
    assert "table_tile_removed" in [v["code"] for v in gone["violations"]]
    # A tile loose before that joins a set was on the table: not laid from the rack.
    joined = client.post("/api/turn/check", json={"before": "R1 R2 R3", "after": "R1 R2 R3 | K10 K11 K12 K13",
                                                  "loose_before": "K13"}).json()
    assert joined["ok"] and joined["laid"] == ["K10", "K11", "K12"]
