"""End to end in headless Chromium: teach the reader a rendered tile layout on the "My tiles" screen,
then read a photo with the profile chosen, correct a tile and offer it to the profile (issue 14).

Runs the app with the shipped models (teaching needs the real reader's features).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import app as app_module
from tests.app.browser import NEEDS_CHROMIUM, launch, new_phone_page, serve
from tests.app.conftest import free_port, require_model
from tests.app.test_profiles import FEATURES
from webapp.runtime import Settings

pytestmark = [
    pytest.mark.browser,
    pytest.mark.model,
    NEEDS_CHROMIUM,
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")

SLOT = ".slot[data-slot=table]"
SLOW = 240_000  # ms: teaching and reading share two cores with the model training


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two rendered photos of one edition's full set laid out in rows."""
    from datasets.teach_scenes import FULL_SET_ROWS, render_layout

    folder = tmp_path_factory.mktemp("layouts")
    rng = np.random.default_rng(5)
    first, style = render_layout(rng, FULL_SET_ROWS, family="dejavu_sans", size=1400)
    second, _ = render_layout(rng, FULL_SET_ROWS, style, size=1400)
    out = folder / "teach.jpg", folder / "table.jpg"
    for path, image in zip(out, (first, second)):
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    require_model()
    if not FEATURES:
        pytest.skip("the shipped reader does not export features: profiles can't be taught")
    db = tmp_path_factory.mktemp("db") / "teach.db"
    with serve(app_module.create_app(Settings(db_path=db)), free_port()) as url:
        yield url


@pytest.mark.slow
def test_teach_my_tiles_then_read_with_them(server: str, photos: tuple[Path, Path]) -> None:
    teach_photo, table_photo = photos
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        page = new_phone_page(browser, server + "/#teach")
        page.set_default_timeout(SLOW)
        # The rows are pre-filled with the full set: 13 of each colour, then the jokers.
        rows = page.input_value("#teach-rows").split("|")
        assert len(rows) == 5 and rows[0].split() == [f"K{n}" for n in range(1, 14)] and rows[4].split() == ["J", "J"]
        assert page.locator("#profile-pick option").count() == 1  # the reader alone
        page.locator("#teach-pick").set_input_files(str(teach_photo))
        # The preview has a size (is visible) once the browser has decoded the photo: wait for it.
        page.locator("#teach-preview").wait_for(state="visible")
        assert page.locator("#teach-preview").is_visible()

        # A row typed short: the API's sentence names the row, nothing is kept.
        page.fill("#teach-rows", page.input_value("#teach-rows").replace("B13", "", 1))
        page.fill("#teach-name", "Our set")
        with page.expect_response("**/api/profiles", timeout=SLOW) as answer:
            page.click("#teach-go")
        assert answer.value.status == 422
        error = page.locator("#teach-result .error")
        error.wait_for()
        assert "row 2" in error.text_content()
        assert page.locator("#profile-list li.muted").count() == 1  # "no profile yet"

        # Taught as laid out.
        page.fill("#teach-rows", " |\n".join(" ".join(f"{c}{n}" for n in range(1, 14)) for c in "KBOR") + " |\nJ J")
        with page.expect_response("**/api/profiles", timeout=SLOW) as answer:
            page.click("#teach-go")
        assert answer.value.status == 201, answer.value.text()
        taught = answer.value.json()
        print(f"\nteaching through the page: {taught['result']['seconds']:.1f} s on the server")
        page.locator("#teach-result .banner.ok").wait_for()
        assert "Our set" in page.locator("#teach-result .banner.ok").text_content()
        assert page.input_value("#profile-pick") == "Our set"  # chosen for the next photos
        assert page.locator("#profile-list li strong").all_text_contents() == ["Our set"]

        # Read a photo on the table screen: with the profile, said under the reading.
        page.click(".tabs button[data-tab=table]")
        with page.expect_response("**/api/photo/read", timeout=SLOW) as answer:
            page.locator(f"{SLOT} input.file-pick").set_input_files(str(table_photo))
        assert answer.value.status == 200
        reading = answer.value.json()
        assert reading["profile"] == "Our set" and len(reading["tiles"]) == 54
        page.locator(f"{SLOT} .read-with").wait_for()
        assert "Our set" in page.locator(f"{SLOT} .read-with").text_content()

        # Correct a tile: the page offers to add it to the profile; only a tap on the offer sends it.
        target = page.locator(f"{SLOT} svg g.tilebox").first
        original = target.locator("text").text_content()
        other = "K13" if original != "K13" else "B13"
        target.click()
        with page.expect_response("**/api/photo/correct"):
            page.locator(f"#picker-grid .pick[data-code='{other}']").click()
        offer = page.locator(f"{SLOT} .add-to-profile")
        offer.wait_for()
        assert other in offer.text_content() and "Our set" in offer.text_content()
        with page.expect_response("**/api/profiles/Our%20set/tiles", timeout=SLOW) as answer:
            offer.click()
        assert answer.value.status in (201, 422), answer.value.text()  # added, or refused by the check
        said = page.locator(f"{SLOT} .offer .banner.ok, {SLOT} .offer .error")
        said.wait_for()
        assert said.text_content() == answer.value.json().get("summary", answer.value.json().get("detail"))

        # The choice is remembered: a new visit reads with the same profile.
        page.goto(server + "/#teach")
        page.wait_for_selector("body[data-ready='1']")
        assert page.input_value("#profile-pick") == "Our set"
        page.once("dialog", lambda dialog: dialog.accept())
        with page.expect_response("**/api/profiles/Our%20set"):
            page.locator("#profile-list li button.secondary").click()
        page.wait_for_function("document.querySelector('#profile-pick').options.length === 1")
        assert page.errors == []
        browser.close()
