"""Real labelled photos as far shots: each photo in the middle of a cloth ``--factor`` times as wide.

    python -m datasets.far_shots valid data/real_far/valid [--factor 2]
    python -m vision.evaluate data/real_far/valid

The real photos are close-ups: their tiles fill a good part of the frame. A player who shoots the
whole table from a chair gets tiles a half or a third that size. This puts each photo of a real
split (labels as corrected in ``datasets/labels``) at its own resolution in the middle of a plain
cloth ``factor`` times its width and height, so that after the detector's downscale its tiles are
``factor`` times smaller: real tiles, real light and camera, at a far shot's scale. The output is a
labelled folder in the rendered layout (``images/*.jpg`` and ``tiles/*.json`` with each tile's code
and outline), which ``python -m vision.evaluate`` reads. For evaluation only: never train on it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

# Plain cloths, BGR: green baize, dark blue, grey, wood brown.
CLOTHS = ((60, 110, 40), (90, 50, 30), (120, 120, 120), (50, 90, 140))


def far_shot(photo: np.ndarray, boxes_xyxy: np.ndarray, factor: float, cloth: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The photo centred on a cloth ``factor`` times its size; the boxes moved with it."""
    h, w = photo.shape[:2]
    big_w, big_h = int(round(w * factor)), int(round(h * factor))
    x0, y0 = (big_w - w) // 2, (big_h - h) // 2
    canvas = np.empty((big_h, big_w, 3), np.uint8)
    canvas[:] = cloth
    canvas[y0:y0 + h, x0:x0 + w] = photo
    return canvas, np.asarray(boxes_xyxy, np.float32).reshape(-1, 4) + np.array([x0, y0, x0, y0], np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets.far_shots", description=__doc__.split("\n\n")[0])
    parser.add_argument("split", choices=("train", "valid", "test"), help="real split (datasets.real)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--factor", type=float, default=2.0, help="cloth size over photo size (2 = tiles half as big)")
    args = parser.parse_args(argv)
    if args.factor < 1:
        raise SystemExit("--factor must be at least 1")
    from datasets import real

    photos = real.load_split(args.split)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "tiles").mkdir(parents=True, exist_ok=True)
    for k, item in enumerate(tqdm(photos, desc=f"far shots of {args.split}", unit="photo")):
        photo = cv2.imread(str(item.image_path))
        boxes = np.array([t.box_xyxy for t in item.tiles], np.float32).reshape(-1, 4)
        image, moved = far_shot(photo, boxes, args.factor, CLOTHS[k % len(CLOTHS)])
        stem = Path(item.image_path).stem
        cv2.imwrite(str(args.out / "images" / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        tiles = [
            {"code": t.tile.code, "polygon": [[float(b[0]), float(b[1])], [float(b[2]), float(b[1])], [float(b[2]), float(b[3])], [float(b[0]), float(b[3])]]}
            for t, b in zip(item.tiles, moved)
        ]
        (args.out / "tiles" / f"{stem}.json").write_text(json.dumps({"source": str(item.image_path), "factor": args.factor, "tiles": tiles}))
    print(f"wrote {len(photos)} far shots to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
