"""Fixtures for the app tests: an app on a temporary database, with the shipped models or a stand-in."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

import app as app_module
from webapp.runtime import Settings

ROOT = Path(__file__).resolve().parents[2]
# $RUMMIKUB_MODELS points the app (and these tests) at another model folder, e.g. fresh weights.
MODEL_FILE = Path(os.environ.get("RUMMIKUB_MODELS") or ROOT / "models") / "tile_detector.onnx"


@dataclass
class BlankReading:
    """What a reader answers for a photo with no tiles: the contract's keys, nothing found."""

    width: int
    height: int

    def to_dict(self) -> dict[str, Any]:
        return {"image": {"width": self.width, "height": self.height}, "tiles": [], "sets": [], "loose": [],
                "rack": [], "rack_points": 0, "doubts": [], "timing_ms": {"total": 0.0}}


@dataclass
class BlankReader:
    """A stand-in for the tile models (house style: tests swap the model out): finds no tile,
    but sees the decoded image, optionally takes time, and counts the threads it ran on."""

    delay_s: float = 0.0
    calls: int = 0
    threads: set[str] = field(default_factory=set)
    images: list[tuple[int, int]] = field(default_factory=list)

    def read_table(self, image_bgr: np.ndarray, rules: Any = None, mode: str = "table") -> BlankReading:
        assert image_bgr.dtype == np.uint8 and image_bgr.ndim == 3
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        self.images.append(image_bgr.shape[:2])
        if self.delay_s:
            time.sleep(self.delay_s)  # stands for CPU work; the event loop must not wait for it
        return BlankReading(image_bgr.shape[1], image_bgr.shape[0])


@dataclass
class LabelReader:
    """A stand-in for the tile models that knows one real photo's ground truth: its labelled
    tiles go through the real rule-aware decoding (``vision.decode.build_reading``), scaled to
    the size of the image received (a live-camera frame of the same photo is smaller)."""

    photo: Path

    def read_table(self, image_bgr: np.ndarray, rules: Any = None, mode: str = "table") -> Any:
        from PIL import Image

        from referee.ruleset import RuleSet
        from referee.tiles import parse_tile
        from tests.app.corpus import photo_labels
        from vision.decode import build_reading
        from vision.detections import TileDetections

        boxes, codes = photo_labels(self.photo)
        width, height = Image.open(self.photo).size
        h, w = image_bgr.shape[:2]
        boxes = boxes * np.array([w / width, h / height, w / width, h / height], dtype=np.float32)
        det = TileDetections.from_tiles(boxes, [parse_tile(c) for c in codes])
        return build_reading((w, h), det, rules or RuleSet.classic(), mode, image_bgr)


@dataclass
class KnownPhotos:
    """A stand-in for the tile models that knows the true tiles of several photos: each image it
    receives is matched to the nearest of them (a 32 x 24 grey thumbnail), whose tiles go through
    the real rule-aware decoding, scaled to the size received. For checks that send two photos
    (before and after a turn)."""

    photos: list[tuple[Path, np.ndarray, list[str]]]
    """(image file, boxes xyxy in its pixels, tile codes)."""

    @staticmethod
    def _thumb(image_bgr: np.ndarray) -> np.ndarray:
        import cv2

        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
        return cv2.resize(grey, (32, 24), interpolation=cv2.INTER_AREA).astype(np.float32)

    def read_table(self, image_bgr: np.ndarray, rules: Any = None, mode: str = "table") -> Any:
        import cv2

        from referee.ruleset import RuleSet
        from referee.tiles import parse_tile
        from vision.decode import build_reading
        from vision.detections import TileDetections

        thumb = self._thumb(image_bgr)
        path, boxes, codes = min(self.photos, key=lambda p: float(np.abs(self._thumb(cv2.imread(str(p[0]))) - thumb).mean()))
        height, width = cv2.imread(str(path)).shape[:2]
        h, w = image_bgr.shape[:2]
        scaled = boxes * np.array([w / width, h / height, w / width, h / height], dtype=np.float32)
        det = TileDetections.from_tiles(scaled, [parse_tile(c) for c in codes])
        return build_reading((w, h), det, rules or RuleSet.classic(), mode)


def turn_photos(folder: Path) -> tuple[Path, Path, KnownPhotos]:
    """A turn in two real photos: *after* is a real photo with loose tiles (R11 R12) beside
    eleven valid sets; *before* is the same photo with one valid set painted out (not laid yet).
    Returns (before, after, a reader that knows both)."""
    import cv2

    from tests.app.corpus import photo_labels
    from tests.photos import sample_photos
    from vision.decode import build_reading
    from vision.detections import TileDetections
    from referee.tiles import parse_tile

    (after,) = [p for p in sample_photos() if p.name.startswith("rummy4-6_")]
    boxes, codes = photo_labels(after)
    image = cv2.imread(str(after))
    reading = build_reading((image.shape[1], image.shape[0]), TileDetections.from_tiles(boxes, [parse_tile(c) for c in codes]))
    laid = next(s for s in reading.to_dict()["sets"] if s["valid"] and len(s["indices"]) >= 3)
    painted = image.copy()
    for i in laid["indices"]:
        x1, y1, x2, y2 = (int(v) for v in boxes[i])
        cv2.rectangle(painted, (x1 - 2, y1 - 2), (x2 + 2, y2 + 2), (40, 90, 40), -1)  # the felt, no tile
    before = folder / "before.jpg"
    cv2.imwrite(str(before), painted, [cv2.IMWRITE_JPEG_QUALITY, 92])
    keep = [i for i in range(len(codes)) if i not in set(laid["indices"])]
    reader = KnownPhotos([(after, boxes, codes), (before, boxes[keep], [codes[i] for i in keep])])
    return before, after, reader


def demo_photo() -> Path:
    """The real test photo with the most sets (16 sets, two of them illegal), in tests/fixtures."""
    from tests.photos import sample_photos

    (photo,) = [p for p in sample_photos() if p.name.startswith("rummy-37_")]
    return photo


@pytest.fixture()
def blank_reader() -> BlankReader:
    return BlankReader()


@pytest.fixture()
def client(tmp_path: Path, blank_reader: BlankReader) -> Iterator[TestClient]:
    """The app on a fresh database with the stand-in reader."""
    application = app_module.create_app(Settings(db_path=tmp_path / "t.db", load_models=False), reader=blank_reader)
    with TestClient(application) as c:
        yield c


@pytest.fixture(scope="module")
def playwright():  # noqa: ANN201
    """Playwright for one browser test module (skips when playwright is not installed)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):  # noqa: ANN001, ANN201
    """Headless Chromium without a fake camera, for one module (test_browser.py overrides it with one)."""
    from tests.app.browser import launch

    b = launch(playwright)
    yield b
    b.close()


def require_model() -> None:
    if not MODEL_FILE.exists():
        pytest.skip(f"the trained tile model is missing: {MODEL_FILE} (train it, see models/)")


@pytest.fixture(scope="module")
def model_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app with the shipped models, loaded once for the module."""
    require_model()
    db = tmp_path_factory.mktemp("db") / "m.db"
    application = app_module.create_app(Settings(db_path=db))
    with TestClient(application) as c:
        assert c.get("/api/health").json()["models_loaded"], c.get("/api/health").json()
        yield c


def read_qr(image: np.ndarray) -> str:
    """The text of the QR code in ``image`` ("" if none is read). OpenCV's plain QRCodeDetector
    misses about 4% of our join links at any one scale (measured on 400 random links: the codes
    are right, its finder search is not); the ArUco-based detector read all 400, so it reads
    first and the plain one is the second opinion."""
    import cv2

    for detector, scale in ((cv2.QRCodeDetectorAruco(), 1), (cv2.QRCodeDetector(), 1), (cv2.QRCodeDetector(), 0.5)):
        scaled = image if scale == 1 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        text, _points, _ = detector.detectAndDecode(scaled)
        if text:
            return text
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    """``python app.py`` running in a subprocess on 127.0.0.1."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path


def start_server(tmp_path: Path, *args: str, scheme: str = "http", timeout_s: float = 90.0) -> LiveServer:
    """Start ``python app.py`` exactly as the README says, and wait until /api/health answers."""
    import httpx

    port = free_port()
    log = tmp_path / f"server-{port}.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    handle = log.open("wb")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "app.py"), "--port", str(port), "--db", str(tmp_path / "live.db"), *args],
        cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, env=env,
    )
    url = f"{scheme}://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(url + "/api/health", verify=False, timeout=2).status_code == 200:
                return LiveServer(url, process, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.terminate()
    raise RuntimeError(f"the server did not answer within {timeout_s} s:\n{log.read_text()}")


def stop_server(server: LiveServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(5)
