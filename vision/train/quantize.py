"""The tile detector and reader in 8-bit integers for serving: ``python -m vision.train.quantize``.

onnxruntime's static quantization (QDQ, weights per channel in int8, activations in uint8 with
ranges measured on calibration photos) of ``models/tile_detector.onnx``, written beside it as
``tile_detector.int8.onnx``, which :class:`vision.detect.TileModel` then serves (as long as the
card's ``int8.from_sha256`` names the float file beside it: a detector trained again is served in
float until this runs again; ``python -m vision.train all`` runs it). Integer
convolutions run about 1.5 times as fast on a laptop CPU, the detector as a whole 1.2 times.

What stays in float32 is chosen by measurement on validation (session 17, models/README.md): the
whole detect head. Quantized too, its class branch left no box at all; its box branch (with the
backbone and the neck) ran 0.6x the float time and read as many tiles (validation mean tile F1 0.9778
-> 0.9784), but the boxes moved enough to lose sets on the layout dev scenes (1,369 -> 1,358 of
1,460). With the head in float: 0.8x the time, tiles 0.9780, sets 1,371.

The reader (session 23) the same way, written as ``tile_reader.int8.onnx`` with its card entry
in ``tile_reader.json``: its convolutions in integers but the first (the photo's own pixels), its
three heads in float (:data:`READER_FLOAT_NODES`), calibrated on the crops of the float networks'
tiles on the same photos (their labelled boxes where the detector finds none). About twice as
fast on 13 crops; validation mean tile F1 0.9795 in float, 0.9790 so (the variants measured,
0.9784-0.9793: models/README.md, session 23).

Calibration uses training photos only (the real ``train`` split and rendered training scenes),
letterboxed exactly as the detector sees them when serving, cropped exactly as the reader sees
its tiles. Needs the ``train`` extra (``onnx``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import cv2

MODELS = Path(__file__).resolve().parents[2] / "models"
READER_FLOAT_NODES = ("/trunk/trunk.0/trunk.0.0/Conv", "/number/Gemm", "/colour/Gemm", "/up/Gemm")
"""The reader's nodes left in float32: its first convolution and its three heads (ReaderNet's
export names, ``vision/train/reader_net.py``)."""


def float_nodes(model) -> list[str]:  # noqa: ANN001 - an onnx.ModelProto
    """Names of the nodes left in float32: every node of the detect head, the last ``/model.N/``
    module (its box and class branches and their decoding)."""
    modules = [int(m.group(1)) for n in model.graph.node if (m := re.match(r"^/model\.(\d+)/", n.name))]
    if not modules:
        raise ValueError("the model's nodes are not named like an ultralytics export (/model.N/...)")
    head = f"/model.{max(modules)}/"
    return [n.name for n in model.graph.node if n.name.startswith(head)]


def calibration_photos(folders: list[Path], per_folder: int, seed: int) -> list[Path]:
    """``per_folder`` photos drawn (seeded) from each folder's ``images/`` (or the folder itself)."""
    rng = random.Random(seed)
    chosen = []
    for folder in folders:
        images = folder / "images" if (folder / "images").is_dir() else folder
        paths = sorted(p for p in images.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
        if not paths:
            raise SystemExit(f"no photos in {images}")
        chosen += rng.sample(paths, min(per_folder, len(paths)))
    return chosen


METHOD = "onnxruntime quantize_static, QDQ, int8 weights per channel, uint8 activations, MinMax"


def _quantize_file(source: Path, out: Path, photos: list[Path], inputs, keep_float) -> None:  # noqa: ANN001
    """Write ``source`` quantized to ``out`` (:data:`METHOD`), calibrated on what ``inputs(image,
    path)`` makes of each of ``photos`` (the network's input array, or None to skip the photo),
    with the nodes ``keep_float(prepared model)`` names left in float32."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from tqdm import tqdm

    from vision.detect import onnx_session
    from vision.train.onnx_compact import compact

    name = onnx_session(source, None).get_inputs()[0].name

    class Photos(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = list(photos)
            self.bar = tqdm(total=len(photos), desc=f"calibrating {source.name}", unit="photo")

        def get_next(self) -> dict | None:
            while self.left:
                path = self.left.pop(0)
                image = cv2.imread(str(path))
                self.bar.update(1)
                x = None if image is None else inputs(image, path)
                if x is not None:
                    return {name: x}
            self.bar.close()
            return None

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # Folds the float16-storage casts (vision.train.onnx_compact) and fuses what can be fused.
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Photos(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=keep_float(onnx.load(str(prepared))), calibrate_method=CalibrationMethod.MinMax)
    compact(out)  # the float nodes' weights back to float16 storage, as in the float file: the same outputs


def quantize(models_dir: Path, photos: list[Path], out: Path) -> dict:
    """Write the int8 detector of ``models_dir`` to ``out``, calibrated on ``photos`` letterboxed
    as the detector sees them; its card entry."""
    from vision.detect import DETECTOR_FILE, detector_input, file_sha256, letterbox, onnx_session

    source = models_dir / DETECTOR_FILE
    card = models_dir / "tile_detector.json"
    rect_input, det_size = detector_input(onnx_session(source, None), json.loads(card.read_text()) if card.exists() else {})
    started = time.time()
    kept: list[str] = []

    def keep_float(model) -> list[str]:  # noqa: ANN001 - an onnx.ModelProto
        kept[:] = float_nodes(model)
        return kept

    _quantize_file(source, out, photos, lambda image, _path: letterbox(image, det_size, rect_input)[0], keep_float)
    return {"file": out.name, "from": DETECTOR_FILE, "from_sha256": file_sha256(source), "date": date.today().isoformat(),
            "method": METHOD, "float_nodes": f"{len(kept)} (the detect head)",
            "calibration_photos": len(photos), "seconds": round(time.time() - started, 1)}


def quantize_reader(models_dir: Path, photos: list[Path], out: Path) -> dict:
    """Write the int8 reader of ``models_dir`` to ``out``, calibrated on the crops of the tiles the
    float networks find on ``photos`` (their labelled boxes where they find none); its card entry."""
    import numpy as np

    from vision.detect import READER_FILE, TileModel, file_sha256
    from vision.evaluate.tiles import load_labelled

    source = models_dir / READER_FILE
    model = TileModel(models_dir, float_detector=True, float_reader=True)
    labelled: dict[Path, np.ndarray] = {}  # label boxes, where the detector finds nothing (a detector barely trained)
    splits_read: set[Path] = set()

    def crops(image: np.ndarray, path: Path) -> np.ndarray | None:
        boxes = model.find_boxes(image)[0]
        split = path.parent.parent  # <split>/images/<photo>
        if not len(boxes) and split not in splits_read:
            splits_read.add(split)
            if (split / "labels").is_dir() or (split / "tiles").is_dir():
                labelled.update({item.path: item.boxes_xyxy for item in load_labelled(split)})
        if not len(boxes):
            boxes = labelled.get(path, ())
        return model.crops(image, boxes).transpose(0, 3, 1, 2).astype(np.float32) / 255.0 if len(boxes) else None

    def keep_float(prepared) -> list[str]:  # noqa: ANN001 - an onnx.ModelProto
        missing = set(READER_FLOAT_NODES) - {n.name for n in prepared.graph.node}
        if missing:
            raise ValueError(f"the reader has no node {', '.join(sorted(missing))}: is it a ReaderNet export "
                             "(vision/train/reader_net.py)?")
        return list(READER_FLOAT_NODES)

    started = time.time()
    _quantize_file(source, out, photos, crops, keep_float)
    return {"file": out.name, "from": READER_FILE, "from_sha256": file_sha256(source), "date": date.today().isoformat(),
            "method": METHOD, "float_nodes": ", ".join(READER_FLOAT_NODES),
            "calibration_photos": len(photos), "seconds": round(time.time() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    from datasets.real import real_root

    p = argparse.ArgumentParser(prog="python -m vision.train.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=Path, default=MODELS,
                   help="folder holding tile_detector.onnx and tile_reader.onnx (default models/)")
    p.add_argument("--calibration", default=None,
                   help="comma list of training photo folders (default: the real train split and data/synth_r16/train)")
    p.add_argument("--per-folder", type=int, default=30, help="photos drawn from each folder (default 30)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--net", choices=("both", "detector", "reader"), default="both",
                   help="which network to quantize (default both; the reader is calibrated on the detector's tiles)")
    args = p.parse_args(argv)
    folders = ([Path(f) for f in args.calibration.split(",")] if args.calibration
               else [real_root() / "train", Path("data/synth_r16/train")])
    for folder in folders:
        if not folder.is_dir():
            p.error(f"{folder} is not a folder of photos (the shipped file's calibration set is rendered by "
                    "models/recipes/quantize_session17.sh)")
        if folder.name in {"val", "valid", "test"} or folder.parent.name in {"val", "valid", "test"}:
            p.error(f"{folder} is not training data: calibrate on training photos only")
    from vision.detect import DETECTOR_INT8_FILE, READER_INT8_FILE

    photos = calibration_photos(folders, args.per_folder, args.seed)
    command = " ".join(["python -m vision.train.quantize", *(argv if argv is not None else sys.argv[1:])])
    command = command.replace(str(real_root()), "$REAL")  # where the real set lies differs between machines
    for net, file, run in (("detector", DETECTOR_INT8_FILE, quantize), ("reader", READER_INT8_FILE, quantize_reader)):
        if args.net not in ("both", net):
            continue
        out = args.models / file
        entry = run(args.models, photos, out)
        entry["command"] = command
        entry["calibration_folders"] = ["the real set's train split" if f == real_root() / "train" else str(f) for f in folders]
        card = args.models / f"tile_{net}.json"
        if card.exists():
            text = card.read_text()
            data = json.loads(text)
            data["int8"] = {**data.get("int8", {}), **entry}
            second = text.split("\n", 2)[1] if text.count("\n") >= 1 else "  "
            card.write_text(json.dumps(data, indent=len(second) - len(second.lstrip()) or 2) + "\n")  # as it was indented
        print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) in {entry['seconds']} s; the card's 'int8' entry records it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
