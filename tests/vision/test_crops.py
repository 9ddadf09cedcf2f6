"""The reader crop (vision.crops): shape, centring, padding at the image border, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from vision import crops
from vision.boxes import polygon_box


def _gradient(h: int = 100, w: int = 160) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[..., 0] = np.arange(w, dtype=np.uint8)[None, :]
    img[..., 1] = np.arange(h, dtype=np.uint8)[:, None]
    img[..., 2] = 200
    return img


@pytest.mark.parametrize("size", [1, 32, 64, 96])
def test_shape_and_dtype(size: int) -> None:
    out = crops.crop_square(_gradient(), (20, 30, 60, 80), size)
    assert out.shape == (size, size, 3) and out.dtype == np.uint8


def test_window_is_a_square_around_the_box_with_the_margin() -> None:
    img = np.zeros((200, 200, 3), np.uint8)
    img[80:120, 90:110] = 255  # a 20 x 40 white tile in the middle
    out = crops.crop_square(img, (90, 80, 110, 120), 46)  # window side 40 * 1.15 = 46: no resampling
    white_rows = np.nonzero(out[..., 0].max(axis=1) == 255)[0]
    white_cols = np.nonzero(out[..., 0].max(axis=0) == 255)[0]
    assert (white_rows.min(), white_rows.max()) == (3, 42)  # 3 pixels of table above and below
    assert (white_cols.min(), white_cols.max()) == (13, 32)  # centred across: a square window
    assert crops.MARGIN == crops.DEFAULT_MARGIN == 1.15


def test_padding_replicates_the_edge_where_the_window_leaves_the_image() -> None:
    img = _gradient()
    out = crops.crop_square(img, (-10, -10, 10, 10), 23)  # side 23: no resampling
    # Left of x=0 the columns repeat column 0 (blue 0); above y=0 rows repeat row 0 (green 0).
    assert (out[:, :12, 0] == 0).all() and (out[:12, :, 1] == 0).all()
    assert out[-1, -1, 0] > 0 and out[-1, -1, 1] > 0


def test_box_outside_the_image_still_gives_a_crop_of_the_nearest_edge() -> None:
    out = crops.crop_square(_gradient(), (500, 500, 520, 530), 16)
    assert out.shape == (16, 16, 3)
    assert (out[..., 0] == 159).all() and (out[..., 1] == 99).all()


def test_grey_images_and_degenerate_boxes() -> None:
    assert crops.crop_square(np.zeros((50, 50), np.uint8), (10, 10, 20, 30), 8).shape == (8, 8)
    assert crops.crop_square(_gradient(), (40, 40, 40, 40), 8).shape == (8, 8, 3)


@pytest.mark.parametrize("box", [(0, 0, float("nan"), 10), (0, float("inf"), 10, 10)])
def test_non_finite_boxes_are_refused(box: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="finite"):
        crops.crop_square(_gradient(), box, 32)


def test_bad_size_and_image_are_refused() -> None:
    with pytest.raises(ValueError, match="size"):
        crops.crop_square(_gradient(), (0, 0, 10, 10), 0)
    with pytest.raises(ValueError, match="image"):
        crops.crop_square(np.zeros((0, 5, 3), np.uint8), (0, 0, 10, 10), 8)


def test_crop_tile_is_crop_square_of_the_polygon_box() -> None:
    img = _gradient()
    poly = [(30, 20), (70, 25), (65, 70), (25, 65)]
    assert polygon_box(poly) == (25, 20, 70, 70)
    assert np.array_equal(crops.crop_tile(img, poly, 40), crops.crop_square(img, (25, 20, 70, 70), 40))


def test_stretched_window_only_for_boxes_elongated_enough() -> None:
    assert crops.window_sides((0, 0, 40, 30), 1.0, 1.8) == (40.0, 40.0)  # 1.33:1: square
    assert crops.window_sides((0, 0, 90, 30), 1.0, 1.8) == (90.0, 50.0)  # 3:1: window 1.8:1
    assert crops.window_sides((0, 0, 30, 90), 1.0, 1.8) == (50.0, 90.0)
    assert crops.window_sides((0, 0, 90, 30), 1.0, 0.0) == (90.0, 90.0)  # readers trained on squares


def test_a_flat_tile_seen_from_afar_fills_more_of_a_stretched_crop() -> None:
    img = np.zeros((200, 300, 3), np.uint8)
    img[90:110, 100:200] = 255  # a tile 100 x 20 pixels, a grazing view
    square = crops.crop_square(img, (100, 90, 200, 110), 64, 1.0)
    stretched = crops.crop_square(img, (100, 90, 200, 110), 64, 1.0, stretch_at=1.8)
    rows = lambda c: int((c[..., 0].max(axis=1) > 127).sum())  # noqa: E731
    assert rows(square) == pytest.approx(64 * 20 / 100, abs=1)
    assert rows(stretched) == pytest.approx(64 * 20 / (100 / 1.8), abs=2)
    assert (stretched[..., 0].max(axis=0) > 127).all()  # the long side still spans the crop


def test_up_vectors_are_taken_back_from_a_stretched_crop() -> None:
    boxes = np.array([[0, 0, 90, 30], [0, 0, 40, 30]], np.float32)
    diagonal = np.array([[1.0, 1.0], [1.0, 1.0]], np.float32) / np.sqrt(2)
    up = crops.up_to_image(diagonal, boxes, 1.0, 1.8)
    # the first crop's y axis was stretched 1.8x: the image direction leans to x
    assert np.allclose(up[0], np.array([1.8, 1.0]) / np.hypot(1.8, 1.0), atol=1e-5)
    assert np.allclose(up[1], diagonal[1])  # a square window keeps the vector
    assert np.allclose(crops.up_to_image(diagonal, boxes), diagonal)
