"""Correct a misread: the page sends the tiles back with one changed; the sets and verdict follow."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import LabelReader, demo_photo
from webapp.runtime import Settings


@pytest.fixture()
def label_client(tmp_path: Path) -> TestClient:
    photo = demo_photo()
    application = app_module.create_app(Settings(db_path=tmp_path / "c.db", load_models=False), reader=LabelReader(photo))
    with TestClient(application) as c:
        c.photo = photo  # type: ignore[attr-defined]
        yield c


def _read(client: TestClient) -> dict:
    r = client.post("/api/photo/read", files={"photo": ("table.jpg", client.photo.read_bytes(), "image/jpeg")})  # type: ignore[attr-defined]
    assert r.status_code == 200, r.text
    return r.json()


def _correct(client: TestClient, reading: dict, changes: dict[int, str]) -> dict:
    tiles = [{"box": t["box"], "tile": changes.get(i, t["tile"]), "up": t.get("up")} for i, t in enumerate(reading["tiles"])]
    r = client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles, "mode": reading["mode"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_reading_carries_overlay_data_and_verdict(label_client: TestClient) -> None:
    reading = _read(label_client)
    assert reading["image"] == {"width": 1000, "height": 750}
    assert len(reading["tiles"]) == 54
    assert len(reading["sets"]) == len(reading["verdict"]["sets"]) == len(reading["table"])
    assert any(s["valid"] for s in reading["verdict"]["sets"]) and not reading["verdict"]["ok"]
    for tile in reading["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= 1000 and 0 <= y1 < y2 <= 750
    # The referee's verdict agrees with the reader's per-set verdict.
    assert [s["valid"] for s in reading["sets"]] == [s["valid"] for s in reading["verdict"]["sets"]]


def test_correcting_a_tile_updates_the_verdict(label_client: TestClient) -> None:
    reading = _read(label_client)
    k = next(i for i, s in enumerate(reading["sets"]) if s["valid"] and s["kind"] == "run" and len(s["tiles"]) >= 3)
    first = reading["sets"][k]["indices"][0]
    original = reading["tiles"][first]["tile"]
    wrong = "K13" if original != "K13" else "B13"
    broken = _correct(label_client, reading, {first: wrong})
    assert broken["tiles"][first]["tile"] == wrong
    set_k = broken["tiles"][first]["set"]
    assert broken["verdict"]["sets"][set_k]["valid"] is False
    mended = _correct(label_client, broken, {first: original})
    assert [s["valid"] for s in mended["verdict"]["sets"]] == [s["valid"] for s in reading["verdict"]["sets"]]
    assert mended["table"] == reading["table"]


def test_removing_a_box_that_is_not_a_tile(label_client: TestClient) -> None:
    reading = _read(label_client)
    fewer = _correct(label_client, reading, {0: "-"})
    assert len(fewer["tiles"]) == len(reading["tiles"]) - 1


def test_bad_corrections_are_refused(label_client: TestClient) -> None:
    reading = _read(label_client)
    tiles = [{"box": t["box"], "tile": t["tile"]} for t in reading["tiles"]]
    tiles[0]["tile"] = "Z9"
    r = label_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles})
    assert r.status_code == 422 and "Z9" in r.json()["detail"]
    tiles[0] = {"box": [0, 0, 5000, 10], "tile": "R1"}
    r = label_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles})
    assert r.status_code == 422 and "outside" in r.json()["detail"]
