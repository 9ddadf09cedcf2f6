"""Training loop of the reader (``python -m vision.train reader``): PyTorch on the CPU, then ONNX."""

from __future__ import annotations

import json
import math
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

from vision.reader_data import NONE_CLASS, Sample, augment, load_real_samples, load_synthetic_samples


def _batch(samples: list[Sample], idx: np.ndarray, rng: np.random.Generator, size: int, strong: bool):
    import torch

    crops, numbers, colours, ups = [], [], [], []
    for i in idx:
        s = samples[int(i)]
        crop, up = augment(s, rng, size, strong)
        crops.append(crop)
        numbers.append(s.number)
        colours.append(s.colour)
        ups.append(up)
    x = torch.from_numpy(np.stack(crops)).permute(0, 3, 1, 2).float().div_(255.0)
    return x, torch.tensor(numbers), torch.tensor(colours), torch.from_numpy(np.stack(ups))


def evaluate(net, samples: list[Sample], size: int, batch: int = 256) -> dict[str, float]:
    """Accuracy on un-augmented crops of the true boxes: number, colour, exact, none-detection."""
    import torch

    net.eval()
    rng = np.random.default_rng(0)
    ok_num = ok_col = ok_exact = n_tiles = n_col = 0
    none_ok = n_none = 0
    up_err = []
    with torch.no_grad():
        for start in range(0, len(samples), batch):
            idx = np.arange(start, min(start + batch, len(samples)))
            x, num, col, up = _batch(samples, idx, rng, size, strong=False)
            pn, pc, pu = net(x)
            pn, pc = pn.argmax(1), pc.argmax(1)
            is_tile = num != NONE_CLASS
            n_tiles += int(is_tile.sum())
            ok_num += int(((pn == num) & is_tile).sum())
            has_col = col >= 0
            n_col += int(has_col.sum())
            ok_col += int(((pc == col) & has_col).sum())
            exact = (pn == num) & (~has_col | (pc == col)) & is_tile
            ok_exact += int(exact.sum())
            n_none += int((~is_tile).sum())
            none_ok += int(((pn == NONE_CLASS) & ~is_tile).sum())
            known = ~torch.isnan(up[:, 0])
            if known.any():
                pu = pu / (pu.norm(dim=1, keepdim=True) + 1e-6)
                cos = (pu[known] * up[known]).sum(1).clamp(-1, 1)
                up_err += torch.rad2deg(torch.acos(cos)).tolist()
    net.train()
    return {
        "tiles": n_tiles, "number_acc": ok_num / max(n_tiles, 1), "colour_acc": ok_col / max(n_col, 1),
        "exact_acc": ok_exact / max(n_tiles, 1), "none_recall": none_ok / max(n_none, 1),
        "up_median_err_deg": float(np.median(up_err)) if up_err else None,
    }


def train_reader(args) -> None:
    import torch
    from torch import nn
    from tqdm import tqdm

    from vision.reader_net import ExportWrapper, ReaderNet

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.time()
    sources = args.data.split(",")
    pools: list[list[Sample]] = []
    weights: list[float] = []
    if "real" in sources:
        real_pool = load_real_samples("train", rng)
        if args.detector_boxes:
            from vision.reader_data import load_detector_box_samples

            real_pool += load_detector_box_samples("train", Path(args.detector_boxes), rng)
        pools.append(real_pool)
        weights.append(args.real_share if len(sources) > 1 else 1.0)
    if "synthetic" in sources:
        pools.append(load_synthetic_samples(Path(args.synthetic) / "train", rng, args.synthetic_images))
        weights.append(1.0 - args.real_share if len(sources) > 1 else 1.0)
    train = [s for pool in pools for s in pool]
    offsets = np.cumsum([0] + [len(p) for p in pools])
    val_real = load_real_samples("valid", np.random.default_rng(1))
    val_syn = []
    if "synthetic" in sources and (Path(args.synthetic) / "val").is_dir():
        val_syn = load_synthetic_samples(Path(args.synthetic) / "val", np.random.default_rng(1), 60)
    print(f"reader data: {' + '.join(str(len(p)) for p in pools)} training samples ({', '.join(sources)}), {len(val_real)} real validation samples"
          f", {len(val_syn)} synthetic validation samples; loaded in {time.time() - started:.0f} s", flush=True)

    net = ReaderNet(width=args.width)
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = max(1, args.samples_per_epoch // args.batch)
    total = steps_per_epoch * args.epochs
    ce_num = nn.CrossEntropyLoss(label_smoothing=0.05)
    ce_col = nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    best, best_metrics, history = -1.0, {}, []
    budget = args.hours * 3600 if args.hours else math.inf
    train_start = time.time()
    step = 0
    for epoch in range(args.epochs):
        bar = tqdm(range(steps_per_epoch), desc=f"reader epoch {epoch + 1}/{args.epochs}", file=sys.stdout, mininterval=5)
        losses = []
        for _ in bar:
            # each sample comes from a source with the source's share, then uniformly within it
            source = rng.choice(len(pools), size=args.batch, p=np.array(weights) / sum(weights))
            idx = np.array([offsets[k] + rng.integers(len(pools[k])) for k in source])
            x, num, col, up = _batch(train, idx, rng, args.size, strong=True)
            pn, pc, pu = net(x)
            loss = ce_num(pn, num) + ce_col(pc, col)
            known = ~torch.isnan(up[:, 0])
            if known.any():
                pu = pu[known] / (pu[known].norm(dim=1, keepdim=True) + 1e-6)
                loss = loss + 0.5 * (1 - (pu * up[known]).sum(1)).mean()
            opt.zero_grad()
            loss.backward()
            # Warm-up, then cosine decay over whichever runs out first, the steps or the time
            # budget: a run cut short by --hours still ends with a small learning rate.
            progress = max(step / total, (time.time() - train_start) / budget)
            for group in opt.param_groups:
                group["lr"] = learning_rate(args.lr, progress)
            opt.step()
            step += 1
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.3f}")
        metrics = evaluate(net, val_real, args.size)
        syn = evaluate(net, val_syn, args.size) if val_syn else {}
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), "real_valid": metrics, "synthetic_valid": syn})
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f} real valid exact {metrics['exact_acc']:.4f} "
              f"(number {metrics['number_acc']:.4f}, colour {metrics['colour_acc']:.4f}, none {metrics['none_recall']:.3f})"
              + (f"; synthetic exact {syn['exact_acc']:.4f}, up err {syn['up_median_err_deg']} deg" if syn else ""), flush=True)
        torch.save(net.state_dict(), out / "tile_reader.last.pt")
        if metrics["exact_acc"] >= best:
            best, best_metrics = metrics["exact_acc"], {"real_valid": metrics, "synthetic_valid": syn, "epoch": epoch + 1}
            torch.save(net.state_dict(), out / "tile_reader.pt")
        if (time.time() - train_start) >= budget:
            print("time budget reached: stopping", flush=True)
            break
    net.load_state_dict(torch.load(out / "tile_reader.pt", map_location="cpu"))
    export_reader(net, out / "tile_reader.onnx", args.size)
    card = {
        "model": "tile_reader", "architecture": f"ReaderNet(width={args.width}) (vision/reader_net.py)",
        "input": f"{args.size}x{args.size} BGR crop, datasets.crops.crop_square of the detector box",
        "data": args.data, "samples": len(train), "epochs_run": len(history), "batch": args.batch,
        "training_minutes": round((time.time() - started) / 60, 1), "date": date.today().isoformat(),
        "command": "python -m vision.train " + " ".join(sys.argv[1:]), "best": best_metrics, "history": history,
    }
    (out / "tile_reader.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"wrote {out / 'tile_reader.onnx'}; best real-valid exact accuracy {best:.4f}", flush=True)


def learning_rate(peak: float, progress: float, warmup: float = 0.03, floor: float = 0.02, start: float = 0.05) -> float:
    """Warm-up from ``start`` x peak, then cosine decay to ``floor`` x peak, over progress 0..1.

    Progress is whichever runs out first, the steps or the time budget, so a run cut short by
    --hours still ends with a small learning rate (shared by the tile and dice readers).
    """
    progress = min(progress, 1.0)
    if progress < warmup:
        return peak * max(progress / warmup, start)
    t = (progress - warmup) / (1 - warmup)
    return peak * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * t)))


def export_reader(net, path: Path, size: int) -> None:
    import torch

    from vision.reader_net import ExportWrapper

    wrapper = ExportWrapper(net).eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        wrapper, dummy, str(path), input_names=["crops"], output_names=["number", "colour", "up"],
        dynamic_axes={"crops": {0: "n"}, "number": {0: "n"}, "colour": {0: "n"}, "up": {0: "n"}}, opset_version=17,
        dynamo=False,
    )
    from vision.onnx_compact import compact

    compact(path)
