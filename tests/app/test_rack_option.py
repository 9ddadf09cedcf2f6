"""Racks only where one is seen, and "no rack in this photo" (issue 15 point 2), through the API:
the reading says why tiles were taken as a rack, the player can say there is none, and a rack seen
in the photo stays one when tiles are corrected."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import LabelReader
from tests.photos import sample_photos
from webapp.runtime import Settings

RACK_PHOTO = "rummy4-93_"  # valid split: a black rack, two tiers, 16 tiles


def rack_photo() -> Path:
    (photo,) = [p for p in sample_photos() if p.name.startswith(RACK_PHOTO)]
    return photo


@pytest.fixture()
def rack_client(tmp_path: Path) -> Iterator[TestClient]:
    photo = rack_photo()
    application = app_module.create_app(Settings(db_path=tmp_path / "r.db", load_models=False), reader=LabelReader(photo))
    with TestClient(application) as c:
        c.photo = photo  # type: ignore[attr-defined]
        yield c


def _read(client: TestClient, **form: str) -> dict:
    r = client.post("/api/photo/read", files={"photo": ("rack.jpg", client.photo.read_bytes(), "image/jpeg")},  # type: ignore[attr-defined]
                    data=form)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_rack_in_a_table_photo_is_seen_and_said(rack_client: TestClient) -> None:
    reading = _read(rack_client)
    assert reading["mode"] == "table" and len(reading["rack"]) == 16 and reading["sets"] == []
    assert reading["rack_cues"][0]["source"] == "seen"
    assert "16 tiles were taken as a rack" in reading["rack_note"]
    assert len(reading["rack_tiles"].split()) == 16


def test_the_player_says_there_is_no_rack(rack_client: TestClient) -> None:
    reading = _read(rack_client, no_rack="true")
    assert reading["mode"] == "flat" and reading["rack"] == [] and reading["rack_note"] is None
    # Every tile is judged as a table tile: in a set or loose.
    assert sum(len(s["tiles"]) for s in reading["sets"]) + len(reading["loose"]) == 16
    # Explicitly "false" is the default.
    assert len(_read(rack_client, no_rack="false")["rack"]) == 16


def test_no_rack_and_rack_mode_together_are_refused(rack_client: TestClient) -> None:
    r = rack_client.post("/api/photo/read", files={"photo": ("rack.jpg", rack_client.photo.read_bytes(), "image/jpeg")},  # type: ignore[attr-defined]
                         data={"mode": "rack", "no_rack": "true"})
    assert r.status_code == 422 and "no rack" in r.json()["detail"]


def test_a_seen_rack_stays_when_a_tile_is_corrected(rack_client: TestClient) -> None:
    reading = _read(rack_client)
    tiles = [{"box": t["box"], "tile": t["tile"], "up": t["up"], "rack": t["rack"]} for t in reading["tiles"]]
    tiles[0]["tile"] = "K13" if tiles[0]["tile"] != "K13" else "B13"
    r = rack_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles, "mode": "table"})
    assert r.status_code == 200, r.text
    corrected = r.json()
    assert sorted(corrected["rack"]) == sorted(reading["rack"]) and corrected["sets"] == []
    assert corrected["rack_cues"][0]["source"] == "kept" and corrected["rack_note"]
    assert [len(row) for row in corrected["rack_rows"]] == [len(row) for row in reading["rack_rows"]]
    # Tiles sent without the flag are table tiles (the photo is not there to show a rack).
    for t in tiles:
        t["rack"] = False
    r = rack_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles, "mode": "table"})
    assert r.json()["rack"] == []
