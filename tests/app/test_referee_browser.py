"""The Referee screen in a real headless Chromium whose fake camera plays a rendered game.

The page streams the camera to /api/referee (one JPEG every half second) and shows each verdict;
the server runs the shipped models.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import app as app_module
from tests.app.browser import NEEDS_CHROMIUM, launch, new_phone_page, serve
from tests.app.conftest import free_port, require_model
from webapp.runtime import Settings

pytestmark = [
    pytest.mark.browser,
    pytest.mark.model,
    NEEDS_CHROMIUM,
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")


def write_game_y4m(frames: list[Path], out: Path, fps: int = 2) -> None:
    """The game's frames as a Y4M video at ``fps`` (Chromium's fake camera plays it in real time)."""
    first = cv2.imread(str(frames[0]))
    h, w = first.shape[:2]
    with out.open("wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for p in frames:
            f.write(b"FRAME\n")
            f.write(np.ascontiguousarray(cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2YUV_I420)).tobytes())


@pytest.fixture(scope="module")
def game_video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    from datasets.render_game import render_game

    out = tmp_path_factory.mktemp("game")
    truth = render_game(out, 2, 1, size=720, max_turns=2, p_violation=0.5, long_turn=False)
    frames = sorted((out / "frames").glob("*.jpg"))
    # Hold the last state a while: the fake camera loops the video, back to the empty table.
    frames += [frames[-1]] * 12
    video = out / "game.y4m"
    write_game_y4m(frames, video)
    return video, truth


@pytest.mark.slow
def test_referee_screen_follows_a_game_from_the_camera(game_video: tuple[Path, dict], tmp_path: Path) -> None:
    require_model()
    video, truth = game_video
    names = truth["players"]
    k = names.index(truth["first_player"])
    names = names[k:] + names[:k]
    application = app_module.create_app(Settings(db_path=tmp_path / "b.db"))
    with sync_api.sync_playwright() as p, serve(application, free_port()) as url:
        browser = launch(p, video)
        try:
            page = new_phone_page(browser, url + "/#referee")
            page.wait_for_selector("#screen-referee:not([hidden])")
            assert page.locator("#ref-tab").inner_text() == "Referee"
            page.fill("#ref-names", "\n".join(names))
            page.click("#ref-start")
            page.wait_for_selector("#ref-live:not([hidden])")
            # The opening under 30 of the second turn: a red card with the referee's code.
            page.wait_for_selector(".ref-card.bad[data-ok='0'][data-verdict='violation'] "
                                   ".violation[data-code='opening_below_minimum']", timeout=120000)
            cards = page.locator(".ref-card")
            assert cards.count() >= 2
            first = page.locator(".ref-card[data-turn='1']")
            assert first.get_attribute("data-ok") == "1"
            # Fine, or not checked in full (an amber card): never a violation on the first play.
            assert first.get_attribute("data-verdict") in ("ok", "check_by_hand")
            assert names[0] in first.inner_text()
            # The history steps back through the stable states, each with its photo.
            page.wait_for_function("document.querySelector('#ref-photo').naturalWidth > 0", timeout=15000)
            at = int(page.locator("#ref-history").get_attribute("data-at"))
            page.click("#ref-back")
            assert int(page.locator("#ref-history").get_attribute("data-at")) == at - 1
            # A draw from a pool off camera, told with the button: a draw card.
            page.click("#ref-drew")
            page.wait_for_selector(".ref-card:has-text('drew a tile')", timeout=15000)
            page.click("#ref-stop")
            assert page.locator("#ref-setup").is_visible()
            assert page.errors == []
        finally:
            browser.close()
