"""The tile detector in 8-bit integers for serving: ``python -m vision.train.quantize``.

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

Calibration uses training photos only (the real ``train`` split and rendered training scenes),
letterboxed exactly as the detector sees them when serving. Needs the ``train`` extra (``onnx``).
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


def quantize(models_dir: Path, photos: list[Path], out: Path) -> dict:
    """Write the int8 detector of ``models_dir`` to ``out``, calibrated on ``photos``; its card entry."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from tqdm import tqdm

    from vision.detect import DETECTOR_FILE, detector_input, file_sha256, letterbox, onnx_session

    source = models_dir / DETECTOR_FILE
    card = models_dir / "tile_detector.json"
    session = onnx_session(source, None)
    rect_input, det_size = detector_input(session, json.loads(card.read_text()) if card.exists() else {})
    name = session.get_inputs()[0].name

    class Photos(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = list(photos)
            self.bar = tqdm(total=len(photos), desc="calibrating", unit="photo")

        def get_next(self) -> dict | None:
            while self.left:
                image = cv2.imread(str(self.left.pop(0)))
                self.bar.update(1)
                if image is not None:
                    return {name: letterbox(image, det_size, rect_input)[0]}
            self.bar.close()
            return None

    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # Folds the float16-storage casts (vision.train.onnx_compact) and fuses what can be fused.
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        keep_float = float_nodes(onnx.load(str(prepared)))
        quantize_static(str(prepared), str(out), Photos(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=keep_float, calibrate_method=CalibrationMethod.MinMax)
    from vision.train.onnx_compact import compact

    compact(out)  # the float head's weights back to float16 storage, as in the float file: the same outputs
    return {"file": out.name, "from": DETECTOR_FILE, "from_sha256": file_sha256(source), "date": date.today().isoformat(),
            "method": "onnxruntime quantize_static, QDQ, int8 weights per channel, uint8 activations, MinMax",
            "float_nodes": f"{len(keep_float)} (the detect head)",
            "calibration_photos": len(photos), "seconds": round(time.time() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    from datasets.real import real_root

    p = argparse.ArgumentParser(prog="python -m vision.train.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=Path, default=MODELS, help="folder holding tile_detector.onnx (default models/)")
    p.add_argument("--calibration", default=None,
                   help="comma list of training photo folders (default: the real train split and data/synth_r16/train)")
    p.add_argument("--per-folder", type=int, default=30, help="photos drawn from each folder (default 30)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    folders = ([Path(f) for f in args.calibration.split(",")] if args.calibration
               else [real_root() / "train", Path("data/synth_r16/train")])
    for folder in folders:
        if not folder.is_dir():
            p.error(f"{folder} is not a folder of photos (the shipped file's calibration set is rendered by "
                    "models/recipes/quantize_session17.sh)")
        if folder.name in {"val", "valid", "test"} or folder.parent.name in {"val", "valid", "test"}:
            p.error(f"{folder} is not training data: calibrate on training photos only")
    from vision.detect import DETECTOR_INT8_FILE

    out = args.models / DETECTOR_INT8_FILE
    entry = quantize(args.models, calibration_photos(folders, args.per_folder, args.seed), out)
    entry["command"] = " ".join(["python -m vision.train.quantize", *(argv if argv is not None else sys.argv[1:])])
    entry["calibration_folders"] = ["the real set's train split" if f == real_root() / "train" else str(f) for f in folders]
    card = args.models / "tile_detector.json"
    if card.exists():
        data = json.loads(card.read_text())
        data["int8"] = {**data.get("int8", {}), **entry}
        card.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) in {entry['seconds']} s; the card's 'int8' entry records it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
