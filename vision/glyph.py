"""Which way up a numeral's loop lies: a bare 6 or 9 told apart by the tile's known upright.

A 6 turned over is a 9. Editions that mark them (a bar under the numeral, a dot beside it) tell
them apart by the mark, and the reader learned the marks; editions that print both bare (the
modern white edition: "nothing under 6 or 9", issue 14) leave the reader to guess the tile's up
from the glyph itself, and on a family it never saw it guesses wrong. On a rack the up is known:
tiles stand upright on their tier, so the rack's own up (the mean of its tiles' up vectors, which
the other numbers make sure of) says where the top of each face is, and the loop of the numeral
says the rest: loop below the middle, a 6; above, a 9. Any font draws them so.

:func:`loop_side` finds the numeral's ink as the pixels unlike the face's colour (CIELAB distance,
Otsu's threshold), the glyph as the largest ink shape with exactly one hole that does not touch
the crop's edge, and compares the hole's centre with the glyph's height. It answers only for a bare
glyph: another ink shape beside the numeral (a bar, a dot) is a mark, and the reader read that.
Where it finds no single hole (an outlined numeral) or a mark, and the reader is still torn,
:func:`mass_side` asks where the numeral's weight lies (a 6 is heavy below), the mark saying which
way up the tile stands (below the numeral as seen, or above it on a tile upside down).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

__all__ = ["LOOP_BELOW", "LOOP_ABOVE", "loop_side", "mass_side", "quarter_turns"]

LOOP_BELOW = 1
"""The loop lies in the lower part of the upright glyph: a 6."""
LOOP_ABOVE = -1
"""The loop lies in the upper part: a 9."""

_HEIGHT = 96  # the crop is scaled to this height before thresholding
_MIN_GLYPH = 0.15  # a numeral is at least this share of the crop's height
_MIN_HOLE = 0.02  # a loop is at least this share of its glyph's box
_MIN_MARK = 0.01  # an ink shape beside the glyph this large (share of the glyph's box) is a mark
_MIDDLE = 0.06  # a loop's centre within this of the glyph's middle says nothing
_MASS_MIDDLE = 0.03  # a filled numeral's centre within this of its middle says nothing (mass_side)
_MASS_FACE = 0.4  # mass_side takes the face's colour from this lightest share of the crop's middle
_MARK_OFF = 0.2  # a mark this far (glyph heights) below or above the numeral's middle says which way up


def quarter_turns(up_xy: np.ndarray) -> int | None:
    """How many quarter turns clockwise from the image's up the mean of ``up_xy`` (N, 2) points
    (0: up, 1: right, 2: down, 3: left), or None when the vectors do not agree on a direction
    (their mean shorter than 0.5) or there are none."""
    up = np.asarray(up_xy, dtype=np.float64).reshape(-1, 2)
    up = up[~np.isnan(up).any(axis=1)]
    if not len(up):
        return None
    mean = up.mean(axis=0)
    if float(np.linalg.norm(mean)) < 0.5:
        return None
    angle = np.degrees(np.arctan2(mean[0], -mean[1]))  # 0 when up points to -y, 90 to +x
    return int(round(angle / 90.0)) % 4


def _upright(crop_bgr: np.ndarray, turns: int) -> np.ndarray:
    """``crop_bgr`` turned so that the direction ``turns`` quarter turns clockwise from up is up."""
    if turns % 4 == 0:
        return crop_bgr
    return cv2.rotate(crop_bgr, (cv2.ROTATE_90_COUNTERCLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_CLOCKWISE)[turns % 4 - 1])


def _ink(crop_bgr: np.ndarray, turns: int, face_share: float = 1.0) -> np.ndarray | None:
    """The numeral's ink in ``crop_bgr`` turned ``turns`` quarter turns (:func:`_upright`), scaled
    to ``_HEIGHT`` rows: the pixels unlike the face's colour (CIELAB distance, Otsu's threshold).
    The face's colour is the median of the lightest ``face_share`` of the crop's middle (a tile's
    face is its lightest part; 1.0: the whole middle). None for a crop too small to tell."""
    crop = _upright(np.ascontiguousarray(crop_bgr), turns)
    h, w = crop.shape[:2]
    if h < 8 or w < 6:
        return None
    scale = _HEIGHT / h
    img = cv2.resize(crop, (max(8, int(round(w * scale))), _HEIGHT), interpolation=cv2.INTER_CUBIC)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    hh, ww = lab.shape[:2]
    middle = lab[hh // 5: 4 * hh // 5, ww // 5: 4 * ww // 5].reshape(-1, 3)
    if face_share < 1.0:
        middle = middle[middle[:, 0] >= np.percentile(middle[:, 0], 100 * (1 - face_share))]
    face = np.median(middle, axis=0)
    distance = cv2.GaussianBlur(np.linalg.norm(lab - face, axis=2), (3, 3), 0)
    _, ink = cv2.threshold(np.clip(distance * 2, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return ink


def _inside(box: tuple[int, int, int, int], ink: np.ndarray) -> bool:
    """Does ``box`` (x, y, w, h) stay off the crop's edge (the tile's surroundings)?"""
    x, y, bw, bh = box
    return x > 1 and y > 1 and x + bw < ink.shape[1] - 1 and y + bh < ink.shape[0] - 1


def _marks(contours: Sequence[np.ndarray], glyph: tuple[int, int, int, int], ink: np.ndarray) -> list[float]:
    """How far below the glyph's middle (in glyph heights; negative: above) each mark beside it
    lies: an ink shape off the crop's edge, other than the glyph and not within its box, at least
    ``_MIN_MARK`` of its box, within a glyph width sideways and 0.9 of its height up or down (a bar,
    a dot)."""
    gx, gy, gw, gh = glyph
    out = []
    for contour in contours:
        box = cv2.boundingRect(contour)
        if box == glyph or not _inside(box, ink):
            continue
        if box[0] >= gx and box[1] >= gy and box[0] + box[2] <= gx + gw and box[1] + box[3] <= gy + gh:
            continue  # within the numeral (an outlined numeral's inner outline), not beside it
        if cv2.contourArea(contour) < _MIN_MARK * gw * gh and box[2] * box[3] < 2 * _MIN_MARK * gw * gh:
            continue
        dx, dy = box[0] + box[2] / 2 - (gx + gw / 2), box[1] + box[3] / 2 - (gy + gh / 2)
        if abs(dx) < gw and abs(dy) < 0.9 * gh:
            out.append(dy / gh)
    return out


def loop_side(crop_bgr: np.ndarray, turns: int = 0) -> int:
    """:data:`LOOP_BELOW`, :data:`LOOP_ABOVE` or 0 (no bare glyph with one loop found, or its loop
    in the middle) for the tile in ``crop_bgr``, whose face's top points ``turns`` quarter turns
    clockwise from the image's up (:func:`quarter_turns`)."""
    ink = _ink(crop_bgr, turns)
    if ink is None:
        return 0
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return 0
    links = hierarchy[0]
    hh = ink.shape[0]
    outer = [i for i in range(len(contours)) if links[i][3] == -1]
    glyph, glyph_area, loop_at = None, 0.0, 0.0
    for i in outer:
        box = cv2.boundingRect(contours[i])
        if not _inside(box, ink) or box[3] < _MIN_GLYPH * hh:
            continue
        holes, j = [], links[i][2]
        while j != -1:
            if cv2.contourArea(contours[j]) >= _MIN_HOLE * box[2] * box[3]:
                holes.append(contours[j])
            j = links[j][0]
        area = cv2.contourArea(contours[i])
        if len(holes) != 1 or area <= glyph_area:
            continue
        m = cv2.moments(holes[0])
        if m["m00"] <= 0:
            continue
        glyph, glyph_area, loop_at = box, area, (m["m01"] / m["m00"] - box[1]) / box[3]
    if glyph is None:
        return 0
    if _marks([contours[i] for i in outer], glyph, ink):  # the edition's own way of telling them apart
        return 0
    if loop_at > 0.5 + _MIDDLE:
        return LOOP_BELOW
    if loop_at < 0.5 - _MIDDLE:
        return LOOP_ABOVE
    return 0


def mass_side(crop_bgr: np.ndarray, turns: int = 0) -> int:
    """:data:`LOOP_BELOW` (a 6), :data:`LOOP_ABOVE` (a 9) or 0, from where the numeral's weight
    lies: the centre of its filled outline (the largest ink shape off the crop's edge, at least
    ``_MIN_GLYPH`` of the crop's height) more than ``_MASS_MIDDLE`` below or above its middle. A 6
    is heavy below in any font, outlined or not, where :func:`loop_side` may find no single hole.
    A mark beside it (:func:`_marks`) says which way up the tile stands: below the numeral, as
    seen; above it, the tile stands upside down and the answer is turned. Marks both ways, or
    one level with the numeral: 0. The face's colour is taken from its lightest part
    (``_MASS_FACE``), so that a large numeral does not stand for the face."""
    ink = _ink(crop_bgr, turns, _MASS_FACE)
    if ink is None:
        return 0
    found, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return 0
    contours = [c for c, link in zip(found, hierarchy[0]) if link[3] == -1]  # outlines, not holes
    best, best_area = None, 0.0
    for contour in contours:
        box = cv2.boundingRect(contour)
        area = cv2.contourArea(contour)
        if _inside(box, ink) and box[3] >= _MIN_GLYPH * ink.shape[0] and area > best_area:
            best, best_area = contour, area
    if best is None:
        return 0
    glyph = cv2.boundingRect(best)
    m = cv2.moments(best)
    if m["m00"] <= 0:
        return 0
    at = (m["m01"] / m["m00"] - glyph[1]) / glyph[3]
    side = LOOP_BELOW if at > 0.5 + _MASS_MIDDLE else LOOP_ABOVE if at < 0.5 - _MASS_MIDDLE else 0
    marks = _marks(contours, glyph, ink)
    if not marks:
        return side
    if all(dy > _MARK_OFF for dy in marks):
        return side
    if all(dy < -_MARK_OFF for dy in marks):
        return -side
    return 0
