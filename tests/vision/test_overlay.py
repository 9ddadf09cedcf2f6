"""Overlays (vision.overlay): the reading drawn on the photo."""

from __future__ import annotations

import numpy as np
import pytest

from referee.tiles import parse_tile, parse_tiles
from tests.vision.scenes import Scene, table_scene
from vision.decode import build_reading
from vision.detections import N_CODES, TileDetections
from vision.overlay import DOUBT_BGR, INVALID_BGR, VALID_BGR, draw_overlay
from vision.reading import TableReading


def _photo(scene: Scene, size: tuple[int, int] = (1600, 1200), uncertain: int | None = None, mode: str = "table"):
    boxes, _ = scene.view(px=60, size=size)
    probs = np.zeros((len(boxes), N_CODES))
    for i, t in enumerate(scene.tiles):
        probs[i, t.index] = 1.0
    if uncertain is not None:
        probs[uncertain] *= 0.6
        probs[uncertain, (int(probs[uncertain].argmax()) + 5) % 52] = 0.4
    reading = build_reading(size, TileDetections(boxes, np.ones(len(boxes)), probs), mode=mode)
    image = np.full((size[1], size[0], 3), 120, np.uint8)
    return image, reading


def _has(image: np.ndarray, bgr: tuple[int, int, int]) -> bool:
    return bool(np.all(image == np.array(bgr, np.uint8), axis=2).any())


def test_draws_sets_codes_and_doubts() -> None:
    scene = table_scene("R5 R6 R7 | K3 B3 K3")
    scene.add_loose(20.0, 9.0, tile=parse_tile("O9"))
    image, reading = _photo(scene, uncertain=0)
    out = draw_overlay(image, reading)
    assert out.shape == image.shape and out.dtype == np.uint8
    assert not np.array_equal(out, image)
    assert np.all(image == 120)  # the photo itself is left alone
    assert _has(out, VALID_BGR) and _has(out, INVALID_BGR) and _has(out, DOUBT_BGR)


@pytest.mark.parametrize("size", [(640, 480), (4032, 3024), (3024, 4032)])
def test_sizes_follow_the_photo(size: tuple[int, int]) -> None:
    scene = table_scene("R5 R6 R7")
    image, reading = _photo(scene, size=size)
    out = draw_overlay(image, reading)
    assert out.shape == image.shape
    # The banner's dark band grows with the photo: readable on a phone at any resolution.
    band = np.flatnonzero((out[:, 5] < 80).all(axis=1))
    assert band.size and band.max() >= 0.02 * max(size)


def test_rack_and_empty_readings() -> None:
    scene = Scene()
    scene.add_rack_row(0, 0, [True, True, True], tiles=parse_tiles("K1 J R12"))
    image, reading = _photo(scene, mode="rack")
    assert not np.array_equal(draw_overlay(image, reading), image)
    empty = TableReading(320, 240)
    blank = np.zeros((240, 320, 3), np.uint8)
    assert not np.array_equal(draw_overlay(blank, empty), blank)  # says "no tiles found"


def test_bad_image_is_refused() -> None:
    with pytest.raises(ValueError, match="BGR image"):
        draw_overlay(np.zeros((10, 10)), TableReading(10, 10))
