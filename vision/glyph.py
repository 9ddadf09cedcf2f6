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
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["LOOP_BELOW", "LOOP_ABOVE", "loop_side", "quarter_turns"]

LOOP_BELOW = 1
"""The loop lies in the lower part of the upright glyph: a 6."""
LOOP_ABOVE = -1
"""The loop lies in the upper part: a 9."""

_HEIGHT = 96  # the crop is scaled to this height before thresholding
_MIN_GLYPH = 0.15  # a numeral is at least this share of the crop's height
_MIN_HOLE = 0.02  # a loop is at least this share of its glyph's box
_MIN_MARK = 0.01  # an ink shape beside the glyph this large (share of the glyph's box) is a mark
_MIDDLE = 0.06  # a loop's centre within this of the glyph's middle says nothing


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


def loop_side(crop_bgr: np.ndarray, turns: int = 0) -> int:
    """:data:`LOOP_BELOW`, :data:`LOOP_ABOVE` or 0 (no bare glyph with one loop found, or its loop
    in the middle) for the tile in ``crop_bgr``, whose face's top points ``turns`` quarter turns
    clockwise from the image's up (:func:`quarter_turns`)."""
    crop = _upright(np.ascontiguousarray(crop_bgr), turns)
    h, w = crop.shape[:2]
    if h < 8 or w < 6:
        return 0
    scale = _HEIGHT / h
    img = cv2.resize(crop, (max(8, int(round(w * scale))), _HEIGHT), interpolation=cv2.INTER_CUBIC)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    hh, ww = lab.shape[:2]
    face = np.median(lab[hh // 5: 4 * hh // 5, ww // 5: 4 * ww // 5].reshape(-1, 3), axis=0)
    distance = cv2.GaussianBlur(np.linalg.norm(lab - face, axis=2), (3, 3), 0)
    _, ink = cv2.threshold(np.clip(distance * 2, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return 0
    links = hierarchy[0]

    def inside(box: tuple[int, int, int, int]) -> bool:  # not touching the crop's edge (the tile's surroundings)
        x, y, bw, bh = box
        return x > 1 and y > 1 and x + bw < ww - 1 and y + bh < hh - 1

    outer = [i for i in range(len(contours)) if links[i][3] == -1]
    glyph, glyph_area, loop_at = None, 0.0, 0.0
    for i in outer:
        box = cv2.boundingRect(contours[i])
        if not inside(box) or box[3] < _MIN_GLYPH * hh:
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
    gx, gy, gw, gh = glyph
    for i in outer:  # a mark beside the numeral: the edition's own way of telling them apart
        box = cv2.boundingRect(contours[i])
        if box == glyph or not inside(box):
            continue
        if cv2.contourArea(contours[i]) < _MIN_MARK * gw * gh and box[2] * box[3] < 2 * _MIN_MARK * gw * gh:
            continue
        if abs(box[0] + box[2] / 2 - (gx + gw / 2)) < gw and abs(box[1] + box[3] / 2 - (gy + gh / 2)) < 0.9 * gh:
            return 0
    if loop_at > 0.5 + _MIDDLE:
        return LOOP_BELOW
    if loop_at < 0.5 - _MIDDLE:
        return LOOP_ABOVE
    return 0
