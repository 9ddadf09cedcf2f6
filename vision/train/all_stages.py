"""The whole tile-reading model from scratch in one command: ``python -m vision.train all``.

One run, under a single time budget (default 2.3 hours, inside one 150-minute session on a 2-core
CPU), does what the shipped models' staged recipe did by hand (models/README.md):

1. **render** the synthetic scenes if ``--synthetic`` holds none yet (``datasets.synth``, two
   processes; 600 training and 60 validation scenes by default);
2. **detector** from ``yolo11n.yaml`` (no pretrained weights) on the real training photos, linked
   ``--real-repeat`` times, plus ``--synthetic-images`` rendered scenes: the real photos keep the
   detector sharp on the tiles players own, the rendered ones show it other editions, tables and
   angles from the first epoch on;
3. **reader** (``ReaderNet``) on crops of the real and rendered tiles, ``--real-share`` of every
   batch real.

After the detector and after the reader, each is quantized to 8 bits for serving
(``vision.train.quantize``), calibrated on the training photos.

Each stage gets a share of what is left of the budget (ultralytics adapts its schedule to the time
it is given; the reader's learning rate runs out with its budget), so the run ends on time even on
a busy machine. Weights and cards go to ``--out``; ``training_run.json`` there records every
stage's command, minutes and validation figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path

from vision.crops import READER_STRETCH_AT

__all__ = ["add_arguments", "run_all"]

EXPORT_MARGIN_H = 4 / 60  # ONNX export, cards and the reader's last validation


def add_arguments(parser: argparse.ArgumentParser, models: Path, work: Path) -> None:
    """The options of ``python -m vision.train all``."""
    parser.add_argument("--hours", type=float, default=2.3, help="time budget of the whole run (default 2.3)")
    parser.add_argument("--synthetic", default=str(work / "synthetic"), help="folder of rendered scenes (rendered here if empty)")
    parser.add_argument("--render", type=int, default=600, help="training scenes to render when --synthetic is empty")
    parser.add_argument("--synthetic-images", type=int, default=500, help="rendered scenes the detector trains on")
    parser.add_argument("--reader-synthetic-images", type=int, default=1200, help="rendered scenes the reader trains on")
    parser.add_argument("--real-repeat", type=int, default=2, help="times each real training photo is shown per detector epoch")
    parser.add_argument("--detector-share", type=float, default=0.62, help="share of the budget after rendering for the detector")
    parser.add_argument("--imgsz", type=int, default=512, help="detector input size")
    parser.add_argument("--epochs", type=int, default=200, help="most detector epochs (the time budget usually ends it first)")
    parser.add_argument("--fraction", type=float, default=1.0, help="share of the detector's training images to use")
    parser.add_argument("--batch", type=int, default=16, help="detector batch")
    parser.add_argument("--workers", type=int, default=1, help="detector data-loading processes")
    parser.add_argument("--reader-epochs", type=int, default=40, help="most reader epochs")
    parser.add_argument("--reader-samples", type=int, default=8192, help="reader crops per epoch")
    parser.add_argument("--reader-size", type=int, default=64, help="reader crop side in pixels")
    parser.add_argument("--reader-width", type=int, default=24, help="channels of the reader's first layer")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for the reader")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(models), help="where the weights and cards go")
    parser.add_argument("--work", default=str(work), help="folder for training set links and runs (git-ignored)")


def _render_if_missing(folder: Path, train: int, seed: int) -> dict | None:
    if any((folder / "train" / "images").glob("*.jpg")):
        return None
    from datasets.synth import generate

    started = time.time()
    print(f"rendering {train} training and {max(1, train // 10)} validation scenes into {folder} ...", flush=True)
    generate(folder, {"train": train, "val": max(1, train // 10)}, seed, workers=2, card=None)
    return {"stage": "render", "command": f"python -m datasets.synth --out {folder} --train {train} --val {max(1, train // 10)} "
            f"--test 0 --seed {seed} --workers 2", "minutes": round((time.time() - started) / 60, 1)}


def run_all(args: argparse.Namespace) -> dict:
    """Render (if needed), train the detector, then the reader, within ``args.hours``; returns the run record."""
    from vision.train.detector import train_detector
    from vision.train.reader import train_reader

    if not args.hours > 0:
        raise SystemExit("--hours must be more than 0")
    started = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    synthetic = Path(args.synthetic)
    stages: list[dict] = []

    def left() -> float:
        return args.hours - (time.time() - started) / 3600

    render = _render_if_missing(synthetic, args.render, args.seed)
    if render:
        stages.append(render)

    margin = min(EXPORT_MARGIN_H, args.hours / 10)
    det_hours = max(0.005, (left() - margin) * args.detector_share)
    det = argparse.Namespace(
        data="real,synthetic", synthetic=str(synthetic), dice=None, model_name="tile_detector",
        synthetic_images=args.synthetic_images, real_repeat=args.real_repeat, model="yolo11n.yaml", imgsz=args.imgsz,
        epochs=args.epochs, hours=round(det_hours, 4), batch=args.batch, workers=args.workers, fraction=args.fraction,
        seed=args.seed, name="full_detector",
        resume=None, out=str(out), work=args.work)
    t0 = time.time()
    print(f"detector: {det_hours * 60:.0f} minutes", flush=True)
    train_detector(det)
    stages.append({"stage": "detector", "minutes": round((time.time() - t0) / 60, 1),
                   "card": json.loads((out / "tile_detector.json").read_text())})

    t0 = time.time()  # the detector in 8 bits for serving, calibrated on the photos it trained on
    from datasets.real import real_root
    from vision.train.quantize import main as quantize

    quantize(["--models", str(out), "--net", "detector", "--calibration", f"{real_root() / 'train'},{synthetic / 'train'}"])
    stages.append({"stage": "quantize", "minutes": round((time.time() - t0) / 60, 1)})

    rd_hours = max(0.005, left() - margin)
    rd = argparse.Namespace(
        data="real,synthetic", dice=None, dice_images=0, synthetic=str(synthetic),
        synthetic_images=args.reader_synthetic_images, real_share=0.4, size=args.reader_size, width=args.reader_width,
        epochs=args.reader_epochs, samples_per_epoch=args.reader_samples, batch=min(128, args.reader_samples),
        lr=3e-3, hours=round(rd_hours, 4), threads=args.threads, seed=args.seed,
        init=None, detector_boxes=None, out=str(out), crop_stretch=READER_STRETCH_AT)
    t0 = time.time()
    print(f"reader: {rd_hours * 60:.0f} minutes", flush=True)
    train_reader(rd)
    stages.append({"stage": "reader", "minutes": round((time.time() - t0) / 60, 1),
                   "card": json.loads((out / "tile_reader.json").read_text())})
    t0 = time.time()  # the reader in 8 bits, calibrated on the crops of the same photos
    quantize(["--models", str(out), "--net", "reader", "--calibration", f"{real_root() / 'train'},{synthetic / 'train'}"])
    stages.append({"stage": "quantize reader", "minutes": round((time.time() - t0) / 60, 1)})

    record = {
        "command": "python -m vision.train " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["all"] else "python -m vision.train all",
        "date": date.today().isoformat(), "hours_budget": args.hours,
        "total_minutes": round((time.time() - started) / 60, 1), "stages": stages,
    }
    (out / "training_run.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"done in {record['total_minutes']} minutes: {out / 'tile_detector.onnx'}, {out / 'tile_reader.onnx'}, "
          f"{out / 'training_run.json'}")
    return record
