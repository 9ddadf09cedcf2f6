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


def test_a_face_seen_at_a_grazing_angle_is_as_thin_as_it_looks() -> None:
    from vision.evaluate.tiles import face_sides

    assert face_sides([[0, 0], [30, 0], [30, 40], [0, 40]]) == (40.0, 30.0)
    # a flat tile far away, sheared into a parallelogram 10 px high: its up axis is long, its face thin
    height, width = face_sides([[0, 0], [46, 0], [68, 10], [22, 10]])
    assert abs(height - 10.0) < 1e-6 and width > 15


def test_tiles_nobody_could_read_are_ignored_not_scored() -> None:
    from vision.evaluate.tiles import labelled_from_record

    def tile(code: str, poly: list, **extra) -> dict:
        return {"code": code, "polygon": poly, "visible": 1.0, "visible_box": [*np.min(poly, 0), *np.max(poly, 0)], **extra}

    record = {"scene": "rack", "tiles": [
        tile("R5", [[0, 0], [60, 0], [60, 80], [0, 80]]),
        tile("B7", [[100, 0], [146, 0], [168, 10], [122, 10]]),  # 10 px thin: unreadable
        tile("K1", [[200, 0], [260, 0], [260, 80], [200, 80]], defocus_px=9.0),  # blurred past its strokes
        tile("O2", [[300, 0], [360, 0], [360, 80], [300, 80]], defocus_px=2.0),  # a little soft: still read
        tile("R9", [[400, 0], [460, 0], [460, 80], [400, 80]], hidden=True, visible=0.2),
    ]}
    item = labelled_from_record(record, Path("x.jpg"))
    assert [t.code for t in item.tiles] == ["R5", "O2"]
    assert item.unreadable == 2 and len(item.ignore_xyxy) == 3
    # finding an unreadable tile is neither right nor wrong; missing it costs nothing
    read = [SimpleNamespace(box_xyxy=tuple(item.boxes_xyxy[0]), tile=parse_tile("R5"), alternatives=None),
            SimpleNamespace(box_xyxy=(100, 0, 168, 10), tile=parse_tile("B1"), alternatives=None),
            SimpleNamespace(box_xyxy=tuple(item.boxes_xyxy[1]), tile=parse_tile("O2"), alternatives=None)]
    figures = score_reading(SimpleNamespace(tiles=read), item, Report()).to_dict()
    assert figures["tile_f1"] == 1.0 and figures["unreadable_tiles_ignored"] == 2


def test_rendered_tiles_are_counted_by_place_rack_or_table() -> None:
    """A rack photo's far table tiles are told apart from the rack's own (what a player scoring a
    rack cares about): found and read right, per place."""
    from vision.evaluate.tiles import labelled_from_record

    def tile(code: str, x: int, rack: int | None) -> dict:
        poly = [[x, 0], [x + 60, 0], [x + 60, 80], [x, 80]]
        return {"code": code, "polygon": poly, "visible": 1.0, "visible_box": [x, 0, x + 60, 80], "rack": rack}

    record = {"scene": "rack", "tiles": [tile("R5", 0, 0), tile("B7", 100, 0), tile("K1", 200, None), tile("O2", 300, None)]}
    item = labelled_from_record(record, Path("x.jpg"))
    assert item.places == ["rack", "rack", "table", "table"]
    read = [SimpleNamespace(box_xyxy=(0, 0, 60, 80), tile=parse_tile("R5"), alternatives=None),
            SimpleNamespace(box_xyxy=(100, 0, 160, 80), tile=parse_tile("B7"), alternatives=None),
            SimpleNamespace(box_xyxy=(300, 0, 360, 80), tile=parse_tile("O3"), alternatives=None)]
    total = Report()
    total.add(score_reading(SimpleNamespace(tiles=read), item, Report()))
    assert total.place_figures() == {"rack": {"tiles": 2, "detection_recall": 1.0, "read_accuracy": 1.0},
                                     "table": {"tiles": 2, "detection_recall": 0.5, "read_accuracy": 0.0}}
