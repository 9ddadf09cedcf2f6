"""vision.evaluate's per-tile-size figures: where reading fails, by how many pixels a tile had."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from referee.tiles import parse_tile
from vision.evaluate.tiles import LabelledImage, Report, score_reading, size_bucket


def test_size_buckets_cover_every_size() -> None:
    assert size_bucket(0) == "0-20 px"
    assert size_bucket(19.9) == "0-20 px"
    assert size_bucket(20) == "20-30 px"
    assert size_bucket(79) == "50-80 px"
    assert size_bucket(500) == "130+ px"


def test_sizes_count_found_and_read_tiles_per_bucket() -> None:
    truth = [parse_tile(c) for c in ("R5", "B7", "K1")]
    boxes = np.array([[0, 0, 10, 14], [100, 100, 140, 150], [300, 300, 400, 430]], np.float32)
    item = LabelledImage(Path("x.jpg"), truth, boxes)
    read = [SimpleNamespace(box_xyxy=tuple(boxes[1]), tile=parse_tile("B7"), alternatives=None),
            SimpleNamespace(box_xyxy=tuple(boxes[2]), tile=parse_tile("K7"), alternatives=None)]
    report = score_reading(SimpleNamespace(tiles=read), item, Report())
    total = Report()
    total.add(report)
    figures = total.size_figures()
    assert list(figures) == ["0-20 px", "30-50 px", "80-130 px"]
    assert figures["0-20 px"] == {"tiles": 1, "detection_recall": 0.0, "read_accuracy": 0.0}
    assert figures["30-50 px"] == {"tiles": 1, "detection_recall": 1.0, "read_accuracy": 1.0}
    assert figures["80-130 px"] == {"tiles": 1, "detection_recall": 1.0, "read_accuracy": 0.0}
