"""Photo flows with the shipped model on the six real photos in tests/fixtures (``-m model``)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from referee.tiles import parse_table, parse_tiles
from tests.app.conftest import demo_photo
from tests.app.corpus import photo_labels
from tests.photos import sample_photos

pytestmark = pytest.mark.model


def _read(client: TestClient, photo: Path, mode: str = "table") -> dict:
    r = client.post("/api/photo/read", files={"photo": (photo.name, photo.read_bytes(), "image/jpeg")},
                    data={"mode": mode})
    assert r.status_code == 200, r.text
    return r.json()


def test_table_photo_reading_contract(model_client: TestClient) -> None:
    photo = demo_photo()
    reading = _read(model_client, photo)
    truth_boxes, _codes = photo_labels(photo)
    assert reading["image"] == {"width": 1000, "height": 750}
    # The app's contract, not the model's accuracy (models/*.md measures that): most tiles found,
    # boxes inside the photo, sets, verdict and notation consistent with each other.
    assert len(reading["tiles"]) >= len(truth_boxes) // 2
    for tile in reading["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= 1000 and 0 <= y1 < y2 <= 750
        assert tile["tile"] == "?" or parse_tiles(tile["tile"])
    assert len(reading["verdict"]["sets"]) == len(reading["sets"]) == len(reading["table"])
    parse_table(" | ".join(reading["table"]))
    assert reading["verdict"]["summary"] and reading["timing_ms"]["total"] > 0


@pytest.mark.slow
def test_every_real_test_photo_is_answered(model_client: TestClient) -> None:
    photos = sample_photos()
    assert len(photos) == 6  # a loop over nothing would check nothing
    for photo in photos:
        reading = _read(model_client, photo)
        assert reading["tiles"] and reading["verdict"]["summary"]


def test_rack_photo(model_client: TestClient) -> None:
    (rack,) = [p for p in sample_photos() if p.name.startswith("rummy3-19_")]
    reading = _read(model_client, rack, mode="rack")
    assert reading["mode"] == "rack" and reading["sets"] == []
    assert len(reading["rack"]) >= 6
    assert reading["rack_points"] >= 0 and parse_tiles(reading["rack_tiles"]) is not None


def test_an_iphones_heic_photo_reads_as_its_jpeg(model_client: TestClient) -> None:
    """An iPhone stores its photos as HEIC: uploaded as they are, they read like the JPEG."""
    import io

    import pillow_heif
    from PIL import Image

    photo = demo_photo()
    pillow_heif.register_heif_opener()
    heic = io.BytesIO()
    Image.open(photo).save(heic, format="HEIF", quality=95)
    jpeg_reading = _read(model_client, photo)
    r = model_client.post("/api/photo/read", files={"photo": ("IMG_0001.HEIC", heic.getvalue(), "image/heic")},
                          data={"mode": "table"})
    assert r.status_code == 200, r.text
    reading = r.json()
    assert reading["image"] == jpeg_reading["image"]
    tiles = sorted(t["tile"] for t in reading["tiles"])
    want = sorted(t["tile"] for t in jpeg_reading["tiles"])
    assert len(tiles) == len(want) and sum(a == b for a, b in zip(tiles, want)) >= len(want) - 2


def test_correction_with_real_reading(model_client: TestClient) -> None:
    reading = _read(model_client, demo_photo())
    i = next(k for k, t in enumerate(reading["tiles"]) if t["tile"] not in ("?", "J"))
    new = "K13" if reading["tiles"][i]["tile"] != "K13" else "B13"
    tiles = [{"box": t["box"], "tile": new if k == i else t["tile"], "up": t.get("up")} for k, t in enumerate(reading["tiles"])]
    r = model_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles})
    assert r.status_code == 200, r.text
    assert r.json()["tiles"][i]["tile"] == new


def test_a_glared_photo_keeps_its_note_through_a_correction(model_client: TestClient) -> None:
    """The glare note (``photo_note``) is kept when a tile is corrected: the page sends the
    reading's ``glare`` back with the tiles, since the photo itself is not sent again."""
    from vision.evaluate.robust import overexposed_hard

    ok, jpeg = cv2.imencode(".jpg", overexposed_hard(cv2.imread(str(demo_photo()))))
    r = model_client.post("/api/photo/read", files={"photo": ("glared.jpg", jpeg.tobytes(), "image/jpeg")})
    assert ok and r.status_code == 200, r.text
    reading = r.json()
    assert reading["glare"] > 0.05 and "Glare" in reading["photo_note"]
    i = next(k for k, t in enumerate(reading["tiles"]) if t["tile"] not in ("?", "J"))
    tiles = [{"box": t["box"], "tile": "K13" if k == i else t["tile"], "up": t.get("up")} for k, t in enumerate(reading["tiles"])]
    kept = model_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles, "glare": reading["glare"]})
    assert kept.status_code == 200, kept.text
    assert kept.json()["photo_note"] == reading["photo_note"] and kept.json()["glare"] == reading["glare"]
    plain = model_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles})
    assert plain.json()["photo_note"] is None  # without it the rebuilt reading cannot know
    bad = model_client.post("/api/photo/correct", json={"image": reading["image"], "tiles": tiles, "glare": 3})
    assert bad.status_code == 422


def test_overlay_image(model_client: TestClient) -> None:
    photo = demo_photo()
    r = model_client.post("/api/photo/overlay", files={"photo": (photo.name, photo.read_bytes(), "image/jpeg")})
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (750, 1000)
    original = cv2.imread(str(photo))
    assert np.abs(image.astype(int) - original.astype(int)).mean() > 1  # something was drawn


def test_turn_from_photos(model_client: TestClient) -> None:
    photo = demo_photo()
    data = photo.read_bytes()
    r = model_client.post("/api/turn/check-photos", files={"before": ("b.jpg", data, "image/jpeg"),
                                                           "after": ("a.jpg", data, "image/jpeg")},
                          data={"opened": "true"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["before"]["table"] == body["after"]["table"]  # the same photo reads the same
    verdict = body["verdict"]
    assert verdict["laid"] == [] and not verdict["ok"]  # nothing laid and no draw: not a turn


@pytest.mark.slow
def test_twenty_concurrent_real_photos(model_client: TestClient) -> None:
    photos = [p.read_bytes() for p in sample_photos()[:5]]
    assert len(photos) == 5
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(
            lambda i: model_client.post("/api/photo/read", files={"photo": (f"{i}.jpg", photos[i % 5], "image/jpeg")}).status_code,
            range(20)))
    assert results == [200] * 20
    assert time.monotonic() - t0 < 300
