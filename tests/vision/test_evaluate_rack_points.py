"""How far a told rack's points are from the truth (vision.evaluate.rack_points)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.detect import DETECTOR_FILE, MODELS_DIR, READER_FILE
from vision.evaluate.rack_points import evaluate, main, rack_truth

HAVE_MODELS = (MODELS_DIR / DETECTOR_FILE).exists() and (MODELS_DIR / READER_FILE).exists()


def test_the_truth_is_the_rack_tiles_the_scene_shows() -> None:
    record = {"tiles": [
        {"code": "R12", "rack": 0}, {"code": "J", "rack": 0}, {"code": "K5", "rack": 1},
        {"code": "B9", "rack": 1, "hidden": True},  # behind the tier in front: nobody sees it
        {"code": "O13"},  # on the table
    ]}
    assert rack_truth(record) == 12 + 30 + 5
    assert rack_truth({"tiles": [{"code": "O13"}]}) is None


def test_a_folder_without_scene_labels_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no rendered scene labels"):
        evaluate(tmp_path)


@pytest.mark.model
@pytest.mark.skipif(not HAVE_MODELS, reason="shipped models missing: train with python -m vision.train")
def test_rendered_racks_are_scored_close_to_their_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rack scenes rendered from test-split seeds (never trained on), read as told racks: the figures
    count every scene, and the points read lie near the truth (models/README.md: 2.7 points off on
    average on the told-rack val scenes)."""
    from datasets.synth import image_seed, render_scene

    (tmp_path / "images").mkdir()
    (tmp_path / "tiles").mkdir()
    for index in range(3):
        image, record = render_scene(image_seed(0, "test", index), size=1024, scene_weights={"rack": 1.0})
        record["image"] = f"{index:06d}.jpg"
        cv2.imwrite(str(tmp_path / "images" / record["image"]), image)
        (tmp_path / "tiles" / f"{index:06d}.json").write_text(json.dumps(record))
    figures = evaluate(tmp_path, progress=False)
    assert figures["scenes"] == 3
    assert figures["mean_points_off"] <= 15, figures["worst"]
    assert len(figures["worst"]) == 3 and all(w["truth"] > 0 for w in figures["worst"])
    assert main([str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[str(tmp_path)]["scenes"] == 3
    assert main([str(tmp_path)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert "mean_points_off" in header and row.split()[:2] == [str(tmp_path), "3"]
