"""Synthetic table geometry for layout and decoding tests: tiles as rotated rectangles seen by a
camera (rotation, perspective), reduced to the axis-aligned boxes a detector gives.

A scene is built in table units (tile width 1, height ``ASPECT``), then mapped to pixels by a
rotation about the image centre, a scale, and optionally a perspective (far side smaller).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from referee.tiles import Tile, parse_table

ASPECT = 1.4


@dataclass
class Scene:
    """Tiles in table units: centre, rotation of the tile (0 = upright), and the truth."""

    centres: list[tuple[float, float]] = field(default_factory=list)
    angles: list[float] = field(default_factory=list)  # radians, tile rotation in the table frame
    sets: list[list[int]] = field(default_factory=list)
    loose: list[int] = field(default_factory=list)
    rack_rows: list[list[int]] = field(default_factory=list)
    tiles: list[Tile | None] = field(default_factory=list)

    def add_set(self, x: float, y: float, count: int, gap: float = 0.05, vertical: bool = False,
                tiles: list[Tile] | None = None, jitter: float = 0.0, rng: np.random.Generator | None = None) -> list[int]:
        """A set of ``count`` tiles side by side from (x, y) to the right (or downwards, tiles
        lying sideways, when ``vertical``)."""
        members = []
        for k in range(count):
            dx, dy, da = 0.0, 0.0, 0.0
            if jitter and rng is not None:
                dx, dy = rng.uniform(-jitter, jitter, 2)
                da = rng.uniform(-math.radians(8), math.radians(8))
            step = k * (1.0 + gap)
            cx, cy = (x, y + step) if vertical else (x + step, y)
            members.append(self._add(cx + dx, cy + dy, (math.pi / 2 if vertical else 0.0) + da,
                                     tiles[k] if tiles else None))
        self.sets.append(members)
        return members

    def add_loose(self, x: float, y: float, angle: float = 0.0, tile: Tile | None = None) -> int:
        i = self._add(x, y, angle, tile)
        self.loose.append(i)
        return i

    def add_rack_row(self, x: float, y: float, slots: list[bool], tiles: list[Tile] | None = None) -> list[int]:
        """Upright tiles standing side by side in ``slots`` (False: an empty slot)."""
        row, it = [], iter(tiles or [])
        for k, filled in enumerate(slots):
            if filled:
                row.append(self._add(x + k * 1.02, y, 0.0, next(it, None)))
        self.rack_rows.append(row)
        return row

    def _add(self, x: float, y: float, angle: float, tile: Tile | None) -> int:
        self.centres.append((x, y))
        self.angles.append(angle)
        self.tiles.append(tile)
        return len(self.centres) - 1

    def corners(self) -> np.ndarray:
        """(N, 4, 2) tile corners in table units (TL, TR, BR, BL of the upright tile)."""
        out = []
        for (cx, cy), a in zip(self.centres, self.angles):
            c, s = math.cos(a), math.sin(a)
            pts = []
            for ux, uy in ((-0.5, -ASPECT / 2), (0.5, -ASPECT / 2), (0.5, ASPECT / 2), (-0.5, ASPECT / 2)):
                pts.append((cx + c * ux - s * uy, cy + s * ux + c * uy))
            out.append(pts)
        return np.asarray(out, dtype=np.float64).reshape(-1, 4, 2)

    def view(self, angle_deg: float = 0.0, px: float = 40.0, perspective: float = 0.0,
             size: tuple[int, int] = (1600, 1200), squash: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Boxes (N, 4) xyxy and up vectors (N, 2) in a photo: the scene rotated by ``angle_deg``,
        ``px`` pixels per tile width at the centre, and tiles up to ``1 + perspective`` times
        smaller towards the top of the photo; ``squash`` < 1 flattens the photo vertically (a
        table seen at a grazing angle: upright tiles look wider than tall)."""
        corners = self.corners()
        centre = corners.reshape(-1, 2).mean(axis=0)
        pts = (corners - centre) * px
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        pts = pts @ rot.T
        pts[..., 1] *= squash
        w, h = size
        if perspective:
            # A camera looking down at an angle: rows further away (smaller y) shrink towards the horizon.
            depth = 1.0 + perspective * (0.5 - (pts[..., 1] + h / 2) / h)
            pts = pts / depth[..., None]
        pts = pts + np.array([w / 2, h / 2])
        boxes = np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1)
        up = (pts[:, 0] + pts[:, 1]) / 2 - (pts[:, 3] + pts[:, 2]) / 2
        up = up / np.linalg.norm(up, axis=1, keepdims=True)
        return boxes, up


def table_scene(notation: str, rows: int | None = None) -> Scene:
    """Sets written in notation laid out in rows (two sets a row), upright, left to right."""
    sets = parse_table(notation)
    scene = Scene()
    per_row = 2 if rows is None else max(1, math.ceil(len(sets) / rows))
    for k, tiles in enumerate(sets):
        row, col = divmod(k, per_row)
        scene.add_set(col * 8.0, row * (ASPECT + 1.2), len(tiles), tiles=tiles)
    return scene


def draw_photo(boxes: np.ndarray, size: tuple[int, int] = (1600, 1200), table_bgr: tuple[int, int, int] = (150, 170, 190),
               rack_of: list[int] | None = None, rack_bgr: tuple[int, int, int] = (25, 25, 25),
               rack_polygon: np.ndarray | None = None) -> np.ndarray:
    """A plain photo for the boxes: a table, cream tiles, and, behind the tiles ``rack_of``, a
    rack: its back wall and bar a little wider than the tiles and a lip under them (or, given,
    the ``rack_polygon``'s (K, 2) pixel corners: a rack seen at an angle)."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = table_bgr
    if rack_polygon is not None:
        import cv2

        cv2.fillPoly(img, [np.round(rack_polygon).astype(np.int32)], rack_bgr)
    elif rack_of:
        b = boxes[rack_of]
        tile_w = float(np.median(b[:, 2] - b[:, 0]))
        tile_h = float(np.median(b[:, 3] - b[:, 1]))
        x1, y1 = int(b[:, 0].min() - 0.6 * tile_w), int(b[:, 1].min() - 0.1 * tile_h)
        x2, y2 = int(b[:, 2].max() + 0.6 * tile_w), int(b[:, 3].max() + 0.2 * tile_h)
        img[max(0, y1):y2, max(0, x1):x2] = rack_bgr
    for x1, y1, x2, y2 in np.round(boxes).astype(int):
        img[max(0, y1):y2, max(0, x1):x2] = (215, 235, 245)
    return img
