"""Draw a :class:`~vision.reading.TableReading` on its photo (``python -m vision.read --overlay``).

Every tile gets its code, written on the tile itself in white with a dark outline; each set an
outline around its tiles, green when the referee finds it valid and red when not, with its number
and value; loose tiles an orange box, rack tiles a blue one; doubtful tiles a magenta box and
their number (the number doubts name). A banner sums it up. Sizes follow the photo: text is at
least ``MIN_TEXT_SHARE`` of the photo's long side high, so a phone showing the whole photo still
shows readable codes. OpenCV drawing only.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.i18n import _
from vision.reading import TableReading

__all__ = ["draw_overlay", "VALID_BGR", "INVALID_BGR", "LOOSE_BGR", "RACK_BGR", "DOUBT_BGR", "MIN_TEXT_SHARE"]

VALID_BGR = (60, 190, 40)
INVALID_BGR = (40, 40, 230)
LOOSE_BGR = (0, 165, 255)
RACK_BGR = (230, 140, 20)
DOUBT_BGR = (220, 40, 220)
_INK = (20, 20, 20)
_WHITE = (255, 255, 255)
MIN_TEXT_SHARE = 0.02
"""Smallest text height as a share of the photo's long side (about 24 px on a phone screen)."""
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_FONT_PX = 22.0  # cap height of _FONT at scale 1


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],
          thick: int, centred: bool = False) -> None:
    """Text with a dark outline behind it, so it reads on any background."""
    (tw, th), _ = cv2.getTextSize(text, _FONT, scale, thick)
    x, y = org
    if centred:
        x, y = x - tw // 2, y + th // 2
    h, w = img.shape[:2]
    x = int(min(max(x, 2), max(2, w - tw - 2)))
    y = int(min(max(y, th + 2), h - 2))
    cv2.putText(img, text, (x, y), _FONT, scale, _INK, thick + max(2, thick), cv2.LINE_AA)
    cv2.putText(img, text, (x, y), _FONT, scale, colour, thick, cv2.LINE_AA)


def _words(translated: str, english: str) -> str:
    """OpenCV's fonts draw ASCII only: a translation in another script falls back to English."""
    return translated if translated.isascii() else english


def _banner(img: np.ndarray, parts: list[str], scale: float, thick: int) -> None:
    """The summary on a dark band at the top, as many lines as the photo's width needs."""
    lines: list[str] = []
    for part in parts:
        trial = f"{lines[-1]} | {part}" if lines else part
        if lines and cv2.getTextSize(trial, _FONT, scale, thick)[0][0] <= img.shape[1] - 16:
            lines[-1] = trial
        else:
            lines.append(part)
    widest = max(cv2.getTextSize(line, _FONT, scale, thick)[0][0] for line in lines)
    if widest > img.shape[1] - 16:  # one part alone is too wide: shrink it all
        scale *= (img.shape[1] - 16) / widest
    (_, th), base = cv2.getTextSize("Ag", _FONT, scale, thick)
    pad = max(4, th // 3)
    step = th + base + pad
    band = img.copy()
    cv2.rectangle(band, (0, 0), (img.shape[1], pad + step * len(lines)), _INK, -1)
    cv2.addWeighted(band, 0.65, img, 0.35, 0, dst=img)
    for k, line in enumerate(lines):
        cv2.putText(img, line, (pad, pad + th + k * step), _FONT, scale, _WHITE, thick, cv2.LINE_AA)


def _box(img: np.ndarray, box: tuple[float, float, float, float], colour: tuple[int, int, int], thick: int) -> None:
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    cv2.rectangle(img, (x1, y1), (x2, y2), _INK, thick + 2, cv2.LINE_AA)
    cv2.rectangle(img, (x1, y1), (x2, y2), colour, thick, cv2.LINE_AA)


def draw_overlay(image_bgr: np.ndarray, reading: TableReading) -> np.ndarray:
    """A copy of the photo with the reading drawn on it (same size, BGR uint8)."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("expected a BGR image: a numpy array of shape (height, width, 3)")
    img = np.ascontiguousarray(image_bgr, dtype=np.uint8).copy()
    h, w = img.shape[:2]
    long_side = max(h, w)
    boxes = np.array([t.box_xyxy for t in reading.tiles], dtype=np.float64).reshape(-1, 4)
    tile_px = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) if len(boxes) else 0.0
    # Codes fit on a tile when tiles are big; never smaller than readable on a phone.
    text_px = min(max(0.42 * tile_px, MIN_TEXT_SHARE * long_side), 0.06 * long_side)
    scale = text_px / _FONT_PX
    thick = max(1, int(round(text_px / 9)))
    line = max(2, int(round(long_side / 450)))
    doubtful = {d.index for d in reading.doubts}

    for k, s in enumerate(reading.sets):
        if not s.indices:
            continue
        colour = VALID_BGR if s.valid else INVALID_BGR
        corners = np.concatenate([[(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])] for b in boxes[list(s.indices)]])
        hull = cv2.convexHull(corners.astype(np.float32)).reshape(-1, 2)
        centre = hull.mean(axis=0)
        grown = centre + (hull - centre) * 1.0 + np.sign(hull - centre) * line * 2  # a little outside the tiles
        pts = np.round(grown).astype(np.int32)
        cv2.polylines(img, [pts], True, _INK, line * 2 + 2, cv2.LINE_AA)
        cv2.polylines(img, [pts], True, colour, line * 2, cv2.LINE_AA)
        # Kinds are the JSON's words ("run", "group"); "X" marks an invalid set in any language.
        tag = f"#{k + 1} {s.kind} {s.points}" if s.valid else f"#{k + 1} X"
        top = pts[np.argmin(pts[:, 1])]
        tag_scale = MIN_TEXT_SHARE * long_side / _FONT_PX
        tag_w = cv2.getTextSize(tag, _FONT, tag_scale, thick)[0][0]
        _text(img, tag, (int(top[0]) - tag_w // 2, int(top[1]) - line * 2), tag_scale, colour, thick)

    for i, t in enumerate(reading.tiles):
        if i in doubtful:
            colour = DOUBT_BGR
        elif t.rack:
            colour = RACK_BGR
        elif t.set is None:
            colour = LOOSE_BGR
        else:
            colour = None  # the set's outline already says it; boxes of rotated tiles would clutter
        if colour is not None:
            _box(img, t.box_xyxy, colour, line)
        x1, y1, x2, y2 = t.box_xyxy
        label = f"{i + 1}:{t.code}?" if i in doubtful else t.code
        # Fit the code to the tile's width when that stays readable on a phone.
        width_at_scale = cv2.getTextSize(label, _FONT, scale, thick)[0][0]
        fit = scale * 0.85 * (x2 - x1) / max(width_at_scale, 1)
        tile_scale = max(min(scale, fit), MIN_TEXT_SHARE * long_side / _FONT_PX)
        # A little below the centre: on the tile even when it lies rotated, the digit above visible.
        _text(img, label, (int((x1 + x2) / 2), int(y1 + 0.62 * (y2 - y1))), tile_scale,
              _WHITE if i not in doubtful else DOUBT_BGR, thick, centred=True)

    valid = sum(1 for s in reading.sets if s.valid)
    invalid = len(reading.sets) - valid
    parts = []
    if reading.sets:
        parts.append(_words(_("{count} sets: {valid} valid, {invalid} not valid"), "{count} sets: {valid} valid, {invalid} not valid")
                     .format(count=len(reading.sets), valid=valid, invalid=invalid))
    if reading.loose:
        parts.append(_words(_("{count} loose"), "{count} loose").format(count=len(reading.loose)))
    if reading.rack:
        parts.append(_words(_("rack: {count} tiles, {points} points"), "rack: {count} tiles, {points} points")
                     .format(count=len(reading.rack), points=reading.rack_points))
    if reading.doubts:
        parts.append(_words(_("{count} to check"), "{count} to check").format(count=len(reading.doubts)))
    if not reading.tiles:
        parts = [_words(_("no tiles found"), "no tiles found")]
    if parts:
        _banner(img, parts, MIN_TEXT_SHARE * long_side * 1.2 / _FONT_PX, thick)
    return img
