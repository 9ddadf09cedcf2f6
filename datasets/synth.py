"""Synthetic Rummikub photos with exact labels, for the tile detector and the tile reader.

    python -m datasets.synth --out data/synthetic --train 2000 --val 200 --test 200 --seed 0 [--size 1024] [--workers 1]

Each image is a 3D scene seen by a pinhole camera: a procedural table (wood, marble, felt, plain,
fabric, prints, noise), tiles of several editions lying flat in rows of sets, scattered at random,
or standing on a dark plastic rack in one or two rows, under one light with shadows, then uneven
light, glare, blur, noise and JPEG artefacts. Every image comes from its own seed
``(seed, split, index)``, so the output does not depend on the number of worker processes.

Output per split folder (``OUT/train``, ``OUT/val``, ``OUT/test``):

* ``images/NNNNNN.jpg``
* ``labels/NNNNNN.txt``: ultralytics polygon rows, one class (0 = tile):
  ``0 x1 y1 x2 y2 x3 y3 x4 y4``, normalised and clipped to the image, corners of the tile FACE in
  the order top-left, top-right, bottom-right, bottom-left of the UPRIGHT tile (so the face's
  "up" is the direction from the bottom edge to the top edge).
* ``tiles/NNNNNN.json``: the scene record, see :func:`render_scene` (codes, pixel polygons in the
  same order, joker colour, edition, set and rack membership).

``OUT/data.yaml`` (ultralytics) and a dataset card (``datasets/cards/synthetic.md`` by default) are
written at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from datasets.render_scene import Lighting, Slab, camera_effects, draw_slab, look_at, render_ground, shadow_polygon
from datasets.render_textures import BACKGROUND_WEIGHTS, backdrop, make_background, plastic_texture
from datasets import fonts
from datasets.render_tiles import EDITION_WEIGHTS, JOKER_COLOURS, TileStyle, render_back, render_face, sample_style
from referee.tiles import JOKER, Colour, Tile

__all__ = ["SPLITS", "SCENE_KINDS", "SceneTile", "render_scene", "write_split", "generate", "main", "choose_weighted", "flat_axes"]

Rng = np.random.Generator
# ``fonts``: a test split whose numerals come only in the families held out of training
# (datasets.fonts.HELD_OUT), one family per image, to measure the reader on typefaces it never saw.
SPLITS = ("train", "val", "test", "fonts")
_SPLIT_IDS = {"train": 0, "val": 1, "test": 2, "fonts": 3}
# "empty" = a table with no tiles (maybe face-down tiles or a score pad): the detector must stay quiet.
SCENE_KINDS = {"table": 0.41, "scatter": 0.16, "rack": 0.26, "mixed": 0.15, "empty": 0.02}
CARD_PATH = Path(__file__).resolve().parent / "cards" / "synthetic.md"
TILE_H_MM = 34.0  # face height of an Original tile; editions vary around it
HIDDEN_BELOW = 0.4  # a tile showing less of its face than this is "hidden": not labelled for the detector
PARTLY_HIDDEN_BELOW = 0.9  # below this, the detector's label is the box of the visible part of the face


# --------------------------------------------------------------------------- content

class Bag:
    """The tiles of one game not yet laid out: two of each numbered tile and two jokers
    (RULES.md section 1), so a scene never shows a third copy."""

    def __init__(self, rng: Rng) -> None:
        self.counts = np.full(53, 2, np.int32)
        colours = list(JOKER_COLOURS)
        if rng.random() < 0.3:  # some editions print both jokers in one colour
            colours = [colours[int(rng.integers(2))]] * 2
        self.joker_colours = colours

    def available(self, tile: Tile) -> bool:
        return bool(self.counts[tile.index] > 0)

    def take(self, tile: Tile) -> str | None:
        """Remove ``tile``; for a joker return its colour."""
        if self.counts[tile.index] <= 0:
            raise ValueError(f"no {tile.code} left in the bag")
        self.counts[tile.index] -= 1
        if tile.is_joker:
            return self.joker_colours[int(self.counts[52])]
        return None

    def random_tile(self, rng: Rng) -> Tile | None:
        total = int(self.counts.sum())
        if total == 0:
            return None
        return Tile.from_index(int(rng.choice(53, p=self.counts / total)))


def _with_jokers(tiles: list[Tile], bag: Bag, rng: Rng, p_joker: float) -> list[tuple[Tile, str | None]] | None:
    """Take ``tiles`` from the bag, standing a joker in for missing ones (and sometimes by choice)."""
    want = list(tiles)
    if rng.random() < p_joker:
        want[int(rng.integers(len(want)))] = JOKER
    need = Counter(want)
    jokers_needed = 0
    for t, k in need.items():
        short = max(0, k - int(bag.counts[t.index])) if not t.is_joker else 0
        jokers_needed += short
    if need[JOKER] + jokers_needed > bag.counts[52] or jokers_needed > 1:
        return None
    out: list[tuple[Tile, str | None]] = []
    for t in want:
        if not t.is_joker and not bag.available(t):
            t = JOKER
        out.append((t, bag.take(t)))
    if all(t.is_joker for t, _ in out):  # a set of only jokers is not a set (RULES.md section 2)
        return None
    return out


_RUN_LENGTHS = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
_RUN_WEIGHTS = np.array([30, 25, 16, 10, 7, 4, 3, 2, 1.2, 1, 0.8])


def make_set(rng: Rng, bag: Bag, max_tiles: int) -> tuple[str, list[tuple[Tile, str | None]]] | None:
    """A run or group (RULES.md section 2) of at most ``max_tiles`` tiles still in the bag, or now
    and then a row of arbitrary tiles (a referee must see invalid tables too). None if none fits."""
    for _ in range(12):
        r = rng.random()
        if r < 0.07 and max_tiles >= 2:
            n = int(rng.integers(2, min(5, max_tiles) + 1))
            tiles = [bag.random_tile(rng) for _ in range(n)]
            if any(t is None for t in tiles):
                return None
            got = _with_jokers([t for t in tiles if t is not None], bag, rng, 0.0)
            if got:
                return "random", got
        elif r < 0.55 and max_tiles >= 3:
            ok = _RUN_LENGTHS <= max_tiles
            length = int(rng.choice(_RUN_LENGTHS[ok], p=_RUN_WEIGHTS[ok] / _RUN_WEIGHTS[ok].sum()))
            colour = list(Colour)[int(rng.integers(4))]
            start = int(rng.integers(1, 14 - length + 1))
            got = _with_jokers([Tile(colour, n) for n in range(start, start + length)], bag, rng, 0.12)
            if got:
                return "run", got
        elif max_tiles >= 3:
            number = int(rng.integers(1, 14))
            k = 4 if (rng.random() < 0.45 and max_tiles >= 4) else 3
            colours = [list(Colour)[i] for i in rng.permutation(4)[:k]]
            got = _with_jokers([Tile(c, number) for c in colours], bag, rng, 0.1)
            if got:
                return "group", got
    return None


# --------------------------------------------------------------------------- scene records

@dataclass
class SceneTile:
    """One tile of a scene: what it is, where it lies (3D) and what it belongs to."""

    tile: Tile
    joker_colour: str | None
    style: TileStyle
    centre: np.ndarray  # centre of the face, world mm
    u: np.ndarray  # face right
    v: np.ndarray  # face up
    h_mm: float
    set_index: int | None = None
    order: int | None = None
    rack: int | None = None
    rack_row: int | None = None
    rack_slot: int | None = None
    polygon: np.ndarray | None = None  # set once drawn

    def slab(self, face: np.ndarray) -> Slab:
        h = self.h_mm
        return Slab(self.centre, self.u, self.v, h * self.style.aspect, h, h * self.style.thickness, self.style.body, face)


@dataclass
class SceneSet:
    index: int
    kind: str
    codes: list[str]
    row: int


@dataclass
class Scene:
    kind: str
    tiles: list[SceneTile] = field(default_factory=list)
    sets: list[SceneSet] = field(default_factory=list)
    rack_parts: list[Slab] = field(default_factory=list)
    # Back-to-front drawing order of the rack: a part, or the number of a row of tiles.
    rack_draw: list[Slab | int] = field(default_factory=list)
    distractors: list[tuple[str, Slab]] = field(default_factory=list)


def _rot2(vec: np.ndarray, ang: float) -> np.ndarray:
    c, s = math.cos(ang), math.sin(ang)
    return np.array([c * vec[0] - s * vec[1], s * vec[0] + c * vec[1]])


def flat_axes(up2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Face axes (u right, v up) of a tile lying face up with its top towards ``up2``."""
    up2 = up2 / np.linalg.norm(up2)
    v = np.array([up2[0], up2[1], 0.0])
    u = np.array([up2[1], -up2[0], 0.0])  # u x v = +z: face up
    return u, v


def _pick_style(rng: Rng, styles: list[TileStyle]) -> TileStyle:
    return styles[0] if len(styles) == 1 or rng.random() < 0.85 else styles[int(rng.integers(len(styles)))]


def layout_table(rng: Rng, bag: Bag, styles: list[TileStyle], h_mm: float, origin: np.ndarray, up2: np.ndarray,
                 extent: tuple[float, float, float, float], scene: Scene) -> None:
    """Rows of sets on the table, like a game in progress, in a frame whose "up" is ``up2``.

    ``extent`` = (xmin, xmax, ymin, ymax) in frame coordinates (x right, y up, mm from ``origin``).
    """
    style0 = styles[0]
    w = h_mm * style0.aspect
    xmin, xmax, ymin, ymax = extent
    right2 = np.array([up2[1], -up2[0]])
    touching = rng.random() < 0.6
    gap_in = rng.uniform(0.2, 0.8) if touching else rng.uniform(0.8, 0.25 * w)
    row_gap = rng.uniform(0.1, 1.2) * h_mm
    p_skip = rng.uniform(0.0, 0.45)
    sloppy = rng.random() < 0.25
    y = ymax - h_mm / 2 - rng.uniform(0, 0.5) * h_mm
    row = 0
    while y > ymin + h_mm / 2 and len(scene.tiles) < 120:
        flipped = rng.random() < 0.1  # a row laid by the player across the table
        x = xmin + rng.uniform(0, 1.5) * w
        row_angle = rng.normal(0, math.radians(1.5 if not sloppy else 4))
        while True:
            room = int((xmax - x + gap_in) // (w + gap_in))
            if room < 2:
                break
            if rng.random() < p_skip:
                x += rng.uniform(1, 4) * w
                continue
            made = make_set(rng, bag, min(room, 13))
            if made is None:
                break
            kind, tiles = made
            index = len(scene.sets)
            scene.sets.append(SceneSet(index, kind, [t.code for t, _ in tiles], row))
            n = len(tiles)
            for i, (tile, jc) in enumerate(tiles):
                k = (n - 1 - i) if flipped else i  # a flipped row reads right to left in the frame
                fx = x + w / 2 + k * (w + gap_in) + rng.normal(0, 0.2 if touching else 0.6)
                fy = y + rng.normal(0, 0.3 if not sloppy else 1.2)
                pos = origin + fx * right2 + fy * up2
                ang = row_angle + rng.normal(0, math.radians(0.6 if touching else (1.5 if not sloppy else 5)))
                tile_up = _rot2(up2, ang) * (-1 if flipped else 1)
                u, v = flat_axes(tile_up)
                st = _pick_style(rng, styles)
                centre = np.array([pos[0], pos[1], h_mm * st.thickness])
                scene.tiles.append(SceneTile(tile, jc, st, centre, u, v, h_mm, set_index=index, order=i))
            x += n * (w + gap_in) - gap_in + rng.uniform(0.4, 2.5) * w
        y -= h_mm + row_gap * rng.uniform(0.7, 1.3)
        row += 1


def layout_scatter(rng: Rng, styles: list[TileStyle], h_mm: float, origin: np.ndarray, up2: np.ndarray,
                   extent: tuple[float, float, float, float], scene: Scene, count: int) -> None:
    """Loose tiles at random places and angles (a pool, a hand spread out, a close-up of a few).

    Tiles are drawn evenly over the 53 kinds (not from a game's bag) to balance the reader's classes.
    """
    w = h_mm * styles[0].aspect
    radius = 0.5 * math.hypot(w, h_mm) * 1.03
    right2 = np.array([up2[1], -up2[0]])
    xmin, xmax, ymin, ymax = extent
    any_angle = rng.random() < 0.7
    placed: list[np.ndarray] = [t.centre[:2] for t in scene.tiles]
    for _ in range(count * 20):
        if count <= 0:
            break
        fx, fy = rng.uniform(xmin + w / 2, xmax - w / 2), rng.uniform(ymin + h_mm / 2, ymax - h_mm / 2)
        pos = origin + fx * right2 + fy * up2
        if any(np.linalg.norm(pos - p) < 2 * radius for p in placed):
            continue
        placed.append(pos)
        index = int(rng.integers(53))
        tile = Tile.from_index(index)
        jc = str(rng.choice(JOKER_COLOURS)) if tile.is_joker else None
        ang = rng.uniform(0, 2 * math.pi) if any_angle else rng.normal(0, math.radians(10))
        u, v = flat_axes(_rot2(up2, ang))
        st = _pick_style(rng, styles)
        scene.tiles.append(SceneTile(tile, jc, st, np.array([pos[0], pos[1], h_mm * st.thickness]), u, v, h_mm))
        count -= 1


def _rack_texture(plastic: np.ndarray, rng: Rng) -> np.ndarray:
    """The rack's plastic, sometimes with a moulded wordmark on the front bar."""
    tex = np.dstack([plastic, np.full(plastic.shape[:2], 255, np.uint8)])
    if rng.random() < 0.5:
        from datasets.render_tiles import text_mask

        word = str(rng.choice(["Rummikub", "RUMMIKUB", "Rummikub Original"]))
        m = text_mask(word, str(rng.choice(["dejavu_sans", "dejavu_serif"])), 48, 0)
        H, W = tex.shape[:2]
        th = int(H * rng.uniform(0.25, 0.45))
        tw = min(int(m.shape[1] * th / m.shape[0]), W // 3)
        m = cv2.resize(m, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
        x0, y0 = int(rng.uniform(0.1, 0.9) * (W - tw)), int((H - th) * rng.uniform(0.3, 0.7))
        roi = tex[y0:y0 + th, x0:x0 + tw, :3].astype(np.float32)
        lift = rng.uniform(1.4, 2.4) if rng.random() < 0.7 else rng.uniform(0.5, 0.7)  # raised light or dark print
        tex[y0:y0 + th, x0:x0 + tw, :3] = np.clip(roi * (1 - m) + np.clip(roi * lift + 12, 0, 255) * m, 0, 255).astype(np.uint8)
    return tex


def build_rack(rng: Rng, bag: Bag, styles: list[TileStyle], h_mm: float, base: np.ndarray, front2: np.ndarray,
               scene: Scene, plastic: np.ndarray, rack_index: int = 0) -> None:
    """A player's rack standing on the table at ``base`` (front edge centre), its front facing
    ``front2``, with one, two or three tiers of tiles leaning back 5-20 degrees (row 0 = the top,
    back tier). Each tier stands on a step above the one in front, whose tiles hide its lower part."""
    st0 = styles[0]
    w = h_mm * st0.aspect
    t = h_mm * st0.thickness
    ex = np.array([-front2[1], front2[0], 0.0])  # along the rack, left to right seen from the front
    ey = np.array([-front2[0], -front2[1], 0.0])  # towards the back
    ez = np.array([0.0, 0.0, 1.0])
    lean = math.radians(rng.uniform(5, 20))
    vt = ey * math.sin(lean) + ez * math.cos(lean)  # up along the leaning face
    nt = np.cross(ex, vt)  # face normal: front and a little up
    r = rng.random()
    tiers = 1 if r < 0.2 else (2 if r < 0.75 else 3)
    capacity = int(rng.integers(11, 18))
    gap = rng.uniform(0.3, 1.5)
    length = capacity * (w + gap) + rng.uniform(10, 30)
    grey = float(rng.uniform(14, 48) if rng.random() < 0.75 else rng.uniform(60, 130))  # black, or grey plastic
    colour = (int(grey), int(grey), int(grey * rng.uniform(0.95, 1.08)))
    base = np.array([base[0], base[1], 0.0])
    z0 = rng.uniform(4, 9)
    b_low = base + ey * rng.uniform(7, 12) + ez * z0  # bottom edge centre of the front (lowest) tier
    panel_t = 3.0
    front_tex = _rack_texture(plastic, rng)
    plain_tex = np.dstack([plastic, np.full(plastic.shape[:2], 255, np.uint8)])

    def panel(bottom: np.ndarray, height: float, tex: np.ndarray) -> Slab:
        # A leaning plastic wall whose front face starts at ``bottom`` (and reaches down to the table).
        drop = bottom[2] / max(math.cos(lean), 0.1)
        start = bottom - vt * drop
        total = height + drop
        return Slab(start + vt * total / 2, ex, vt, length, total, panel_t, colour, tex, side_gain=1.1)

    # Front to back: each tier's wall, and the step the next tier stands on.
    bases = [b_low]
    walls: list[Slab] = []
    steps: list[Slab | None] = [None]
    for k in range(tiers):
        b = bases[k]
        last = k == tiers - 1
        # A wall lower than the tiles lets the tier behind show above them; the last wall backs the top tier.
        wall_h = h_mm * (rng.uniform(0.62, 1.0) if not last else rng.uniform(1.0, 1.2))
        walls.append(panel(b - nt * t, wall_h, front_tex if k == 0 else plain_tex))
        if not last:
            top = b - nt * (t + panel_t) + vt * wall_h
            nb = top + ey * (rng.uniform(2, 5) + t) + ez * 0.5
            depth = float(np.dot(nb - top, ey))
            steps.append(Slab(top + ey * depth / 2, ex, ey, length, depth + 2.0, 2.0, colour, None, 1.0))
            bases.append(nb)
    lip = Slab(base + ey * rng.uniform(3, 6) + ez * (z0 + rng.uniform(1, 3)), ex, ey, length, rng.uniform(5, 9),
               z0 + 2.0, colour, None, 1.0)
    # Rows are numbered from the top (back) tier: row 0 is the back tier.
    row_of_tier = {k: tiers - 1 - k for k in range(tiers)}
    draw: list[Slab | int] = []
    for k in reversed(range(tiers)):  # back to front: nothing drawn later is behind anything drawn earlier
        draw.append(walls[k])
        step = steps[k]
        if step is not None:
            draw.append(step)
        draw.append(row_of_tier[k])
    draw.append(lip)
    scene.rack_draw = draw
    scene.rack_parts = [p for p in draw if isinstance(p, Slab)]
    for k, b_row in enumerate(bases):
        rid = row_of_tier[k]
        # A hand of tiles, often sorted the way players do, in clusters with gaps between them.
        n = int(rng.integers(2, capacity + 1))
        hand: list[tuple[Tile, str | None]] = []
        for _ in range(n):
            tile = bag.random_tile(rng)
            if tile is None:
                break
            hand.append((tile, bag.take(tile)))
        if rng.random() < 0.6:
            by_number = rng.random() < 0.3
            hand.sort(key=lambda tc: (tc[0].number or 99, tc[0].sort_key) if by_number else tc[0].sort_key)
        free = capacity - len(hand)
        gaps_at = Counter(int(g) for g in rng.integers(1, len(hand) + 1, size=max(0, free))) if hand else Counter()
        slot = int(rng.integers(0, min(free, 2) + 1)) if free > 0 else 0
        start = -length / 2 + rng.uniform(3, 8)
        for i, (tile, jc) in enumerate(hand):
            slot += min(gaps_at.get(i, 0), 2)
            wx = start + (slot + 0.5) * (w + gap)
            if wx + w / 2 > length / 2:
                break
            st = _pick_style(rng, styles)
            upside = rng.random() < 0.03  # a tile put in upside down
            u, v = (ex, vt) if not upside else (-ex, -vt)
            centre = b_row + ex * (wx + rng.normal(0, 0.3)) + vt * (h_mm / 2)
            scene.tiles.append(SceneTile(tile, jc, st, centre, u, v, h_mm, rack=rack_index, rack_row=rid, rack_slot=i))
            slot += 1


# --------------------------------------------------------------------------- rendering

def choose_weighted(rng: Rng, weights: dict[str, float]) -> str:
    """One key of ``weights``, drawn with probability proportional to its weight."""
    keys = list(weights)
    p = np.array([weights[k] for k in keys], np.float64)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def _image_size(rng: Rng, size: int) -> tuple[int, int]:
    long = size if rng.random() > 0.15 else int(size * rng.uniform(1.25, 1.6)) // 32 * 32
    ratio = float(rng.choice([4 / 3, 16 / 9, 1.0, 3 / 2], p=[0.6, 0.25, 0.05, 0.1]))
    short = int(round(long / ratio / 2)) * 2
    return (long, short) if rng.random() > 0.35 else (short, long)


def _visible_fraction(poly: np.ndarray, W: int, H: int) -> float:
    area = abs(cv2.contourArea(poly.astype(np.float32)))
    if area < 1:
        return 0.0
    rect = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    inter, _ = cv2.intersectConvexConvex(poly.astype(np.float32), rect)
    return float(inter) / area


def _overlaps(poly: np.ndarray, hull: np.ndarray | None) -> bool:
    if hull is None:
        return False
    inter, _ = cv2.intersectConvexConvex(poly.astype(np.float32), hull.astype(np.float32))
    return inter > 0


def _paper(rng: Rng, h_mm: float) -> np.ndarray:
    """A score pad page: ruled lines and handwritten-looking numbers (digits that are not tiles)."""
    H, W = 360, 260
    paper = np.full((H, W, 3), rng.uniform(225, 250), np.float32) * rng.uniform(0.95, 1.05, 3)[None, None, :]
    img = np.clip(paper, 0, 255).astype(np.uint8)  # OpenCV draws text on 8-bit images only
    for y in range(40, H, 28):
        cv2.line(img, (10, y), (W - 10, y), (200, 170, 150), 1, cv2.LINE_AA)
    ink = (140, 60, 20) if rng.random() < 0.6 else (30, 30, 30)
    for y in range(36, H - 10, 28):
        if rng.random() < 0.8:
            text = " ".join(str(int(rng.integers(0, 150))) for _ in range(int(rng.integers(1, 4))))
            cv2.putText(img, text, (int(rng.uniform(12, 40)), y), int(rng.choice([cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX])),
                        rng.uniform(0.7, 1.0), ink, 2, cv2.LINE_AA)
    return np.dstack([img, np.full((H, W), 255, np.uint8)])


def _visibility(tiles: list[SceneTile], owner: np.ndarray) -> dict[int, tuple[float, list[float] | None]]:
    """Per drawn tile: the share of its face still seen in ``owner`` and the box of that part (pixels)."""
    out: dict[int, tuple[float, list[float] | None]] = {}
    h, w = owner.shape
    for i, st in enumerate(tiles):
        if st.polygon is None:
            continue
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round(st.polygon / 2 * 4).astype(np.int32), 1, cv2.LINE_8, 2)
        area = int(mask.sum())
        if area == 0:
            out[i] = (0.0, None)
            continue
        seen = (mask == 1) & (owner == i + 1)
        n = int(seen.sum())
        if n == 0:
            out[i] = (0.0, None)
            continue
        ys, xs = np.nonzero(seen)
        out[i] = (n / area, [float(xs.min() * 2), float(ys.min() * 2), float(min(xs.max() * 2 + 2, w * 2)),
                             float(min(ys.max() * 2 + 2, h * 2))])
    return out


DOF_LEVELS = (0.7, 1.0, 1.4, 2.0, 2.8, 4.0, 5.6, 8.0, 11.0, 16.0)  # blur sigmas (px) the depth of field is drawn with
DOF_SHARP_BELOW = DOF_LEVELS[0] * 0.85  # a sigma under this is drawn sharp (and not recorded)
APERTURE_MM = (1.5, 6.0)  # entrance pupil of a phone's main camera (f 4-7 mm at f/1.5-2.2), up to a portrait mode's fake


def defocus_sigma(focal_px: float, aperture_mm: float, focus_mm: float, dist_mm: np.ndarray | float) -> np.ndarray:
    """Blur (Gaussian sigma, px) of a point ``dist_mm`` from a thin lens focused at ``focus_mm``.

    The circle of confusion's diameter is ``focal_px * aperture_mm * |1/focus - 1/dist|``; a
    disc of diameter c has a standard deviation of c/4 along each axis. Infinity blurs most."""
    dist = np.asarray(dist_mm, np.float64)
    inv = np.where(np.isfinite(dist), 1.0 / np.maximum(dist, 1.0), 0.0)
    return focal_px * aperture_mm * np.abs(1.0 / focus_mm - inv) / 4.0


def _rack_depth_of_field(img: np.ndarray, scene: Scene, owner: np.ndarray, rng: Rng, cam, dist: np.ndarray) -> dict[int, float]:  # noqa: ANN001
    """A phone's depth of field on a rack close-up: focused on one tier, every tile and the table
    blurred by its own circle of confusion (:func:`defocus_sigma`; a phone's small aperture leaves
    the tiers a few centimetres apart nearly sharp and softens what lies far beyond). Returns each
    blurred tile's sigma (px), by index into ``scene.tiles``."""
    rows = sorted({t.rack_row for t in scene.tiles if t.rack_row is not None})
    if not rows:
        return {}
    focus = rows[-1] if rng.random() < 0.7 else int(rng.choice(rows))  # mostly the front tier
    H, W = img.shape[:2]
    aperture = math.exp(rng.uniform(math.log(APERTURE_MM[0]), math.log(APERTURE_MM[1])))
    ranges = {i: float(np.linalg.norm(st.centre - cam.C)) for i, st in enumerate(scene.tiles)}
    focus_mm = float(np.median([ranges[i] for i, st in enumerate(scene.tiles) if st.rack_row == focus]))
    sigmas = {i: float(defocus_sigma(cam.focal, aperture, focus_mm, r)) for i, r in ranges.items()}
    levels = np.array(DOF_LEVELS)

    def level(sigma: np.ndarray) -> np.ndarray:  # index of the nearest level (log scale); -1: sharp
        idx = np.abs(np.log(np.maximum(sigma, 1e-3))[..., None] - np.log(levels)).argmin(axis=-1)
        return np.where(sigma < DOF_SHARP_BELOW, -1, idx)

    small_h, small_w = owner.shape
    ground_sigma = defocus_sigma(cam.focal, aperture, focus_mm, cv2.resize(dist.astype(np.float32), (small_w, small_h), interpolation=cv2.INTER_NEAREST))
    lev = np.where(owner == 0, level(ground_sigma), -1)
    for i, sigma in sigmas.items():
        lev[owner == i + 1] = level(np.array(sigma))
    f = img.astype(np.float32)
    for k in range(len(levels)):
        m = lev == k
        if not m.any():
            continue
        blurred = cv2.GaussianBlur(f, (0, 0), float(levels[k]))
        a = cv2.GaussianBlur(cv2.resize(m.astype(np.uint8) * 255, (W, H), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0, (0, 0), 1.5)
        f = f * (1 - a[..., None]) + blurred * a[..., None]
    img[:] = np.clip(f, 0, 255).astype(np.uint8)
    return {i: s for i, s in sigmas.items() if s >= DOF_SHARP_BELOW}


def _up_deg(poly: np.ndarray) -> float:
    """Direction of the face's "up" in the image, degrees clockwise from straight up."""
    top = (poly[0] + poly[1]) / 2
    bottom = (poly[3] + poly[2]) / 2
    d = top - bottom
    return float(math.degrees(math.atan2(d[0], -d[1])) % 360)


def render_scene(rng: Rng, size: int = 1024, families: list[str] | None = None,
                 scene_weights: dict[str, float] | None = None, style: TileStyle | None = None,
                 background_weights: dict[str, float] | None = None) -> tuple[np.ndarray, dict]:
    """Render one scene; return the image (BGR uint8) and its record.

    The record holds ``width``, ``height``, ``scene`` (a key of :data:`SCENE_KINDS`),
    ``background``, ``editions``, ``camera``, ``effects``, ``sets`` (index, kind, codes in order,
    row), ``distractors`` and ``tiles``: for each visible tile ``code`` (notation), ``polygon``
    (4 [x, y] pixel corners TL, TR, BR, BL of the upright face, may reach outside the image),
    ``box`` (clipped xyxy), ``truncated``, ``up_deg``, ``joker_colour`` (jokers only), ``edition``,
    ``set``/``order`` (table sets), ``rack``/``rack_row``/``rack_slot`` (tiles on a rack),
    ``font_family``, ``visible`` (share of the face not hidden by what stands in front of it),
    ``visible_box`` (xyxy of the visible part of the face) and ``hidden`` (less than
    :data:`HIDDEN_BELOW` of the face shows: neither to be found nor penalised).

    ``families`` limits the numerals' font families (default: the training families of
    :mod:`datasets.fonts`); ``scene_weights`` overrides :data:`SCENE_KINDS`; ``style`` draws every
    tile in that one look (one player's edition, e.g. to measure a taught profile);
    ``background_weights`` overrides :data:`datasets.render_textures.BACKGROUND_WEIGHTS` (e.g. more
    patterned cloths as hard negatives for training).
    """
    W, H = _image_size(rng, size)
    kind = choose_weighted(rng, scene_weights or SCENE_KINDS)
    n_ed = 1 if rng.random() < 0.9 else 2
    eds = [choose_weighted(rng, EDITION_WEIGHTS) for _ in range(n_ed)]
    styles = [sample_style(e, rng, families) for e in eds] if style is None else [style]
    h_mm = TILE_H_MM * rng.uniform(0.9, 1.12)
    scale = max(W, H) / 1024
    fov = rng.uniform(55, 72)
    # Camera: how far, how oblique, from where.
    azimuth = rng.uniform(0, 360)
    if kind in ("table", "scatter", "empty"):
        r = rng.random()
        tilt = rng.uniform(0, 15) if r < 0.4 else (rng.uniform(15, 40) if r < 0.8 else rng.uniform(40, 55))
        tile_px = math.exp(rng.uniform(math.log(20), math.log(260))) * scale
        roll = rng.normal(0, 3)
    elif kind == "rack":
        tilt = rng.uniform(45, 82)  # from the seat: 8-45 degrees above the table
        # Up to close-ups where one tile is a fifth of the photo's width.
        tile_px = math.exp(rng.uniform(math.log(24), math.log(230))) * scale
        roll = rng.normal(0, 4) + (0 if rng.random() < 0.85 else float(rng.choice([90, 180, 270])))
    else:
        tilt = rng.uniform(35, 60)
        tile_px = math.exp(rng.uniform(math.log(18), math.log(70))) * scale
        roll = rng.normal(0, 4)
    focal = (max(W, H) / 2) / math.tan(math.radians(fov) / 2)
    distance = focal * h_mm / tile_px
    fov_x = math.degrees(2 * math.atan(W / 2 / focal))
    vfov_half = math.degrees(math.atan(H / 2 / focal))
    if kind in ("table", "scatter", "empty"):
        tilt = min(tilt, 78 - vfov_half)  # keep the horizon out of table shots
    target_z = 0.0 if kind != "rack" else h_mm * 0.9
    cam = look_at(W, H, fov_x, np.array([0.0, 0.0, target_z]), tilt, azimuth, distance, roll)
    toward_cam = np.array([math.cos(math.radians(azimuth)), math.sin(math.radians(azimuth))])
    # Frame of the table layout: upright in the picture most of the time, sometimes upside down or any way.
    r = rng.random()
    # A rack shot sometimes shows the table (and its sets) beyond the rack, as a mixed scene does.
    with_table = kind == "mixed" or (kind == "rack" and rng.random() < 0.35)
    if with_table:  # sets face the rack's owner, or the player opposite
        r = r * 0.67
    gamma = rng.normal(0, math.radians(8)) if r < 0.55 else (math.pi + rng.normal(0, math.radians(8)) if r < 0.67
                                                            else rng.uniform(0, 2 * math.pi))
    up2 = _rot2(-toward_cam, gamma + math.radians(roll) * 0)
    scene = Scene(kind)
    bag = Bag(rng)
    # The visible part of the table, in layout-frame coordinates.
    grid = np.array([[x, y] for x in np.linspace(0, W, 7) for y in np.linspace(0, H, 7)])
    ground, hit = cam.to_ground(grid)
    ground = ground[hit & (np.linalg.norm(ground, axis=1) < distance * 4)]
    if len(ground) < 3:
        ground = np.array([[-distance, -distance], [distance, distance]])
    right2 = np.array([up2[1], -up2[0]])
    fx, fy = ground @ right2, ground @ up2
    # Keep the layout near the target: an oblique view reaches far, where tiles would be specks.
    reach = distance * math.tan(math.radians(fov) / 2) * 1.3
    extent = (max(float(fx.min()), -reach), min(float(fx.max()), reach),
              max(float(fy.min()), -reach), min(float(fy.max()), reach))
    plastic = plastic_texture(256, 1024, rng, 1024 / 500, rng.uniform(25, 45))
    rack_hull: np.ndarray | None = None
    if kind in ("rack", "mixed"):
        if kind == "rack":
            base = np.zeros(2) + toward_cam * h_mm * 0.3
        else:  # near the camera, in the lower part of the picture
            pt, ok = cam.to_ground(np.array([[W * rng.uniform(0.35, 0.65), H * rng.uniform(0.86, 0.98)]]))
            base = pt[0] if ok[0] else toward_cam * distance * 0.3
        yaw = math.radians(rng.uniform(-28, 28) if rng.random() < 0.75 else rng.uniform(-55, 55))  # or from the side
        build_rack(rng, bag, styles, h_mm, base, _rot2(toward_cam, yaw), scene, plastic)
        pts = np.vstack([cam.project(p.corners())[0] for p in scene.rack_parts])
        rack_hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    if with_table:  # sets lie beyond the rack, seen from the camera
        away = float(np.dot(-toward_cam, up2))
        front = float(np.dot(base, up2))
        margin = h_mm * 2.0
        if away > 0:
            extent = (extent[0], extent[1], max(extent[2], front + margin), extent[3])
        else:
            extent = (extent[0], extent[1], extent[2], min(extent[3], front - margin))
    # A game has at most 106 tiles: when the view could hold far more, lay them out on a part of it
    # (otherwise the first rows would use up the bag and leave the rest of the table bare).
    cell = h_mm * h_mm * styles[0].aspect * 1.8
    room = (extent[1] - extent[0]) * (extent[3] - extent[2]) / cell
    wanted = rng.uniform(15, 95)
    if (kind == "table" or with_table) and room > wanted:
        # Centred on a point of the table that is in view (the extent's corners may not be).
        k = math.sqrt(wanted / room)
        half_x, half_y = k * (extent[1] - extent[0]) / 2, k * (extent[3] - extent[2]) / 2
        inside = (fx > extent[0]) & (fx < extent[1]) & (fy > extent[2]) & (fy < extent[3])
        if inside.any():
            pick = int(rng.choice(np.flatnonzero(inside)))
            cx, cy = 0.6 * fx[pick], 0.6 * fy[pick]  # pulled towards the middle of the picture
        else:
            cx, cy = (extent[0] + extent[1]) / 2, (extent[2] + extent[3]) / 2
        cx = min(max(cx, extent[0] + half_x), extent[1] - half_x)
        cy = min(max(cy, extent[2] + half_y), extent[3] - half_y)
        extent = (cx - half_x, cx + half_x, cy - half_y, cy + half_y)
    elif kind in ("table", "scatter") and rng.random() < 0.5:  # the tiles cover only part of the view
        fw, fh = rng.uniform(0.5, 1.0), rng.uniform(0.5, 1.0)
        x0 = extent[0] + rng.uniform(0, 1 - fw) * (extent[1] - extent[0])
        y0 = extent[2] + rng.uniform(0, 1 - fh) * (extent[3] - extent[2])
        extent = (x0, x0 + fw * (extent[1] - extent[0]), y0, y0 + fh * (extent[3] - extent[2]))
    if kind == "table" or with_table:
        layout_table(rng, bag, styles, h_mm, np.zeros(2), up2, extent, scene)
        if kind == "table" and rng.random() < 0.3:
            layout_scatter(rng, styles, h_mm, np.zeros(2), up2, extent, scene, int(rng.integers(1, 6)))
    if kind == "scatter":
        area = (extent[1] - extent[0]) * (extent[3] - extent[2]) / (h_mm * h_mm * styles[0].aspect)
        layout_scatter(rng, styles, h_mm, np.zeros(2), up2, extent, scene,
                       int(min(45, max(1, area * rng.uniform(0.05, 0.25)))))
    # Distractors that are not tiles: face-down tiles and a score pad with numbers.
    if kind != "rack":
        occupied = [t.centre[:2] for t in scene.tiles]
        for _ in range(int(rng.integers(1, 6)) if rng.random() < (0.15 if kind != "empty" else 0.5) else 0):
            pos = np.array([rng.uniform(*extent[:2]), rng.uniform(*extent[2:])])
            pos = pos[0] * right2 + pos[1] * up2
            if all(np.linalg.norm(pos - o) > h_mm * 1.3 for o in occupied):
                occupied.append(pos)
                u, v = flat_axes(_rot2(up2, rng.uniform(0, 2 * math.pi)))
                st = styles[0]
                scene.distractors.append(("face_down", Slab(np.array([pos[0], pos[1], h_mm * st.thickness]), u, v,
                                                            h_mm * st.aspect, h_mm, h_mm * st.thickness, st.body, render_back(st))))
        if rng.random() < (0.1 if kind != "empty" else 0.4):
            pos = np.array([rng.uniform(*extent[:2]), rng.uniform(*extent[2:])])
            pos = pos[0] * right2 + pos[1] * up2
            pw, ph = h_mm * rng.uniform(3, 4), h_mm * rng.uniform(4, 5.5)
            if all(np.linalg.norm(pos - o) > 0.5 * math.hypot(pw, ph) + h_mm for o in occupied):
                u, v = flat_axes(_rot2(up2, rng.normal(0, 0.4)))
                scene.distractors.append(("paper", Slab(np.array([pos[0], pos[1], 0.3]), u, v, pw, ph, 0.3,
                                                        (235, 235, 235), _paper(rng, h_mm), side_gain=1.0)))
    # Which tiles show: enough of the face inside the picture, not hidden by the rack, not too tiny.
    kept: list[SceneTile] = []
    for st in scene.tiles:
        slab = st.slab(np.zeros((1, 1, 4), np.uint8))
        uv, z = cam.project(slab.corners()[:4])
        if np.any(z < 1) or np.dot(slab.n, cam.C - slab.centre) <= 0:
            continue
        edges = np.linalg.norm(uv - np.roll(uv, 1, axis=0), axis=1)
        if edges.min() < 5 or _visible_fraction(uv, W, H) < 0.6:
            continue
        if st.rack is None and _overlaps(cv2.convexHull(cam.project(slab.corners())[0].astype(np.float32)).reshape(-1, 2), rack_hull):
            continue
        kept.append(st)
    scene.tiles = kept
    scene.distractors = [(k, s) for k, s in scene.distractors
                         if not _overlaps(cv2.convexHull(cam.project(s.corners())[0].astype(np.float32)).reshape(-1, 2), rack_hull)]
    # Ground: table texture and far backdrop.
    bg_kind = choose_weighted(rng, background_weights or BACKGROUND_WEIGHTS)
    tex_ppm = min(6.0, 1.4 * focal / max(distance, 1.0))
    n_tex = 1024 if max(W, H) <= 1100 else 1408
    texture = make_background(bg_kind, n_tex, n_tex, rng, tex_ppm)
    far = distance * rng.uniform(1.5, 5.0) if kind in ("rack", "mixed") else distance * 50
    edge = _rot2(-toward_cam, rng.normal(0, math.radians(12)))
    img, dist = render_ground(cam, texture, tex_ppm, (-n_tex / 2 / tex_ppm, -n_tex / 2 / tex_ppm),
                              backdrop(64, 64, rng), far, np.array([edge[0], edge[1], 0.0]))
    # Light and shadows on the table.
    l_el, l_az = math.radians(rng.uniform(30, 85)), rng.uniform(0, 2 * math.pi)
    light = Lighting(np.array([math.cos(l_el) * math.cos(l_az), math.cos(l_el) * math.sin(l_az), math.sin(l_el)]),
                     float(rng.uniform(0.45, 0.8)))
    shadow = np.zeros((H, W), np.uint8)
    contact = np.zeros((H, W), np.uint8)
    casters: list[Slab] = [s for _, s in scene.distractors] + list(scene.rack_parts)
    for st in scene.tiles:
        casters.append(st.slab(np.zeros((1, 1, 4), np.uint8)))
    for slab in casters:
        pts = shadow_polygon(slab, light)
        uv, z = cam.project(np.hstack([pts, np.zeros((len(pts), 1))]))
        if np.all(z > 1):
            hull = cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(shadow, np.round(hull * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
            foot = slab.corners()
            foot = foot[np.argsort(foot[:, 2])[:4]] * [1, 1, 0]
            fuv, fz = cam.project(foot)
            if np.all(fz > 1):
                fh = cv2.convexHull(fuv.astype(np.float32)).reshape(-1, 2)
                cv2.fillConvexPoly(contact, np.round(fh * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    soft = max(1.0, tile_px * rng.uniform(0.03, 0.14))
    sh = cv2.GaussianBlur(shadow.astype(np.float32) / 255.0, (0, 0), soft) * rng.uniform(0.2, 0.55)
    ct = cv2.GaussianBlur(cv2.dilate(contact, np.ones((3, 3), np.uint8)).astype(np.float32) / 255.0, (0, 0),
                          max(0.8, tile_px * 0.02)) * 0.35
    img = (img.astype(np.float32) * (1 - np.clip(sh + ct, 0, 0.8))[..., None]).astype(np.uint8)
    # Objects, back to front.
    plastic_mask = np.zeros((H, W), np.uint8)
    faces: dict[tuple[int, str, str | None], np.ndarray] = {}

    def face_of(st: SceneTile) -> np.ndarray:
        key = (id(st.style), st.tile.code, st.joker_colour)
        if key not in faces:
            faces[key] = render_face(st.tile, st.style, rng, st.joker_colour or "black")
        return faces[key]

    # Who is seen at each pixel (half resolution): tile i + 1, -1 for anything else drawn over it.
    owner = np.zeros(((H + 1) // 2, (W + 1) // 2), np.int32)

    def cover(slab: Slab, value: int) -> None:
        uv, z = cam.project(slab.corners())
        if np.all(z > 1):
            hull = cv2.convexHull((uv / 2).astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(owner, np.round(hull * 4).astype(np.int32), value, cv2.LINE_8, 2)

    index_of = {id(st): i for i, st in enumerate(scene.tiles)}
    for _, slab in scene.distractors:
        draw_slab(img, cam, slab, light)
    table_tiles = [t for t in scene.tiles if t.rack is None]
    table_tiles.sort(key=lambda t: -float(cam.project(t.centre[None, :])[1][0]))
    for st in table_tiles:
        slab = st.slab(face_of(st))
        st.polygon = draw_slab(img, cam, slab, light, plastic_mask)
        cover(slab, index_of[id(st)] + 1)
    rack_tiles = [t for t in scene.tiles if t.rack is not None]
    for item in scene.rack_draw:
        if isinstance(item, Slab):
            draw_slab(img, cam, item, light)
            cover(item, -1)
            continue
        for st in sorted((t for t in rack_tiles if t.rack_row == item), key=lambda t: -float(cam.project(t.centre[None, :])[1][0])):
            slab = st.slab(face_of(st))
            st.polygon = draw_slab(img, cam, slab, light, plastic_mask)
            cover(slab, index_of[id(st)] + 1)
    visibility = _visibility(scene.tiles, owner)
    defocus: dict[int, float] = {}
    if kind in ("rack", "mixed") and rng.random() < 0.5:
        defocus = _rack_depth_of_field(img, scene, owner, rng, cam, dist)
    img, effects = camera_effects(img, rng, plastic_mask, dist, distance, tile_px)
    # The record.
    tiles_out = []
    for i, st in enumerate(scene.tiles):
        if st.polygon is None:
            continue
        seen, vbox = visibility.get(i, (1.0, None))
        poly = st.polygon
        box = [float(np.clip(poly[:, 0].min(), 0, W)), float(np.clip(poly[:, 1].min(), 0, H)),
               float(np.clip(poly[:, 0].max(), 0, W)), float(np.clip(poly[:, 1].max(), 0, H))]
        rec: dict = {
            "code": st.tile.code,
            "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in poly],
            "box": [round(b, 2) for b in box],
            "truncated": bool(poly.min() < 0 or poly[:, 0].max() > W or poly[:, 1].max() > H),
            "up_deg": round(_up_deg(poly), 1) % 360.0,  # 359.96 rounds to 360: the same as 0
            "edition": st.style.edition,
            "joker_colour": st.joker_colour if st.tile.is_joker else None,
            "set": st.set_index, "order": st.order,
            "rack": st.rack, "rack_row": st.rack_row, "rack_slot": st.rack_slot,
            "font_family": st.style.font_family,
            "visible": round(seen, 3),
            "visible_box": [round(b, 2) for b in vbox] if vbox is not None else [round(b, 2) for b in box],
            "hidden": bool(seen < HIDDEN_BELOW),
            "defocus_px": round(defocus.get(i, 0.0), 2),  # the depth of field's blur sigma on this tile
        }
        tiles_out.append(rec)
    record = {
        "width": W, "height": H, "scene": kind, "background": bg_kind,
        "editions": sorted(set(eds)),
        "font_families": sorted({st.style.font_family for st in scene.tiles}),
        "camera": {"tilt_deg": round(tilt, 1), "azimuth_deg": round(azimuth, 1), "roll_deg": round(roll, 1),
                   "fov_x_deg": round(fov_x, 1), "distance_mm": round(distance, 1), "tile_px": round(tile_px, 1)},
        "effects": {k: round(v, 3) for k, v in effects.items()},
        "sets": [{"index": s.index, "kind": s.kind, "tiles": s.codes, "row": s.row} for s in scene.sets],
        "distractors": [k for k, _ in scene.distractors],
        "tiles": tiles_out,
    }
    return img, record


# --------------------------------------------------------------------------- files

def label_rows(record: dict) -> list[str]:
    """Ultralytics polygon rows (class 0) for a scene record, corners normalised and clipped."""
    W, H = record["width"], record["height"]
    rows = []
    for t in record["tiles"]:
        if t.get("hidden"):
            continue  # mostly behind the tier in front: nothing to find
        coords = []
        points = t["polygon"]
        if t.get("visible", 1.0) < PARTLY_HIDDEN_BELOW:  # the visible part of the face, as a box
            x1, y1, x2, y2 = t["visible_box"]
            points = [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]
        for x, y in points:
            coords.append(f"{min(max(x / W, 0.0), 1.0):.6f}")
            coords.append(f"{min(max(y / H, 0.0), 1.0):.6f}")
        rows.append("0 " + " ".join(coords))
    return rows


def image_seed(seed: int, split: str, index: int) -> np.random.Generator:
    """The generator of one image: independent of every other image and of worker count."""
    return np.random.default_rng([seed, _SPLIT_IDS[split], index])


def _render_one(task: tuple[str, str, int, int, int, dict[str, float] | None, dict[str, float] | None, str | None]) -> dict:
    out, split, index, seed, size, scene_weights, background_weights, fonts_family = task
    cv2.setNumThreads(1)  # the machine is shared; also keeps results identical everywhere
    rng = image_seed(seed, split, index)
    if split == "fonts" and fonts_family:
        families = [fonts_family]
    elif split == "fonts":
        held = [f for f in fonts.HELD_OUT if f in fonts.available()]
        if not held:
            raise ValueError("no held-out font family is installed (python -m datasets.fonts)")
        families = [held[index % len(held)]]
    else:
        families = fonts.training_families()
    img, record = render_scene(rng, size, families, scene_weights, background_weights=background_weights)
    stem = f"{index:06d}"
    folder = Path(out) / split
    quality = int(rng.integers(55, 96))
    cv2.imwrite(str(folder / "images" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    record = {"image": f"{stem}.jpg", "seed": [seed, _SPLIT_IDS[split], index], "jpeg_quality": quality, **record}
    rows = label_rows(record)
    (folder / "labels" / f"{stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
    (folder / "tiles" / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n")
    return {
        "codes": Counter(t["code"] for t in record["tiles"]),
        "jokers": Counter(t["joker_colour"] for t in record["tiles"] if t["joker_colour"]),
        "editions": Counter(t["edition"] for t in record["tiles"]),
        "families": Counter(t["font_family"] for t in record["tiles"]),
        "scene": record["scene"], "background": record["background"], "tiles": len(record["tiles"]),
        "rack_tiles": sum(1 for t in record["tiles"] if t["rack"] is not None),
    }


def write_split(out: Path, split: str, count: int, seed: int, size: int = 1024, workers: int = 1,
                progress: bool = True, scene_weights: dict[str, float] | None = None,
                background_weights: dict[str, float] | None = None, fonts_family: str | None = None) -> dict:
    """Render ``count`` images of ``split`` into ``out/split``; return counts for the card.
    ``fonts_family``: the ``fonts`` split drawn in this one family (held out or not) instead of
    the held-out ones in turn."""
    if split not in _SPLIT_IDS:
        raise ValueError(f'unknown split "{split}": choose one of {", ".join(SPLITS)}')
    if fonts_family is not None and not fonts.font_files(fonts.family(fonts_family).name):
        raise ValueError(f'font family "{fonts_family}" is not installed (python -m datasets.fonts)')
    for sub in ("images", "labels", "tiles"):
        (out / split / sub).mkdir(parents=True, exist_ok=True)
    tasks = [(str(out), split, i, seed, size, scene_weights, background_weights, fonts_family) for i in range(count)]
    stats: dict = {"images": 0, "tiles": 0, "rack_tiles": 0, "codes": Counter(), "jokers": Counter(),
                   "editions": Counter(), "families": Counter(), "scenes": Counter(), "backgrounds": Counter()}
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a project dependency
        tqdm = None

    def consume(results: Iterable[dict]) -> None:
        bar = tqdm(results, total=count, desc=split, unit="img", disable=not progress) if tqdm else results
        for r in bar:
            stats["images"] += 1
            stats["tiles"] += r["tiles"]
            stats["rack_tiles"] += r["rack_tiles"]
            stats["codes"].update(r["codes"])
            stats["jokers"].update(r["jokers"])
            stats["editions"].update(r["editions"])
            stats["families"].update(r["families"])
            stats["scenes"][r["scene"]] += 1
            stats["backgrounds"][r["background"]] += 1

    if workers <= 1:
        consume(map(_render_one, tasks))
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            consume(pool.imap(_render_one, tasks, chunksize=4))
    return stats


def _card(out: Path, seed: int, size: int, counts: dict[str, int], stats: dict[str, dict], seconds: float,
          command: str) -> str:
    total_imgs = sum(s["images"] for s in stats.values())
    lines = [
        "# Dataset card: synthetic Rummikub scenes",
        "",
        "Rendered by `datasets/synth.py` (procedural: no photos, textures or fonts from the web; fonts are",
        f"the {len(fonts.FAMILIES)} type families of datasets/fonts.py, from Debian and PyPI font packages, matplotlib and",
        "OpenCV).",
        "",
        f"- Command: `{command}`",
        f"- Seed: {seed}; each image has its own generator `(seed, split, index)`, so the output does not",
        "  depend on `--workers`.",
        f"- Image long side: {size} px (15% of images 1.25-1.6x larger); aspect 4:3, 16:9, 3:2 or 1:1, 35% portrait.",
        f"- Output: `{out}` (not committed). Rendering took {seconds / 60:.1f} min"
        f" ({total_imgs / max(seconds, 1e-6):.2f} images/s on this machine).",
        "",
        "## How the scenes are made",
        "- A pinhole camera (horizontal field of view 55-72 degrees on the long side) over a table; tilt from",
        "  straight down to 55 degrees for table shots, 45-82 degrees for racks; any azimuth; tiles from",
        "  about 20 to 260 px tall (at 1024 px; 18-70 px for the table part of mixed scenes).",
        "- Scenes: `table` (rows of runs and groups, touching or with gaps, several sets per row, sometimes a",
        "  row upside down, a few loose tiles), `scatter` (loose tiles at any angle, classes drawn evenly),",
        "  `rack` (one to three tiers of tiles leaning back 5-20 degrees on a black or grey rack, the front tier",
        "  hiding the lower part of the one behind, seen from the seat or the side, close-ups to a fifth of the",
        "  width, sometimes the table's sets beyond and a phone's depth of field: focused on one tier, each tile",
        "  and the table blurred by its own circle of confusion through a 1.5-6 mm aperture, so the tiers stay",
        "  nearly sharp and only what lies far beyond softens; `defocus_px` records it), `mixed` (sets on the table and a",
        "  rack near the camera), `empty` (2%: no tiles, perhaps face-down tiles or a score pad). Table",
        "  sets come from a game's 106 tiles: at most two copies of a tile.",
        "- Tiles are 3D slabs: the face is warped by the camera's homography, the sides show the thickness.",
        "- Editions: `original` (cream, disc behind the numeral, wordmark), `modern_white` (white, heavy rounded",
        "  digits, nothing under 6/9), `display` (condensed, geometric, display faces), `white_thin` (white, thin, yellow",
        "  and teal, ring logo), `serif` (ivory, serif numerals, dot logo), `hershey` (stroke numerals, bar",
        "  logo), `large_print` (big numerals, no logo). 6 and 9 are plain, underlined or dotted by edition;",
        "  jokers are red or black: smiley faces (outlined or filled), a font's smiley, \"J\"/\"JOKER\", a jester.",
        "  Numerals come in a family of the edition's kinds (five families held out of training: the `fonts`",
        "  split draws only them); 7 sometimes barred, 10-13 set tight or apart, some editions outlined.",
        "- Tables: wood, marble, felt, solid, fabric (plain, stripes, plaid, rug), dots, noise (and, with",
        "  `--backgrounds`, motifs: cloths printed with tile-sized shapes, as hard negatives); backdrop",
        "  beyond the table edge for low views. One light with soft shadows and contact shadows, uneven",
        "  light, lamp pools, white balance, glare (stronger on tiles), exposure, defocus or motion blur,",
        "  far-field blur, sensor noise, resampling and JPEG (sometimes twice).",
        "- Distractors without labels: face-down tiles, a score pad with handwritten numbers.",
        "",
        "## Labels",
        "- `labels/*.txt`: one class (0 = tile), `0 x1 y1 x2 y2 x3 y3 x4 y4` normalised and clipped, the face",
        "  corners top-left, top-right, bottom-right, bottom-left of the upright tile.",
        "- `tiles/*.json`: per tile `code`, `polygon` (pixels, same order, unclipped), `box`, `truncated`,",
        "  `up_deg`, `edition`, `joker_colour`, `set`/`order`, `rack`/`rack_row`/`rack_slot`, `font_family`,",
        "  `visible` (share of the face not hidden), `visible_box`, `hidden` (under 40% visible: no detector",
        "  label; between 40% and 90% the label is the visible part's box); plus the",
        "  scene's sets, camera and effects.",
        "- Tiles are kept only when at least 60% of the face is inside the picture and no edge is shorter",
        "  than 5 px; a tile mostly hidden behind the rack's front tier is drawn but marked `hidden`.",
        "",
        "## Counts",
        "",
        "| split | images | tiles | on racks | table | scatter | rack | mixed | empty |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for split, s in stats.items():
        sc = s["scenes"]
        lines.append(f"| {split} | {s['images']} | {s['tiles']} | {s['rack_tiles']} | {sc['table']} | {sc['scatter']} |"
                     f" {sc['rack']} | {sc['mixed']} | {sc['empty']} |")
    all_codes: Counter = Counter()
    eds: Counter = Counter()
    jok: Counter = Counter()
    bgs: Counter = Counter()
    for s in stats.values():
        all_codes.update(s["codes"])
        eds.update(s["editions"])
        jok.update(s["jokers"])
        bgs.update(s["backgrounds"])
    lines += ["", "Tiles per class (all splits; rows colour, columns number):", "",
              "| | " + " | ".join(str(n) for n in range(1, 14)) + " |", "|---" * 14 + "|"]
    for c in Colour:
        lines.append(f"| {c.value} | " + " | ".join(str(all_codes[f'{c.value}{n}']) for n in range(1, 14)) + " |")
    lines += ["", f"Jokers: {all_codes['J']} ({', '.join(f'{k} {v}' for k, v in sorted(jok.items()))}).", "",
              "Tiles per edition: " + ", ".join(f"{k} {v}" for k, v in sorted(eds.items())) + ".", "",
              "Images per background: " + ", ".join(f"{k} {v}" for k, v in sorted(bgs.items())) + ".", ""]
    return "\n".join(lines)


def generate(out: Path, counts: dict[str, int], seed: int, size: int = 1024, workers: int = 1,
             card: Path | None = CARD_PATH, progress: bool = True, command: str = "",
             scene_weights: dict[str, float] | None = None,
             background_weights: dict[str, float] | None = None, fonts_family: str | None = None) -> dict[str, dict]:
    """Render every split in ``counts`` (e.g. ``{"train": 2000, "val": 200, "test": 200}``), write
    ``out/data.yaml``, ``out/README.md`` and, if ``card`` is given, the dataset card there."""
    if size < 128:
        raise ValueError(f"--size {size} is too small: use at least 128 pixels")
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    stats = {split: write_split(out, split, n, seed, size, workers, progress, scene_weights, background_weights, fonts_family)
             for split, n in counts.items() if n > 0}
    seconds = time.time() - started
    names = "names:\n  0: tile\n"
    yaml = f"path: {out.resolve()}\n" + "".join(f"{s}: {s}/images\n" for s in stats) + names
    (out / "data.yaml").write_text(yaml)
    text = _card(out, seed, size, counts, stats, seconds, command or f"python -m datasets.synth --out {out} --seed {seed}")
    (out / "README.md").write_text(text + "\n")
    if card is not None:
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(text + "\n")
    return stats


def _weights_arg(p: argparse.ArgumentParser, flag: str, text: str, kinds: dict[str, float],
                 example: str) -> dict[str, float] | None:
    """``kind=weight,...`` parsed and checked against ``kinds``; None when ``text`` is empty."""
    if not text:
        return None
    try:
        weights = {k.strip(): float(v) for k, v in (part.split("=") for part in text.split(","))}
    except ValueError:
        p.error(f'{flag} "{text}": write kind=weight pairs separated by commas, e.g. {example}')
    unknown = set(weights) - set(kinds)
    if unknown or sum(weights.values()) <= 0 or min(weights.values()) < 0:
        p.error(f'{flag} "{text}": kinds are {", ".join(kinds)} with weights >= 0, not all 0')
    return weights


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m datasets.synth", description="Render synthetic Rummikub photos with labels.")
    p.add_argument("--out", type=Path, default=Path("data/synthetic"), help="output folder (default data/synthetic)")
    p.add_argument("--train", type=int, default=2000, help="training images (default 2000)")
    p.add_argument("--val", type=int, default=200, help="validation images (default 200)")
    p.add_argument("--test", type=int, default=200, help="test images (default 200)")
    p.add_argument("--fonts", type=int, default=0,
                   help="test images whose numerals come only in the font families held out of training (default 0)")
    p.add_argument("--fonts-family", default=None, metavar="FAMILY",
                   help="draw the --fonts images in this one family instead (held out or not; a key of "
                        "datasets/fonts.py): the same scenes in two families of one kind tell the typeface from the scenes")
    p.add_argument("--scenes", default="",
                   help="scene kind weights, e.g. rack=0.6,mixed=0.2,table=0.2 (default: "
                        + ",".join(f"{k}={v}" for k, v in SCENE_KINDS.items()) + ")")
    p.add_argument("--backgrounds", default="",
                   help="table kind weights, e.g. dots=0.2,motifs=0.2,wood=0.3 (default: "
                        + ",".join(f"{k}={v}" for k, v in BACKGROUND_WEIGHTS.items()) + ")")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole set (default 0)")
    p.add_argument("--size", type=int, default=1024, help="long side of most images in pixels (default 1024)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1: the CPU is shared)")
    p.add_argument("--card", default=str(CARD_PATH), help='dataset card to write, or "none" (default datasets/cards/synthetic.md)')
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    for name in ("train", "val", "test", "fonts"):
        if getattr(args, name) < 0:
            p.error(f"--{name} must be 0 or more, not {getattr(args, name)}")
    if args.workers < 1:
        p.error(f"--workers must be at least 1, not {args.workers}")
    card = None if args.card.lower() == "none" else Path(args.card)
    scene_weights = _weights_arg(p, "--scenes", args.scenes, SCENE_KINDS, "rack=0.6,table=0.4")
    background_weights = _weights_arg(p, "--backgrounds", args.backgrounds, BACKGROUND_WEIGHTS, "dots=0.5,wood=0.5")
    command = "python -m datasets.synth " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        generate(args.out, {"train": args.train, "val": args.val, "test": args.test, "fonts": args.fonts}, args.seed,
                 args.size, args.workers, card, not args.quiet, command, scene_weights, background_weights,
                 args.fonts_family)
    except ValueError as exc:
        p.error(str(exc))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
