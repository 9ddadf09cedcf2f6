"""End to end in a real headless Chromium: the camera button, the live camera, the overlay, a correction.

Debian's ``chromium`` is driven by Playwright (``executable_path``; no downloaded browser). The
live camera is Chromium's fake capture device playing a video made from a real photo.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

import app as app_module
from tests.app.browser import NEEDS_CHROMIUM, launch, new_phone_page, serve, write_y4m
from tests.app.conftest import ROOT, LabelReader, demo_photo, free_port, require_model, start_server, stop_server
from webapp.runtime import Settings

pytestmark = [
    pytest.mark.browser,
    NEEDS_CHROMIUM,
]

SLOT = ".slot[data-slot=table]"


@pytest.fixture(scope="module")
def photo() -> Path:
    return demo_photo()


@pytest.fixture(scope="module")
def video(photo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("camera") / "table.y4m"
    write_y4m(photo, out, width=640)
    return out


@pytest.fixture(scope="module")
def label_server(photo: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The app with a stand-in reader that knows the demo photo's true tiles (runs without the model)."""
    db = tmp_path_factory.mktemp("db") / "b.db"
    application = app_module.create_app(Settings(db_path=db, load_models=False), reader=LabelReader(photo))
    with serve(application, free_port()) as url:
        yield url


@pytest.fixture(scope="module")
def browser(playwright, video: Path):  # noqa: ANN001, ANN201
    b = launch(playwright, video, extra_args=["--host-resolver-rules=MAP rummikub.test 127.0.0.1"])
    yield b
    b.close()


def _overlay_boxes(page, slot: str = SLOT) -> int:  # noqa: ANN001
    return page.locator(f"{slot} svg g.tilebox").count()


def test_camera_button_photo_shows_overlay_and_verdict(browser, label_server: str, photo: Path) -> None:  # noqa: ANN001
    page = new_phone_page(browser, label_server + "/#table")
    camera = page.locator(f"{SLOT} input.file-camera")
    assert camera.get_attribute("capture") == "environment" and camera.get_attribute("accept") == "image/*"
    camera.set_input_files(str(photo))
    page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length === 54", timeout=30000)
    assert page.locator(f"{SLOT} svg g.tilebox.ok").count() > 0
    assert page.locator(f"{SLOT} svg g.tilebox.bad").count() > 0  # this table has illegal sets
    labels = page.locator(f"{SLOT} svg g.tilebox text").all_text_contents()
    assert len(labels) == 54 and all(len(t) >= 1 for t in labels)
    banner = page.locator(f"{SLOT} .slot-result .banner").first.text_content()
    assert "sets are valid" in banner
    assert page.locator(f"{SLOT} .slot-result li.set.ok").count() >= 10
    assert page.locator(f"{SLOT} .slot-result li.set.bad").count() >= 1
    assert " | " in page.input_value("#table-text")  # the sets in notation, ready to edit or check
    assert page.errors == []


def test_tap_a_tile_to_correct_it(browser, label_server: str, photo: Path) -> None:  # noqa: ANN001
    page = new_phone_page(browser, label_server + "/#table")
    page.locator(f"{SLOT} input.file-camera").set_input_files(str(photo))
    page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length === 54", timeout=30000)
    bad_before = page.locator(f"{SLOT} .slot-result li.set.bad").count()
    target = page.locator(f"{SLOT} svg g.tilebox.ok").first
    index = target.get_attribute("data-index")
    original = target.locator("text").text_content()
    wrong = "K13" if original != "K13" else "B13"
    target.click()
    assert page.locator("#picker").is_visible()
    with page.expect_response("**/api/photo/correct") as answer:
        page.locator(f"#picker-grid .pick[data-code='{wrong}']").click()
    assert answer.value.status == 200
    fixed = page.locator(f"{SLOT} svg g.tilebox[data-index='{index}']")
    page.wait_for_function(
        f"document.querySelector(\"{SLOT} svg g.tilebox[data-index='{index}'] text\").textContent === '{wrong}'")
    assert "bad" in fixed.get_attribute("class")  # the set it belongs to is no longer valid
    assert page.locator(f"{SLOT} .slot-result li.set.bad").count() == bad_before + 1
    # And back: the verdict is as before.
    fixed.click()
    with page.expect_response("**/api/photo/correct"):
        page.locator(f"#picker-grid .pick[data-code='{original}']").click()
    page.wait_for_function(f"document.querySelectorAll('{SLOT} .slot-result li.set.bad').length === {bad_before}")
    assert page.errors == []


def test_live_camera_frame_shows_overlay_and_verdict(browser, label_server: str) -> None:  # noqa: ANN001
    page = new_phone_page(browser, label_server + "/#table")
    live = page.locator(f"{SLOT} button.live")
    assert live.is_enabled()  # localhost is a secure context
    live.click()
    page.wait_for_selector("#live:not([hidden])")
    page.wait_for_function("document.querySelector('#live-video').videoWidth > 0", timeout=15000)
    with page.expect_response("**/api/photo/read") as answer:
        page.locator("#live-shoot").click()
    assert answer.value.status == 200
    reading = answer.value.json()
    assert reading["image"] == {"width": 640, "height": 480}  # the fake camera's frame, not the file
    page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length === 54", timeout=30000)
    assert page.locator("#live").is_hidden()  # the camera is closed after the shot
    assert page.locator(f"{SLOT} .slot-result .banner").count() >= 1
    assert page.errors == []


def test_plain_http_on_the_lan_explains_live_mode(browser, label_server: str) -> None:  # noqa: ANN001
    """Over plain HTTP on a LAN name getUserMedia is missing: one line says how to get it."""
    port = label_server.rsplit(":", 1)[1]
    page = new_phone_page(browser, f"http://rummikub.test:{port}/#table")
    assert page.evaluate("window.isSecureContext") is False
    assert page.locator(f"{SLOT} button.live").is_disabled()
    note = page.locator(f"{SLOT} .live-note").text_content()
    assert "--https" in note
    assert page.locator(f"{SLOT} input.file-camera").is_enabled()  # the camera button still works


def test_typed_flows_in_the_browser(browser, label_server: str) -> None:  # noqa: ANN001
    page = new_phone_page(browser, label_server + "/#turn")
    page.fill("#turn-before", "R1 R2 R3")
    page.fill("#turn-after", "R1 R2 R3 R4 | K10 K11 K12")
    page.click("#turn-check")
    page.wait_for_selector("#turn-result .banner")
    assert "Legal turn" in page.locator("#turn-result .banner").text_content()
    page.click(".tabs button[data-tab=match]")
    page.click("#match-new summary")
    page.fill("#match-players", "Ana\nBen")
    page.click("#match-create")
    page.wait_for_selector("#match-current table")
    page.click(".tabs button[data-tab=score]")
    page.fill("#score-players .player-rack:nth-child(2) .rack-input", "R5 J")
    page.select_option("#score-winner", "Ana")
    page.click("#score-save")
    page.wait_for_selector("#score-result .banner.ok")
    page.reload()  # a closed browser loses nothing: the match comes back from the server
    page.wait_for_selector("body[data-ready='1']")
    page.click(".tabs button[data-tab=match]")
    page.wait_for_selector("#match-current table")
    assert "+35" in page.locator("#match-current table").text_content()
    # The best move, with the fewest table tiles moved proven (the exact tie-break).
    page.click(".tabs button[data-tab=move]")
    page.fill("#move-table", "K1 K2 K3 K4 K5 K6 K7")
    page.fill("#move-rack", "B4 O4")
    page.check("#move-exact")
    page.click("#move-go")
    page.wait_for_selector("#move-result .steps")
    result = page.locator("#move-result").text_content()
    assert "B4 O4" in result and "No move laying as many tiles moves fewer table tiles." in result
    # A table whose sets are not valid as typed: the same tiles laid as valid sets, as pictures.
    page.click(".tabs button[data-tab=table]")
    page.fill("#table-text", "R1 R2 | R3 K5 B5 O5")
    page.click("#table-check")
    page.wait_for_selector("#table-result .rearranged")
    assert page.locator("#table-result .rearranged + ol.sets .tile").count() == 6
    assert page.errors == []


@pytest.mark.model
@pytest.mark.slow
def test_real_model_through_the_camera_button(playwright, tmp_path: Path, photo: Path) -> None:  # noqa: ANN001
    """``python app.py`` with the shipped model: a real photo gives an overlay and a verdict."""
    require_model()
    server = start_server(tmp_path)
    try:
        b = launch(playwright)
        page = new_phone_page(b, server.url + "/#table")
        with page.expect_response("**/api/photo/read", timeout=120000) as answer:
            page.locator(f"{SLOT} input.file-camera").set_input_files(str(photo))
        assert answer.value.status == 200
        page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length > 20", timeout=30000)
        assert page.locator(f"{SLOT} .slot-result .banner").count() >= 1
        assert page.locator(f"{SLOT} .photo-note").count() == 0
        # The same photo blown out by glare: the page says so, and still says so after a correction.
        from vision.evaluate.robust import overexposed_hard

        glared = tmp_path / "glared.jpg"
        cv2.imwrite(str(glared), overexposed_hard(cv2.imread(str(photo))))
        with page.expect_response("**/api/photo/read", timeout=120000):
            page.locator(f"{SLOT} input.file-camera").set_input_files(str(glared))
        page.wait_for_selector(f"{SLOT} .photo-note", timeout=30000)
        note = page.locator(f"{SLOT} .photo-note").text_content()
        assert "Glare" in note
        target = page.locator(f"{SLOT} svg g.tilebox").first
        index = target.get_attribute("data-index")
        wrong = "K13" if target.locator("text").text_content() != "K13" else "B13"
        target.click()
        with page.expect_response("**/api/photo/correct") as answer:
            page.locator(f"#picker-grid .pick[data-code='{wrong}']").click()
        assert answer.value.status == 200
        page.wait_for_function(
            f"document.querySelector(\"{SLOT} svg g.tilebox[data-index='{index}'] text\").textContent === '{wrong}'")
        assert page.locator(f"{SLOT} .photo-note").text_content() == note
        assert page.errors == []
        b.close()
    finally:
        stop_server(server)


@pytest.mark.slow
def test_https_gives_live_mode_on_a_lan_name(playwright, tmp_path: Path, video: Path) -> None:  # noqa: ANN001
    """``python app.py --https``: a self-signed certificate, and the page is a secure context on a
    name that is not localhost (as on a phone), so live camera mode is offered."""
    server = start_server(tmp_path, "--https", "--no-models", "--cert-dir", str(tmp_path / "cert"), scheme="https")
    try:
        port = server.url.rsplit(":", 1)[1]
        b = launch(playwright, video, extra_args=["--host-resolver-rules=MAP rummikub.test 127.0.0.1"])
        page = new_phone_page(b, f"https://rummikub.test:{port}/#table", ignore_https_errors=True)
        assert page.evaluate("window.isSecureContext") is True
        assert page.locator(f"{SLOT} button.live").is_enabled()
        assert page.locator(f"{SLOT} .live-note").is_hidden()
        b.close()
    finally:
        stop_server(server)
    assert (tmp_path / "cert" / "cert.pem").exists() and (ROOT / "app.py").exists()


def test_turn_timer_gives_the_rule_sets_penalty(browser, label_server: str) -> None:  # noqa: ANN001
    """A 5-second turn under the Spanish variant (004): time runs out mid-move, the table is
    restored and the player draws one tile, and the penalty is written on the match sheet."""
    page = new_phone_page(browser, label_server + "/#match")
    page.click("#match-new summary")
    page.fill("#match-players", "Ana\nBen")
    page.fill("#rule-seconds", "5")
    page.select_option("#rule-timeout", "return_to_pool")
    page.click("#match-create")
    page.wait_for_selector("#timer:not([hidden])")
    assert page.locator("#timer-time").text_content() == "0:05"
    assert page.locator("#timer-player").text_content() == "Ana"
    page.click("#timer-start")
    page.wait_for_selector("#timer-out:not([hidden])", timeout=10000)
    assert page.locator("#timer-time").text_content() == "0:00"
    with page.expect_response("**/penalties") as answer:
        page.click("[data-penalty=unfinished]")
    assert answer.value.status == 201
    page.wait_for_selector("#timer-penalty .banner")
    message = page.locator("#timer-penalty").text_content()
    assert message.startswith("Ana:") and "draw one tile" in message
    page.wait_for_selector("#match-current details summary")
    assert "(1)" in page.locator("#match-current details summary").text_content()
    page.click("#timer-next")
    assert page.locator("#timer-player").text_content() == "Ben"
    assert page.errors == []


def _english_on_screen(page) -> list[str]:  # noqa: ANN001
    """The page's English sentences (two words or more) that are visible right now."""
    from webapp.page_strings import PAGE_STRINGS

    text = page.locator("body").inner_text()
    return [s for s in PAGE_STRINGS.values() if len(s.split()) >= 2 and "{" not in s and s in text]


def test_language_from_the_browser_then_the_switch(browser, label_server: str, photo: Path) -> None:  # noqa: ANN001
    """Issue 8: a Japanese browser gets a Japanese page and Japanese verdicts; the switch in the
    header turns page, verdicts and the photo's reading Spanish without losing what is on screen,
    and the choice outlives a reload."""
    from referee import check_set, parse_tiles
    from referee.i18n import use_language

    page = new_phone_page(browser, label_server + "/#table", locale="ja-JP")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert page.locator("#screen-table h2").text_content() == "場をチェック"
    assert page.locator("#lang option:checked").text_content() == "日本語"
    assert page.locator("#lang option").all_text_contents() == ["English", "简体中文", "繁體中文", "日本語", "Español"]
    assert "K 黒" in page.locator("#screen-table .field span").first.text_content()  # colour words, letters kept
    assert _english_on_screen(page) == []
    page.fill("#table-text", "R1 R2 K3 | B5 B6 B7")
    with page.expect_response("**/api/table/check") as answer:
        page.click("#table-check")
    first = answer.value.json()["sets"][0]
    with use_language("ja"):
        japanese = check_set(parse_tiles("R1 R2 K3")).problem
    assert first["code"] == "mixed_colours_and_numbers" and first["problem"] == japanese
    page.wait_for_selector("#table-result .banner")
    assert japanese in page.locator("#table-result").text_content()
    page.locator(f"{SLOT} input.file-camera").set_input_files(str(photo))
    page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length === 54", timeout=30000)
    assert "組み合わせ" in page.locator(f"{SLOT} .slot-result .banner").first.text_content()
    page.fill("#table-text", page.input_value("#table-text") + " | K13")  # the player edits what was read
    typed = page.input_value("#table-text")

    page.select_option("#lang", "es")
    page.wait_for_selector("body[data-language='es']", timeout=30000)
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.locator("#screen-table h2").text_content() == "Comprobar la mesa"
    assert page.locator(".tabs button[data-tab=match]").text_content().endswith("Encuentro")
    # The screen's state stays: the field, the verdict (now Spanish), the photo and its reading.
    assert page.locator("#screen-table").is_visible() and page.input_value("#table-text") == typed
    with use_language("es"):
        spanish = check_set(parse_tiles("R1 R2 K3")).problem
    assert spanish in page.locator("#table-result").text_content()
    assert page.locator(f"{SLOT} svg g.tilebox").count() == 54
    assert "series son válidas" in page.locator(f"{SLOT} .slot-result .banner").first.text_content()
    assert page.input_value("#table-text") == typed  # reading the photo again did not overwrite the edit
    assert _english_on_screen(page) == []
    # A new verdict from the server comes in Spanish, with the same codes.
    page.fill("#table-text", "R1 R2 K3")
    with page.expect_response("**/api/table/check") as answer:
        page.click("#table-check")
    again = answer.value.json()["sets"][0]
    assert again["code"] == "mixed_colours_and_numbers" and again["problem"] == spanish
    assert answer.value.headers["content-language"] == "es"
    # The switch's cookie keeps the choice over the browser's Japanese.
    assert {c["name"]: c["value"] for c in page.context.cookies()}.get("lang") == "es"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.locator("#lang").input_value() == "es"
    assert page.errors == []


def test_switch_keeps_a_match_and_its_running_timer(browser, label_server: str) -> None:  # noqa: ANN001
    page = new_phone_page(browser, label_server + "/#match", locale="zh-TW")
    assert page.evaluate("document.documentElement.lang") == "zh-Hant"
    page.click("#match-new summary")
    assert page.get_attribute("#match-name", "placeholder") == "週五晚上"
    page.fill("#match-players", "Ana\nBen")
    page.fill("#rule-seconds", "30")
    page.click("#match-create")
    page.wait_for_selector("#timer:not([hidden])")
    page.click("#timer-start")
    page.wait_for_function("document.querySelector('#timer-time').textContent !== '0:30'", timeout=5000)
    assert page.locator("#timer-start").text_content() == "暫停"
    page.select_option("#lang", "en")
    page.wait_for_selector("body[data-language='en']", timeout=15000)
    assert page.locator("#timer-start").text_content() == "Pause"  # still running, in English
    assert page.locator("#timer-time").text_content() != "0:30"
    assert page.locator("#match-current .banner").text_content() == "Round 1, game 1: nothing played yet."
    assert page.locator("#timer-player").text_content() == "Ana"
    assert page.errors == []
