"""TableReading and its parts (vision.reading): the JSON contract of docs/design.md."""

from __future__ import annotations

import json

import numpy as np
import pytest

from referee.tiles import parse_tile
from tests.vision.scenes import table_scene
from vision.decode import build_reading
from vision.detections import N_CODES, TileDetections
from vision.reading import Doubt, ReadSet, ReadTile, TableReading

# The contract of `python -m vision.read PHOTO --json` (docs/design.md): these keys, these names, first.
CONTRACT_TOP = ["image", "tiles", "sets", "doubts", "timing_ms"]
CONTRACT_TILE = ["tile", "box", "confidence", "set"]
CONTRACT_SET = ["tiles", "kind", "valid", "points"]


def _reading() -> TableReading:
    scene = table_scene("R7 R8 R9 | K5 B5 O5 | R1 R3 R4")
    scene.add_loose(20.0, 9.0, tile=parse_tile("B2"))
    boxes, _ = scene.view(px=50)
    probs = np.zeros((len(boxes), N_CODES))
    for i, t in enumerate(scene.tiles):
        probs[i, t.index] = 1.0
    probs[1] = 0
    probs[1, parse_tile("R8").index], probs[1, parse_tile("R3").index] = 0.7, 0.3  # an uncertain tile
    return build_reading((4032, 3024), TileDetections(boxes, np.full(len(boxes), 0.9), probs))


def test_to_dict_has_exactly_the_design_keys_first() -> None:
    data = _reading().to_dict()
    assert list(data)[: len(CONTRACT_TOP)] == CONTRACT_TOP
    assert data["image"] == {"width": 4032, "height": 3024}
    for tile in data["tiles"]:
        assert list(tile)[: len(CONTRACT_TILE)] == CONTRACT_TILE
        assert isinstance(tile["tile"], str) and len(tile["box"]) == 4
        assert all(isinstance(v, float) for v in tile["box"])
        assert 0.0 <= tile["confidence"] <= 1.0
        assert tile["set"] is None or isinstance(tile["set"], int)
    for s in data["sets"]:
        assert list(s)[: len(CONTRACT_SET)] == CONTRACT_SET
        assert s["kind"] in ("run", "group", None)
        assert isinstance(s["valid"], bool) and isinstance(s["points"], int)
    assert "total" in data["timing_ms"]


def test_to_dict_content_and_extras() -> None:
    reading = _reading()
    data = json.loads(json.dumps(reading.to_dict()))  # plain JSON all the way down
    assert [s["tiles"] for s in data["sets"]] == [["R7", "R8", "R9"], ["K5", "B5", "O5"], ["R1", "R3", "R4"]]
    assert [(s["kind"], s["valid"], s["points"]) for s in data["sets"]] == [("run", True, 24), ("group", True, 15),
                                                                          (None, False, 8)]
    assert data["sets"][2]["problem"] and data["sets"][2]["code"] == "not_consecutive"
    assert data["loose"] == [9] and data["tiles"][9] | {"set": None} == data["tiles"][9]
    assert data["rack"] == [] and data["rack_points"] == 0 and data["mode"] == "table" and data["rules"] == "classic"
    (doubt,) = data["doubts"]
    assert doubt["index"] == 1 and doubt["tile"] == "R8" and doubt["reason"] == "uncertain"
    assert doubt["alternatives"] == [{"tile": "R8", "p": 0.7}, {"tile": "R3", "p": 0.3}]
    assert "R3" in doubt["message"]
    assert data["tiles"][1]["alternatives"][0] == {"tile": "R8", "p": 0.7}


def test_unreadable_tile_is_a_question_mark() -> None:
    tile = ReadTile(None, (1.0, 2.0, 3.0, 4.0), 0.0)
    assert tile.code == "?" and tile.to_dict()["tile"] == "?"
    assert tile.center_xy == (2.0, 3.0)


def test_doubt_reason_must_be_known() -> None:
    with pytest.raises(ValueError, match='unknown doubt reason "maybe"'):
        Doubt(0, "R5", (), "maybe", "")


def test_table_and_rack_views() -> None:
    reading = TableReading(
        640, 480,
        tiles=(ReadTile(parse_tile("R5"), (0, 0, 10, 14), 1.0, set=0), ReadTile(None, (20, 0, 30, 14), 0.0, set=0),
               ReadTile(parse_tile("J"), (0, 40, 10, 54), 1.0, rack=True)),
        sets=(ReadSet((0, 1), ("R5", "?"), None, False, 5, "x", "unreadable"),),
        rack_rows=((2,),), rack_points=30,
    )
    assert reading.table == [[parse_tile("R5"), None]]
    assert reading.rack == (2,)
    assert reading.to_dict()["rack_rows"] == [[2]]
