"""Overlapping quarter crops of rendered scenes, for a detector that also works at twice the scale.

    python -m datasets.zoom_crops data/synthetic data/synthetic_zoom [--per-image 2] [--overlap 0.2]

The tile reader's detector runs on a whole photo letterboxed to 512 px, where the tiles of a far
shot are 10-20 px and many are missed. Searching the photo's four overlapping quarters at the same
input size doubles the resolution, but a detector trained only on whole photos boxes cloth
patterns at that scale (see models/README.md). These crops show it that scale: each is one of the
four quarters the quarter pass uses, with the tiles it holds. A tile cut by the crop's edge keeps its
label clipped to the crop when at least ``--min-visible`` of its box lies inside, and is dropped
otherwise.

The output folder has the layout of ``data/synthetic`` (``train/val/test`` x ``images/labels``,
one-class YOLO polygon labels): in ``train`` each whole scene followed by its quarters, ``val`` and
``test`` the whole scenes unchanged, so it can be passed to ``python -m vision.train detector
--synthetic``.
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.detect import quarters


def crop_labels(polys: np.ndarray, w: int, h: int, x0: int, y0: int, cw: int, ch: int, min_visible: float) -> list[np.ndarray]:
    """Polygons (N, 8) normalised to the whole image -> those visible in the crop, normalised to it."""
    out = []
    for poly in polys:
        pts = poly.reshape(4, 2) * [w, h]
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        area = max(1e-6, float(np.prod(hi - lo)))
        vis_lo = np.maximum(lo, [x0, y0])
        vis_hi = np.minimum(hi, [x0 + cw, y0 + ch])
        if (vis_hi <= vis_lo).any() or float(np.prod(vis_hi - vis_lo)) / area < min_visible:
            continue
        clipped = np.clip(pts - [x0, y0], 0, [cw, ch]) / [cw, ch]
        out.append(clipped.reshape(-1))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets.zoom_crops", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="rendered scenes (python -m datasets.synth)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-image", type=int, default=2, help="quarters kept per training scene (of 4, at random)")
    parser.add_argument("--overlap", type=float, default=0.2, help="share of a quarter overlapping its neighbour")
    parser.add_argument("--min-visible", type=float, default=0.6, help="least share of a cut tile's box inside the crop")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    for split in ("train", "val", "test"):
        (args.out / split / "images").mkdir(parents=True, exist_ok=True)
        (args.out / split / "labels").mkdir(parents=True, exist_ok=True)
        images = sorted((args.source / split / "images").glob("*.jpg"))
        for path in tqdm(images, desc=f"{split} crops", unit="scene"):
            label = args.source / split / "labels" / (path.stem + ".txt")
            if split != "train":  # val and test stay whole scenes: what the reader meets
                shutil.copyfile(path, args.out / split / "images" / path.name)
                shutil.copyfile(label, args.out / split / "labels" / label.name)
                continue
            # The whole scene too, so the detector keeps its whole-photo scale.
            shutil.copyfile(path, args.out / split / "images" / path.name)
            shutil.copyfile(label, args.out / split / "labels" / label.name)
            image = cv2.imread(str(path))
            h, w = image.shape[:2]
            rows = np.loadtxt(label, ndmin=2) if label.stat().st_size else np.zeros((0, 9))
            polys = rows[:, 1:9]
            cw, ch, origins = quarters(w, h, args.overlap)
            for k, (x0, y0) in enumerate(rng.sample(origins, min(args.per_image, 4))):
                stem = f"{path.stem}_q{k}"
                cv2.imwrite(str(args.out / split / "images" / f"{stem}.jpg"), image[y0:y0 + ch, x0:x0 + cw], [cv2.IMWRITE_JPEG_QUALITY, 92])
                lines = [" ".join(["0", *(f"{v:.6f}" for v in p)]) for p in crop_labels(polys, w, h, x0, y0, cw, ch, args.min_visible)]
                (args.out / split / "labels" / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
