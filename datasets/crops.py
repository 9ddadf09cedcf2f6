"""The tile crop shared by reader training and inference (the same code serves both).

A crop is the axis-aligned square window centred on a tile's box, with side
``max(w, h) * MARGIN`` (1.15: a little table around the tile whatever its rotation), padded by
edge replication where it leaves the image and resized to ``size x size`` with INTER_AREA
(INTER_LINEAR when enlarging). Only an axis-aligned box is needed, so detector boxes and label
polygons (through their bounding box, :func:`crop_tile`) are cropped identically. The crop is not
turned upright: detector boxes carry no rotation, so the reader learns every rotation.

Exporting the crops of a labelled split folder (synthetic with ``tiles/*.json``, or a
rummikub-real-v1 split) for reader training::

    python -m datasets.crops data/synthetic/train --out data/crops/synthetic-train [--size 64] [--npz]
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

__all__ = ["MARGIN", "DEFAULT_MARGIN", "DEFAULT_SIZE", "crop_square", "crop_tile", "polygon_box",
           "iter_labelled_tiles", "export_crops"]

MARGIN = 1.15
"""Side of the square window relative to the longer side of the box: a little context around the
tile (its edges, the logo) without much of the neighbours."""
DEFAULT_MARGIN = MARGIN
DEFAULT_SIZE = 64


def crop_square(image_bgr: np.ndarray, box_xyxy: Sequence[float], size: int = DEFAULT_SIZE,
                margin: float = MARGIN) -> np.ndarray:
    """Square crop around ``box_xyxy`` (pixels, x1 y1 x2 y2), resized to ``size`` x ``size``.

    Detector boxes are taken as they come: a degenerate box gives a 1-pixel window and a box
    outside the image gives the replicated edge (inference must not fail on one odd box). Raises
    ``ValueError`` only for a non-finite box, a bad size or margin, or an array that is not an image.
    """
    if image_bgr.ndim not in (2, 3) or image_bgr.shape[0] == 0 or image_bgr.shape[1] == 0:
        raise ValueError(f"expected an image array of shape (H, W) or (H, W, C), got {image_bgr.shape}")
    if int(size) < 1:
        raise ValueError(f"crop size must be at least 1 pixel, got {size}")
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    if not np.all(np.isfinite([x1, y1, x2, y2])):
        raise ValueError(f"box {list(box_xyxy)} has a coordinate that is not a finite number")
    size = int(size)
    side = max(x2 - x1, y2 - y1, 1.0) * margin
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left = int(round(cx - side / 2))
    top = int(round(cy - side / 2))
    s = max(int(round(side)), 1)
    h, w = image_bgr.shape[:2]
    pad_l, pad_t = max(0, -left), max(0, -top)
    pad_r, pad_b = max(0, left + s - w), max(0, top + s - h)
    window = image_bgr[max(top, 0):min(top + s, h), max(left, 0):min(left + s, w)]
    if pad_l or pad_t or pad_r or pad_b:
        if window.size == 0:  # box entirely outside the image: the nearest edge pixel, replicated
            window = image_bgr[min(max(top, 0), h - 1):min(max(top, 0), h - 1) + 1,
                               min(max(left, 0), w - 1):min(max(left, 0), w - 1) + 1]
            pad_t, pad_b, pad_l, pad_r = 0, s - 1, 0, s - 1
        window = cv2.copyMakeBorder(window, pad_t, pad_b, pad_l, pad_r, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if window.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(window, (size, size), interpolation=interp)


def polygon_box(polygon_xy: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """Axis-aligned box (x1, y1, x2, y2) around a polygon's points."""
    pts = np.asarray(polygon_xy, np.float64).reshape(-1, 2)
    if len(pts) < 2:
        raise ValueError(f"a polygon needs at least 2 points, got {len(pts)}")
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def crop_tile(image_bgr: np.ndarray, polygon_xy: Sequence[Sequence[float]], size: int = DEFAULT_SIZE,
              margin: float = MARGIN) -> np.ndarray:
    """The reader crop of a labelled tile: :func:`crop_square` of the polygon's box (training side)."""
    return crop_square(image_bgr, polygon_box(polygon_xy), size, margin)


def iter_labelled_tiles(split_dir: Path) -> Iterator[tuple[Path, list[dict]]]:
    """(image path, tiles) for every image of a labelled split folder.

    Each tile is a dict with ``code``, ``polygon`` (pixels) and, when known, ``joker_colour``,
    ``edition`` and ``up_deg``. Synthetic folders are read from ``tiles/*.json``; other folders
    (rummikub-real-v1 splits) through :func:`datasets.real.load_split`.
    """
    split_dir = Path(split_dir)
    if (split_dir / "tiles").is_dir():
        for path in sorted((split_dir / "tiles").glob("*.json")):
            record = json.loads(path.read_text())
            yield split_dir / "images" / record["image"], record["tiles"]
        return
    from datasets import real

    if not (split_dir / "images").is_dir():
        raise FileNotFoundError(f"{split_dir} has no images/ folder: give a split folder such as data/synthetic/train")
    for photo in real.load_split(split_dir.name, split_dir.parent):
        tiles = [{"code": t.tile.code, "polygon": [list(p) for p in t.polygon_xy], "joker_colour": None,
                  "edition": "original", "up_deg": None} for t in photo.tiles]
        yield photo.image_path, tiles


def export_crops(split_dir: Path, out: Path, size: int = DEFAULT_SIZE, margin: float = MARGIN,
                 npz: bool = False) -> int:
    """Write the reader crops of every labelled tile in ``split_dir``; return how many.

    Folder mode: ``out/NNNNNN.png`` plus ``out/labels.csv`` (file, code, tile_index, joker_colour,
    edition, up_deg, source). ``npz`` mode: one ``out/crops.npz`` with ``images`` (N, S, S, 3)
    uint8, ``tile_index`` (N,) 0-52 (``Tile.index``), ``codes``, ``up_deg`` (NaN when unknown).
    """
    from referee.tiles import parse_tile

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[list[str]] = []
    images: list[np.ndarray] = []
    codes: list[str] = []
    ups: list[float] = []
    n = 0
    for image_path, tiles in iter_labelled_tiles(Path(split_dir)):
        if not tiles:
            continue
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"cannot read image {image_path}")
        for t in tiles:
            crop = crop_tile(image, t["polygon"], size, margin)
            up = t.get("up_deg")
            if npz:
                images.append(crop)
                codes.append(t["code"])
                ups.append(float("nan") if up is None else float(up))
            else:
                name = f"{n:06d}.png"
                cv2.imwrite(str(out / name), crop)
                rows.append([name, t["code"], str(parse_tile(t["code"]).index), t.get("joker_colour") or "",
                             t.get("edition") or "", "" if up is None else str(up), f"{image_path.name}"])
            n += 1
    if npz:
        np.savez_compressed(out / "crops.npz", images=np.stack(images) if images else np.zeros((0, size, size, 3), np.uint8),
                            tile_index=np.array([parse_tile(c).index for c in codes], np.int64),
                            codes=np.array(codes), up_deg=np.array(ups, np.float32))
    else:
        with open(out / "labels.csv", "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["file", "code", "tile_index", "joker_colour", "edition", "up_deg", "source"])
            writer.writerows(rows)
    return n


def main(argv: list[str] | None = None) -> int:
    """``python -m datasets.crops SPLIT_DIR --out DIR [--size 64] [--margin 1.15] [--npz]``."""
    p = argparse.ArgumentParser(prog="python -m datasets.crops", description="Export reader crops of a labelled split folder.")
    p.add_argument("split_dir", type=Path, help="a split folder: data/synthetic/train, .../rummikub-real-v1/valid")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--size", type=int, default=DEFAULT_SIZE, help=f"crop side in pixels (default {DEFAULT_SIZE})")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN, help=f"window side / box side (default {MARGIN})")
    p.add_argument("--npz", action="store_true", help="write one crops.npz instead of PNG files")
    args = p.parse_args(argv)
    try:
        n = export_crops(args.split_dir, args.out, args.size, args.margin, args.npz)
    except (FileNotFoundError, ValueError) as exc:
        p.error(str(exc))
    print(f"{n} crops written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
