"""Draw a :class:`~vision.reading.TableReading` on its photo (``python -m vision.read --overlay``).

Every tile gets its code, written on the tile itself in white with a dark outline; each set an
outline around its tiles, green when the referee finds it valid and red when not, with its number
and value; loose tiles an orange box, rack tiles a blue one; doubtful tiles a magenta box and
their number (the number doubts name). A banner sums it up. Sizes follow the photo: text is at
least ``MIN_TEXT_SHARE`` of the photo's long side high, so a phone showing the whole photo still
shows readable codes. OpenCV drawing only.

Labels never overlap (:func:`place_labels`): on a dense rack, where a readable code is wider
than its tile, each label goes on its tile if there is room, else just above or below it (a thin
line ties it to its tile), else a little smaller, down to ``MIN_SHRINK`` of its size.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.i18n import _
from vision.reading import TableReading

__all__ = ["draw_overlay", "place_labels", "VALID_BGR", "INVALID_BGR", "LOOSE_BGR", "RACK_BGR", "DOUBT_BGR",
           "MIN_TEXT_SHARE", "MIN_SHRINK"]

VALID_BGR = (60, 190, 40)
INVALID_BGR = (40, 40, 230)
LOOSE_BGR = (0, 165, 255)
RACK_BGR = (230, 140, 20)
DOUBT_BGR = (220, 40, 220)
_INK = (20, 20, 20)
_WHITE = (255, 255, 255)
MIN_TEXT_SHARE = 0.02
"""Smallest text height as a share of the photo's long side (about 24 px on a phone screen)."""
MIN_SHRINK = 0.7
"""A label that finds no free place is shrunk, at most to this share of its size, before it is
placed where it overlaps least."""
ON_TILE_WIDTH = 1.15
"""A label goes on its tile when it is at most this many times as wide as the tile's box (its dark
outline may reach over the box's edge)."""
ON_TILE_OVERLAP = 0.12
"""...and when it covers at most this share of its area of labels already placed (the boxes of
tiles lying rotated overlap, so their labels may touch; a sliver does not hide a letter)."""
_ON_TILE_SPOTS = ((0.5, 0.62), (0.5, 0.78), (0.5, 0.45), (0.4, 0.7), (0.6, 0.7), (0.4, 0.5), (0.6, 0.5))
"""Where on its box a label may sit (shares of width, height): low in the middle first."""
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


Rect = tuple[float, float, float, float]


def _overlap(a: Rect, b: Rect) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def place_labels(
    boxes_xyxy: list[tuple[float, float, float, float]],
    sizes_wh: list[tuple[float, float]],
    image_wh: tuple[int, int],
    taken: list[Rect] | None = None,
) -> list[tuple[Rect, float]]:
    """Where each tile's label goes: ``(rect xyxy, scale)`` per label; labels overlap at most by
    a sliver (``ON_TILE_OVERLAP``) on their tiles, and never elsewhere.

    ``sizes_wh`` is each label's size at scale 1 (its readable size); ``taken`` rectangles
    already used (set tags). In three steps:

    1. a label at most ``ON_TILE_WIDTH`` times as wide as its tile's box goes on the tile, low
       on it (the digit stays visible; a little higher, lower or to a side if a neighbour's
       label is there), shrunk down to ``MIN_SHRINK`` if that makes it fit;
       all labels at full size first, then smaller ones;
    2. the others go on lines of labels just above their row of tiles (or below, where other
       tiles lie above), in the same left-to-right order as their tiles, so the thin lines that
       tie them to their tiles never cross; a crowded row takes up to three lines (labels taken
       in turn), then the labels shrink, down to ``MIN_SHRINK`` of their size. Labels hide no
       other tile unless at the smallest size;
    3. a label still without room goes to the free spot nearest its tile, else where it
       overlaps least.
    """
    img_w, img_h = image_wh
    n = len(boxes_xyxy)
    tiles = [tuple(float(v) for v in b) for b in boxes_xyxy]
    used: list[Rect] = list(taken or [])
    out: list[tuple[Rect, float] | None] = [None] * n
    order = sorted(range(n), key=lambda i: ((tiles[i][1] + tiles[i][3]) / 2, (tiles[i][0] + tiles[i][2]) / 2))

    def clamp(x: float, y: float, w: float, h: float) -> Rect:
        """The w x h rectangle centred on (x, y), moved inside the image."""
        rx = min(max(x - w / 2, 2.0), max(2.0, img_w - w - 2))
        ry = min(max(y - h / 2, 2.0), max(2.0, img_h - h - 2))
        return (rx, ry, rx + w, ry + h)

    def free(r: Rect, i: int, clear_of_tiles: bool) -> bool:
        if any(_overlap(r, u) > 0 for u in used):
            return False
        # Clear of the other tiles too when it can be: a label must not hide a tile.
        return not clear_of_tiles or all(_overlap(r, b) <= 0 for k, b in enumerate(tiles) if k != i)

    # 1. On the tile, a little smaller if that makes it fit: every label that fits its box at
    # full size first, then smaller ones, then ones reaching a little over the box's edge.
    for limit in (1.0, ON_TILE_WIDTH):
        for scale in (1.0, 0.85, MIN_SHRINK):
            for i in order:
                if out[i] is not None:
                    continue
                x1, y1, x2, y2 = tiles[i]
                w, h = sizes_wh[i][0] * scale, sizes_wh[i][1] * scale
                if w > limit * (x2 - x1):
                    continue
                for fx, fy in _ON_TILE_SPOTS:
                    r = clamp(x1 + fx * (x2 - x1), y1 + fy * (y2 - y1), w, h)
                    # A sliver over a neighbour's label (rotated tiles' boxes overlap) still reads.
                    if sum(_overlap(r, u) for u in used) <= ON_TILE_OVERLAP * w * h:
                        used.append(r)
                        out[i] = (r, scale)
                        break

    # 2. Ordered lines of labels above or below the rows.
    for scale in (1.0, 0.85, MIN_SHRINK):
        rest = [i for i in order if out[i] is None]
        if not rest:
            break
        for i, r in _lanes(rest, tiles, sizes_wh, scale, clamp):
            if free(r, i, scale > MIN_SHRINK):
                used.append(r)
                out[i] = (r, scale)

    # 3. Whatever is left: the nearest free spot, else the least overlap.
    for i in order:
        if out[i] is not None:
            continue
        x1, y1, x2, y2 = tiles[i]
        w, h = sizes_wh[i][0] * MIN_SHRINK, sizes_wh[i][1] * MIN_SHRINK
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        spots = [clamp(cx + 0.5 * kx * w, cy + ky * 1.2 * h, w, h) for kx in range(-8, 9) for ky in range(-6, 7)]
        spots.sort(key=lambda r: math.hypot((r[0] + r[2]) / 2 - cx, (r[1] + r[3]) / 2 - cy))
        r = next((r for r in spots if free(r, i, False)), None)
        if r is None:
            r = min(spots, key=lambda r: sum(_overlap(r, u) for u in used))
        used.append(r)
        out[i] = (r, MIN_SHRINK)
    return [p for p in out if p is not None]


def _lanes(
    members: list[int], tiles: list[Rect], sizes_wh: list[tuple[float, float]], scale: float, clamp
) -> list[tuple[int, Rect]]:
    """Step 2 of :func:`place_labels`: rectangles on lines of labels, in the tiles' order."""
    out: list[tuple[int, Rect]] = []
    h = max(sizes_wh[i][1] for i in members) * scale
    gap = 0.2 * h

    def blocked_above(i: int) -> bool:
        x1, y1, x2, _ = tiles[i]
        probe = (x1, y1 - gap - h, x2, y1 - 1)
        return any(_overlap(probe, b) > 0 for k, b in enumerate(tiles) if k != i)

    # Bands: the labels going above (or below) tiles whose top (bottom) edges lie on one line.
    sides = [(("below", tiles[i][3]) if blocked_above(i) else ("above", tiles[i][1]), i) for i in members]
    sides.sort(key=lambda s: (s[0][0], s[0][1]))
    bands: list[list[tuple[str, float, int]]] = []
    for (side, edge), i in sides:
        if bands and bands[-1][-1][0] == side and abs(edge - bands[-1][-1][1]) < 0.5 * h:
            bands[-1].append((side, edge, i))
        else:
            bands.append([(side, edge, i)])
    for band in bands:
        side = band[0][0]
        items = sorted((i for _, _, i in band), key=lambda i: (tiles[i][0] + tiles[i][2]) / 2)
        widths = [sizes_wh[i][0] * scale for i in items]
        span = max(tiles[i][2] for i in items) - min(tiles[i][0] for i in items)
        total = sum(widths) + gap * (len(items) - 1)
        lines = 1
        while lines < 3 and total / lines > span + 2 * max(widths):
            lines += 1
        edge = min(tiles[i][1] for i in items) if side == "above" else max(tiles[i][3] for i in items)
        for k in range(lines):
            lane = [(i, w) for j, (i, w) in enumerate(zip(items, widths)) if j % lines == k]
            y = edge - gap - h / 2 - k * (h + gap) if side == "above" else edge + gap + h / 2 + k * (h + gap)
            # Packed left to right from where each label would sit over its tile, then the whole
            # line shifted back by the mean push (a shift keeps the order and the gaps).
            xs: list[float] = []
            for i, w in lane:
                want = (tiles[i][0] + tiles[i][2]) / 2 - w / 2
                xs.append(max(want, xs[-1] + lane[len(xs) - 1][1] + gap) if xs else want)
            push = sum(x - ((tiles[i][0] + tiles[i][2]) / 2 - w / 2) for x, (i, w) in zip(xs, lane)) / max(len(lane), 1)
            for x, (i, w) in zip(xs, lane):
                out.append((i, clamp(x - push + w / 2, y, w, h * sizes_wh[i][1] * scale / h)))
    return out


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
    taken: list[Rect] = []

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
        (tag_w, tag_h), _base = cv2.getTextSize(tag, _FONT, tag_scale, thick)
        _text(img, tag, (int(top[0]) - tag_w // 2, int(top[1]) - line * 2), tag_scale, colour, thick)
        tx, ty = int(top[0]) - tag_w // 2, int(top[1]) - line * 2
        taken.append((tx, ty - tag_h, tx + tag_w, ty + 2))

    labels, sizes, scales = [], [], []
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
        (tw, th), base = cv2.getTextSize(label, _FONT, tile_scale, thick)
        pad = thick + max(2, thick)  # the outline drawn around the letters
        labels.append(label)
        sizes.append((tw + 2 * pad, th + base + 2 * pad))
        scales.append(tile_scale)
    places = place_labels([t.box_xyxy for t in reading.tiles], sizes, (w, h), taken)
    for i, (t, label, (rect, shrink)) in enumerate(zip(reading.tiles, labels, places)):
        x1, y1, x2, y2 = t.box_xyxy
        rx1, ry1, rx2, ry2 = rect
        cx, cy = (rx1 + rx2) / 2, (ry1 + ry2) / 2
        if not (x1 <= cx <= x2 and y1 <= cy <= y2):  # off its tile: a thin line ties it back
            anchor = (int((x1 + x2) / 2), int(y1 if cy < y1 else y2))
            edge = (int(min(max((x1 + x2) / 2, rx1), rx2)), int(ry2 if cy < y1 else ry1))
            cv2.line(img, anchor, edge, _INK, max(1, line // 2) + 2, cv2.LINE_AA)
            cv2.line(img, anchor, edge, _WHITE, max(1, line // 2), cv2.LINE_AA)
        _text(img, label, (int(cx), int(cy)), scales[i] * shrink, _WHITE if i not in doubtful else DOUBT_BGR,
              max(1, int(round(thick * shrink))), centred=True)

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
