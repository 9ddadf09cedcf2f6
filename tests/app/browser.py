"""Helpers for the end-to-end tests and the README screenshots: a server in a thread, Debian's
Chromium driven by Playwright, and a fake camera made from a real photo."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")
NEEDS_CHROMIUM = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed: apt-get install chromium")
"""Marks a browser test module: it runs only where Debian's chromium is installed."""
PHONE = {"width": 390, "height": 844}
"""A phone-sized viewport (iPhone 12-15 class), CSS pixels."""
# Chromium must not reach the network here, nor need a sandbox (we run as root in a container).
BASE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-default-apps", "--no-first-run"]


def write_y4m(photo: Path, out: Path, width: int = 640, frames: int = 6) -> tuple[int, int]:
    """A short Y4M video of ``photo`` (Chromium's fake camera loops it); returns its size."""
    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(photo)
    height = int(round(image.shape[0] * width / image.shape[1] / 2)) * 2  # 4:2:0 needs even sides
    frame = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    i420 = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420)
    with out.open("wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n")
            f.write(np.ascontiguousarray(i420).tobytes())
    return width, height


@contextmanager
def serve(application: Any, port: int, host: str = "127.0.0.1") -> Iterator[str]:
    """Run the app with uvicorn in a thread on ``host`` (127.0.0.1; 0.0.0.0 for a LAN test);
    yields its URL on 127.0.0.1."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(application, host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)


def launch(playwright: Any, video: Path | None = None, extra_args: list[str] | None = None) -> Any:
    """Headless Chromium (Debian's package, not a downloaded build), optionally with a fake camera."""
    args = list(BASE_ARGS)
    if video is not None:
        args += ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 f"--use-file-for-fake-video-capture={video.resolve()}"]
    args += extra_args or []
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)


def new_phone_page(browser: Any, url: str, scale: float = 2.0, **context: Any) -> Any:
    """A page the size of a phone, opened at ``url`` and ready (the page sets body[data-ready])."""
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=scale, is_mobile=True, has_touch=True, **context)
    page = ctx.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=15000)
    return page
