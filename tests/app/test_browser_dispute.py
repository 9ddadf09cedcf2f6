"""Issue 15 end to end in headless Chromium at phone size: dispute checks you can trust.

One test per point of the issue: the page's photo turn check agrees with ``/api/turn/check-photos``;
loose tiles reach the notation; doubts are numbered, ranked, bounded and survive a correction;
the illegal opening is said as rack / table / why; a phone joins with the QR code, and a phone
without it changes nothing; no camera, dice and dense labels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np
import pytest

import app as app_module
from tests.app.browser import NEEDS_CHROMIUM, launch, new_phone_page, serve
from tests.app.conftest import LabelReader, demo_photo, free_port, read_qr, turn_photos
from webapp.access import JoinCodes
from webapp.runtime import Settings

pytestmark = [
    pytest.mark.browser,
    NEEDS_CHROMIUM,
]

TABLE = ".slot[data-slot=table]"


@pytest.fixture(scope="module")
def turn(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """Two real photos of one turn (a set laid; R11 R12 loose in both) and a server that knows them."""
    folder = tmp_path_factory.mktemp("turn")
    before, after, reader = turn_photos(folder)
    application = app_module.create_app(Settings(db_path=folder / "t.db", load_models=False), reader=reader)
    with serve(application, free_port()) as url:
        yield url, before, after


def _read(page, slot: str, photo: Path) -> None:  # noqa: ANN001
    with page.expect_response("**/api/photo/read") as answer:
        page.locator(f"{slot} input.file-camera").set_input_files(str(photo))
    assert answer.value.status == 200
    page.wait_for_function(f"document.querySelectorAll('{slot} svg g.tilebox').length > 0")


def test_photo_turn_check_agrees_with_the_api(browser, turn) -> None:  # noqa: ANN001
    """The page checks a turn from the notation the photos filled in; /api/turn/check-photos
    reads the same photos itself. Same verdict, word for word, loose tiles included."""
    url, before, after = turn
    page = new_phone_page(browser, url + "/#turn")
    _read(page, ".slot[data-slot=before]", before)
    _read(page, ".slot[data-slot=after]", after)
    assert page.input_value("#turn-before-loose") == "R11 R12"
    assert page.input_value("#turn-after-loose") == "R11 R12"
    with page.expect_response("**/api/turn/check") as answer:
        page.click("#turn-check")
    on_page = answer.value.json()
    with before.open("rb") as b, after.open("rb") as a:
        api = httpx.post(url + "/api/turn/check-photos", files={"before": b, "after": a}, data={"opened": "true"},
                         timeout=60).json()["verdict"]
    for key in ("ok", "summary", "laid", "missing", "left_out", "opening_points"):
        assert on_page[key] == api[key], key
    assert api["laid"] == ["B6", "B7", "B8"] and api["left_out"] == ["R11", "R12"]
    assert "left the table" not in on_page["summary"]
    page.wait_for_selector("#turn-result .banner")
    assert page.locator("#turn-result .banner").text_content().endswith(api["summary"])
    assert page.errors == []


def test_loose_tiles_reach_the_notation_and_the_typed_check(browser, turn) -> None:  # noqa: ANN001
    url, _before, after = turn
    page = new_phone_page(browser, url + "/#table")
    _read(page, TABLE, after)
    assert page.input_value("#table-loose") == "R11 R12"
    photo_banner = page.locator(f"{TABLE} .slot-result .banner").first.text_content()
    with page.expect_response("**/api/table/check") as answer:
        page.click("#table-check")
    typed = answer.value.json()
    assert typed["loose"] == ["R11", "R12"]
    page.wait_for_selector("#table-result .banner")
    assert page.locator("#table-result .banner").text_content() == photo_banner  # one verdict, both ways
    assert page.errors == []


# -- doubts ------------------------------------------------------------------------------------


class DoubtfulReader(LabelReader):
    """The demo photo's true tiles, but every third tile read 60 % as itself and 40 % as the next
    number of its colour (a 6 taken for an 8 and the like): the reader's doubts, through the real
    rule-aware decoding."""

    def read_table(self, image_bgr: np.ndarray, rules: Any = None, mode: str = "table") -> Any:
        from referee.ruleset import RuleSet
        from referee.tiles import parse_tile
        from tests.app.corpus import photo_labels
        from vision.decode import build_reading
        from vision.detections import N_CODES, TileDetections

        boxes, codes = photo_labels(self.photo)
        h, w = image_bgr.shape[:2]
        width, height = cv2.imread(str(self.photo)).shape[1::-1]
        boxes = boxes * np.array([w / width, h / height, w / width, h / height], dtype=np.float32)
        probs = np.zeros((len(codes), N_CODES), dtype=np.float32)
        for i, code in enumerate(codes):
            tile = parse_tile(code)
            probs[i, tile.index] = 1.0
            if i % 3 == 0 and not tile.is_joker:
                other = parse_tile(f"{code[0]}{tile.number % 13 + 1}")
                probs[i, tile.index], probs[i, other.index] = 0.6, 0.4
        det = TileDetections(boxes, np.ones(len(codes), dtype=np.float32), probs)
        return build_reading((w, h), det, rules or RuleSet.classic(), mode)


@pytest.fixture(scope="module")
def doubt_server(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    photo = demo_photo()
    db = tmp_path_factory.mktemp("db") / "d.db"
    application = app_module.create_app(Settings(db_path=db, load_models=False), reader=DoubtfulReader(photo))
    with serve(application, free_port()) as url:
        yield url, photo


def _doubt_state(page) -> dict[str, Any]:  # noqa: ANN001
    return page.evaluate(f"""() => ({{
        badges: [...document.querySelectorAll('{TABLE} svg g.doubt-no')].map((g) => Number(g.dataset.number)),
        outlined: document.querySelectorAll('{TABLE} svg g.tilebox.doubtful').length,
        items: [...document.querySelectorAll('{TABLE} .doubts li')].map((li) => li.textContent),
        heading: document.querySelector('{TABLE} .doubts strong').textContent,
    }})""")


def test_doubts_numbered_ranked_bounded_and_kept_after_a_correction(browser, doubt_server) -> None:  # noqa: ANN001
    url, photo = doubt_server
    page = new_phone_page(browser, url + "/#table")
    with page.expect_response("**/api/photo/read") as answer:
        page.locator(f"{TABLE} input.file-camera").set_input_files(str(photo))
    doubts = answer.value.json()["doubts"]
    assert len(doubts) > 5
    page.wait_for_selector(f"{TABLE} .doubts li")
    state = _doubt_state(page)
    # Every doubt numbered on the photo with its sentence's "Tile N"; its tile outlined.
    assert sorted(state["badges"]) == sorted(d["number"] for d in doubts)
    assert state["outlined"] == len(doubts)
    # A bounded list, those that change a verdict first, then "show all".
    assert len(state["items"]) == 5 and state["heading"] == f"Doubts ({len(doubts)})"
    changes = [d for d in doubts if d["changes_verdict"]]
    assert changes and doubts[: len(changes)] == changes
    first = page.locator(f"{TABLE} .doubts li").first
    assert "changes the verdict" in first.text_content()
    assert f"Tile {doubts[0]['number']} " in first.text_content() and first.text_content().startswith(str(doubts[0]["number"]))
    # The bullet sits on the first line of a long sentence (the button is a block, not an inline block).
    button = first.locator("button.link")
    assert button.evaluate("b => getComputedStyle(b).display") == "block"
    li_top = first.evaluate("li => li.getBoundingClientRect().top")
    assert abs(button.evaluate("b => b.getBoundingClientRect().top") - li_top) < 2
    page.click(f"{TABLE} .more-doubts")
    assert page.locator(f"{TABLE} .doubts li").count() == len(doubts)
    # Correct the first doubt's tile from the list: the picker leaves the tile in sight.
    first.locator("button.link").click()
    assert page.locator("#picker").is_visible()
    tile_box = page.locator(f"{TABLE} svg g.tilebox[data-index='{doubts[0]['index']}'] rect").first.bounding_box()
    sheet_top = page.locator("#picker .sheet-body").bounding_box()["y"]
    header_bottom = page.locator("header.top").bounding_box()
    assert tile_box["y"] + tile_box["height"] <= sheet_top
    assert tile_box["y"] >= header_bottom["y"] + header_bottom["height"]
    assert page.locator("#picker-current canvas.picker-preview").count() == 1  # the tile, enlarged
    with page.expect_response("**/api/photo/correct") as corrected:
        page.locator(f"#picker-grid .pick[data-code='{doubts[0]['tile']}']").click()
    assert corrected.value.status == 200 and corrected.value.json()["doubts"] == []  # the server has none now
    page.wait_for_function(f"document.querySelectorAll('{TABLE} svg g.doubt-no').length === {len(doubts) - 1}")
    state = _doubt_state(page)
    assert doubts[0]["number"] not in state["badges"]
    assert sorted(state["badges"]) == sorted(d["number"] for d in doubts[1:])  # the others stay, numbers kept
    assert state["outlined"] == len(doubts) - 1
    assert state["heading"] == f"Doubts ({len(doubts) - 1})"
    assert page.errors == []


def test_labels_on_a_dense_photo_do_not_overlap(browser, doubt_server) -> None:  # noqa: ANN001
    url, photo = doubt_server
    page = new_phone_page(browser, url + "/#table")
    page.locator(f"{TABLE} input.file-camera").set_input_files(str(photo))
    page.wait_for_function(f"document.querySelectorAll('{TABLE} svg g.tilebox').length === 54", timeout=30000)
    overlaps = page.evaluate(f"""() => {{
        const r = [...document.querySelectorAll('{TABLE} svg .label-bg')].map((n) => n.getBoundingClientRect());
        const badges = [...document.querySelectorAll('{TABLE} svg g.doubt-no circle')].map((n) => n.getBoundingClientRect());
        const hit = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
            && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
        let bad = 0;
        for (let i = 0; i < r.length; i++) {{
            for (let j = i + 1; j < r.length; j++) if (hit(r[i], r[j])) bad++;
            for (const b of badges) if (hit(r[i], b)) bad++;  // nor under a doubt's number
        }}
        return {{ bad, badges: badges.length, height: Math.min(...r.map((x) => x.height)) }};
    }}""")
    assert overlaps["bad"] == 0 and overlaps["badges"] > 5
    assert overlaps["height"] >= 10  # readable on the phone: at least 10 CSS pixels tall


# -- wording of an illegal opening --------------------------------------------------------------


def test_an_illegal_opening_says_rack_table_and_why(browser, turn) -> None:  # noqa: ANN001
    url, _before, _after = turn
    page = new_phone_page(browser, url + "/#turn")
    page.fill("#turn-before", "K10 K11 K12 K13")
    page.fill("#turn-after", "K11 K12 K13 | K10 B10 O10")
    page.uncheck("#turn-opened")
    page.click("#turn-check")
    page.wait_for_selector("#turn-result .banner")
    text = page.locator("#turn-result").text_content()
    assert "From the rack came B10 O10 (20 points)." in text
    assert "Taken from the table (set 1 before the turn): K10." in text
    assert "only tiles from the player's own rack count" in text
    assert "Initial meld: 20 points from the rack" in text
    assert "sets 1 were changed" not in text and "50 points" not in text
    assert page.errors == []


# -- a phone on the same network ----------------------------------------------------------------


def test_qr_code_on_the_computer_and_a_phone_without_the_code_changes_nothing(browser, tmp_path: Path) -> None:  # noqa: ANN001
    from webapp.certs import lan_addresses

    lan = lan_addresses()
    if not lan:
        pytest.skip("this machine has no network address besides loopback")
    port = free_port()
    codes = JoinCodes.new()
    settings = Settings(db_path=tmp_path / "lan.db", load_models=False, join=codes,
                        share_urls=(f"http://{lan[0]}:{port}/",))
    with serve(app_module.create_app(settings), port, host="0.0.0.0") as url:
        computer = new_phone_page(browser, url + "/#match")  # 127.0.0.1: the computer running the server
        page_qr = computer.locator("#share .share-qr svg")
        assert page_qr.is_visible()
        shot = cv2.imdecode(np.frombuffer(computer.locator("#share .share-qr").screenshot(), np.uint8), cv2.IMREAD_COLOR)
        decoded = read_qr(shot)
        assert decoded == f"http://{lan[0]}:{port}/?join={codes.token}"  # one scan: address and code
        assert codes.short_display in computer.locator("#share").text_content()
        computer.click("#match-new summary")
        computer.fill("#match-players", "Ana\nBen")
        computer.click("#match-create")
        computer.wait_for_selector("#match-current table")
        match_id = computer.evaluate("currentMatch.id")

        phone = new_phone_page(browser, f"http://{lan[0]}:{port}/#match")  # from the LAN address
        assert phone.locator("#join").is_visible() and phone.locator("#share").is_hidden()
        phone.wait_for_selector("#match-list .error")
        assert "joined" in phone.locator("#match-list .error").text_content()
        refused = phone.evaluate(f"""async () => {{
            const r = await fetch('/api/matches/{match_id}', {{ method: 'DELETE' }});
            const g = await fetch('/api/matches/{match_id}/games', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json' }},
                body: JSON.stringify({{ racks: {{ Ana: '', Ben: 'R5' }}, winner: 'Ana', expected_number: 1 }}) }});
            return [r.status, g.status, (await r.json()).detail];
        }}""")
        assert refused[:2] == [403, 403] and "Nothing was changed" in refused[2]
        match = httpx.get(f"{url}/api/matches/{match_id}", timeout=10).json()
        assert match["games"] == [] and match["players"] == ["Ana", "Ben"]  # still there, unchanged

        # The short code typed on the phone: it joins, and now it may write.
        phone.fill("#join-code", codes.short_display.lower())
        with phone.expect_navigation():
            phone.click("#join-go")
        phone.wait_for_selector("body[data-ready='1']")
        assert phone.locator("#join").is_hidden()
        phone.wait_for_selector("#match-list li")
        assert "Ana" in phone.locator("#match-list").text_content()

        # A second phone scans the QR code: straight in.
        scanner = new_phone_page(browser, decoded)
        assert scanner.url == f"http://{lan[0]}:{port}/" and scanner.locator("#join").is_hidden()
        assert scanner.evaluate("fetch('/api/matches').then((r) => r.status)") == 200
        assert computer.errors == [] and scanner.errors == []


# -- small things ---------------------------------------------------------------------------------


def test_no_camera_is_said_in_the_page(browser, turn) -> None:  # noqa: ANN001
    url, _before, _after = turn
    page = new_phone_page(browser, url + "/#table")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.locator(f"{TABLE} button.live").click()
    note = page.locator(f"{TABLE} .live-note")
    note.wait_for(state="visible")
    assert dialogs == []
    assert "No camera was found" in note.text_content() and "camera button" in note.text_content()
    assert page.locator("#live").is_hidden()


class NineDice:
    """A stand-in for the dice models: nine faces in a 3 x 3 grid, die 4 read with doubt."""

    FACES = "R1 R2 R3 K5 B5 O5 J K9 B12".split()

    def read_dice(self, image_bgr: np.ndarray) -> Any:
        from referee.tiles import parse_tile
        from vision.dice import DiceReading, DieFace

        h, w = image_bgr.shape[:2]
        side = min(w, h) / 4
        faces = [DieFace(parse_tile(c), (side * (i % 3) + 20, side * (i // 3) + 20, side * (i % 3 + 1), side * (i // 3 + 1)),
                         0.55 if i == 3 else 0.99, 0.9, (("K6", 0.4),) if i == 3 else ()) for i, c in enumerate(self.FACES)]
        doubts = [{"code": "low_confidence", "dice": [3], "message": "Die 4 reads K5, but it could be K6: check it."}]
        return DiceReading((w, h), faces, doubts=doubts)


def test_dice_doubt_marked_tapped_and_not_used_said_once(playwright, tmp_path: Path, turn) -> None:  # noqa: ANN001
    _url, before, _after = turn
    application = app_module.create_app(Settings(db_path=tmp_path / "dice.db", load_models=False),
                                        reader=LabelReader(before), dice_reader=NineDice())
    b = launch(playwright)
    with serve(application, free_port()) as url:
        page = new_phone_page(b, url + "/#dice")
        slot = ".slot[data-slot=dice]"
        page.locator(f"{slot} input.file-camera").set_input_files(str(before))
        page.wait_for_selector("#dice-result .dice-score")
        assert page.input_value("#dice-faces") == " ".join(NineDice.FACES)
        result = page.locator("#dice-result").text_content()
        assert result.count("Not used") == 1  # the dice as tiles, not the sentence again
        assert page.locator("#dice-result .tile[title='K9']").count() == 1
        assert page.locator(f"{slot} svg g.doubt-no[data-number='4']").count() == 1  # the die the doubt names
        assert "tilebox" in page.locator(f"{slot} svg g.tilebox[data-index='3']").get_attribute("class")
        assert "doubtful" in page.locator(f"{slot} svg g.tilebox[data-index='3']").get_attribute("class")
        # Tap the die, pick the face it really shows: the faces and the best arrangement follow.
        page.locator(f"{slot} svg g.tilebox[data-index='3']").click()
        assert page.locator("#picker").is_visible() and page.locator("#picker-remove").is_hidden()
        with page.expect_response("**/api/dice/best") as answer:
            page.locator("#picker-grid .pick[data-code='K6']").click()
        assert answer.value.status == 200
        assert page.input_value("#dice-faces") == "R1 R2 R3 K6 B5 O5 J K9 B12"
        page.wait_for_selector("#dice-result .tile[title='K6']")
        assert page.locator(f"{slot} svg g.doubt-no").count() == 0  # settled
        assert page.errors == []
    b.close()
