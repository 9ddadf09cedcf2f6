"""Training from scratch, offline, on this CPU: ``python -m vision.train all|detector|reader``.

Two networks share the work (see models/README.md for the measured comparison):

* the **detector**, a one-class YOLO ("tile") on a downscaled photo: where the tiles are;
* the **reader**, a small CNN on crops cut from the full-resolution photo: number, colour, joker.

Each command writes weights (ONNX for serving, .pt for resuming) and a model card to ``models/``;
``all`` trains both, one after the other, under one time budget (:mod:`vision.train.all_stages`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
from datetime import date
from pathlib import Path

from vision.crops import READER_STRETCH_AT
from vision.train import yolo_env

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
WORK = ROOT / "data"


# --------------------------------------------------------------------------- detector data

def export_detector_data(out: Path, sources: list[str], synthetic_dir: Path | None = None,
                         dice_dir: Path | None = None, synthetic_images: int | None = None, real_repeat: int = 1) -> Path:
    """Write an ultralytics data folder with one class ("tile") and return its data.yaml.

    Real photos are linked, not copied; labels keep the polygons (ultralytics derives tight boxes
    from them after its rotation augmentation). The source ``dice`` (rendered Rummikub Dice scenes,
    ``python -m datasets.synth_dice``) trains a separate detector whose one class is a die's top
    face; it cannot be mixed with the tile sources. ``real_repeat`` links every real training photo
    that many times (augmentation makes each showing different): with many rendered scenes beside
    them, the real photos would otherwise be a small share of an epoch.
    """
    from datasets import real

    if "dice" in sources and len(sources) > 1:
        raise SystemExit("--data dice trains the dice detector on its own: do not mix it with real or synthetic tiles")

    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        (out / split / "images").mkdir(parents=True)
        (out / split / "labels").mkdir(parents=True)
    counts = {"train": 0, "val": 0}

    if real_repeat < 1:
        raise SystemExit("--real-repeat must be 1 or more")

    def add(split: str, image: Path, rows: list[str], prefix: str) -> None:
        name = f"{prefix}_{image.stem}"
        (out / split / "images" / (name + image.suffix)).symlink_to(image.resolve())
        (out / split / "labels" / (name + ".txt")).write_text("\n".join(rows) + ("\n" if rows else ""))
        counts[split] += 1

    if "real" in sources:
        for split, target in (("train", "train"), ("valid", "val")):
            for photo in real.load_split(split):
                rows = []
                for t in photo.tiles:
                    coords = " ".join(f"{x / photo.width:.6f} {y / photo.height:.6f}" for x, y in t.polygon_xy)
                    rows.append(f"0 {coords}")
                for k in range(real_repeat if target == "train" else 1):
                    add(target, photo.image_path, rows, "real" if k == 0 else f"real{k + 1}")
    if "synthetic" in sources:
        if synthetic_dir is None or not synthetic_dir.is_dir():
            raise SystemExit(f"synthetic data not found at {synthetic_dir}: render it first (python -m datasets.synth)")
        for split, target in (("train", "train"), ("val", "val")):
            images = sorted((synthetic_dir / split / "images").glob("*.jpg"))
            if synthetic_images is not None:
                images = images[: synthetic_images if split == "train" else max(1, synthetic_images // 10)]
            for image in images:
                label = synthetic_dir / split / "labels" / (image.stem + ".txt")
                rows = ["0 " + r.split(maxsplit=1)[1] for r in label.read_text().splitlines() if r.strip()]
                add(target, image, rows, "syn")
    if "dice" in sources:
        if dice_dir is None or not (dice_dir / "train" / "labels").is_dir():
            raise SystemExit(f"dice scenes not found at {dice_dir}: render them first (python -m datasets.synth_dice)")
        for split in ("train", "val"):
            for image in sorted((dice_dir / split / "images").glob("*.jpg")):
                label = dice_dir / split / "labels" / (image.stem + ".txt")
                add(split, image, [r for r in label.read_text().splitlines() if r.strip()], "dice")
    class_name = "die_top" if "dice" in sources else "tile"
    data_yaml = out / "data.yaml"
    data_yaml.write_text(f"path: {out.resolve()}\ntrain: train/images\nval: val/images\nnames:\n  0: {class_name}\n")
    print(f"detector data: {counts['train']} training and {counts['val']} validation images in {out}")
    return data_yaml


def train_detector(args: argparse.Namespace) -> None:
    yolo_env.prepare()
    work = Path(args.work)
    data_yaml = export_detector_data(work / args.name / "data", args.data.split(","), Path(args.synthetic) if args.synthetic else None,
                                     Path(args.dice) if getattr(args, "dice", None) else None,
                                     synthetic_images=getattr(args, "synthetic_images", None),
                                     real_repeat=getattr(args, "real_repeat", 1))
    from ultralytics import YOLO

    started = time.time()
    if args.resume:
        model = YOLO(args.resume)
        results = model.train(resume=True)
    else:
        model = YOLO(args.model)  # built from the .yaml: no pretrained weights, nothing downloaded
        lr0, close_mosaic = getattr(args, "lr0", None), getattr(args, "close_mosaic", None)
        results = model.train(
            data=str(data_yaml), imgsz=args.imgsz, epochs=args.epochs, time=args.hours, batch=args.batch,
            workers=args.workers, device="cpu", amp=False, project=str(work / "runs"), name=args.name,
            exist_ok=True, seed=args.seed, deterministic=False, patience=0, plots=True,
            # Dice keep gravity: a die's side faces show below its top face, a cue that flipping
            # the photo upside down would destroy (tiles have no such cue).
            fliplr=0.5, flipud=0.0 if "dice" in args.data.split(",") else 0.5, degrees=10.0, scale=0.5, mosaic=1.0,
            close_mosaic=close_mosaic if close_mosaic is not None else max(1, args.epochs // 8),
            hsv_h=0.02, hsv_v=getattr(args, "hsv_v", 0.4), fraction=args.fraction, val=True, verbose=True,
            warmup_epochs=getattr(args, "warmup_epochs", 3.0), cos_lr=getattr(args, "cos_lr", False),
            lrf=getattr(args, "lrf", 0.01),
            # Fine-tuning (lr0 given): AdamW at that rate, and the biases warm up from 0 like the weights
            # rather than from ultralytics' 0.1 (meant for training from scratch).
            **({"lr0": lr0, "optimizer": "AdamW", "warmup_bias_lr": 0.0} if lr0 is not None else {}),
        )
    minutes = (time.time() - started) / 60
    save_dir = Path(model.trainer.save_dir)
    best = save_dir / "weights" / "best.pt"
    finish_detector(best, args, minutes, results)


def finish_detector(best: Path, args: argparse.Namespace, minutes: float, results: object | None = None) -> None:
    """Export the best checkpoint to ONNX and write it with its card into models/."""
    yolo_env.prepare()
    from ultralytics import YOLO

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = detector_name(args)
    model = YOLO(str(best))
    onnx_path = Path(model.export(format="onnx", imgsz=args.imgsz, simplify=True, dynamic=True, opset=17))  # dynamic: serving pads to a multiple of 32, not a square
    target = out / f"{name}.onnx"
    shutil.copyfile(onnx_path, target)
    from vision.train.onnx_compact import compact

    compact(target)  # float16 storage, float32 compute: half the repository weight
    shutil.copyfile(best, out / f"{name}.pt")
    metrics = {}
    box = getattr(results, "box", None) if results is not None else None
    if box is not None:
        metrics = {"precision": float(box.mp), "recall": float(box.mr), "mAP50": float(box.map50), "mAP50-95": float(box.map)}
    card = {
        "model": name, "task": "detect", "classes": ["die_top" if name.startswith("dice") else "tile"], "architecture": args.model,
        "imgsz": args.imgsz, "data": args.data, "epochs_requested": args.epochs, "hours_cap": args.hours,
        "training_minutes": round(minutes, 1), "date": date.today().isoformat(),
        "command": command_of(args), "validation": metrics,
    }
    (out / f"{name}.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB) and its card; validation: {metrics}")
    stale = out / f"{name}.int8.onnx"
    if stale.exists():  # the integer copy of the detector this one replaces (vision.train.quantize)
        stale.unlink()
        print(f"removed {stale}: it was the old detector's; `python -m vision.train.quantize --models {out}` makes this one's")


def command_of(args: argparse.Namespace) -> str:
    """The training command for a model card: as given to :func:`main` (``args.command``), else the process's."""
    return getattr(args, "command", None) or "python -m vision.train " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def detector_name(args: argparse.Namespace) -> str:
    """File stem in models/: ``--model-name``, else dice_detector for ``--data dice``, else tile_detector."""
    explicit = getattr(args, "model_name", None)
    if explicit:
        return explicit
    return "dice_detector" if "dice" in str(getattr(args, "data", "")).split(",") else "tile_detector"


# --------------------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    det = sub.add_parser("detector", help="one-class YOLO tile detector")
    det.add_argument("--data", default="real", help="comma list of sources: real, synthetic (default real); or dice alone")
    det.add_argument("--synthetic", default=str(WORK / "synthetic"), help="folder of rendered scenes")
    det.add_argument("--dice", default=str(WORK / "dice"), help="folder of rendered dice scenes (python -m datasets.synth_dice)")
    det.add_argument("--model-name", default=None, help="file stem in --out (default tile_detector; dice_detector with --data dice)")
    det.add_argument("--synthetic-images", type=int, default=None, help="use at most this many rendered training images")
    det.add_argument("--real-repeat", type=int, default=1, help="show each real training photo this many times per epoch")
    det.add_argument("--model", default="yolo11n.yaml",
                     help="ultralytics model .yaml (built from scratch), or a trained .pt to fine-tune")
    det.add_argument("--imgsz", type=int, default=512)
    det.add_argument("--epochs", type=int, default=80)
    det.add_argument("--hours", type=float, default=None, help="stop after this many hours (schedule adapts)")
    det.add_argument("--batch", type=int, default=16)
    det.add_argument("--lr0", type=float, default=None,
                     help="initial learning rate (default: ultralytics' choice, AdamW at 0.002 on short runs)")
    det.add_argument("--warmup-epochs", type=float, default=3.0,
                     help="epochs of learning-rate warm-up (ultralytics' 3; fine-tuning for 1-3 epochs wants "
                          "a fraction: a 3-epoch warm-up never lets the rate fall)")
    det.add_argument("--cos-lr", action="store_true", help="cosine learning-rate decay to lr0 x lrf")
    det.add_argument("--lrf", type=float, default=0.01, help="final learning rate as a share of lr0")
    det.add_argument("--close-mosaic", type=int, default=None,
                     help="last epochs trained without mosaic, on whole pictures as served (default epochs // 8, at least 1)")
    det.add_argument("--hsv-v", type=float, default=0.4,
                     help="brightness augmentation: each picture's value (HSV) times a gain drawn from 1 +- this, "
                          "clipped (ultralytics' 0.4; 0.7 also shows glare that blows white tiles out, and dim rooms)")
    det.add_argument("--workers", type=int, default=2)
    det.add_argument("--fraction", type=float, default=1.0, help="share of the training images to use")
    det.add_argument("--seed", type=int, default=0)
    det.add_argument("--name", default="detector")
    det.add_argument("--resume", default=None, help="last.pt of an interrupted run")
    det.add_argument("--out", default=str(MODELS))
    det.add_argument("--work", default=str(WORK), help="folder for the training set links and the run (git-ignored)")
    rd = sub.add_parser("reader", help="small CNN reading number, colour and orientation from tile crops")
    rd.add_argument("--data", default="real,synthetic", help="comma list of sources: real, synthetic; or dice alone (dice reader)")
    rd.add_argument("--dice", default=str(WORK / "dice"), help="folder of rendered dice scenes (python -m datasets.synth_dice)")
    rd.add_argument("--dice-images", type=int, default=700, help="use at most this many rendered dice photos (memory)")
    rd.add_argument("--synthetic", default=str(WORK / "synthetic"),
                    help="folder of rendered scenes, or a comma list of folders (validation: the first with val/)")
    rd.add_argument("--val-scenes", default=None,
                    help="comma list of labelled rendered folders (e.g. data/x/val) that choose the checkpoint "
                         "instead of the first --synthetic set's val/ (120 scenes each at most)")
    rd.add_argument("--synthetic-images", type=int, default=None, help="use at most this many rendered images")
    rd.add_argument("--real-share", type=float, default=0.4, help="share of each batch drawn from real photos")
    rd.add_argument("--size", type=int, default=64, help="crop side in pixels")
    rd.add_argument("--width", type=int, default=24, help="channels of the first layer")
    rd.add_argument("--crop-stretch", type=float, default=READER_STRETCH_AT, metavar="RATIO",
                    help="boxes at least this elongated are cut from a RATIO:1 window stretched square "
                         f"(default {READER_STRETCH_AT}; 0: square windows, as readers before session 12)")
    rd.add_argument("--epochs", type=int, default=30)
    rd.add_argument("--samples-per-epoch", type=int, default=8192)
    rd.add_argument("--batch", type=int, default=128)
    rd.add_argument("--lr", type=float, default=3e-3)
    rd.add_argument("--hours", type=float, default=None, help="stop after this many hours")
    rd.add_argument("--threads", type=int, default=2)
    rd.add_argument("--seed", type=int, default=0)
    rd.add_argument("--init", default=None, help="start from these weights (state dict .pt)")
    rd.add_argument("--detector-boxes", default=None, metavar="MODELS_DIR",
                    help="also crop real tiles around the boxes this trained detector draws for them")
    rd.add_argument("--mine-negatives", type=float, default=0.0, metavar="MIN_SCORE",
                    help="boxes the --detector-boxes detector draws (scoring at least this) where a rendered "
                         "training scene has no tile become 'not a tile' samples (default 0: off)")
    rd.add_argument("--mine-scenes", default=None, metavar="FOLDERS",
                    help="comma list of the --synthetic folders to mine (default: all of them)")
    rd.add_argument("--out", default=str(MODELS))
    full = sub.add_parser("all", help="the whole tile model from scratch under one time budget: render if needed, detector, reader")
    from vision.train.all_stages import add_arguments

    add_arguments(full, MODELS, WORK)
    args = parser.parse_args(argv)
    # The cards record the command as given (to main's argv too, not the calling program's).
    args.command = "python -m vision.train " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    if args.what == "all":
        from vision.train.all_stages import run_all

        run_all(args)
    elif args.what == "detector":
        train_detector(args)
    elif args.what == "reader" and "dice" in args.data.split(","):
        from vision.train.dice_reader import train_dice_reader

        train_dice_reader(args)
    elif args.what == "reader":
        from vision.train.reader import train_reader

        train_reader(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
