"""Taught tile profiles through the API (issue 14 point 4): teach, list, read with, add a tile, delete.

The shipped models on a real SQLite file; the teaching photo is a rendered layout
(``datasets.teach_scenes``: 1-13 of each colour and the jokers, in rows).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import require_model
from vision.detect import MODELS_DIR
from webapp.access import JoinCodes
from webapp.runtime import Settings
from webapp.store import Store, StoreError, clean_profile_name

FEATURES = False
if (MODELS_DIR / "tile_reader.onnx").exists():
    import onnxruntime as ort

    FEATURES = len(ort.InferenceSession(str(MODELS_DIR / "tile_reader.onnx")).get_outputs()) >= 4


def _rows_text(rows: list[list[str]]) -> str:
    return " | ".join(" ".join(r) for r in rows)


@pytest.fixture(scope="module")
def layouts() -> tuple[bytes, bytes, list[list[str]]]:
    """Two rendered photos of one edition's full set in rows (JPEG bytes) and the rows."""
    from datasets.teach_scenes import FULL_SET_ROWS, render_layout

    rng = np.random.default_rng(3)
    first, style = render_layout(rng, FULL_SET_ROWS, family="dejavu_sans", size=1400)
    second, _ = render_layout(rng, FULL_SET_ROWS, style, size=1400)
    encode = lambda img: cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()  # noqa: E731
    return encode(first), encode(second), FULL_SET_ROWS


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path]]:
    """The app with the shipped models on a SQLite file, as this computer sees it."""
    require_model()
    if not FEATURES:
        pytest.skip("the shipped reader does not export features: profiles can't be taught")
    db = tmp_path_factory.mktemp("db") / "profiles.db"
    with TestClient(app_module.create_app(Settings(db_path=db))) as c:
        yield c, db


@pytest.mark.model
@pytest.mark.slow
def test_teach_list_read_add_delete(served: tuple[TestClient, Path], layouts: tuple[bytes, bytes, list]) -> None:
    client, db = served
    first, second, rows = layouts
    t0 = time.perf_counter()
    r = client.post("/api/profiles", files={"photo": ("layout.jpg", first, "image/jpeg")},
                    data={"tiles": _rows_text(rows), "name": "  Grandma's   tiles "})
    wall = time.perf_counter() - t0
    assert r.status_code == 201, r.text
    taught = r.json()
    print(f"\nteaching one 1400-px layout photo through the API: {wall:.2f} s wall, "
          f"{taught['result']['seconds']:.2f} s in teach()")
    assert taught["added"] is False and taught["profile"]["name"] == "Grandma's tiles"
    assert taught["result"]["tiles"] == 54 and taught["result"]["rows"] == 5 and len(taught["profile"]["taught"]) == 53
    assert taught["result"]["with_profile"] >= taught["result"]["reader_alone"]
    assert "Grandma's tiles" in taught["summary"]

    listed = client.get("/api/profiles").json()["profiles"]
    assert [p["name"] for p in listed] == ["Grandma's tiles"] and listed[0]["photos"] == 1

    # A second photo of the same edition is added to it (any case of the name).
    r = client.post("/api/profiles", files={"photo": ("b.jpg", second, "image/jpeg")},
                    data={"tiles": _rows_text(rows), "name": "grandma's tiles"})
    assert r.status_code == 201, r.text
    assert r.json()["added"] is True and r.json()["profile"]["photos"] == 2
    assert r.json()["profile"]["examples"] == 2 * taught["profile"]["examples"]

    # Read a photo with it: the answer names the profile; the tiles read at least as well.
    plain = client.post("/api/photo/read", files={"photo": ("b.jpg", second, "image/jpeg")}).json()
    read = client.post("/api/photo/read", files={"photo": ("b.jpg", second, "image/jpeg")},
                       data={"profile": "Grandma's tiles"})
    assert read.status_code == 200, read.text
    reading = read.json()
    assert reading["profile"] == "Grandma's tiles" and plain["profile"] is None
    truth = [c for row in rows for c in row]
    assert sorted(t["tile"] for t in reading["tiles"]) == sorted(truth)
    right = lambda rd: sum(min(sum(t["tile"] == c for t in rd["tiles"]), truth.count(c)) for c in set(truth))  # noqa: E731
    assert right(reading) >= right(plain)
    unknown = client.post("/api/photo/read", files={"photo": ("b.jpg", second, "image/jpeg")}, data={"profile": "nobody"})
    assert unknown.status_code == 404 and "nobody" in unknown.json()["detail"]

    # Add one corrected tile: the box of the photo's first tile, its true code.
    tile = reading["tiles"][0]
    r = client.post("/api/profiles/Grandma's tiles/tiles", files={"photo": ("b.jpg", second, "image/jpeg")},
                    data={"box": ",".join(str(v) for v in tile["box"]), "tile": tile["tile"]})
    assert r.status_code == 201, r.text
    added = r.json()
    assert added["after"] >= added["before"] and added["profile"]["added_tiles"] == 1
    assert added["examples"] == r.json()["profile"]["examples"] > listed[0]["examples"] * 2
    # A box that is no box, or lies outside the photo: a sentence, nothing written.
    revision = Store(db).get_profile("Grandma's tiles").revision
    for box in ("1,2,3", "0,0,99999,99999"):
        bad = client.post("/api/profiles/Grandma's tiles/tiles", files={"photo": ("b.jpg", second, "image/jpeg")},
                          data={"box": box, "tile": "R1"})
        assert bad.status_code == 422 and "box" in bad.json()["detail"], bad.text
    assert Store(db).get_profile("Grandma's tiles").revision == revision

    # Delete it: gone from the list, and reading with it is a 404.
    r = client.delete("/api/profiles/Grandma's tiles")
    assert r.status_code == 200 and r.json()["deleted"] is True
    assert client.get("/api/profiles").json()["profiles"] == []
    assert client.delete("/api/profiles/Grandma's tiles").status_code == 404


@pytest.mark.model
def test_a_count_mismatch_names_the_row_and_writes_nothing(served: tuple[TestClient, Path],
                                                           layouts: tuple[bytes, bytes, list]) -> None:
    client, db = served
    first, _, rows = layouts
    short = [list(r) for r in rows]
    short[1] = short[1][:-1]  # one tile forgotten in the second row
    r = client.post("/api/profiles", files={"photo": ("a.jpg", first, "image/jpeg")},
                    data={"tiles": _rows_text(short), "name": "Short"})
    assert r.status_code == 422
    assert "row 2" in r.json()["detail"] and "12" in r.json()["detail"] and "13" in r.json()["detail"]
    r = client.post("/api/profiles?lang=es", files={"photo": ("a.jpg", first, "image/jpeg")},
                    data={"tiles": _rows_text(short), "name": "Short"})
    assert r.status_code == 422 and r.json()["detail"].startswith("fila 2:")  # in the player's language
    r = client.post("/api/profiles", files={"photo": ("a.jpg", first, "image/jpeg")},
                    data={"tiles": _rows_text(rows[:-1]), "name": "Short"})
    assert r.status_code == 422 and "row" in r.json()["detail"]
    r = client.post("/api/profiles", files={"photo": ("a.jpg", first, "image/jpeg")},
                    data={"tiles": "R1 R14", "name": "Short"})
    assert r.status_code == 422 and "R14" in r.json()["detail"]
    r = client.post("/api/profiles", files={"photo": ("a.jpg", first, "image/jpeg")},
                    data={"tiles": _rows_text(rows), "name": "  "})
    assert r.status_code == 422 and "name" in r.json()["detail"]
    assert client.get("/api/profiles").json()["profiles"] == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM profiles").fetchone()[0] == 0


def test_profile_names_and_the_lost_update_guard(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    assert clean_profile_name("  My   set ") == "My set"
    for bad in ("", "   ", "a/b", "x" * 41, "bell\x07"):
        with pytest.raises(StoreError):
            clean_profile_name(bad)
    rec = store.save_profile("Set", {"taught": ["R1"]}, b"p1", b"h1", None)
    assert rec.revision == 1
    with pytest.raises(StoreError, match="exists already"):
        store.save_profile("set", {"taught": ["R1"]}, b"p2", b"h2", None)
    store.save_profile("Set", {"taught": ["R1", "R2"]}, b"p2", b"h2", 1)
    with pytest.raises(StoreError, match="changed while"):  # a second phone taught from revision 1 too
        store.save_profile("Set", {"taught": ["R9"]}, b"p3", b"h3", 1)
    kept = Store(tmp_path / "s.db").get_profile("SET")  # a new Store on the same file: nothing lost
    assert (kept.revision, kept.prototypes, kept.meta["taught"]) == (2, b"p2", ["R1", "R2"])


def test_a_phone_without_the_join_code_cannot_teach_or_delete(tmp_path: Path) -> None:
    codes = JoinCodes.new()
    application = app_module.create_app(Settings(db_path=tmp_path / "j.db", load_models=False, join=codes))
    Store(tmp_path / "j.db").save_profile("Ours", {"taught": ["R1"]}, b"p", b"h", None)
    with TestClient(application, client=("127.0.0.1", 50000)) as computer, \
            TestClient(application, client=("192.0.2.9", 50001)) as phone:
        for method, path, kwargs in [
            ("POST", "/api/profiles", {"files": {"photo": ("a.jpg", b"x", "image/jpeg")},
                                       "data": {"tiles": "R1", "name": "Theirs"}}),
            ("POST", "/api/profiles/Ours/tiles", {"files": {"photo": ("a.jpg", b"x", "image/jpeg")},
                                                  "data": {"box": "0,0,9,9", "tile": "R1"}}),
            ("DELETE", "/api/profiles/Ours", {}),
            ("GET", "/api/profiles", {}),
        ]:
            r = phone.request(method, path, **kwargs)
            assert r.status_code == 403 and "Nothing was changed" in r.json()["detail"], (method, path)
        assert [p["name"] for p in computer.get("/api/profiles").json()["profiles"]] == ["Ours"]
