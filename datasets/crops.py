"""Export the reader crops of a labelled split folder (synthetic with ``tiles/*.json``, or a
rummikub-real-v1 split) for reader training::

    python -m datasets.crops data/synthetic/train --out data/crops/synthetic-train [--size 64] [--stretch 1.8] [--npz]

The crop itself is the serving path's (:mod:`vision.crops`): training sees what inference sees.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.crops import DEFAULT_MARGIN, DEFAULT_SIZE, MARGIN, READER_STRETCH_AT, crop_tile

__all__ = ["iter_labelled_tiles", "export_crops"]


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
                 npz: bool = False, stretch_at: float = READER_STRETCH_AT) -> int:
    """Write the reader crops of every labelled tile in ``split_dir``; return how many. ``stretch_at``
    is the crop rule (:func:`vision.crops.crop_square`; default the shipped reader's, 0 for square
    windows). ``up_deg`` is the label's, in the image.

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
            crop = crop_tile(image, t["polygon"], size, margin, stretch_at)
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
    """``python -m datasets.crops SPLIT_DIR --out DIR [--size 64] [--margin 1.15] [--stretch 1.8] [--npz]``."""
    p = argparse.ArgumentParser(prog="python -m datasets.crops", description="Export reader crops of a labelled split folder.")
    p.add_argument("split_dir", type=Path, help="a split folder: data/synthetic/train, .../rummikub-real-v1/valid")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--size", type=int, default=DEFAULT_SIZE, help=f"crop side in pixels (default {DEFAULT_SIZE})")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN, help=f"window side / box side (default {MARGIN})")
    p.add_argument("--stretch", type=float, default=READER_STRETCH_AT, metavar="RATIO",
                   help=f"boxes at least this elongated are cut from a RATIO:1 window stretched square "
                        f"(default {READER_STRETCH_AT}, the shipped reader's; 0: square windows)")
    p.add_argument("--npz", action="store_true", help="write one crops.npz instead of PNG files")
    args = p.parse_args(argv)
    try:
        n = export_crops(args.split_dir, args.out, args.size, args.margin, args.npz, args.stretch)
    except (FileNotFoundError, ValueError) as exc:
        p.error(str(exc))
    print(f"{n} crops written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
