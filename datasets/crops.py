"""The tile crop shared by reader training and inference (the same code serves both).

A crop is the axis-aligned square window centred on a tile's box, with side
``max(w, h) * MARGIN``, padded by edge replication where it leaves the image and resized to
``size x size`` with INTER_AREA. Only an axis-aligned box is needed, so detector boxes and label
polygons (through their bounding box) are cropped identically.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["MARGIN", "crop_square"]

MARGIN = 1.15
"""Side of the square window relative to the longer side of the box: a little context around the
tile (its edges, the logo) without much of the neighbours."""


def crop_square(image_bgr: np.ndarray, box_xyxy: tuple[float, float, float, float], size: int) -> np.ndarray:
    """Square crop around ``box_xyxy`` (pixels, x1 y1 x2 y2), resized to ``size`` x ``size``."""
    x1, y1, x2, y2 = (float(v) for v in box_xyxy)
    side = max(x2 - x1, y2 - y1, 1.0) * MARGIN
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left = int(round(cx - side / 2))
    top = int(round(cy - side / 2))
    s = max(int(round(side)), 1)
    h, w = image_bgr.shape[:2]
    pad_l, pad_t = max(0, -left), max(0, -top)
    pad_r, pad_b = max(0, left + s - w), max(0, top + s - h)
    window = image_bgr[max(top, 0):min(top + s, h), max(left, 0):min(left + s, w)]
    if pad_l or pad_t or pad_r or pad_b:
        if window.size == 0:  # box entirely outside the image
            window = np.zeros((1, 1, 3), dtype=image_bgr.dtype)
        window = cv2.copyMakeBorder(window, pad_t, pad_b, pad_l, pad_r, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if window.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(window, (size, size), interpolation=interp)
