"""Measure the dice reader on rendered scenes: ``python -m vision.evaluate.dice [--data data/dice/test]``.

Figures (held-out synthetic test split by default, see datasets/cards/dice.md for how it differs
from training):

* detection precision / recall of top faces (IoU >= 0.5 with the top face's box), and how many
  boxes landed on a visible SIDE face and were reported (a side face must never be scored);
* per-die read accuracy: labelled dice found AND read right / labelled dice (a missed die counts
  as wrong);
* all-nine-correct: photos of nine dice where exactly nine were reported, all right;
* count check: photos with fewer than nine dice that got the "not nine dice" message;
* time per photo, warm (models loaded, one warm-up photo), from the decoded image to the
  arrangement; median and 90th percentile.

``--write-cards`` writes the figures into models/dice_detector.json, models/dice_reader.json and
the block between the eval markers of datasets/cards/dice.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.boxes import iou_matrix, match_boxes, polygon_box

ROOT = Path(__file__).resolve().parents[2]
CARD = ROOT / "datasets" / "cards" / "dice.md"
MARK_START = "<!-- eval:start -->"
MARK_END = "<!-- eval:end -->"

__all__ = ["evaluate_dice", "evaluate_reader", "main"]


def evaluate_dice(folder: Path, model: Any, limit: int | None = None, progress: bool = True) -> dict[str, Any]:
    """Run ``model.read_dice`` on every labelled photo of ``folder`` (images/ + dice/*.json)."""
    from tqdm import tqdm

    labels = sorted((folder / "dice").glob("*.json"))
    if limit is not None:
        labels = labels[:limit]
    if not labels:
        raise SystemExit(f"no labelled dice photos in {folder / 'dice'}: render them with python -m datasets.synth_dice")
    warm = cv2.imread(str(folder / "images" / json.loads(labels[0].read_text())["image"]))
    model.read_dice(warm)  # warm-up: first runs allocate
    tp = fp = fn = side_as_top = 0
    dice_total = dice_right = 0
    nine_photos = nine_right = 0
    few_photos = few_flagged = 0
    times: list[float] = []
    confusions: Counter[tuple[str, str]] = Counter()
    by_group: dict[str, list[int]] = {}
    failures: list[dict[str, Any]] = []
    for label in tqdm(labels, desc="dice eval", disable=not progress, mininterval=5):
        data = json.loads(label.read_text())
        image = cv2.imread(str(folder / "images" / data["image"]))
        t0 = time.perf_counter()
        reading = model.read_dice(image)
        times.append((time.perf_counter() - t0) * 1000)
        truth = [d["code"] for d in data["dice"]]
        t_boxes = np.array([polygon_box(d["polygon"]) for d in data["dice"]], np.float32).reshape(-1, 4)
        f_boxes = np.array([f.box_xyxy for f in reading.faces], np.float32).reshape(-1, 4)
        pairs = [(t, f) for f, t in match_boxes(f_boxes, t_boxes)]
        matched_f = {f for _, f in pairs}
        tp += len(pairs)
        fn += len(truth) - len(pairs)
        unmatched = [i for i in range(len(f_boxes)) if i not in matched_f]
        fp += len(unmatched)
        if unmatched and data.get("side_faces"):
            s_boxes = np.array([polygon_box(s["polygon"]) for s in data["side_faces"]], np.float32)
            iou = iou_matrix(f_boxes[unmatched], s_boxes)
            side_as_top += int((iou.max(axis=1) >= 0.5).sum())
        right = 0
        for t, f in pairs:
            got = reading.faces[f].code
            if got == truth[t]:
                right += 1
            else:
                confusions[(truth[t], got)] += 1
        for t in set(range(len(truth))) - {t for t, _ in pairs}:
            confusions[(truth[t], "missed")] += 1
        dice_total += len(truth)
        dice_right += right
        group = f"{data.get('scene', '?')}/{data.get('background', '?')}"
        g = by_group.setdefault(group, [0, 0, 0])
        g[0] += len(truth)
        g[1] += right
        g[2] += len(unmatched)
        if len(truth) == 9:
            nine_photos += 1
            ok = reading.ok and right == 9 and not unmatched
            nine_right += int(ok)
            if not ok:
                failures.append({"image": data["image"], "truth": truth,
                                 "read": [f.code for f in reading.faces], "message": reading.message})
        else:
            few_photos += 1
            few_flagged += int(reading.message is not None and len(reading.faces) == len(truth))
    t = np.array(times)
    return {
        "data": str(folder), "photos": len(labels), "dice": dice_total, "date": date.today().isoformat(),
        "detection": {"precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1), "tp": tp, "fp": fp, "fn": fn,
                      "side_face_reported": side_as_top},
        "per_die_read_accuracy": dice_right / max(dice_total, 1),
        "all_nine_correct": nine_right / max(nine_photos, 1), "nine_dice_photos": nine_photos,
        "fewer_than_nine_flagged": few_flagged / max(few_photos, 1) if few_photos else None,
        "fewer_than_nine_photos": few_photos,
        "ms_per_photo": {"median": float(np.median(t)), "p90": float(np.percentile(t, 90)), "max": float(t.max())},
        "by_scene_background": {k: {"dice": v[0], "read_accuracy": v[1] / max(v[0], 1), "false_boxes": v[2]}
                                for k, v in sorted(by_group.items())},
        "confusions": [{"truth": a, "read": b, "count": n} for (a, b), n in confusions.most_common(15)],
        "failed_photos": failures[:20],
        "image_size": f"{warm.shape[1]}x{warm.shape[0]} and similar (about 1 MP rendered photos)",
    }


def evaluate_reader(folder: Path, reader_path: Path, limit: int | None = None) -> dict[str, Any]:
    """The reader alone on the TRUE top-face boxes (no detector): is it the reader or the detector?

    Works with any reader file of the ReaderNet family, e.g. the shared tile reader, to decide
    whether dice need a reader of their own. Accuracy is given face by face (argmax) and after
    the joint decoding with the dice rules (:func:`vision.dice.decode_faces`).
    """
    from vision.crops import crop_square
    from referee.tiles import Tile
    from vision.detect import combine, onnx_session
    from vision.dice import decode_faces

    session = onnx_session(reader_path, None)
    size = int(session.get_inputs()[0].shape[3])
    labels = sorted((folder / "dice").glob("*.json"))[:limit]
    n = right = right_decoded = called_none = 0
    for label in labels:
        data = json.loads(label.read_text())
        if not data["dice"]:
            continue
        image = cv2.imread(str(folder / "images" / data["image"]))
        boxes = [polygon_box(d["polygon"]) for d in data["dice"]]
        crops = np.stack([crop_square(image, tuple(b), size) for b in boxes])
        number, colour, _up = session.run(None, {session.get_inputs()[0].name: crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0})
        probs = combine(number, colour)
        truth = np.array([Tile.parse(d["code"]).index for d in data["dice"]])
        n += len(truth)
        right += int((probs.argmax(axis=1) == truth).sum())
        right_decoded += int((decode_faces(probs) == truth).sum())
        called_none += int((number[:, 14] > 0.5).sum())
    return {"reader": str(reader_path), "data": str(folder), "dice": n, "read_accuracy": right / max(n, 1),
            "read_accuracy_decoded": right_decoded / max(n, 1), "called_not_a_top_face": called_none / max(n, 1)}


def _shown(path: str) -> str:
    """A data path as the card shows it: relative to the repository when inside it."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path


def _card_block(r: dict[str, Any], reader: str) -> str:
    d = r["detection"]
    ms = r["ms_per_photo"]
    few = r["fewer_than_nine_flagged"]
    lines = [
        MARK_START,
        f"Measured {r['date']} with `python -m vision.evaluate.dice --data {_shown(r['data'])}` "
        f"(reader: `{reader}`), {r['photos']} photos, {r['dice']} dice:",
        "",
        "| figure | value |",
        "|---|---|",
        f"| per-die read accuracy (missed dice count as wrong) | {r['per_die_read_accuracy']:.4f} |",
        f"| all nine correct ({r['nine_dice_photos']} photos of nine dice) | {r['all_nine_correct']:.4f} |",
        f"| detection precision / recall (IoU >= 0.5) | {d['precision']:.4f} / {d['recall']:.4f} |",
        f"| side faces reported as dice | {d['side_face_reported']} |",
        f"| photos with fewer dice given the count message | "
        + (f"{few:.4f} of {r['fewer_than_nine_photos']}" if few is not None else "none in this split") + " |",
        f"| time per photo, warm, 2-core CPU (median / p90) | {ms['median']:.0f} ms / {ms['p90']:.0f} ms |",
        "",
        "Read accuracy by scene and background: "
        + ", ".join(f"{k} {v['read_accuracy']:.3f} ({v['dice']} dice, {v['false_boxes']} false boxes)"
                    for k, v in r["by_scene_background"].items()) + ".",
    ]
    if r["confusions"]:
        lines += ["", "Most frequent errors (truth -> read): "
                  + ", ".join(f"{c['truth']}->{c['read']} x{c['count']}" for c in r["confusions"][:10]) + "."]
    lines.append(MARK_END)
    return "\n".join(lines)


def write_cards(result: dict[str, Any], models_dir: Path, reader: str) -> None:
    """Put the figures into the model cards and the data set card."""
    summary = {k: result[k] for k in ("data", "photos", "dice", "date", "detection", "per_die_read_accuracy",
                                       "all_nine_correct", "fewer_than_nine_flagged", "ms_per_photo", "by_scene_background")}
    summary["data"] = _shown(summary["data"])
    summary["reader"] = reader
    for name in ("dice_detector", Path(reader).stem):
        card_path = models_dir / f"{name}.json"
        card = json.loads(card_path.read_text()) if card_path.exists() else {"model": name}
        card["test"] = summary
        card_path.write_text(json.dumps(card, indent=2) + "\n")
    if CARD.exists():
        text = CARD.read_text()
        block = _card_block(result, reader)
        if MARK_START in text and MARK_END in text:
            text = re.sub(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), lambda _m: block, text, flags=re.S)
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        CARD.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.dice", description="Measure the dice reader on rendered scenes.")
    parser.add_argument("--data", default=str(ROOT / "data" / "dice" / "test"), help="a split folder of datasets.synth_dice")
    parser.add_argument("--models", default=str(ROOT / "models"), help="folder with dice_detector.onnx and the reader")
    parser.add_argument("--reader", default="dice_reader.onnx", help="reader file in --models (tile_reader.onnx to try the tile reader)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N photos")
    parser.add_argument("--min-score", type=float, default=None, help="override the detector threshold (tune on val, not test)")
    parser.add_argument("--max-none", type=float, default=None, help="override the reader's not-a-top-face threshold")
    parser.add_argument("--out", default=None, help="also write the full result as JSON here")
    parser.add_argument("--write-cards", action="store_true", help="write the figures into the model cards and datasets/cards/dice.md")
    parser.add_argument("--true-boxes", action="store_true", help="measure the reader alone on the labelled top-face boxes")
    args = parser.parse_args(argv)
    if args.true_boxes:
        print(json.dumps(evaluate_reader(Path(args.data), Path(args.models) / args.reader, args.limit), indent=2))
        return 0

    from dataclasses import replace

    from vision.detect import ModelMissingError
    from vision.dice import DiceModel, DiceSettings

    settings = DiceSettings()
    if args.min_score is not None:
        settings = replace(settings, detector=replace(settings.detector, min_score=args.min_score))
    if args.max_none is not None:
        settings = replace(settings, detector=replace(settings.detector, max_none=args.max_none))
    try:
        model = DiceModel(args.models, settings=settings, reader_file=args.reader)
    except ModelMissingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    result = evaluate_dice(Path(args.data), model, args.limit)
    shown = {k: v for k, v in result.items() if k not in ("failed_photos", "by_scene_background")}
    print(json.dumps(shown, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    if args.write_cards:
        write_cards(result, Path(args.models), args.reader)
        print(f"figures written to {args.models}/dice_detector.json, the reader's card and {CARD}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
