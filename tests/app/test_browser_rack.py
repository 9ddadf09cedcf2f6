"""In a real headless Chromium: a table photo with a rack says why its tiles were taken as a rack,
and the "No rack in this photo" checkbox reads it again without one (issue 15 point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import app as app_module
from tests.app.browser import NEEDS_CHROMIUM, new_phone_page, serve
from tests.app.conftest import LabelReader, free_port
from tests.app.test_rack_option import rack_photo
from webapp.runtime import Settings

pytestmark = [
    pytest.mark.browser,
    NEEDS_CHROMIUM,
]

SLOT = ".slot[data-slot=table]"


@pytest.fixture(scope="module")
def photo() -> Path:
    return rack_photo()


@pytest.fixture(scope="module")
def rack_server(photo: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    db = tmp_path_factory.mktemp("db") / "rack.db"
    application = app_module.create_app(Settings(db_path=db, load_models=False), reader=LabelReader(photo))
    with serve(application, free_port()) as url:
        yield url


def test_no_rack_checkbox(browser, rack_server: str, photo: Path) -> None:  # noqa: ANN001
    page = new_phone_page(browser, rack_server + "/#table")
    option = page.locator(f"{SLOT} .no-rack-option")
    assert option.is_visible() and "No rack in this photo" in option.text_content()
    assert not page.locator(f"{SLOT} .no-rack").is_checked()
    # Rack slots have no such option (their photo is a rack).
    assert page.locator(".slot[data-slot=turn-rack] .no-rack-option").count() == 1
    assert page.locator(".slot[data-slot=turn-rack] .no-rack-option").get_attribute("hidden") is not None
    with page.expect_response("**/api/photo/read") as answer:
        page.locator(f"{SLOT} input.file-camera").set_input_files(str(photo))
    assert answer.value.json()["mode"] == "table" and len(answer.value.json()["rack"]) == 16
    page.wait_for_selector(f"{SLOT} .rack-note")
    assert "16 tiles were taken as a rack" in page.locator(f"{SLOT} .rack-note").text_content()
    # The player says there is no rack: the photo is read again, every tile a table tile.
    with page.expect_response("**/api/photo/read") as answer:
        page.locator(f"{SLOT} .no-rack").check()
    reading = answer.value.json()
    assert reading["mode"] == "flat" and reading["rack"] == []
    page.wait_for_function(f"!document.querySelector('{SLOT} .rack-note')")
    assert page.locator(f"{SLOT} .slot-result li.set").count() == len(reading["sets"]) >= 2
    assert page.errors == []
