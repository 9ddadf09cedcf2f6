"""Training of the dice reader (``python -m vision.train reader --data dice``): the tile reader's
network and crops, trained on the top faces of rendered Rummikub Dice scenes.

The network, the crop, the photometric augmentation, the training loop, the evaluation and the
ONNX export are the tile reader's own (``vision.train.reader_net``, ``vision.train.reader_data``,
``vision.train.reader.fit_reader``). Two
things differ: the data - top faces of ``datasets.synth_dice`` scenes, plus visible side faces and
background boxes as "not a top face" - and the rotation augmentation. Tiles are turned any way on
the table, so the tile reader learns every rotation. Dice numerals already come in every rotation
(a die lands any way round), while the direction of gravity in the photo is a cue worth keeping:
the camera looks down from the side, so a die's side faces show *below* its top face. Rotating
crops freely would make a side face (a face with another face above it) look like a top face (a
face with another face below it) turned upside down. Dice crops are therefore turned by a few
degrees only (a phone held a little askew).

Writes ``dice_reader.onnx``, ``dice_reader.pt`` and ``dice_reader.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date
from pathlib import Path

import numpy as np

from vision.train.detector import command_of

__all__ = ["train_dice_reader", "augment_dice"]

MAX_TILT_DEG = 20.0


def augment_dice(sample, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """One training crop of a dice sample and its up vector: a small turn, scale, loose box, light."""
    import cv2

    from vision.crops import crop_square, photometric
    from vision.train.reader_data import PATCH_SIDE

    angle = float(np.clip(rng.normal(0, 7), -MAX_TILT_DEG, MAX_TILT_DEG))
    m = cv2.getRotationMatrix2D((PATCH_SIDE / 2, PATCH_SIDE / 2), angle, rng.uniform(0.85, 1.15))
    patch = cv2.warpAffine(sample.patch, m, (PATCH_SIDE, PATCH_SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    poly = sample.polygon @ m[:, :2].T + m[:, 2]
    up = m[:, :2] @ sample.up if not np.isnan(sample.up).any() else sample.up
    x1, y1 = poly.min(axis=0)
    x2, y2 = poly.max(axis=0)
    bw, bh = x2 - x1, y2 - y1
    jit = rng.normal(0, 0.05, size=4) * np.array([bw, bh, bw, bh])  # a detector's box is rarely exact
    crop = crop_square(patch, (float(x1 + jit[0]), float(y1 + jit[1]), float(x2 + jit[2]), float(y2 + jit[3])), size)
    crop = photometric(crop, rng)
    if not np.isnan(up).any():
        up = up / (np.linalg.norm(up) + 1e-6)
    return crop, np.asarray(up, dtype=np.float32)


def train_dice_reader(args: argparse.Namespace) -> None:
    """Train ReaderNet on dice top-face crops for ``args.epochs`` epochs or ``args.hours`` hours."""
    import torch

    from vision.train.reader_data import load_dice_samples
    from vision.train.reader_net import ReaderNet
    from vision.train.reader import ReaderRun, Schedule, export_reader, fit_reader

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.time()
    dice_dir = Path(args.dice)
    if not (dice_dir / "train" / "dice").is_dir():
        raise SystemExit(f"dice scenes not found at {dice_dir}: render them first (python -m datasets.synth_dice)")
    train = load_dice_samples(dice_dir / "train", rng, args.dice_images)
    val = load_dice_samples(dice_dir / "val", np.random.default_rng(1), 100) if (dice_dir / "val" / "dice").is_dir() else []
    if not train:
        raise SystemExit(f"no dice samples in {dice_dir / 'train'}")
    print(f"dice reader data: {len(train)} training samples, {len(val)} validation samples; "
          f"loaded in {time.time() - started:.0f} s", flush=True)

    net = ReaderNet(width=args.width)
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    # a longer warm-up to nothing and a decay to nothing: fine-tuning from --init starts gently
    run = ReaderRun("dice_reader", [train], [1.0], {"dice_valid": val}, "dice_valid", augment_dice,
                    Schedule(warmup=0.1, floor=0.0, start=0.0))
    best, history, steps = fit_reader(net, run, args, rng)
    out = Path(args.out)
    export_reader(net, out / "dice_reader.onnx", args.size)
    card = {
        "model": "dice_reader", "architecture": f"ReaderNet(width={args.width}) (vision/train/reader_net.py)",
        "input": f"{args.size}x{args.size} BGR crop, vision.crops.crop_square of the top-face box",
        "classes": "number 1-13 / joker / none (not a top face); colour K, B, O (yellow), R",
        "data": f"{dice_dir} (python -m datasets.synth_dice), at most {args.dice_images} training photos",
        "samples": len(train), "epochs_run": len(history), "epochs_planned": args.epochs, "steps": steps, "batch": args.batch,
        "training_minutes": round((time.time() - started) / 60, 1), "date": date.today().isoformat(),
        "command": command_of(args), "best": best, "history": history,
    }
    (out / "dice_reader.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"wrote {out / 'dice_reader.onnx'}; best dice-valid exact accuracy "
          f"{best.get('dice_valid', {}).get('exact_acc', 0.0):.4f}", flush=True)
