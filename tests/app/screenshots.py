"""Screenshots of the main screens for the README, on a phone-sized viewport (390 x 844).

    python -m tests.app.screenshots [--out docs/screenshots] [--reader model|labels]

``--reader model`` (the default when ``models/tile_detector.onnx`` exists) reads the photo with
the shipped models; ``labels`` uses the photo's ground-truth tiles through the real rule-aware
decoding (for a checkout without trained weights). Needs Debian's chromium and playwright.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import app as app_module
from tests.app.browser import launch, new_phone_page, serve, write_y4m
from tests.app.conftest import MODEL_FILE, ROOT, LabelReader, demo_photo, free_port
from webapp.runtime import Settings

SLOT = ".slot[data-slot=table]"


def _photo() -> Path:
    return demo_photo()


def _scroll_to(page: Any, selector: str, offset: int = 64) -> None:
    page.evaluate(
        "([sel, off]) => { const e = document.querySelector(sel); window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - off); }",
        [selector, offset],
    )
    page.wait_for_timeout(150)


def take(out: Path, reader: str) -> list[Path]:
    """Drive the page through every screen and save one PNG per screen into ``out``."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    photo = _photo()
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        settings = Settings(db_path=tmp_path / "shots.db", load_models=reader == "model")
        application = app_module.create_app(settings, reader=None if reader == "model" else LabelReader(photo))
        video = tmp_path / "table.y4m"
        write_y4m(photo, video)
        with serve(application, free_port()) as url, sync_playwright() as p:
            browser = launch(p, video)
            page = new_phone_page(browser, url + "/#table")

            def shot(name: str) -> None:
                path = out / f"{name}.png"
                page.screenshot(path=str(path))
                saved.append(path)

            # 1. The table: photo through the camera button, overlay, verdict.
            page.locator(f"{SLOT} input.file-camera").set_input_files(str(photo))
            page.wait_for_function(f"document.querySelectorAll('{SLOT} svg g.tilebox').length > 0", timeout=120000)
            _scroll_to(page, f"{SLOT} .viewer", 70)
            shot("table")
            _scroll_to(page, f"{SLOT} .slot-result", 70)
            shot("verdict")
            # 2. Correct a misread: the picker over the photo.
            _scroll_to(page, f"{SLOT} .viewer", 70)
            page.locator(f"{SLOT} svg g.tilebox").nth(5).click()
            page.wait_for_selector("#picker:not([hidden])")
            shot("correct")
            page.click("#picker-cancel")

            # 3. A match (needed by the score screen), with a few games.
            page.goto(url + "/#match")
            page.wait_for_selector("body[data-ready='1']")
            page.click("#match-new summary")
            page.fill("#match-name", "Friday night")
            page.fill("#match-players", "Ana\nBen\nChen\nDara")
            page.click("#match-create")
            page.wait_for_selector("#match-current table")
            games = [
                ({"Ana": "", "Ben": "K5", "Chen": "R7 B9", "Dara": "O3"}, "Ana"),
                ({"Ana": "R6", "Ben": "B11", "Chen": "", "Dara": "K5"}, "Chen"),
            ]
            for racks, winner in games:
                page.evaluate(
                    "([r, w]) => fetch(`/api/matches/${currentMatch.id}/games`, {method: 'POST', "
                    "headers: {'Content-Type': 'application/json'}, body: JSON.stringify({racks: r, winner: w})})",
                    [racks, winner],
                )

            # 4. Check a turn (typed after reading, as a player would after correcting).
            page.click(".tabs button[data-tab=turn]")
            page.fill("#turn-before", "R1 R2 R3 | K5 B5 O5")
            page.fill("#turn-after", "R1 R2 R3 R4 | K5 B5 O5 | K10 K11 K12")
            page.click("details summary")
            page.fill("#turn-rack", "R4 K10 K11 K12 B1 O7")
            page.click("#turn-check")
            page.wait_for_selector("#turn-result .banner")
            _scroll_to(page, "#turn-opened", 140)
            shot("turn")

            # 5. End of a game, scored into the match.
            page.click(".tabs button[data-tab=score]")
            for i, rack in enumerate(["", "K5 K6", "R7 B9 J", "O3 O4"]):
                page.fill(f"#score-players .player-rack:nth-child({i + 1}) .rack-input", rack)
            page.select_option("#score-winner", "Ana")
            page.click("#score-save")
            page.wait_for_selector("#score-result > *")
            if page.locator("#score-result .error").count():
                raise RuntimeError(page.locator("#score-result").text_content())
            _scroll_to(page, "#score-winner", 120)
            shot("score")

            # 6. Best move.
            page.click(".tabs button[data-tab=move]")
            page.fill("#move-table", "K1 K2 K3 K4 K5 K6 K7 | B9 B10 B11 | R1 R2 R3")
            page.fill("#move-rack", "B4 O4 B12 K9")
            page.click("#move-go")
            page.wait_for_selector("#move-result > *")
            if page.locator("#move-result .error").count():
                print("no move screenshot:", page.locator("#move-result").text_content(), file=sys.stderr)
            else:
                _scroll_to(page, "#move-go", 90)
                shot("move")

            # 7. Rummikub Dice, with a score sheet.
            page.click(".tabs button[data-tab=dice]")
            page.click("#dice-new summary")
            page.fill("#dice-players", "Ana\nBen\nChen")
            page.click("#dice-create")
            page.wait_for_selector("#dice-add")
            page.fill("#dice-faces", "R3 R4 R5 K5 B5 O5 J K9 B12")
            page.click("#dice-add")
            page.wait_for_selector("#dice-result .dice-score")
            _scroll_to(page, "#dice-faces", 110)
            shot("dice")

            # 8. The match sheet with the turn timer running.
            page.click(".tabs button[data-tab=match]")
            page.wait_for_selector("#match-current table")
            page.click("#timer-start")
            page.wait_for_timeout(2300)
            page.evaluate("window.scrollTo(0, 0)")
            shot("match")
            errors = list(page.errors)
            browser.close()
    if errors:
        raise RuntimeError(f"the page reported errors: {errors}")
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.app.screenshots", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--reader", choices=["model", "labels"], default="model" if MODEL_FILE.exists() else "labels")
    args = parser.parse_args(argv)
    for path in take(args.out, args.reader):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
