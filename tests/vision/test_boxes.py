"""Box geometry (vision.boxes): one argument order, found boxes first."""

from __future__ import annotations

import numpy as np
import pytest

from vision.boxes import areas, intersections, iou_matrix, match_boxes, polygon_box


def test_iou_of_known_boxes() -> None:
    found = np.array([[0, 0, 10, 10], [100, 100, 110, 120]], np.float32)
    reference = np.array([[5, 0, 15, 10], [0, 0, 10, 10], [200, 200, 201, 201]], np.float32)
    assert areas(found).tolist() == [100, 200]
    assert intersections(found, reference)[0].tolist() == [50, 100, 0]
    iou = iou_matrix(found, reference)
    assert iou.shape == (2, 3)
    assert iou[0].tolist() == pytest.approx([50 / 150, 1.0, 0.0])
    assert iou[1].tolist() == [0.0, 0.0, 0.0]


def test_match_pairs_found_with_reference_best_first_one_to_one() -> None:
    reference = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    found = np.array([[21, 0, 31, 10], [0, 0, 10, 10], [1, 0, 11, 10], [50, 50, 60, 60]], np.float32)
    # found 1 is the exact box; found 2 overlaps the same reference less and stays unmatched
    assert match_boxes(found, reference) == [(1, 0), (0, 1)]
    assert match_boxes(reference, found) == [(0, 1), (1, 0)]  # swapped lists: swapped pairs
    assert match_boxes(found, reference, min_iou=0.95) == [(1, 0)]


def test_empty_lists() -> None:
    none = np.zeros((0, 4), np.float32)
    some = np.array([[0, 0, 1, 1]], np.float32)
    assert iou_matrix(none, some).shape == (0, 1)
    assert match_boxes(none, some) == [] and match_boxes(some, none) == []


def test_degenerate_boxes_have_no_overlap() -> None:
    point = np.array([[5, 5, 5, 5]], np.float32)
    assert iou_matrix(point, point).tolist() == [[0.0]]


def test_polygon_box() -> None:
    assert polygon_box([(30, 20), (70, 25), (65, 70), (25, 65)]) == (25, 20, 70, 70)
    with pytest.raises(ValueError, match="at least 2 points"):
        polygon_box([(1, 2)])
