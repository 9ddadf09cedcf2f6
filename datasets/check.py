"""Look at labels: draw them on sample images so a person can check them.

    python -m datasets.check DIR --out preview.png [--n 8] [--seed 0]

``DIR`` is a split folder (``images/`` and ``labels/``, optionally ``tiles/``), or a data set root
holding split folders (``train``, ``val``/``valid``, ``test``). Each tile gets its polygon, its
code and, where the corner order is defined, an arrow pointing to the top of the face:

* synthetic folders (``tiles/*.json``, or one-class labels written by ``datasets.synth``): codes
  and up arrows from the labels (corners TL, TR, BR, BL of the upright face);
* rummikub-real-v1: codes from the class names in ``data.yaml`` (alphabetical, mapped by name);
  its polygons have no defined corner order, so no arrow.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

__all__ = ["find_images", "read_labels", "draw_labels", "make_preview", "main"]

_SPLIT_NAMES = ("train", "val", "valid", "test")
_COLOURS = {"K": (40, 40, 40), "B": (220, 90, 20), "O": (0, 140, 255), "R": (40, 40, 230), "J": (160, 0, 160)}


def _class_names(split_dir: Path) -> list[str]:
    for folder in (split_dir, split_dir.parent):
        if (folder / "data.yaml").exists():
            from datasets.real import class_names  # PyYAML, lazy like the rest of this tool's reading

            return class_names(folder)
    return ["tile"]


def find_images(root: Path) -> list[Path]:
    """Every .jpg/.png under ``root/images`` or under ``root/<split>/images``, sorted."""
    root = Path(root)
    dirs = [root] if (root / "images").is_dir() else [root / s for s in _SPLIT_NAMES if (root / s / "images").is_dir()]
    if not dirs:
        raise FileNotFoundError(f"no images/ folder in {root} or in its split folders ({', '.join(_SPLIT_NAMES)})")
    images = [p for d in dirs for p in sorted((d / "images").iterdir()) if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    if not images:
        raise FileNotFoundError(f"no .jpg or .png images under {root}")
    return images


def read_labels(image_path: Path, width: int, height: int) -> tuple[list[dict], bool]:
    """Tiles of one image as dicts with ``code`` and ``polygon`` (pixels), and whether the corner
    order is the synthetic one (TL, TR, BR, BL of the upright face)."""
    split_dir = image_path.parent.parent
    record = split_dir / "tiles" / (image_path.stem + ".json")
    if record.exists():
        return json.loads(record.read_text())["tiles"], True
    label = split_dir / "labels" / (image_path.stem + ".txt")
    if not label.exists():
        return [], False
    names = _class_names(split_dir)
    from referee.tiles import TileError, parse_tile

    tiles = []
    for row in label.read_text().splitlines():
        parts = row.split()
        if len(parts) < 5:
            continue
        cls = int(parts[0])
        vals = [float(v) for v in parts[1:]]
        if len(vals) == 4:  # a box row: cx, cy, w, h
            cx, cy, w, h = vals
            vals = [cx - w / 2, cy - h / 2, cx + w / 2, cy - h / 2, cx + w / 2, cy + h / 2, cx - w / 2, cy + h / 2]
        poly = [[vals[i] * width, vals[i + 1] * height] for i in range(0, len(vals) - 1, 2)]
        name = names[cls] if cls < len(names) else str(cls)
        try:
            code = parse_tile(name).code
        except TileError:
            code = name
        tiles.append({"code": code, "polygon": poly})
    one_class = len(names) == 1
    return tiles, one_class


def draw_labels(image: np.ndarray, tiles: list[dict], arrows: bool) -> np.ndarray:
    """A copy of ``image`` with each tile's polygon, code and (if ``arrows``) up arrow drawn."""
    out = image.copy()
    lw = max(1, round(max(image.shape[:2]) / 700))
    for t in tiles:
        poly = np.asarray(t["polygon"], np.float64)
        colour = _COLOURS.get(str(t["code"])[:1], (0, 255, 0))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (0, 255, 0), lw, cv2.LINE_AA)
        centre = poly.mean(axis=0)
        if arrows and len(poly) == 4:
            top = (poly[0] + poly[1]) / 2
            cv2.line(out, tuple(np.round(poly[0]).astype(int)), tuple(np.round(poly[1]).astype(int)), (0, 255, 255), lw + 1, cv2.LINE_AA)
            cv2.arrowedLine(out, tuple(np.round(centre).astype(int)), tuple(np.round(top).astype(int)), (255, 255, 0), lw,
                            cv2.LINE_AA, tipLength=0.3)
        text = str(t["code"])
        scale = 0.4 * lw + 0.1
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, lw)
        org = (int(centre[0] - tw / 2), int(centre[1] + th / 2))
        cv2.rectangle(out, (org[0] - 2, org[1] - th - 2), (org[0] + tw + 2, org[1] + 3), (255, 255, 255), -1)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, lw, cv2.LINE_AA)
    return out


def make_preview(root: Path, out: Path, n: int = 8, seed: int = 0, cell: int = 512, columns: int = 4) -> Path:
    """Draw the labels of ``n`` images sampled (seeded) from ``root`` into one PNG grid at ``out``."""
    if n < 1:
        raise ValueError(f"--n must be at least 1, got {n}")
    images = find_images(Path(root))
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(images), size=min(n, len(images)), replace=False))
    cells = []
    for i in chosen:
        path = images[int(i)]
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise OSError(f"cannot read image {path}")
        tiles, arrows = read_labels(path, img.shape[1], img.shape[0])
        drawn = draw_labels(img, tiles, arrows)
        scale = cell / max(drawn.shape[:2])
        drawn = cv2.resize(drawn, (max(1, int(drawn.shape[1] * scale)), max(1, int(drawn.shape[0] * scale))),
                           interpolation=cv2.INTER_AREA)
        tile_img = np.full((cell + 24, cell, 3), 255, np.uint8)
        tile_img[24:24 + drawn.shape[0], :drawn.shape[1]] = drawn
        caption = f"{path.parent.parent.name}/{path.name[:40]}  {len(tiles)} tiles" + ("" if arrows else "  (no up arrows)")
        cv2.putText(tile_img, caption, (4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        cells.append(tile_img)
    cols = min(columns, len(cells))
    while len(cells) % cols:
        cells.append(np.full_like(cells[0], 255))
    grid = np.vstack([np.hstack(cells[r:r + cols]) for r in range(0, len(cells), cols)])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), grid):
        raise OSError(f"cannot write {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m datasets.check", description="Draw labels on sample images.")
    p.add_argument("dir", type=Path, help="split folder (images/, labels/) or data set root with split folders")
    p.add_argument("--out", type=Path, default=Path("preview.png"), help="PNG to write (default preview.png)")
    p.add_argument("--n", type=int, default=8, help="how many images (default 8)")
    p.add_argument("--seed", type=int, default=0, help="which sample (default 0)")
    args = p.parse_args(argv)
    try:
        path = make_preview(args.dir, args.out, args.n, args.seed)
    except (FileNotFoundError, ValueError) as exc:
        p.error(str(exc))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
