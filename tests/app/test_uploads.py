"""Photo uploads: bad files get a clear 4xx, never a 5xx; readings run off the event loop."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

import app as app_module
from tests.app.conftest import ROOT, BlankReader, free_port
from tests.app.corpus import bad_uploads, sample_jpeg, with_orientation
from tests.photos import sample_photos
from webapp.runtime import Settings


@pytest.mark.parametrize("upload", bad_uploads(), ids=lambda u: u.name)
def test_bad_upload_corpus_gets_a_clear_4xx(client: TestClient, upload) -> None:  # noqa: ANN001 - corpus.Upload
    r = client.post("/api/photo/read", files={"photo": (upload.filename, upload.data, "image/jpeg")},
                    data={"mode": "table"})
    assert r.status_code in upload.statuses, (r.status_code, r.text[:300])
    assert r.status_code < 500
    if r.status_code >= 400:
        detail = r.json()["detail"]
        assert isinstance(detail, str) and detail.endswith(".") and len(detail) > 20, detail


@pytest.mark.parametrize("route", ["/api/photo/read", "/api/photo/overlay", "/api/dice/read"])
def test_every_photo_route_refuses_a_text_file(client: TestClient, route: str) -> None:
    r = client.post(route, files={"photo": ("notes.jpg", b"shopping list: milk, eggs\n" * 10, "image/jpeg")})
    assert r.status_code in (415, 501) and r.json()["detail"]


def test_turn_photos_refuse_bad_files_too(client: TestClient) -> None:
    files = {"before": ("b.jpg", sample_jpeg(), "image/jpeg"), "after": ("a.jpg", b"", "image/jpeg")}
    r = client.post("/api/turn/check-photos", files=files)
    assert r.status_code == 422 and "empty" in r.json()["detail"]


def test_missing_photo_field_is_a_422_sentence(client: TestClient) -> None:
    r = client.post("/api/photo/read", data={"mode": "table"})
    assert r.status_code == 422 and "photo" in r.json()["detail"]


def test_bad_mode_is_refused(client: TestClient) -> None:
    r = client.post("/api/photo/read", files={"photo": ("t.jpg", sample_jpeg(), "image/jpeg")}, data={"mode": "floor"})
    assert r.status_code == 422 and "mode" in r.json()["detail"]


def test_exif_orientation_reaches_the_reader(client: TestClient, blank_reader: BlankReader) -> None:
    plain = client.post("/api/photo/read", files={"photo": ("p.jpg", sample_jpeg(), "image/jpeg")})
    turned = client.post("/api/photo/read", files={"photo": ("t.jpg", with_orientation(sample_jpeg(), 6), "image/jpeg")})
    assert plain.status_code == turned.status_code == 200
    w, h = plain.json()["image"]["width"], plain.json()["image"]["height"]
    assert turned.json()["image"] == {"width": h, "height": w}
    assert blank_reader.images[-1] == (w, h)  # the reader saw the upright (rotated) pixels


def test_readings_run_on_the_worker_pool(client: TestClient, blank_reader: BlankReader) -> None:
    assert client.post("/api/photo/read", files={"photo": ("p.jpg", sample_jpeg(), "image/jpeg")}).status_code == 200
    assert blank_reader.threads and all(name.startswith("photo") for name in blank_reader.threads)


def test_chunked_upload_over_the_limit_is_413(tmp_path: Path) -> None:
    """No Content-Length (chunked): the body is counted as it streams in and cut off at the limit."""
    settings = Settings(db_path=tmp_path / "c.db", load_models=False, max_upload_bytes=1024 * 1024)
    application = app_module.create_app(settings, reader=BlankReader())
    boundary = "XyZ"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode()

    def body():  # noqa: ANN202 - a generator makes httpx send chunked
        yield head
        for _ in range(80):
            yield b"\0" * 65536  # 5 MB in all, over the 4 MB request cap (3 photos + 1 MB)
        yield f"\r\n--{boundary}--\r\n".encode()

    with TestClient(application) as c:
        r = c.post("/api/photo/read", content=body(), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert r.status_code == 413 and "larger than" in r.json()["detail"]


def _post_photo(url: str, data: bytes, name: str) -> int:
    r = httpx.post(url + "/api/photo/read", files={"photo": (name, data, "image/jpeg")}, timeout=120)
    return r.status_code


@pytest.mark.slow
def test_twenty_concurrent_uploads_are_all_answered(tmp_path: Path) -> None:
    """20 photos at once against a real uvicorn on 127.0.0.1; meanwhile the server stays responsive.

    The stand-in reader takes 0.25 s a photo on 2 workers, so the 20 take about 2.5 s; a health
    check sent while they queue must still answer at once (readings run off the event loop).
    """
    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "tests.app.slow_app", str(port), str(tmp_path / "c.db")],
                               cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        photos = [p.read_bytes() for p in sample_photos()[:4]]
        t_start = time.monotonic()
        with ThreadPoolExecutor(max_workers=20) as pool:
            futures = [pool.submit(_post_photo, url, photos[i % len(photos)], f"p{i}.jpg") for i in range(20)]
            time.sleep(0.8)  # the readings are queued now
            t0 = time.monotonic()
            health = httpx.get(url + "/api/health", timeout=10)
            health_s = time.monotonic() - t0
            statuses = [f.result(timeout=120) for f in futures]
        total_s = time.monotonic() - t_start
        assert statuses == [200] * 20
        assert health.status_code == 200
        assert health_s < 0.5, f"the event loop was blocked: /api/health took {health_s:.2f} s"
        assert total_s >= 20 * 0.25 / 2 * 0.9  # the readings really queued on the 2 workers
    finally:
        process.terminate()
        process.wait(15)
