"""Synthetic Rummikub Dice scenes (docs/rules.md section 8): nine cubes on a table or on the game board.

``python -m datasets.synth_dice --out data/dice --train 2000 --val 200 --test 300 --seed 0``

Every scene is a small 3-D world rendered with a pinhole camera, so perspective is exact and the
labels are too:

* the table is a plane (procedural texture, optionally the dice board, a score sheet, the dice
  cup seen from above, a pencil), drawn in plane coordinates and warped by the plane's homography;
* each die is a cube (edge 13-24 mm) with a yaw, a small tilt and one face up; its visible side
  faces carry *other* numbers of the same die, so a reader must learn which face is on top;
* a directional light shades the faces and casts soft shadows on the plane; then the camera adds
  light fall-off, white balance, blur, noise and JPEG.

A set of dice carries the 54 faces of the game - 1-13 in red, yellow, black and blue plus two
jokers (docs/rules.md section 8) - so the nine top faces of one roll are distinct except that both
jokers may show. Yellow is written ``O`` (yellow is orange in play, docs/rules.md section 1).

Output per split (``train``, ``val``, ``test``)::

    images/NAME.jpg
    labels/NAME.txt   ultralytics polygon rows: "0 x1 y1 x2 y2 x3 y3 x4 y4" (normalised), one per
                      die, the four corners of its TOP face only (class 0 = die top face)
    dice/NAME.json    {"dice": [{"code": "R7", "polygon": [[x, y] x4], "up": [ux, uy]}, ...],
                       "side_faces": [...], "scene": ..., "background": ..., "die_mm": ...}

Polygon corners run top-left, top-right, bottom-right, bottom-left *of the upright numeral*, so
the first edge is the top of the print (``up`` points there). The test split differs from
training on purpose (:data:`SPLITS`): background families never seen in training and die sizes
outside the training range. Fonts: matplotlib's bundled DejaVu files and OpenCV's Hershey fonts.

Shared with the tile renderer: the camera (:mod:`datasets.render_scene`), value noise and colour
blends (:mod:`datasets.render_textures`), font files and numeral masks (:mod:`datasets.fonts`,
:mod:`datasets.render_tiles`). The dice's own are what only dice have (faces, cubes, the board,
score sheet and cup) and the table cloths and camera effects the dice networks were trained and
tested on: drawn from their own random streams, they keep every dice photo of a given seed what it was.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from datasets import fonts
from datasets.render_scene import look_at
from datasets.render_textures import lerp_colours, value_noise
from datasets.render_tiles import hershey_mask, ink_crop, jitter_colour, paint, text_mask
from referee.tiles import JOKER, Colour, Tile

__all__ = [
    "FACES",
    "SPLITS",
    "SplitSpec",
    "DiceStyle",
    "Scene",
    "sample_style",
    "render_face",
    "render_scene",
    "write_split",
    "main",
]

Rng = np.random.Generator
BGR = tuple[int, int, int]

FACE_PX = 128  # side of a face texture before it is warped into the photo

# The 54 faces of a set of nine dice: 52 coloured numbers and 2 jokers (docs/rules.md section 8).
FACES: tuple[Tile, ...] = tuple(Tile(c, n) for c in (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)
                                 for n in range(1, 14)) + (JOKER, JOKER)


@dataclass(frozen=True)
class SplitSpec:
    """How one split is drawn: which backgrounds, which die sizes (mm), which seed stream."""

    backgrounds: tuple[str, ...]
    die_mm: tuple[tuple[float, float], ...]
    stream: int
    blanks: float = 0.0
    """Share of photos with blank squares on the table (counters, sugar cubes, sticky notes) near
    the dice: die-sized light squares with no print, which are not dice."""


# Patterned cloths (checks, tiles, plaid, dots) teach the detector that a light square on the table
# is not a die top: without them, the first detector boxed the white squares of a checked cloth.
TRAIN_BACKGROUNDS = ("wood", "felt", "weave", "speckle", "planks", "checks", "tiles", "plaid", "dots")
TEST_BACKGROUNDS = ("marble", "gingham")
SPLITS: dict[str, SplitSpec] = {
    "train": SplitSpec(TRAIN_BACKGROUNDS, ((15.0, 21.0),), 1, blanks=0.35),
    "val": SplitSpec(TRAIN_BACKGROUNDS, ((15.0, 21.0),), 2, blanks=0.35),
    # Held out: background families the networks never saw, dice smaller and larger than any
    # training die (the camera is placed independently of the die size, so they also look smaller
    # or larger in the picture).
    "test": SplitSpec(TEST_BACKGROUNDS, ((12.5, 14.5), (21.5, 24.0)), 3),
}

INKS: dict[str, tuple[BGR, ...]] = {
    "K": ((25, 25, 25), (45, 40, 35), (10, 10, 10)),
    "B": ((170, 80, 15), (200, 110, 0), (140, 60, 30)),
    "O": ((0, 190, 240), (20, 175, 230), (0, 160, 245)),  # yellow, sometimes a warm yellow
    "R": ((35, 30, 200), (50, 40, 215), (30, 20, 170)),
}
BODIES: tuple[BGR, ...] = ((246, 246, 244), (228, 240, 248), (235, 235, 232), (240, 244, 250))
FONTS = (
    "DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSansMono-Bold.ttf",
    "DejaVuSans-BoldOblique.ttf", "hershey:0", "hershey:2", "hershey:3", "hershey:4",
)


# --------------------------------------------------------------------------- face drawing

@dataclass(frozen=True)
class DiceStyle:
    """One concrete look of a set of dice (fixed for a scene).

    Fields: ``body`` plastic colour; ``inks`` BGR per colour letter; ``font`` a matplotlib TTF
    name or ``hershey:<id>``; ``stroke`` extra stroke (TTF) or thickness (Hershey) in face pixels;
    ``number_height`` numeral height / face side; ``six_nine`` marker under 6 and 9 (``bar`` or
    ``dot``: a die can lie any way round, so 6 and 9 need one); ``joker`` ``outline``, ``filled``
    or ``rainbow``; ``joker_ink`` its colour; ``engraved`` darker rim around the ink;
    ``corner`` radius of the rounded corners, fraction of the side.
    """

    body: BGR
    inks: dict[str, BGR]
    font: str
    stroke: int
    number_height: float
    six_nine: str
    joker: str
    joker_ink: BGR
    engraved: bool
    corner: float


def _jit(rng: Rng, bgr: BGR, amount: float) -> BGR:
    # the dice's colours vary a little less per channel than the tiles' (noise a quarter of amount)
    return jitter_colour(rng, bgr, amount, spread=4.0)


def sample_style(rng: Rng) -> DiceStyle:
    """Draw one jittered look of a set of dice: body, inks, font, markers, joker."""
    inks = {k: _jit(rng, v[int(rng.integers(len(v)))], 0.07) for k, v in INKS.items()}
    font = str(rng.choice(FONTS))
    hershey = font.startswith("hershey:")
    joker = str(rng.choice(["outline", "filled", "rainbow"]))
    return DiceStyle(
        body=_jit(rng, BODIES[int(rng.integers(len(BODIES)))], 0.03),
        inks=inks,
        font=font,
        stroke=int(rng.integers(6, 12)) if hershey else int(rng.integers(0, 3)),
        number_height=float(rng.uniform(0.42, 0.6)),
        six_nine=str(rng.choice(["bar", "dot"])),
        joker=joker,
        joker_ink=inks[str(rng.choice(["K", "R", "B"]))],
        engraved=bool(rng.random() < 0.4),
        corner=float(rng.uniform(0.08, 0.2)),
    )


@functools.lru_cache(maxsize=1024)
def _numeral_mask(text: str, font: str, stroke: int) -> np.ndarray:
    """Tight uint8 mask of ``text`` about 100 px high (cached: scenes reuse a few fonts)."""
    if font.startswith("hershey:"):
        return hershey_mask(text, int(font.split(":")[1]), 100, stroke)
    return ink_crop(text_mask(text, fonts.font_file(font), 110, stroke * 2))


def _draw_joker(face: np.ndarray, style: DiceStyle, rng: Rng) -> None:
    """A smiley drawn with OpenCV (the game's joker), centred on the face."""
    s = face.shape[0]
    c = s // 2
    r = int(s * rng.uniform(0.3, 0.37))
    sh = 4  # sub-pixel bits for smooth circles
    k = 1 << sh
    ink = style.joker_ink
    body = style.body
    if style.joker == "rainbow":
        for i, letter in enumerate(("R", "O", "B", "K")):
            cv2.ellipse(face, (c * k, c * k), (r * k, r * k), 0, i * 90, i * 90 + 90, style.inks[letter],
                        max(3, s // 18), cv2.LINE_AA, sh)
        feature = style.inks["K"]
    elif style.joker == "filled":
        cv2.circle(face, (c * k, c * k), r * k, ink, -1, cv2.LINE_AA, sh)
        feature = body
    else:
        cv2.circle(face, (c * k, c * k), r * k, ink, max(3, s // 20), cv2.LINE_AA, sh)
        feature = ink
    eye_dx, eye_y = int(r * 0.38), c - int(r * 0.3)
    eye = (max(2, int(r * 0.12)) * k, max(3, int(r * 0.2)) * k)
    for ex in (c - eye_dx, c + eye_dx):
        cv2.ellipse(face, (ex * k, eye_y * k), eye, 0, 0, 360, feature, -1, cv2.LINE_AA, sh)
    cv2.ellipse(face, (c * k, (c + int(r * 0.05)) * k), (int(r * 0.55) * k, int(r * 0.5) * k), 0, 20, 160, feature,
                max(2, s // 28), cv2.LINE_AA, sh)


def render_face(tile: Tile, style: DiceStyle, rng: Rng, size: int = FACE_PX) -> np.ndarray:
    """One die face, BGR uint8 ``size`` x ``size``, the numeral upright (row 0 is its top)."""
    face = np.empty((size, size, 3), np.float32)
    face[:] = style.body
    # Faint plastic texture: moulded dice are not perfectly flat in colour.
    face += rng.normal(0, 2.0, (size, size, 1)).astype(np.float32)
    if tile.is_joker:
        out = face.clip(0, 255).astype(np.uint8)
        _draw_joker(out, style, rng)
        return out
    assert tile.colour is not None and tile.number is not None
    text = str(tile.number)
    m = _numeral_mask(text, style.font, style.stroke)
    target_h = style.number_height * size
    scale = target_h / m.shape[0]
    max_w = size * 0.8
    sx = min(scale, max_w / m.shape[1])
    sy = scale if sx == scale else max(sx, scale * 0.8)  # two-digit numbers are squeezed, a little
    w, h = max(1, int(round(m.shape[1] * sx))), max(1, int(round(m.shape[0] * sy)))
    glyph = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)
    marker = tile.number in (6, 9)
    cy = size / 2 - (size * 0.05 if marker else 0) + rng.normal(0, size * 0.01)
    cx = size / 2 + rng.normal(0, size * 0.01)
    mask = np.zeros((size, size), np.uint8)
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    xs, ys = max(0, x0), max(0, y0)
    xe, ye = min(size, x0 + w), min(size, y0 + h)
    mask[ys:ye, xs:xe] = glyph[ys - y0:ye - y0, xs - x0:xe - x0]
    if marker:  # 6 and 9 carry a mark under the numeral, or a die could not tell them apart
        yb = int(min(size - 6, y0 + h + size * 0.06))
        if style.six_nine == "bar":
            half = max(w * 0.35, size * 0.1)
            cv2.line(mask, (int(cx - half) * 16, yb * 16), (int(cx + half) * 16, yb * 16), 255, max(3, size // 22),
                     cv2.LINE_AA, 4)
        else:
            cv2.circle(mask, (int(cx + w * 0.55) * 16, yb * 16), max(3, size // 24) * 16, 255, -1, cv2.LINE_AA, 4)
    ink = style.inks[tile.colour.value]
    out = face.clip(0, 255)
    if style.engraved:  # ink in a recess: a darker rim where the ink meets the plastic
        rim = cv2.dilate(mask, np.ones((3, 3), np.uint8)).astype(np.float32) - mask
        out = out * (1 - 0.35 * (rim / 255.0)[:, :, None])
    out = out.astype(np.uint8)
    paint(out, mask, 0, 0, ink)
    return out


def _rounded_alpha(size: int, radius: float) -> np.ndarray:
    """Alpha (float32 0-1) of a square with rounded corners, smooth at the edge."""
    big = size * 4
    r = int(radius * big)
    m = np.zeros((big, big), np.uint8)
    cv2.rectangle(m, (r, 0), (big - 1 - r, big - 1), 255, -1)
    cv2.rectangle(m, (0, r), (big - 1, big - 1 - r), 255, -1)
    for cx, cy in ((r, r), (big - 1 - r, r), (r, big - 1 - r), (big - 1 - r, big - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


@functools.lru_cache(maxsize=8)
def _edge_falloff(size: int) -> np.ndarray:
    """Rounded cube edges catch less light: a soft darkening toward the face border."""
    t = np.minimum(np.arange(size), np.arange(size)[::-1]).astype(np.float32) / (size * 0.12)
    t = np.clip(t, 0, 1)
    e = np.minimum(t[None, :], t[:, None])
    return (0.8 + 0.2 * e).astype(np.float32)


# --------------------------------------------------------------------------- table textures

def _fbm(h: int, w: int, cells: float, rng: Rng, octaves: int = 4) -> np.ndarray:
    """Fractal noise whose ``cells`` are counted along the long side (square features at any aspect)
    and not clipped per octave; :func:`datasets.render_textures.fbm` counts them per side."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    longest = max(h, w)
    for _ in range(octaves):
        out += amp * value_noise(h, w, int(cells * h / longest) + 1, int(cells * w / longest) + 1, rng, clip=False)
        total += amp
        amp *= 0.5
        cells *= 2
    return out / total


def _wood(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    if rng.random() < 0.5:  # grain across instead of along
        return np.ascontiguousarray(_wood_grain(w, h, rng, ppm).transpose(1, 0, 2))
    return _wood_grain(h, w, rng, ppm)


def _wood_grain(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    base = np.array(_jit(rng, ((60, 105, 160), (40, 70, 115), (95, 150, 200))[int(rng.integers(3))], 0.1), np.float32)
    warp = _fbm(h, w, 6, rng) * rng.uniform(20, 60) * ppm
    y = np.arange(h, dtype=np.float32)[:, None] + warp
    period = rng.uniform(3, 9) * ppm
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * y / period)
    grain = _fbm(h, w, 40, rng, 2)
    t = np.clip(0.55 * rings ** 3 + 0.45 * grain, 0, 1)
    return lerp_colours(t, base * 1.12, base * 0.7)


def _planks(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    img = _wood_grain(h, w, rng, ppm)
    width = rng.uniform(70, 160) * ppm
    for x in np.arange(rng.uniform(0, width), w, width):
        cv2.line(img, (int(x), 0), (int(x), h), tuple(float(v) * 0.45 for v in img[h // 2, min(int(x), w - 1)]),
                 max(1, int(ppm * 1.2)))
        shade = rng.uniform(0.85, 1.15)
        img[:, int(x):int(x + width)] *= shade
    return img


def _felt(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    colours = ((60, 110, 30), (90, 60, 30), (40, 40, 120), (70, 70, 70), (120, 80, 50), (30, 30, 35))
    base = np.array(_jit(rng, colours[int(rng.integers(len(colours)))], 0.15), np.float32)
    t = 0.6 * _fbm(h, w, 8, rng) + 0.4 * rng.random((h, w), dtype=np.float32)
    return lerp_colours(t, base * 0.85, base * 1.15)


def _weave(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    base = np.array(_jit(rng, ((170, 170, 175), (130, 160, 190), (200, 190, 160), (90, 120, 150))[int(rng.integers(4))], 0.12), np.float32)
    period = rng.uniform(0.8, 2.0) * ppm
    x = np.arange(w, dtype=np.float32)[None, :]
    y = np.arange(h, dtype=np.float32)[:, None]
    t = 0.5 + 0.25 * np.sin(2 * np.pi * x / period) * np.sign(np.sin(np.pi * y / period)) \
        + 0.25 * np.sin(2 * np.pi * y / period) * np.sign(np.sin(np.pi * x / period))
    t = np.clip(0.7 * t + 0.3 * _fbm(h, w, 10, rng), 0, 1)
    return lerp_colours(t, base * 0.8, base * 1.12)


def _speckle(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    base = np.array(_jit(rng, ((215, 215, 210), (180, 185, 190), (60, 60, 65), (200, 215, 225))[int(rng.integers(4))], 0.08), np.float32)
    img = lerp_colours(_fbm(h, w, 5, rng), base * 0.94, base * 1.04)
    n = int(h * w / (ppm * ppm) * rng.uniform(0.05, 0.3))
    ys, xs = rng.integers(0, h, n), rng.integers(0, w, n)
    dark = rng.random(n) < 0.5
    img[ys[dark], xs[dark]] *= 0.6
    img[ys[~dark], xs[~dark]] = np.minimum(img[ys[~dark], xs[~dark]] * 1.3, 255)
    return cv2.GaussianBlur(img, (0, 0), max(0.5, ppm * 0.15))


def _marble(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    base = np.array(_jit(rng, ((235, 235, 232), (60, 55, 50), (200, 210, 220))[int(rng.integers(3))], 0.05), np.float32)
    vein = np.array(_jit(rng, (120, 120, 125), 0.2), np.float32)
    f = _fbm(h, w, 4, rng, 5)
    x = np.arange(w, dtype=np.float32)[None, :] / (rng.uniform(40, 120) * ppm)
    v = np.abs(np.sin(2 * np.pi * (x + 3 * f)))
    t = np.clip((0.12 - v) / 0.12, 0, 1) ** 1.5
    img = base[None, None, :] * (0.96 + 0.08 * _fbm(h, w, 12, rng))[:, :, None]
    return img * (1 - t[:, :, None] * 0.7) + vein * t[:, :, None] * 0.7


def _gingham(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    colour = np.array(_jit(rng, ((40, 40, 190), (160, 90, 30), (50, 130, 50), (30, 30, 30))[int(rng.integers(4))], 0.1), np.float32)
    white = np.array((235, 238, 240), np.float32)
    period = rng.uniform(12, 30) * ppm
    x = (np.arange(w)[None, :] // (period / 2)) % 2
    y = (np.arange(h)[:, None] // (period / 2)) % 2
    t = (x + y).astype(np.float32) / 2.0  # 0 white, 0.5 tinted stripe, 1 full colour
    img = lerp_colours(t, white, colour)
    return img * (0.92 + 0.1 * _fbm(h, w, 30, rng, 2))[:, :, None]


def _rotated_grid(h: int, w: int, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
    """Texture coordinates turned by a random angle: patterns on a cloth need not line up with the camera."""
    a = rng.uniform(0, math.pi / 2)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    return x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)


_LIGHT: tuple[BGR, ...] = ((238, 240, 242), (215, 232, 245), (225, 225, 220), (200, 215, 230), (245, 245, 250))
_DARK: tuple[BGR, ...] = ((30, 30, 30), (40, 40, 170), (140, 80, 30), (40, 110, 40), (60, 60, 120), (110, 110, 110), (30, 90, 160))


def _checks(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    """A hard-edged two-colour checkerboard (oilcloth, a chess board): light squares the size of a die top."""
    light = np.array(_jit(rng, _LIGHT[int(rng.integers(len(_LIGHT)))], 0.05), np.float32)
    dark = np.array(_jit(rng, _DARK[int(rng.integers(len(_DARK)))], 0.12), np.float32)
    cell = rng.uniform(5, 35) * ppm
    u, v = _rotated_grid(h, w, rng)
    t = ((np.floor(u / cell) + np.floor(v / cell)) % 2).astype(np.float32)
    t = cv2.GaussianBlur(t, (0, 0), max(0.5, ppm * 0.3))
    return lerp_colours(t, light, dark) * (0.93 + 0.1 * _fbm(h, w, 20, rng, 2))[:, :, None]


def _tiles(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    """Square ceramic tiles with grout lines (a tiled table or floor)."""
    face = np.array(_jit(rng, _LIGHT[int(rng.integers(len(_LIGHT)))], 0.08), np.float32)
    grout = np.array(_jit(rng, ((150, 150, 150), (90, 90, 95), (200, 200, 195), (60, 60, 60))[int(rng.integers(4))], 0.1), np.float32)
    cell = rng.uniform(12, 110) * ppm
    gap = rng.uniform(1.0, 4.0) * ppm
    u, v = _rotated_grid(h, w, rng)
    edge = np.minimum(np.minimum(u % cell, cell - u % cell), np.minimum(v % cell, cell - v % cell))
    t = np.clip(1.0 - (edge - gap / 2) / max(1.0, ppm * 0.5), 0, 1).astype(np.float32)
    img = lerp_colours(t, face, grout)
    return img * (0.94 + 0.08 * _fbm(h, w, 6, rng, 3))[:, :, None]


def _plaid(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    """A tartan: bands of several widths and colours crossing, woven over a light or dark ground."""
    ground = np.array(_jit(rng, (_LIGHT + _DARK)[int(rng.integers(len(_LIGHT) + len(_DARK)))], 0.1), np.float32)
    img = np.broadcast_to(ground, (h, w, 3)).astype(np.float32).copy()
    u, v = _rotated_grid(h, w, rng)
    period = rng.uniform(20, 70) * ppm
    for _ in range(int(rng.integers(2, 5))):
        colour = np.array(_jit(rng, (_LIGHT + _DARK)[int(rng.integers(len(_LIGHT) + len(_DARK)))], 0.1), np.float32)
        start, width = rng.uniform(0, period), rng.uniform(0.08, 0.35) * period
        strength = rng.uniform(0.35, 0.7)
        for coord in (u, v):
            band = (((coord - start) % period) < width).astype(np.float32) * strength
            img = img * (1 - band[:, :, None]) + colour * band[:, :, None]
    return img * (0.93 + 0.1 * _fbm(h, w, 25, rng, 2))[:, :, None]


def _dots(h: int, w: int, rng: Rng, ppm: float) -> np.ndarray:
    """Polka dots (light on a coloured ground or dark on a light one), dots about a die top's size."""
    pair = [_jit(rng, _LIGHT[int(rng.integers(len(_LIGHT)))], 0.05), _jit(rng, _DARK[int(rng.integers(len(_DARK)))], 0.1)]
    if rng.random() < 0.5:
        pair.reverse()
    ground, dot = (np.array(c, np.float32) for c in pair)
    pitch = rng.uniform(15, 45) * ppm
    radius = pitch * rng.uniform(0.15, 0.4)
    u, v = _rotated_grid(h, w, rng)
    shift = (np.floor(v / pitch) % 2) * pitch / 2 if rng.random() < 0.5 else 0.0
    du, dv = (u + shift) % pitch - pitch / 2, v % pitch - pitch / 2
    t = np.clip((radius - np.sqrt(du * du + dv * dv)) / max(1.0, ppm * 0.4), 0, 1).astype(np.float32)
    return lerp_colours(t, ground, dot) * (0.94 + 0.08 * _fbm(h, w, 10, rng, 2))[:, :, None]


BACKGROUNDS: dict[str, Callable[[int, int, Rng, float], np.ndarray]] = {
    "wood": _wood, "planks": _planks, "felt": _felt, "weave": _weave, "speckle": _speckle,
    "checks": _checks, "tiles": _tiles, "plaid": _plaid, "dots": _dots,
    "marble": _marble, "gingham": _gingham,
}


# --------------------------------------------------------------------------- geometry

def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rot_axis(axis: np.ndarray, a: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k


@dataclass
class Die:
    """One die in the world: centre (mm), edge (mm), orientation (columns = local axes) and faces.

    ``faces`` maps a local face name (``+z`` top, ``-z`` bottom, ``+x`` ...) to the tile printed on
    it and the quarter turn of its print.
    """

    centre: np.ndarray
    edge: float
    rot: np.ndarray
    faces: dict[str, tuple[Tile, int]]

    def face_corners(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """World corners (4, 3) TL, TR, BR, BL of the print on face ``name`` and its outward normal."""
        axis = {"x": 0, "y": 1, "z": 2}[name[1]]
        sign = 1.0 if name[0] == "+" else -1.0
        n = np.zeros(3)
        n[axis] = sign
        if axis == 2:
            t2 = np.array([0.0, -sign, 0.0])  # top face: print "down" is local -y
        else:
            t2 = np.array([0.0, 0.0, -1.0])
        t1 = np.cross(n, t2)  # t1 x t2 = -n: the print is not mirrored seen from outside
        quarter = self.faces[name][1]
        a = quarter * math.pi / 2
        t1, t2 = t1 * math.cos(a) + t2 * math.sin(a), -t1 * math.sin(a) + t2 * math.cos(a)
        h = self.edge / 2
        local = [n * h - t1 * h - t2 * h, n * h + t1 * h - t2 * h, n * h + t1 * h + t2 * h, n * h - t1 * h + t2 * h]
        pts = np.array([self.rot @ p + self.centre for p in local])
        return pts, self.rot @ n

    def corners(self) -> np.ndarray:
        h = self.edge / 2
        local = np.array([[x, y, z] for x in (-h, h) for y in (-h, h) for z in (-h, h)])
        return local @ self.rot.T + self.centre


FACE_NAMES = ("+z", "+x", "-x", "+y", "-y", "-z")


def _deal_faces(n_dice: int, rng: Rng) -> list[list[Tile]]:
    """Six faces per die from shuffled 54-face sets (a second set when more than nine dice)."""
    dice: list[list[Tile]] = []
    while len(dice) < n_dice:
        faces = list(FACES)
        order = rng.permutation(len(faces))
        dice += [[faces[int(i)] for i in order[j * 6:(j + 1) * 6]] for j in range(9)]
    return dice[:n_dice]


def _thrown_positions(n: int, edge: float, rng: Rng) -> tuple[list[tuple[float, float]], list[float]]:
    """Dice thrown on a table: random spots (no two touching) in a loose heap, random yaw."""
    # The heap's size is drawn in millimetres, not in die edges: small dice look small in the photo
    # and large dice large (the held-out split relies on that for its unseen die sizes).
    spread = max(rng.uniform(42, 75), 2.6 * edge) * math.sqrt(max(n, 1) / 9)
    min_d = edge * 1.5
    pts: list[tuple[float, float]] = []
    for _ in range(4000):
        if len(pts) == n:
            break
        x, y = rng.normal(0, spread * 0.6, 2)
        if math.hypot(x, y) > spread * 1.6:
            continue
        if all(math.hypot(x - a, y - b) >= min_d for a, b in pts):
            pts.append((float(x), float(y)))
        elif _ > 2000:
            spread *= 1.01
    yaws = [float(rng.uniform(0, 2 * math.pi)) for _ in pts]
    return pts, yaws


def _board_positions(n: int, pitch: float, rng: Rng) -> list[tuple[int, int]]:
    """Cells of a board arrangement: runs (rows) and groups (columns) sharing dice, as players lay them."""
    cells: list[tuple[int, int]] = []
    horizontal = bool(rng.random() < 0.5)
    start = (0, 0)
    for _ in range(40):
        if len(cells) >= n:
            break
        length = int(rng.integers(3, 6))
        d = (1, 0) if horizontal else (0, 1)
        off = int(rng.integers(0, length))
        line = [(start[0] + (i - off) * d[0], start[1] + (i - off) * d[1]) for i in range(length)]
        new = [c for c in line if c not in cells]
        if len(new) < 2 and cells:
            horizontal = not horizontal
            continue
        cells += new[: n - len(cells)]
        start = cells[int(rng.integers(len(cells)))]
        if rng.random() < 0.7:
            horizontal = not horizontal
        if rng.random() < 0.25:  # a separate set a row or two further on
            start = (start[0] + int(rng.integers(-2, 3)), start[1] + int(rng.choice([-2, 2])))
    while len(cells) < n:  # dice left over sit next to the arrangement
        c = (int(rng.integers(-5, 6)), int(rng.integers(-4, 5)))
        if c not in cells:
            cells.append(c)
    return cells


# --------------------------------------------------------------------------- plane drawing

def _draw_board(tex: np.ndarray, to_tex: Callable[[np.ndarray], np.ndarray], centre: np.ndarray, size: tuple[float, float],
                pitch: float, yaw: float, rng: Rng, ppm: float) -> None:
    """The dice board: a coloured plate with a grid of cells the dice are laid in."""
    colours = ((90, 40, 20), (40, 90, 30), (30, 30, 110), (200, 215, 225), (60, 60, 60))
    base = _jit(rng, colours[int(rng.integers(len(colours)))], 0.1)
    rot = _rot_z(yaw)[:2, :2]
    w, h = size

    def poly(pts: np.ndarray) -> np.ndarray:
        world = pts @ rot.T + centre[:2]
        return np.round(to_tex(world) * 16).astype(np.int32)

    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    cv2.fillPoly(tex, [poly(rect)], base, cv2.LINE_AA, 4)
    rim = tuple(float(v) * 0.7 for v in base)
    cv2.polylines(tex, [poly(rect * 0.985)], True, rim, max(1, int(ppm * 2)), cv2.LINE_AA, 4)
    line = tuple(min(255.0, float(v) * 1.35 + 25) for v in base)
    half_x, half_y = int(w / 2 / pitch), int(h / 2 / pitch)
    for i in range(-half_x, half_x + 1):
        x = (i + 0.5) * pitch
        if abs(x) < w / 2 - pitch * 0.3:
            cv2.polylines(tex, [poly(np.array([[x, -h / 2 + pitch * 0.5], [x, h / 2 - pitch * 0.5]]))], False, line,
                          max(1, int(ppm * 0.5)), cv2.LINE_AA, 4)
    for j in range(-half_y, half_y + 1):
        y = (j + 0.5) * pitch
        if abs(y) < h / 2 - pitch * 0.3:
            cv2.polylines(tex, [poly(np.array([[-w / 2 + pitch * 0.5, y], [w / 2 - pitch * 0.5, y]]))], False, line,
                          max(1, int(ppm * 0.5)), cv2.LINE_AA, 4)


def _draw_sheet(tex: np.ndarray, to_tex: Callable[[np.ndarray], np.ndarray], centre: np.ndarray, yaw: float, rng: Rng, ppm: float) -> None:
    """A score sheet: white paper with a ruled grid and pencilled numbers (digits that are not dice)."""
    w, h = rng.uniform(90, 150), rng.uniform(120, 200)
    rot = _rot_z(yaw)[:2, :2]

    def tp(pts: np.ndarray) -> np.ndarray:
        return to_tex(pts @ rot.T + centre[:2])

    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    cv2.fillPoly(tex, [np.round(tp(rect) * 16).astype(np.int32)], _jit(rng, (240, 242, 245), 0.03), cv2.LINE_AA, 4)
    ink = _jit(rng, (90, 60, 40), 0.2)
    rows = int(h // 12)
    for i in range(1, rows):
        y = -h / 2 + i * 12
        cv2.polylines(tex, [np.round(tp(np.array([[-w / 2, y], [w / 2, y]])) * 16).astype(np.int32)], False, (200, 180, 170), 1, cv2.LINE_AA, 4)
    for i in range(1, rows):
        for col in range(int(w // 30)):
            if rng.random() < 0.5:
                p = tp(np.array([[-w / 2 + 6 + col * 30, -h / 2 + i * 12 - 2]]))[0]
                text = str(int(rng.integers(0, 40)))
                cv2.putText(tex, text, (int(p[0]), int(p[1])), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.035 * ppm * 9,
                            ink, max(1, int(ppm * 0.4)), cv2.LINE_AA)


def _draw_blanks(tex: np.ndarray, to_tex: Callable[[np.ndarray], np.ndarray], spots: np.ndarray, edge: float, rng: Rng,
                 ppm: float) -> list[np.ndarray]:
    """Blank light squares lying flat (counters, sugar cubes, sticky notes): a die top's shape, no
    print. Returns their corners on the table plane (mm), for the labels."""
    squares = []
    for spot in spots:
        side = edge * rng.uniform(0.6, 1.8)
        yaw = float(rng.uniform(0, 2 * math.pi))
        rot = _rot_z(yaw)[:2, :2]
        half = side / 2
        square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ rot.T + spot
        colour = _jit(rng, (_LIGHT + ((120, 200, 240), (180, 230, 200), (200, 190, 240)))[int(rng.integers(len(_LIGHT) + 3))], 0.06)
        pts = np.round(to_tex(square) * 16).astype(np.int32)
        cv2.fillPoly(tex, [pts], colour, cv2.LINE_AA, 4)
        if rng.random() < 0.5:
            rim = tuple(float(v) * rng.uniform(0.55, 0.85) for v in colour)
            cv2.polylines(tex, [pts], True, rim, max(1, int(ppm * rng.uniform(0.4, 1.5))), cv2.LINE_AA, 4)
        squares.append(square)
    return squares


def _draw_cup(tex: np.ndarray, to_tex: Callable[[np.ndarray], np.ndarray], centre: np.ndarray, rng: Rng, ppm: float) -> None:
    """The dice cup lying on the table, seen as a disc with a rim."""
    r = rng.uniform(30, 45)
    p = to_tex(centre[None, :2])[0]
    colour = _jit(rng, ((30, 30, 30), (40, 40, 140), (120, 60, 20))[int(rng.integers(3))], 0.1)
    cv2.circle(tex, (int(p[0] * 16), int(p[1] * 16)), int(r * ppm * 16), colour, -1, cv2.LINE_AA, 4)
    cv2.circle(tex, (int(p[0] * 16), int(p[1] * 16)), int(r * 0.85 * ppm * 16), tuple(float(v) * 0.6 for v in colour), -1, cv2.LINE_AA, 4)


# --------------------------------------------------------------------------- scene

@dataclass
class Scene:
    """A rendered photo and its exact labels."""

    image: np.ndarray
    dice: list[dict]
    side_faces: list[dict]
    meta: dict = field(default_factory=dict)

    def label_rows(self) -> list[str]:
        """Ultralytics polygon rows: class 0 (die top face), the four top-face corners, normalised."""
        h, w = self.image.shape[:2]
        rows = []
        for d in self.dice:
            coords = " ".join(f"{min(max(x / w, 0.0), 1.0):.6f} {min(max(y / h, 0.0), 1.0):.6f}" for x, y in d["polygon"])
            rows.append(f"0 {coords}")
        return rows

    def to_json(self) -> dict:
        h, w = self.image.shape[:2]
        return {"width": w, "height": h, **self.meta, "dice": self.dice, "side_faces": self.side_faces}


def _polygon_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def _composite(img: np.ndarray, tex: np.ndarray, alpha: np.ndarray, dst: np.ndarray) -> None:
    """Warp the square texture (with its alpha) onto the quad ``dst`` (4, 2) of ``img`` (float32)."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    s = tex.shape[0]
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
    m = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - a[:, :, None]) + warped * a[:, :, None]


def render_scene(rng: Rng, split: str = "train", n_dice: int = 9, layout: str | None = None,
                 image_size: tuple[int, int] | None = None) -> Scene:
    """Render one photo of ``n_dice`` dice; ``layout`` is ``thrown`` or ``board`` (random if None)."""
    if split not in SPLITS:
        raise ValueError(f'unknown split "{split}": choose one of {", ".join(SPLITS)}')
    if layout not in (None, "thrown", "board"):
        raise ValueError(f'unknown layout "{layout}": choose thrown or board')
    spec = SPLITS[split]
    layout = layout or ("board" if rng.random() < 0.4 else "thrown")
    lo, hi = spec.die_mm[int(rng.integers(len(spec.die_mm)))]
    edge = float(rng.uniform(lo, hi))
    style = sample_style(rng)
    if image_size is None:
        image_size = [(1024, 768), (768, 1024), (1024, 576), (960, 720), (1152, 864), (720, 960)][int(rng.integers(6))]
    width, height = image_size

    # ---- dice in the world
    dealt = _deal_faces(n_dice, rng)
    dice: list[Die] = []
    board = None
    if layout == "board":
        pitch = edge * rng.uniform(1.12, 1.3)
        grid_yaw = float(rng.uniform(0, 2 * math.pi))
        cells = _board_positions(n_dice, pitch, rng)
        cxy = np.array(cells, np.float64)
        mid = (cxy.min(axis=0) + cxy.max(axis=0)) / 2
        rot2 = _rot_z(grid_yaw)[:2, :2]
        positions = [tuple(rot2 @ ((np.array(c) - np.round(mid)) * pitch)) for c in cells]
        yaws = [grid_yaw + float(rng.normal(0, 0.06)) + math.pi / 2 * int(rng.integers(4)) for _ in cells]
        span = (cxy.max(axis=0) - cxy.min(axis=0) + 1) * pitch
        board_size = (max(span[0] + rng.uniform(2, 5) * pitch, 12 * pitch), max(span[1] + rng.uniform(2, 4) * pitch, 8 * pitch))
        board = (np.zeros(3), board_size, pitch, grid_yaw)
    else:
        positions, yaws = _thrown_positions(n_dice, edge, rng)
    for (x, y), yaw, faces in zip(positions, yaws, dealt):
        rot = _rot_z(yaw)
        tilt = float(abs(rng.normal(0, 0.03))) if layout == "thrown" else 0.0
        if tilt:
            rot = _rot_axis(np.array([math.cos(rng.uniform(0, 6.3)), math.sin(rng.uniform(0, 6.3)), 0.0]), tilt) @ rot
        centre = np.array([x, y, edge / 2 + edge * tilt * 0.7])
        dice.append(Die(centre, edge, rot, {n: (t, int(rng.integers(4))) for n, t in zip(FACE_NAMES, faces)}))

    # ---- camera
    pts = np.array([d.centre[:2] for d in dice]) if dice else np.zeros((1, 2))
    lo_xy, hi_xy = pts.min(axis=0) - edge, pts.max(axis=0) + edge
    if board is not None and rng.random() < 0.4:  # sometimes more of the board is in the picture
        half = np.array(board[1]) / 2
        lo_xy, hi_xy = np.minimum(lo_xy, -half.max()), np.maximum(hi_xy, half.max())
    # players photograph their dice from close by: the frame is never so wide that a die is tiny
    radius = float(min(np.linalg.norm(hi_xy - lo_xy) / 2, edge * 7.5))
    target = np.array([*((lo_xy + hi_xy) / 2), 0.0])
    hfov_deg = rng.uniform(50, 68)
    fx = width / 2 / math.tan(math.radians(hfov_deg) / 2)  # focal length in pixels, as look_at makes it
    half_small = min(width, height) / 2 / fx  # tan of the half field of view across the short side
    fill = rng.uniform(0.6, 1.05)
    distance = radius / (fill * half_small)
    elevation = rng.uniform(48, 90)  # degrees above the table
    image_corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    cam = None
    for _ in range(20):
        jitter = rng.normal(0, radius * 0.12, 2)
        heading = math.degrees(rng.uniform(0, 2 * math.pi))  # the way the camera looks across the table
        roll = math.degrees(rng.normal(0, 0.08))
        cam = look_at(width, height, hfov_deg, target + np.array([*jitter, 0.0]), 90.0 - elevation, heading + 180.0,
                      distance, roll)
        # every image corner must look down at the table (no horizon in the picture)
        if (cam.rays(image_corners)[:, 2] < -0.05).all():
            break
        elevation = min(90.0, elevation + 5.0)
    assert cam is not None

    # ---- table plane texture
    hp = cam.ground_homography()
    inv = np.linalg.inv(hp)
    img_corners = np.array([[0, 0, 1], [width, 0, 1], [width, height, 1], [0, height, 1]], np.float64)
    plane = (inv @ img_corners.T).T
    plane = plane[:, :2] / plane[:, 2:3]
    p_lo, p_hi = plane.min(axis=0) - 20, plane.max(axis=0) + 20
    extent = p_hi - p_lo
    ppm = float(min(1400 / max(extent), 6.0))  # texture pixels per mm: enough for the photo's resolution
    tw, th = int(extent[0] * ppm) + 1, int(extent[1] * ppm) + 1
    background = str(rng.choice(spec.backgrounds))
    # uint8 while drawing: OpenCV's text and anti-aliased shapes want 8-bit images
    tex = np.clip(BACKGROUNDS[background](th, tw, rng, ppm), 0, 255).astype(np.uint8)

    def to_tex(xy: np.ndarray) -> np.ndarray:
        return (np.asarray(xy, np.float64) - p_lo) * ppm

    if board is not None:
        _draw_board(tex, to_tex, board[0], board[1], board[2], board[3], rng, ppm)
    clutter_spots = [np.array([*(target[:2] + rng.normal(0, radius * 1.2, 2))]) for _ in range(int(rng.integers(0, 3)))]
    for spot in clutter_spots:
        if min(np.linalg.norm(pts - spot, axis=1)) < edge * 4:
            continue  # keep clutter off the dice
        if rng.random() < 0.6:
            _draw_sheet(tex, to_tex, spot, float(rng.uniform(0, 6.3)), rng, ppm)
        else:
            _draw_cup(tex, to_tex, spot, rng, ppm)

    blanks: list[np.ndarray] = []
    if spec.blanks and rng.random() < spec.blanks:
        # around the dice, never under them (the rng is only drawn from here for splits with blanks,
        # so the held-out test photos stay byte for byte what they were)
        cand = target[:2] + rng.uniform(-1.3, 1.3, (int(rng.integers(2, 9)), 2)) * radius
        far = np.array([min(np.linalg.norm(pts - c, axis=1)) > edge * 1.6 for c in cand], bool)
        blanks = _draw_blanks(tex, to_tex, cand[far], edge, rng, ppm)

    # light: direction toward the lamp
    l_el, l_az = math.radians(rng.uniform(35, 80)), rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(l_el) * math.cos(l_az), math.cos(l_el) * math.sin(l_az), math.sin(l_el)])
    shadow = np.zeros((th, tw), np.float32)
    contact = np.zeros((th, tw), np.float32)
    for d in dice:
        corners = d.corners()
        cast = corners[:, :2] - corners[:, 2:3] / light[2] * light[:2]
        hull = cv2.convexHull(np.round(to_tex(cast) * 16).astype(np.int32))
        cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, 4)
        foot = cv2.convexHull(np.round(to_tex(corners[:, :2]) * 16).astype(np.int32))
        cv2.fillConvexPoly(contact, foot, 1.0, cv2.LINE_AA, 4)
    soft = max(0.8, edge * ppm * rng.uniform(0.05, 0.2))
    shadow = cv2.GaussianBlur(shadow, (0, 0), soft)
    contact = cv2.GaussianBlur(contact, (0, 0), max(0.8, edge * ppm * 0.12))
    strength = rng.uniform(0.3, 0.6)
    tex = tex.astype(np.float32) * (1 - strength * shadow - 0.25 * contact).clip(0.2, 1)[:, :, None]

    a = np.array([[ppm, 0, -p_lo[0] * ppm], [0, ppm, -p_lo[1] * ppm], [0, 0, 1]])
    img = cv2.warpPerspective(tex, hp @ np.linalg.inv(a), (width, height), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)

    # ---- dice, far to near
    ambient = rng.uniform(0.45, 0.65)
    face_alpha = _rounded_alpha(FACE_PX, style.corner * 0.6)
    falloff = _edge_falloff(FACE_PX)
    order = sorted(range(len(dice)), key=lambda i: -float(np.linalg.norm(dice[i].centre - cam.C)))
    labels: list[dict | None] = [None] * len(dice)
    sides: list[dict] = []
    for i in order:
        d = dice[i]
        visible = []
        for name in FACE_NAMES:
            corners3, normal = d.face_corners(name)
            centre = corners3.mean(axis=0)
            if normal.dot(cam.C - centre) <= 0:
                continue
            visible.append((name, corners3, normal))
        # body silhouette first: the rounded edges between the faces are plastic too
        proj_all = cam.project(d.corners())[0].astype(np.float32)
        hull = cv2.convexHull(np.round(proj_all * 16).astype(np.int32))
        body = np.array(style.body, np.float32) * ambient * 0.85
        cv2.fillConvexPoly(img, hull, body.tolist(), cv2.LINE_AA, 4)
        for name, corners3, normal in visible:
            tile, _quarter = d.faces[name]
            shade = ambient + (1 - ambient) * max(0.0, float(normal.dot(light)))
            face = render_face(tile, style, rng).astype(np.float32)
            face *= falloff[:, :, None] * shade
            # a little sheen across the face, brighter toward the lamp
            g = np.linspace(-1, 1, FACE_PX, dtype=np.float32)
            face *= (1 + rng.uniform(-0.06, 0.06) * g[None, :, None] + rng.uniform(-0.06, 0.06) * g[:, None, None])
            quad = cam.project(corners3)[0].astype(np.float32)
            _composite(img, face, face_alpha, quad)
            if name == "+z":
                up = (quad[0] + quad[1]) / 2 - (quad[3] + quad[2]) / 2
                up = up / (np.linalg.norm(up) + 1e-9)
                labels[i] = {"code": tile.code, "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                             "up": [round(float(up[0]), 4), round(float(up[1]), 4)], "die": i}
            else:
                sides.append({"code": tile.code, "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                              "die": i, "area": round(_polygon_area(quad), 1)})

    # ---- camera effects
    img = _camera_effects(img, rng)
    meta = {"scene": layout, "background": background, "die_mm": round(edge, 2), "split": split,
            "elevation_deg": round(elevation, 1), "font": style.font}
    if blanks:  # blank squares in the photo (pixels): not dice, the reader learns them as "none"
        meta["blanks"] = [[[round(float(x), 2), round(float(y), 2)] for x, y in cam.project(np.c_[sq, np.zeros(4)])[0]]
                          for sq in blanks]
    return Scene(img, [lab for lab in labels if lab is not None], sides, meta)


def _camera_effects(img: np.ndarray, rng: Rng) -> np.ndarray:
    h, w = img.shape[:2]
    # uneven light: a lamp off to one side, and vignetting
    cx, cy = rng.uniform(-0.5, 1.5) * w, rng.uniform(-0.5, 1.5) * h
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dist = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / max(h, w)
    light = 1.0 - rng.uniform(0.0, 0.35) * np.clip(dist, 0, 1.5) / 1.5
    vig = 1.0 - rng.uniform(0.0, 0.25) * (((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2) / 2
    gain = rng.uniform(0.75, 1.2) * np.array([rng.uniform(0.88, 1.1), 1.0, rng.uniform(0.88, 1.1)], np.float32)
    img = img * (light * vig)[:, :, None] * gain + rng.uniform(-12, 12)
    if rng.random() < 0.15:  # glare from a lamp
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.05, 0.2) * max(w, h)
        glare = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r)) * rng.uniform(30, 90)
        img = img + glare[:, :, None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    choice = rng.random()
    if choice < 0.15:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0), (k, k))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    elif choice < 0.6:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    if rng.random() < 0.7:
        noise = rng.normal(0, rng.uniform(1.5, 7), img.shape[:2] + (1,)) + rng.normal(0, 1.5, img.shape)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return img


# --------------------------------------------------------------------------- writing splits

def scene_rng(seed: int, split: str, index: int) -> Rng:
    """The generator of one scene: the same (seed, split, index) always gives the same photo."""
    return np.random.default_rng([seed, SPLITS[split].stream, index])


def _write_scene(folder: Path, split: str, seed: int, i: int) -> int:
    """Render scene ``i`` of ``split`` and write its photo and labels; returns its number of dice."""
    rng = scene_rng(seed, split, i)
    # a few photos show fewer dice (some still in the cup): the detector must not count
    n = 9 if rng.random() < 0.9 else int(rng.integers(5, 9))
    scene = render_scene(rng, split, n_dice=n)
    name = f"dice_{split}_{i:05d}"
    quality = int(rng.integers(60, 96))
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    (folder / "labels" / f"{name}.txt").write_text("\n".join(scene.label_rows()) + "\n")
    data = scene.to_json()
    data.update({"image": f"{name}.jpg", "seed": seed, "index": i, "jpeg_quality": quality})
    (folder / "dice" / f"{name}.json").write_text(json.dumps(data) + "\n")
    return len(scene.dice)


def write_split(out: Path, split: str, count: int, seed: int, progress: bool = True, workers: int = 1) -> int:
    """Render ``count`` scenes of ``split`` into ``out/split``; returns the number of dice labelled.

    Every scene has its own generator (:func:`scene_rng`), so ``workers`` processes give the same
    files as one.
    """
    from tqdm import tqdm

    folder = out / split
    for sub in ("images", "labels", "dice"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    job = functools.partial(_write_scene, folder, split, seed)
    bar = dict(total=count, desc=f"dice {split}", disable=not progress, mininterval=2)
    if workers <= 1:
        return sum(tqdm(map(job, range(count)), **bar))
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return sum(tqdm(pool.imap(job, range(count), chunksize=4), **bar))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets.synth_dice", description="Render synthetic Rummikub Dice scenes.")
    parser.add_argument("--out", default="data/dice", help="output folder (default data/dice)")
    parser.add_argument("--train", type=int, default=2000, help="training photos")
    parser.add_argument("--val", type=int, default=200, help="validation photos")
    parser.add_argument("--test", type=int, default=300, help="held-out test photos (unseen backgrounds and die sizes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="rendering processes (the files do not depend on it)")
    args = parser.parse_args(argv)
    for name in ("train", "val", "test"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must be 0 or more")
    out = Path(args.out)
    for split in ("train", "val", "test"):
        n = getattr(args, split)
        if n:
            dice = write_split(out, split, n, args.seed, workers=args.workers)
            print(f"{split}: {n} photos, {dice} dice in {out / split}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
