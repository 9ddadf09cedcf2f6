"""Training smoke run: the one training command works from scratch, offline, on a fresh machine.

A few images, one epoch, tiny sizes: this proves the pipeline (data export, ultralytics from a
.yaml, ONNX export, model card, the reader loop) and that the exported files serve, not accuracy.
The real photos are the six in tests/fixtures, standing for every split. Marked ``train``: the
default run leaves these tests out (they need the train extra); ``.ci/run`` runs them in a step of
their own with ``pytest -m train``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.photos import SAMPLE

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def real_sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real set whose three splits are the six photos in tests/fixtures, as $RUMMIKUB_REAL_DATA."""
    root = tmp_path_factory.mktemp("real")
    shutil.copy(SAMPLE / "data.yaml", root / "data.yaml")
    for split in ("train", "valid", "test"):
        (root / split).symlink_to(SAMPLE / "test", target_is_directory=True)
    before = os.environ.get("RUMMIKUB_REAL_DATA")
    os.environ["RUMMIKUB_REAL_DATA"] = str(root)
    yield root
    if before is None:
        del os.environ["RUMMIKUB_REAL_DATA"]
    else:
        os.environ["RUMMIKUB_REAL_DATA"] = before


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, real_sample: Path) -> Path:
    pytest.importorskip("ultralytics", reason="training needs the train extra (pip install -e '.[train]')")
    from vision.train.detector import main

    tmp = tmp_path_factory.mktemp("train")
    out = tmp / "models"
    # the one command of a full training, at toy sizes: renders 3 scenes (the folder is empty), then
    # the detector from the .yaml on real + rendered photos, then the reader, under one time budget
    assert main(["all", "--hours", "0.03", "--synthetic", str(tmp / "synthetic"), "--render", "3",
                 "--epochs", "1", "--imgsz", "128", "--fraction", "0.5", "--batch", "4", "--workers", "0",
                 "--reader-epochs", "1", "--reader-samples", "128", "--reader-size", "32", "--reader-width", "8",
                 "--work", str(tmp / "work"), "--out", str(out)]) == 0
    return out


def test_training_writes_weights_and_cards(trained: Path) -> None:
    for name in ("tile_detector", "tile_reader"):
        assert (trained / f"{name}.onnx").stat().st_size > 10_000
        card = json.loads((trained / f"{name}.json").read_text())
        assert card["command"].startswith("python -m vision.train")
        assert card["training_minutes"] >= 0 and card["date"]


def test_the_run_record_times_every_stage(trained: Path) -> None:
    record = json.loads((trained / "training_run.json").read_text())
    assert [s["stage"] for s in record["stages"]] == ["render", "detector", "quantize", "reader", "quantize reader"]
    assert record["total_minutes"] >= sum(s["minutes"] for s in record["stages"]) - 0.2
    assert record["stages"][1]["card"]["data"] == "real,synthetic"


def test_trained_files_serve_without_torch_objects(trained: Path) -> None:
    from vision.detect import TileModel
    from vision.detections import TileDetections

    model = TileModel(trained)
    assert model.detector_file.name == "tile_detector.int8.onnx"  # the run quantized its detector
    assert model.reader_file.name == "tile_reader.int8.onnx"  # and its reader
    image = np.full((300, 400, 3), 120, np.uint8)
    det = model.detect(image)
    assert isinstance(det, TileDetections)
    probs, p_none, up = model.read_boxes(image, np.array([[10, 10, 60, 80]], np.float32))
    assert probs.shape == (1, 53) and abs(float(probs.sum()) - 1) < 1e-4
    assert p_none.shape == (1,) and up.shape == (1, 2)


def test_dice_reader_trains_through_the_shared_loop(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="training needs the train extra (pip install -e '.[train]')")
    from datasets.synth_dice import write_split
    from vision.train.detector import main

    for split in ("train", "val"):
        write_split(tmp_path / "dice", split, 2, seed=0, progress=False)
    out = tmp_path / "models"
    assert main(["reader", "--data", "dice", "--dice", str(tmp_path / "dice"), "--epochs", "2", "--samples-per-epoch", "64",
                 "--batch", "32", "--size", "32", "--width", "8", "--threads", "1", "--out", str(out)]) == 0
    card = json.loads((out / "dice_reader.json").read_text())
    assert card["epochs_run"] == 2 and card["steps"] == 4
    assert set(card["best"]) == {"dice_valid", "epoch"} and 0.0 <= card["best"]["dice_valid"]["exact_acc"] <= 1.0
    assert (out / "dice_reader.onnx").stat().st_size > 10_000


def test_fine_tuning_warms_up_briefly_and_decays(trained: Path, tmp_path: Path) -> None:
    """A detector fine-tuned from a trained one with --lr0 gets the schedule asked for (AdamW at that
    rate, a short warm-up with the biases starting from 0, cosine decay, the last epoch without
    mosaic), not ultralytics' from-scratch defaults (a 3-epoch warm-up that never lets the rate fall)."""
    import yaml

    from vision.train.detector import main

    assert main(["detector", "--data", "real", "--model", str(trained / "tile_detector.pt"), "--epochs", "1",
                 "--imgsz", "128", "--batch", "4", "--workers", "0", "--lr0", "0.0005", "--warmup-epochs", "0.1",
                 "--cos-lr", "--lrf", "0.05", "--close-mosaic", "1", "--name", "finetune",
                 "--work", str(tmp_path / "work"), "--out", str(tmp_path / "out")]) == 0
    args = yaml.safe_load(next((tmp_path / "work").glob("**/finetune/args.yaml")).read_text())
    assert (args["optimizer"], args["lr0"], args["warmup_epochs"], args["warmup_bias_lr"]) == ("AdamW", 0.0005, 0.1, 0.0)
    assert args["cos_lr"] is True and args["lrf"] == 0.05 and args["close_mosaic"] == 1
    assert json.loads((tmp_path / "out" / "tile_detector.json").read_text())["command"].count("--lr0 0.0005") == 1


def test_quantize_keeps_the_head_in_float_and_serves_the_float_detectors_boxes(real_sample: Path, tmp_path: Path) -> None:
    """python -m vision.train.quantize on the shipped detector, calibrated on the repository's real
    photos: the detect head stays float, the backbone's convolutions become integer ones, the card
    records it, and the file serves boxes on the float detector's boxes."""
    import cv2
    import onnx

    from tests.photos import sample_photos
    from vision.boxes import iou_matrix
    from vision.detect import DETECTOR_INT8_FILE, MODELS_DIR, TileModel
    from vision.train.quantize import float_nodes, main

    for f in MODELS_DIR.iterdir():
        if f.name != DETECTOR_INT8_FILE:
            (tmp_path / f.name).symlink_to(f)
    (tmp_path / "tile_detector.json").unlink()
    (tmp_path / "tile_detector.json").write_text((MODELS_DIR / "tile_detector.json").read_text())
    assert main(["--models", str(tmp_path), "--net", "detector", "--calibration", str(real_sample / "train"),
                 "--per-folder", "5"]) == 0
    model = onnx.load(str(tmp_path / DETECTOR_INT8_FILE))
    ops = {n.op_type for n in model.graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    head = float_nodes(model)
    assert head and all(n.startswith("/model.23/") for n in head)
    assert not any(n.op_type == "QuantizeLinear" and n.name.startswith("/model.23/") for n in model.graph.node)
    card = json.loads((tmp_path / "tile_detector.json").read_text())
    assert card["int8"]["calibration_photos"] == 5 and card["int8"]["file"] == DETECTOR_INT8_FILE
    served, plain = TileModel(tmp_path), TileModel(tmp_path, float_detector=True)
    assert served.detector_file.name == DETECTOR_INT8_FILE
    for path in sample_photos():
        image = cv2.imread(str(path))
        ours, theirs = served.find_boxes(image)[0], plain.find_boxes(image)[0]
        assert abs(len(ours) - len(theirs)) <= 1
        assert (iou_matrix(theirs, ours).max(axis=1) > 0.8).mean() >= 0.97
    with pytest.raises(SystemExit):
        main(["--models", str(tmp_path), "--calibration", str(SAMPLE / "valid")])  # not training data


def test_quantize_the_reader_keeps_its_first_convolution_and_heads_in_float(real_sample: Path, tmp_path: Path) -> None:
    """python -m vision.train.quantize --net reader on the shipped reader, calibrated on the crops
    of the repository's real photos: the first convolution and the three heads stay float, the
    other convolutions become integer ones, the card records it (keeping its indentation), the
    file serves, and it reads the tiles the float reader reads."""
    import cv2
    import onnx

    from tests.photos import sample_photos
    from vision.detect import READER_INT8_FILE, MODELS_DIR, TileModel
    from vision.train.quantize import READER_FLOAT_NODES, main

    for f in MODELS_DIR.iterdir():
        if f.is_file() and not f.name.endswith((".int8.onnx", ".json")):
            (tmp_path / f.name).symlink_to(f)
        elif f.suffix == ".json":
            (tmp_path / f.name).write_text(f.read_text())
    before = (tmp_path / "tile_reader.json").read_text()
    assert main(["--models", str(tmp_path), "--net", "reader", "--calibration", str(real_sample / "train"),
                 "--per-folder", "5"]) == 0
    model = onnx.load(str(tmp_path / READER_INT8_FILE))
    quantized_inputs = {i for n in model.graph.node if n.op_type == "DequantizeLinear" for i in n.output}
    by_name = {n.name: n for n in model.graph.node}
    assert sum(n.op_type == "Conv" and n.input[1] in quantized_inputs for n in model.graph.node) >= 6
    for name in READER_FLOAT_NODES:  # their weights come from float (cast) tensors, not from a DequantizeLinear
        assert by_name[name].input[1] not in quantized_inputs, name
    card = json.loads((tmp_path / "tile_reader.json").read_text())
    assert card["int8"]["calibration_photos"] == 5 and card["int8"]["file"] == READER_INT8_FILE
    assert (tmp_path / "tile_reader.json").read_text().split("\n")[1].startswith(before.split("\n")[1][:2])
    served, plain = TileModel(tmp_path), TileModel(tmp_path, float_reader=True)
    assert served.reader_file.name == READER_INT8_FILE and plain.reader_file.name == "tile_reader.onnx"
    agree = total = 0
    for path in sample_photos():
        image = cv2.imread(str(path))
        crops = plain.crops(image, plain.find_boxes(image)[0])
        ours, theirs = served.read_crops(crops)[0].argmax(1), plain.read_crops(crops)[0].argmax(1)
        agree, total = agree + int((ours == theirs).sum()), total + len(crops)
    assert agree >= 0.95 * total


def test_a_wider_reader_starts_from_a_narrower_ones_function() -> None:
    """``widen`` (Net2WiderNet): a width-32 reader built from the shipped width-24 weights reads
    every crop exactly as they do, so a wider reader continues from what the narrow one learnt;
    with noise the copies differ a little and the readings barely move."""
    import torch

    from vision.train.reader_net import ReaderNet, widen, width_of

    state = torch.load(Path(__file__).resolve().parents[2] / "models" / "tile_reader.pt", map_location="cpu")
    narrow = ReaderNet(width_of(state))
    narrow.load_state_dict(state)
    wide = ReaderNet(width_of(state) + 8)
    wide.load_state_dict(widen(state, width_of(state) + 8))
    assert sum(p.numel() for p in wide.parameters()) > 1.5 * sum(p.numel() for p in narrow.parameters())
    x = torch.rand(6, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    narrow.eval(), wide.eval()
    with torch.no_grad():
        for a, b in zip(narrow(x), wide(x)):
            assert torch.allclose(a, b, atol=1e-4), (a - b).abs().max()
        wide.load_state_dict(widen(state, width_of(state) + 8, noise=0.01))
        a, b = narrow(x)[0].softmax(1), wide(x)[0].softmax(1)
        assert 0 < (a - b).abs().max() < 0.05 and (a.argmax(1) == b.argmax(1)).all()
