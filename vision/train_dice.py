"""Training of the dice reader (``python -m vision.train reader --data dice``): the tile reader's
network and crops, trained on the top faces of rendered Rummikub Dice scenes.

The network, the crop, the photometric augmentation, the evaluation and the ONNX export are the
tile reader's own (``vision.reader_net``, ``vision.reader_data``, ``vision.train_reader``). Two
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
import math
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

__all__ = ["train_dice_reader", "augment_dice"]

MAX_TILT_DEG = 20.0


def augment_dice(sample, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """One training crop of a dice sample and its up vector: a small turn, scale, loose box, light."""
    import cv2

    from datasets.crops import crop_square
    from vision.reader_data import PATCH_SIDE, photometric

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


def _dice_batch(samples: list, idx: np.ndarray, rng: np.random.Generator, size: int):
    import torch

    crops, numbers, colours, ups = [], [], [], []
    for i in idx:
        s = samples[int(i)]
        crop, up = augment_dice(s, rng, size)
        crops.append(crop)
        numbers.append(s.number)
        colours.append(s.colour)
        ups.append(up)
    x = torch.from_numpy(np.stack(crops)).permute(0, 3, 1, 2).float().div_(255.0)
    return x, torch.tensor(numbers), torch.tensor(colours), torch.from_numpy(np.stack(ups))


def train_dice_reader(args: argparse.Namespace) -> None:
    """Train ReaderNet on dice top-face crops for ``args.epochs`` epochs or ``args.hours`` hours."""
    import torch
    from torch import nn
    from tqdm import tqdm

    from vision.reader_data import load_dice_samples
    from vision.reader_net import ReaderNet
    from vision.train_reader import evaluate, export_reader, learning_rate

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
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = max(1, args.samples_per_epoch // args.batch)
    total = steps_per_epoch * args.epochs
    budget = args.hours * 3600 if args.hours else math.inf
    train_start = time.time()
    step = 0

    def progress() -> float:
        # Whichever runs out first - steps or the time budget - ends the schedule, so a capped
        # run still anneals its learning rate instead of stopping at its peak.
        return max(step / total, (time.time() - train_start) / budget)

    def set_lr() -> None:
        lr = learning_rate(args.lr, progress(), warmup=0.1, floor=0.0, start=0.0)
        for group in opt.param_groups:
            group["lr"] = max(lr, args.lr * 1e-3)
    ce_num = nn.CrossEntropyLoss(label_smoothing=0.05)
    ce_col = nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    best, best_metrics, history = -1.0, {}, []
    for epoch in range(args.epochs):
        bar = tqdm(range(steps_per_epoch), desc=f"dice reader epoch {epoch + 1}/{args.epochs}", file=sys.stdout, mininterval=10)
        losses = []
        for _ in bar:
            if progress() >= 1.0:
                break
            set_lr()
            idx = rng.integers(0, len(train), size=args.batch)
            x, num, col, up = _dice_batch(train, idx, rng, args.size)
            pn, pc, pu = net(x)
            loss = ce_num(pn, num) + ce_col(pc, col)
            known = ~torch.isnan(up[:, 0])
            if known.any():
                pu = pu[known] / (pu[known].norm(dim=1, keepdim=True) + 1e-6)
                loss = loss + 0.5 * (1 - (pu * up[known]).sum(1)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.3f}")
        if not losses:  # the budget ran out at an epoch boundary
            break
        metrics = evaluate(net, val, args.size) if val else {"exact_acc": 0.0}
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), "dice_valid": metrics})
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f} dice valid exact {metrics['exact_acc']:.4f} "
              f"(number {metrics.get('number_acc', 0):.4f}, colour {metrics.get('colour_acc', 0):.4f}, "
              f"none {metrics.get('none_recall', 0):.3f})", flush=True)
        torch.save(net.state_dict(), out / "dice_reader.last.pt")
        if metrics["exact_acc"] >= best:
            best, best_metrics = metrics["exact_acc"], {"dice_valid": metrics, "epoch": epoch + 1}
            torch.save(net.state_dict(), out / "dice_reader.pt")
        if progress() >= 1.0:
            if step < total:
                print(f"time budget reached after {step} of {total} steps (learning rate annealed on time)", flush=True)
            break
    net.load_state_dict(torch.load(out / "dice_reader.pt", map_location="cpu"))
    export_reader(net, out / "dice_reader.onnx", args.size)
    card = {
        "model": "dice_reader", "architecture": f"ReaderNet(width={args.width}) (vision/reader_net.py)",
        "input": f"{args.size}x{args.size} BGR crop, datasets.crops.crop_square of the top-face box",
        "classes": "number 1-13 / joker / none (not a top face); colour K, B, O (yellow), R",
        "data": f"{dice_dir} (python -m datasets.synth_dice), at most {args.dice_images} training photos",
        "samples": len(train), "epochs_run": len(history), "epochs_planned": args.epochs, "steps": step, "batch": args.batch,
        "training_minutes": round((time.time() - started) / 60, 1), "date": date.today().isoformat(),
        "command": "python -m vision.train " + " ".join(sys.argv[1:]), "best": best_metrics, "history": history,
    }
    (out / "dice_reader.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"wrote {out / 'dice_reader.onnx'}; best dice-valid exact accuracy {best:.4f}", flush=True)
