"""Overlays (vision.overlay): the reading drawn on the photo."""

from __future__ import annotations

import numpy as np
import pytest

from referee.tiles import parse_tile, parse_tiles
from tests.vision.scenes import Scene, table_scene
from vision.decode import build_reading
from vision.detections import N_CODES, TileDetections
from vision.overlay import DOUBT_BGR, INVALID_BGR, MIN_SHRINK, MIN_TEXT_SHARE, VALID_BGR, _overlap, draw_overlay, place_labels
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


def _dense_rack(size: tuple[int, int] = (4032, 3024)) -> tuple[np.ndarray, TableReading]:
    # Two tiers of 14 tiles, small in a 12-MP photo: a readable code is wider than its tile.
    scene = Scene()
    codes = parse_tiles("R10 R11 R12 R13 B10 B11 B12 B13 K10 K11 K12 K13 O10 O11")
    scene.add_rack_row(0, 0, [True] * 14, tiles=codes)
    scene.add_rack_row(0, 1.43, [True] * 14, tiles=codes)
    boxes, _ = scene.view(px=55, size=size)
    probs = np.zeros((len(boxes), N_CODES))
    for i, t in enumerate(scene.tiles):
        probs[i, t.index] = 1.0
    probs[3] = 0.0
    probs[3, parse_tile("R13").index], probs[3, parse_tile("R12").index] = 0.6, 0.4  # a doubt: a longer label
    reading = build_reading(size, TileDetections(boxes, np.ones(len(boxes)), probs), mode="rack")
    return np.full((size[1], size[0], 3), 120, np.uint8), reading


def test_labels_on_a_dense_rack_do_not_overlap() -> None:
    image, reading = _dense_rack()
    boxes = [t.box_xyxy for t in reading.tiles]
    readable = MIN_TEXT_SHARE * max(image.shape[:2])
    sizes = [(0.6 * readable * len(t.code), 1.3 * readable) for t in reading.tiles]
    # Centred on their tiles these labels would overlap: the case the placement is for.
    centred = [((x1 + x2) / 2 - w / 2, (y1 + y2) / 2 - h / 2, (x1 + x2) / 2 + w / 2, (y1 + y2) / 2 + h / 2)
               for (x1, y1, x2, y2), (w, h) in zip(boxes, sizes)]
    assert any(_overlap(a, b) > 0 for k, a in enumerate(centred) for b in centred[k + 1:])
    places = place_labels(boxes, sizes, (image.shape[1], image.shape[0]))
    rects = [r for r, _ in places]
    assert len(rects) == len(boxes)
    assert all(_overlap(a, b) <= 0 for k, a in enumerate(rects) for b in rects[k + 1:])
    for (x1, y1, x2, y2), (rx1, ry1, rx2, ry2), (_, h) in zip(boxes, rects, sizes):
        # Each label stays by its tile: at most three lines of labels away.
        assert rx2 >= x1 - 4 * h and rx1 <= x2 + 4 * h and ry2 >= y1 - 4 * h and ry1 <= y2 + 4 * h
    assert min(scale for _, scale in places) >= MIN_SHRINK
    # On each line of labels, the labels keep their tiles' left-to-right order (no crossing ties).
    lines: dict[float, list[int]] = {}
    for i, (rx1, ry1, _, _) in enumerate(rects):
        lines.setdefault(round(ry1), []).append(i)
    for members in lines.values():
        by_label = sorted(members, key=lambda i: rects[i][0])
        assert by_label == sorted(members, key=lambda i: boxes[i][0] + boxes[i][2])
    # Top tier's labels above the rack, bottom tier's below: no label hides a tile.
    assert all(_overlap(r, b) <= 0 for r in rects for b in boxes)
    out = draw_overlay(image, reading)
    assert out.shape == image.shape and not np.array_equal(out, image)


def test_labels_that_fit_stay_on_their_tiles() -> None:
    boxes = [(100.0 + 60 * k, 100.0, 155.0 + 60 * k, 177.0) for k in range(5)]
    places = place_labels(boxes, [(40.0, 24.0)] * 5, (800, 600))
    for (x1, y1, x2, y2), ((rx1, ry1, rx2, ry2), scale) in zip(boxes, places):
        assert x1 <= rx1 and rx2 <= x2 and y1 <= ry1 and ry2 <= y2 and scale == 1.0


def test_labels_keep_clear_of_taken_places() -> None:
    boxes = [(100.0, 100.0, 140.0, 156.0)]
    taken = [(95.0, 115.0, 145.0, 150.0)]  # e.g. a set's tag over the tile
    ((rect, _),) = place_labels(boxes, [(40.0, 20.0)], (400, 400), taken)
    assert _overlap(rect, taken[0]) <= 0
