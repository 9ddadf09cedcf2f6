"""The tile crop the reader sees, in serving and in training alike (the same code serves both).

A crop is the axis-aligned square window centred on a tile's box, with side
``max(w, h) * MARGIN`` (1.15: a little table around the tile whatever its rotation), padded by
edge replication where it leaves the image and resized to ``size x size`` with INTER_AREA
(INTER_LINEAR when enlarging). Only an axis-aligned box is needed, so detector boxes and label
polygons (through their bounding box, :func:`crop_tile`) are cropped identically. The crop is not
turned upright: detector boxes carry no rotation, so the reader learns every rotation.

A reader trained with ``stretch_at`` R (its card's ``crop_stretch_at``) sees an elongated box
differently: when the box's long side is at least R times its short side (a tile lying flat, seen
at a grazing angle from across the table), the window keeps its long side but its short side is
the long one over R, and the square crop stretches that across. The numeral is then drawn over
more of the crop instead of a thin band between the neighbours. :func:`window_sides` gives the
window, so an up vector can be taken between crop and image (:func:`up_to_image`).

:func:`photometric` varies a crop's light and camera the way photos do: the reader's training and
a player's teaching (``vision.teach``) both apply it, and teaching runs without the training stack.

Exporting the crops of a labelled folder for training: ``python -m datasets.crops``.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.boxes import polygon_box

__all__ = ["MARGIN", "DEFAULT_MARGIN", "DEFAULT_SIZE", "crop_square", "crop_tile", "photometric", "window_sides",
           "up_to_image", "READER_STRETCH_AT"]

MARGIN = 1.15
"""Side of the square window relative to the longer side of the box: a little context around the
tile (its edges, the logo) without much of the neighbours."""
DEFAULT_MARGIN = MARGIN
DEFAULT_SIZE = 64
READER_STRETCH_AT = 1.8
"""The tile reader's crop rule (:func:`vision.crops.crop_square`, recorded in its card as
``crop_stretch_at``): a box at least 1.8 times as long as it is wide is cut from a window 1.8:1,
stretched square. Chosen on validation with the session-10 reader, before training with it
(mean tile F1 over real valid and the rendered rack, held-out-family and cloth val scenes: square
0.9701, 1.4 0.9718, 1.8 0.9720, 2.4 0.9707)."""


def window_sides(box_xyxy: Sequence[float], margin: float = MARGIN, stretch_at: float = 0.0) -> tuple[float, float]:
    """Width and height in image pixels of the window a crop of ``box_xyxy`` is cut from: a square
    of side ``max(w, h) * margin``, or, when ``stretch_at`` > 1 and the box is at least that
    elongated, that long side by the long side over ``stretch_at``."""
    w = max(float(box_xyxy[2]) - float(box_xyxy[0]), 1.0)
    h = max(float(box_xyxy[3]) - float(box_xyxy[1]), 1.0)
    side = max(w, h) * margin
    if stretch_at > 1.0 and max(w, h) >= stretch_at * min(w, h):
        return (side, side / stretch_at) if w >= h else (side / stretch_at, side)
    return side, side


def up_to_image(up: np.ndarray, boxes_xyxy: np.ndarray, margin: float = MARGIN, stretch_at: float = 0.0) -> np.ndarray:
    """Unit up vectors (N, 2) read in crop coordinates, turned into image coordinates (the same
    vectors for square windows; a stretched crop's vectors shrunk back along the stretched side)."""
    up = np.asarray(up, np.float32)
    if stretch_at <= 1.0 or len(up) == 0:
        return up
    sides = np.array([window_sides(b, margin, stretch_at) for b in boxes_xyxy], np.float32).reshape(-1, 2)
    v = up * (sides / sides.max(axis=1, keepdims=True))
    return v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-6, None)


def crop_square(image_bgr: np.ndarray, box_xyxy: Sequence[float], size: int = DEFAULT_SIZE,
                margin: float = MARGIN, stretch_at: float = 0.0) -> np.ndarray:
    """Square crop around ``box_xyxy`` (pixels, x1 y1 x2 y2), resized to ``size`` x ``size``; the
    window is :func:`window_sides` (square unless ``stretch_at`` stretches an elongated box).

    Detector boxes are taken as they come: a degenerate box gives a 1-pixel window and a box
    outside the image gives the replicated edge (inference must not fail on one odd box). Raises
    ``ValueError`` only for a non-finite box, a bad size or margin, or an array that is not an image.
    """
    if image_bgr.ndim not in (2, 3) or image_bgr.shape[0] == 0 or image_bgr.shape[1] == 0:
        raise ValueError(f"expected an image array of shape (H, W) or (H, W, C), got {image_bgr.shape}")
    if int(size) < 1:
        raise ValueError(f"crop size must be at least 1 pixel, got {size}")
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    if not np.all(np.isfinite([x1, y1, x2, y2])):
        raise ValueError(f"box {list(box_xyxy)} has a coordinate that is not a finite number")
    size = int(size)
    side_w, side_h = window_sides((x1, y1, x2, y2), margin, stretch_at)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left = int(round(cx - side_w / 2))
    top = int(round(cy - side_h / 2))
    sw, sh = max(int(round(side_w)), 1), max(int(round(side_h)), 1)
    h, w = image_bgr.shape[:2]
    pad_l, pad_t = max(0, -left), max(0, -top)
    pad_r, pad_b = max(0, left + sw - w), max(0, top + sh - h)
    window = image_bgr[max(top, 0):min(top + sh, h), max(left, 0):min(left + sw, w)]
    if pad_l or pad_t or pad_r or pad_b:
        if window.size == 0:  # box entirely outside the image: the nearest edge pixel, replicated
            window = image_bgr[min(max(top, 0), h - 1):min(max(top, 0), h - 1) + 1,
                               min(max(left, 0), w - 1):min(max(left, 0), w - 1) + 1]
            pad_t, pad_b, pad_l, pad_r = 0, sh - 1, 0, sw - 1
        window = cv2.copyMakeBorder(window, pad_t, pad_b, pad_l, pad_r, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if min(window.shape[:2]) > size else cv2.INTER_LINEAR
    return cv2.resize(window, (size, size), interpolation=interp)


def crop_tile(image_bgr: np.ndarray, polygon_xy: Sequence[Sequence[float]], size: int = DEFAULT_SIZE,
              margin: float = MARGIN, stretch_at: float = 0.0) -> np.ndarray:
    """The reader crop of a labelled tile: :func:`crop_square` of the polygon's box (training side)."""
    return crop_square(image_bgr, polygon_box(polygon_xy), size, margin, stretch_at)


def photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, white balance, blur, noise and JPEG, kept small enough that colours stay colours."""
    img = crop.astype(np.float32)
    gain = rng.uniform(0.6, 1.35)
    bias = rng.uniform(-25, 25)
    wb = rng.uniform(0.88, 1.12, size=3)  # warm/cool light; hue shifts stay small (colour is a class)
    img = img * gain * wb + bias
    if rng.random() < 0.3:  # uneven light across the tile
        h, w = img.shape[:2]
        gx = np.linspace(-1, 1, w)[None, :, None] * rng.uniform(-0.25, 0.25)
        gy = np.linspace(-1, 1, h)[:, None, None] * rng.uniform(-0.25, 0.25)
        img = img * (1 + gx + gy)
    if rng.random() < 0.3:
        img = img + rng.normal(0, rng.uniform(2, 10), size=img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        k = int(rng.choice([3, 5]))
        img = cv2.GaussianBlur(img, (k, k), 0)
    if rng.random() < 0.25:
        q = int(rng.uniform(30, 90))
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if rng.random() < 0.1:  # grey-ish camera: colour must also come from what is left
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[:, :, None]
        img = cv2.addWeighted(img, 0.6, np.repeat(grey, 3, axis=2), 0.4, 0)
    return img
