"""Read a photo from the shell: ``python -m vision.read PHOTO [--json] [--overlay OUT.png] [--rack | --no-rack] [--dice]``.

With ``--json`` it prints one JSON object (the contract in docs/design.md); without, a readable
summary. Exit codes: 0 read (even when sets are illegal: that is the answer), 2 bad input
(missing, damaged or oversized photo), 3 models missing, 4 (``--dice`` only) the photo does not
show exactly nine dice (the reading is printed all the same).

``--lang`` (en, zh_Hans, zh_Hant, ja, es, or a tag such as zh-TW; default: the POSIX locale) sets
the language of the summary, the error lines and the sentences in the JSON (doubts, problems).

``--rack`` says the photo shows a player's rack (every tile standing on it is a rack tile; tiles
lying flat on the table beside it are the table's); ``--no-rack`` says
there is no rack in it (every tile lies on the table). Without either, tiles are taken as a rack
only where the photo shows one, and the summary says so and why.

``--dice`` reads a Rummikub Dice roll instead (``vision.dice``): the nine top faces with boxes and
confidences, the referee's best arrangement and score, and doubts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from referee.i18n import LANGUAGES, _, language_from_locale, language_from_tag, use_language


def text_summary(data: dict) -> str:
    """The plain-text summary ``python -m vision.read`` prints for a reading's JSON ``data``."""
    lines = []
    tiles = data.get("tiles", [])
    ms = f"{data.get('timing_ms', {}).get('total', 0):.0f}"
    lines.append(_("{count} tiles read in {ms} ms").format(count=len(tiles), ms=ms))
    for i, s in enumerate(data.get("sets", [])):
        points = s.get("points", 0)
        if s.get("valid"):
            verdict = (_("valid run, {points} points") if s.get("kind") == "run" else _("valid group, {points} points"))
            verdict = verdict.format(points=points)
        else:
            verdict = _("not valid: {problem}").format(problem=s.get("problem") or "")
        lines.append("  " + _("set {number}: {tiles}").format(number=i + 1, tiles=" ".join(s["tiles"])) + f"  ({verdict})")
    loose = data.get("loose") or []
    if loose:
        lines.append("  " + _("Loose: {tiles}").format(tiles=" ".join(tiles[i]["tile"] for i in loose)))
    rack = data.get("rack") or []
    if rack:
        cut = set(data.get("rack_cut") or [])
        rows = data.get("rack_rows") or [rack]
        rack_tiles = " | ".join(" ".join(tiles[i]["tile"] for i in row if i not in cut) for row in rows)
        lines.append("  " + _("rack: {tiles} ({points} points)").format(tiles=rack_tiles, points=data.get("rack_points", 0)))
        if cut:
            lines.append("  " + _("cut by the photo's edge, not counted: {tiles}").format(
                tiles=" ".join(tiles[i]["tile"] for i in rack if i in cut)))
        if data.get("rack_note"):
            lines.append("  " + data["rack_note"])
    if data.get("photo_note"):
        lines.append("  " + data["photo_note"])
    for d in data.get("doubts", []):
        lines.append("  " + _("doubt: {message}").format(message=d.get("message") or d))
    return "\n".join(lines)


def _error(message: object) -> None:
    print(_("error: {message}").format(message=message), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.read", description="Read the Rummikub tiles in a photo.")
    parser.add_argument("photo", help="photo of a table or a rack: JPEG, PNG, HEIC (an iPhone's) or WebP")
    parser.add_argument("--json", action="store_true", help="print one JSON object (see docs/design.md)")
    parser.add_argument("--overlay", metavar="OUT.png", help="also draw the reading on the photo into this file")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rack", action="store_true", help="the photo shows a player's rack")
    which.add_argument("--no-rack", action="store_true",
                       help="there is no rack in the photo (by default tiles are taken as a rack only where one is seen)")
    parser.add_argument("--profile", metavar="DIR", help="read with a profile taught on your tiles (python -m vision.teach)")
    parser.add_argument("--rules", default="classic", help="rule set: classic or xp (tile counts for decoding)")
    parser.add_argument("--dice", action="store_true", help="the photo shows a Rummikub Dice roll: read the nine top faces")
    parser.add_argument(
        "--lang", metavar="LANG", help=f"language of the sentences: {', '.join(LANGUAGES)} (default: the locale)"
    )
    args = parser.parse_args(argv)
    if args.lang is not None and language_from_tag(args.lang) is None:
        parser.error(f"unknown language {args.lang!r}: choose one of {', '.join(LANGUAGES)}")
    with use_language(args.lang or language_from_locale()):
        return _read(args)


def _read(args: argparse.Namespace) -> int:
    # Runs inside use_language(): summary, errors and the JSON's sentences share one language.

    from referee.ruleset import RuleSet, RuleSetError
    from vision.detect import ModelMissingError
    from vision.image import WORKING_SIDE, ImageError, decode_photo
    from vision.profile import ProfileError, check_reader, load_profile

    try:
        rules = RuleSet.preset(args.rules)
    except RuleSetError as exc:
        _error(exc)
        return 2
    path = Path(args.photo)
    try:
        data = path.read_bytes()
    except OSError as exc:
        _error(_("cannot read {path}: {error}").format(path=path, error=exc.strerror or exc))
        return 2
    t0 = time.perf_counter()
    try:
        # A large JPEG decodes straight at the size reading needs; the overlay and dice want it whole.
        photo = decode_photo(data, working_side=None if (args.overlay or args.dice) else WORKING_SIDE)
        image = photo.image
    except ImageError as exc:
        _error(f"{path}: {exc}")
        return 2
    decode_ms = (time.perf_counter() - t0) * 1000
    if args.dice:
        from vision.dice import run_cli

        return run_cli(image, decode_ms, args.json, args.overlay)
    try:
        from vision.pipeline import load_reader

        reader = load_reader()
    except ModelMissingError as exc:
        _error(exc)
        return 3
    try:
        if args.profile:
            profile = load_profile(args.profile)
            check_reader(profile, reader.model.cards.get("tile_reader", {}), str(args.profile))
            reader = reader.with_profile(profile)
        reading = reader.read_photo(photo, rules, mode="rack" if args.rack else ("flat" if args.no_rack else "table"))
    except ProfileError as exc:
        _error(exc)
        return 2
    reading.timing_ms["decode"] = round(decode_ms, 1)
    out = reading.to_dict()
    if args.overlay:
        import cv2

        from vision.overlay import draw_overlay

        if not cv2.imwrite(args.overlay, draw_overlay(image, reading)):
            _error(_("cannot write {path}").format(path=args.overlay))
            return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(text_summary(out))
        if args.overlay:
            print(_("overlay written to {path}").format(path=args.overlay))
    return 0


if __name__ == "__main__":
    from referee.cli import run_piped  # ``... | head`` ends quietly, without a BrokenPipeError

    raise SystemExit(run_piped(main))
