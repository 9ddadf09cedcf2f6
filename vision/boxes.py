"""Box geometry, written once: areas, overlaps, IoU and the one-to-one matching of two box lists.

Boxes are ``xyxy`` pixels (x1, y1, x2, y2) in arrays of shape (N, 4). Every function that takes
two lists takes them in one order: the boxes found first, the reference (labelled, or the same
list again) second, so a result's rows are the found boxes and its columns the reference boxes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["polygon_box", "areas", "intersections", "iou_matrix", "match_boxes"]


def polygon_box(polygon_xy: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """Axis-aligned box (x1, y1, x2, y2) around a polygon's points."""
    pts = np.asarray(polygon_xy, np.float64).reshape(-1, 2)
    if len(pts) < 2:
        raise ValueError(f"a polygon needs at least 2 points, got {len(pts)}")
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def areas(boxes: np.ndarray) -> np.ndarray:
    """Area of each box, shape (N,)."""
    boxes = np.asarray(boxes).reshape(-1, 4)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def intersections(found: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Area shared by each pair of boxes, shape (N, M): row i is ``found[i]``, column j ``reference[j]``."""
    a = np.asarray(found).reshape(-1, 4)
    b = np.asarray(reference).reshape(-1, 4)
    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def iou_matrix(found: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Intersection over union of each pair, shape (N, M); 0 for boxes of no area."""
    inter = intersections(found, reference)
    union = areas(found)[:, None] + areas(reference)[None, :] - inter
    return inter / np.maximum(union, 1e-9)


def match_boxes(found: np.ndarray, reference: np.ndarray, min_iou: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one matching by IoU, best pairs first (greedy): pairs (found index, reference index)
    with IoU >= ``min_iou``, in the order they were taken."""
    iou = iou_matrix(found, reference)
    pairs: list[tuple[int, int]] = []
    used_f: set[int] = set()
    used_r: set[int] = set()
    for flat in np.argsort(-iou, axis=None, kind="stable"):
        f, r = (int(v) for v in np.unravel_index(flat, iou.shape))
        if iou[f, r] < min_iou:
            break
        if f in used_f or r in used_r:
            continue
        pairs.append((f, r))
        used_f.add(f)
        used_r.add(r)
    return pairs
