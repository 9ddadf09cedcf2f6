"""Read a photo from the shell: ``python -m vision.read PHOTO [--json] [--overlay OUT.png] [--dice]``.

With ``--json`` it prints one JSON object (the contract in DESIGN.md); without, a readable
summary. Exit codes: 0 read (even when sets are illegal: that is the answer), 2 bad input
(missing, damaged or oversized photo), 3 models missing, 4 (``--dice`` only) the photo does not
show exactly nine dice (the reading is printed all the same).

``--dice`` reads a Rummikub Dice roll instead (``vision.dice``): the nine top faces with boxes and
confidences, the referee's best arrangement and score, and doubts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def _summary(data: dict) -> str:
    lines = []
    tiles = data.get("tiles", [])
    lines.append(f"{len(tiles)} tiles read in {data.get('timing_ms', {}).get('total', 0):.0f} ms")
    for i, s in enumerate(data.get("sets", [])):
        verdict = "valid " + str(s.get("kind")) if s.get("valid") else "INVALID"
        extra = "" if s.get("valid") else f" - {s.get('problem') or ''}"
        lines.append(f"  set {i + 1}: {' '.join(s['tiles'])}  ({verdict}, {s.get('points', 0)} points){extra}")
    loose = data.get("loose") or []
    if loose:
        lines.append("  loose: " + " ".join(tiles[i]["tile"] for i in loose))
    rack = data.get("rack") or []
    if rack:
        lines.append("  rack: " + " ".join(tiles[i]["tile"] for i in rack) + f"  ({data.get('rack_points', 0)} points)")
    for d in data.get("doubts", []):
        lines.append(f"  doubt: {d.get('message') or d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.read", description="Read the Rummikub tiles in a photo.")
    parser.add_argument("photo", help="JPEG or PNG photo of a table or a rack")
    parser.add_argument("--json", action="store_true", help="print one JSON object (see DESIGN.md)")
    parser.add_argument("--overlay", metavar="OUT.png", help="also draw the reading on the photo into this file")
    parser.add_argument("--rack", action="store_true", help="the photo shows a player's rack")
    parser.add_argument("--rules", default="classic", help="rule set: classic or xp (tile counts for decoding)")
    parser.add_argument("--dice", action="store_true", help="the photo shows a Rummikub Dice roll: read the nine top faces")
    args = parser.parse_args(argv)

    from referee.ruleset import RuleSet, RuleSetError
    from vision.detect import ModelMissingError
    from vision.image import ImageError, decode_image

    try:
        rules = RuleSet.preset(args.rules)
    except RuleSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = Path(args.photo)
    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        image = decode_image(data)
    except ImageError as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return 2
    decode_ms = (time.perf_counter() - t0) * 1000
    if args.dice:
        from vision.dice import run_cli

        return run_cli(image, decode_ms, args.json, args.overlay)
    try:
        from vision.pipeline import load_reader

        reader = load_reader()
    except ModelMissingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    reading = reader.read_table(image, rules, mode="rack" if args.rack else "table")
    reading.timing_ms["decode"] = round(decode_ms, 1)
    out = reading.to_dict()
    if args.overlay:
        import cv2

        from vision.overlay import draw_overlay

        if not cv2.imwrite(args.overlay, draw_overlay(image, reading)):
            print(f"error: cannot write {args.overlay}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(_summary(out))
        if args.overlay:
            print(f"overlay written to {args.overlay}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
