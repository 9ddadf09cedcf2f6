"""Rendered teaching photos: a player's tiles laid out flat in rows, photographed from above.

``vision.teach`` learns an edition from such a photo and the rows typed for it; these scenes stand
for the player's photo when the profile is measured (``python -m vision.evaluate.teach``): taught from
two rendered layouts of a font family held out of training, then read on other photos of it.

    python -m datasets.teach_scenes OUT --family quicksand [--photos 2] [--seed 0]

writes ``OUT/layout_N.jpg`` and ``OUT/layout_N.txt`` (the rows, in the notation ``vision.teach
--tiles`` takes).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from datasets import fonts
from datasets.render_scene import Lighting, camera_effects, draw_slab, look_at, render_ground
from datasets.render_textures import BACKGROUND_WEIGHTS, backdrop, make_background
from datasets.render_tiles import EDITION_WEIGHTS, TileStyle, render_face, sample_style
from datasets.synth import TILE_H_MM, SceneTile, choose_weighted, flat_axes
from referee.tiles import Colour, parse_tile

__all__ = ["FULL_SET_ROWS", "render_layout", "main"]

# 1-13 of each colour, then the jokers: the layout the teaching screen suggests.
FULL_SET_ROWS: list[list[str]] = [[f"{c.value}{n}" for n in range(1, 14)] for c in Colour] + [["J", "J"]]


def render_layout(rng: np.random.Generator, rows: list[list[str]], style: TileStyle | None = None,
                  family: str | None = None, size: int = 1600) -> tuple[np.ndarray, TileStyle]:
    """Tiles of ``rows`` lying flat in rows on a table, upright, seen from nearly straight above.

    The look is ``style`` (one edition's tiles), or drawn for an edition with numerals in ``family``.
    """
    if style is None:
        edition = choose_weighted(rng, EDITION_WEIGHTS)
        style = sample_style(edition, rng, [family] if family else None)
    longest = max(len(r) for r in rows)
    h_mm = TILE_H_MM
    w_mm = h_mm * style.aspect
    gap = rng.uniform(1.0, 5.0)
    row_gap = h_mm * rng.uniform(0.25, 0.6)
    span_x = longest * (w_mm + gap)
    span_y = len(rows) * (h_mm + row_gap)
    W = size
    H = int(size * rng.uniform(0.68, 0.8))
    fov = rng.uniform(55, 68)
    focal = (W / 2) / math.tan(math.radians(fov) / 2)
    fill = rng.uniform(0.75, 0.92)
    distance = focal * max(span_x / (W * fill), span_y / (H * fill))
    cam = look_at(W, H, math.degrees(2 * math.atan(W / 2 / focal)), np.zeros(3), rng.uniform(0, 18),
                  -90 + rng.normal(0, 3), distance, rng.normal(0, 2))
    up2 = np.array([0.0, 1.0])
    u, v = flat_axes(up2)
    bg = choose_weighted(rng, BACKGROUND_WEIGHTS)
    ppm = min(6.0, 1.4 * focal / distance)
    texture = make_background(bg, 1024, 1024, rng, ppm)
    img, dist = render_ground(cam, texture, ppm, (-512 / ppm, -512 / ppm), backdrop(64, 64, rng), distance * 50, None)
    light = Lighting(np.array([0.3, 0.2, 0.93]) / np.linalg.norm([0.3, 0.2, 0.93]), float(rng.uniform(0.45, 0.8)))
    plastic = np.zeros(img.shape[:2], np.uint8)
    faces: dict[str, np.ndarray] = {}
    for r, row in enumerate(rows):
        y = span_y / 2 - (r + 0.5) * (h_mm + row_gap)
        x0 = -len(row) * (w_mm + gap) / 2
        for i, code in enumerate(row):
            tile = parse_tile(code)
            key = code
            if key not in faces:
                faces[key] = render_face(tile, style, rng, "red" if (tile.is_joker and i % 2) else "black")
            centre = np.array([x0 + (i + 0.5) * (w_mm + gap) + rng.normal(0, 0.6), y + rng.normal(0, 0.6), h_mm * style.thickness])
            st = SceneTile(tile, None, style, centre, u, v, h_mm)
            draw_slab(img, cam, st.slab(faces[key]), light, plastic)
    img, _ = camera_effects(img, rng, plastic, dist, distance, h_mm * focal / distance)
    return img, style


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.teach_scenes", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="output folder")
    p.add_argument("--family", default=None, help=f"font family of the numerals (default: any training family); one of {', '.join(fonts.FAMILIES)}")
    p.add_argument("--photos", type=int, default=2, help="teaching photos of the same edition (default 2)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.family is not None and args.family not in fonts.FAMILIES:
        p.error(f'unknown font family "{args.family}": choose one of {", ".join(fonts.FAMILIES)}')
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    style = None
    for k in range(args.photos):
        img, style = render_layout(rng, FULL_SET_ROWS, style, args.family)
        cv2.imwrite(str(args.out / f"layout_{k}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (args.out / f"layout_{k}.txt").write_text(" | ".join(" ".join(r) for r in FULL_SET_ROWS) + "\n")
    print(f"wrote {args.photos} teaching photos to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
