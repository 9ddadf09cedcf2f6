"""Training of the readers (``python -m vision.train reader``): PyTorch on the CPU, then ONNX.

:func:`fit_reader` is the one training loop of the tile reader and the dice reader
(``vision.train.dice_reader``): pools of samples drawn with shares, an augmentation, validation sets,
and a learning rate that anneals on whichever runs out first, the steps or the time budget.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from vision.train.detector import command_of
from vision.train.reader_data import NONE_CLASS, Sample, augment, load_real_samples, load_synthetic_samples


def make_batch(samples: list[Sample], idx: np.ndarray, rng: np.random.Generator, size: int,
               augment_fn: Callable[[Sample, np.random.Generator, int], tuple[np.ndarray, np.ndarray]]):
    """Tensors of one batch: crops (N, 3, size, size) in 0..1, number and colour targets, up vectors."""
    import torch

    crops, numbers, colours, ups = [], [], [], []
    for i in idx:
        s = samples[int(i)]
        crop, up = augment_fn(s, rng, size)
        crops.append(crop)
        numbers.append(s.number)
        colours.append(s.colour)
        ups.append(up)
    x = torch.from_numpy(np.stack(crops)).permute(0, 3, 1, 2).float().div_(255.0)
    return x, torch.tensor(numbers), torch.tensor(colours), torch.from_numpy(np.stack(ups))


def _plain(sample: Sample, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    return augment(sample, rng, size, strong=False)


@dataclass(frozen=True)
class Schedule:
    """Learning-rate schedule of :func:`learning_rate`: warm-up share, start and floor (x peak)."""

    warmup: float = 0.03
    floor: float = 0.02
    start: float = 0.05


@dataclass
class ReaderRun:
    """What :func:`fit_reader` needs besides the network: data, augmentation, names, budget.

    ``pools`` are drawn with ``weights`` (each sample picks a pool with the pool's share, then a
    sample uniformly within it); ``val`` maps a name to validation samples, and ``select`` names
    the one whose exact accuracy picks the best epoch (several names: their mean). Weights go to ``out/<name>.pt`` (best) and
    ``out/<name>.last.pt``.
    """

    name: str
    pools: list[list[Sample]]
    weights: list[float]
    val: dict[str, list[Sample]]
    select: str | tuple[str, ...]
    augment_fn: Callable[[Sample, np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    schedule: Schedule = field(default_factory=Schedule)
    plain_fn: Callable[[Sample, np.random.Generator, int], tuple[np.ndarray, np.ndarray]] = _plain  # validation crops


def fit_reader(net, run: ReaderRun, args, rng: np.random.Generator) -> tuple[dict, list[dict], int]:
    """Train ``net`` for ``args.epochs`` epochs of ``args.samples_per_epoch`` samples or until
    ``args.hours`` run out, whichever comes first; returns (best epoch's metrics, history, steps).

    The learning rate warms up, then decays (cosine) over whichever runs out first - the steps or
    the time budget - so a run cut short by ``--hours`` still ends with a small learning rate, and
    a budget that runs out mid-epoch ends the run there (``vision.train all`` depends on that).
    """
    import torch
    from torch import nn
    from tqdm import tqdm

    train = [s for pool in run.pools for s in pool]
    offsets = np.cumsum([0] + [len(p) for p in run.pools])
    share = np.array(run.weights, dtype=np.float64) / sum(run.weights)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = max(1, args.samples_per_epoch // args.batch)
    total = steps_per_epoch * args.epochs
    ce_num = nn.CrossEntropyLoss(label_smoothing=0.05)
    ce_col = nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    budget = args.hours * 3600 if args.hours else math.inf
    train_start = time.time()
    best, best_metrics, history, step = -1.0, {}, [], 0

    def progress() -> float:
        return max(step / total, (time.time() - train_start) / budget)

    for epoch in range(args.epochs):
        bar = tqdm(range(steps_per_epoch), desc=f"{run.name} epoch {epoch + 1}/{args.epochs}", file=sys.stdout, mininterval=5)
        losses = []
        for _ in bar:
            if progress() >= 1.0:
                break
            source = rng.choice(len(run.pools), size=args.batch, p=share)
            idx = np.array([offsets[k] + rng.integers(len(run.pools[k])) for k in source])
            x, num, col, up = make_batch(train, idx, rng, args.size, run.augment_fn)
            pn, pc, pu = net(x)
            loss = ce_num(pn, num) + ce_col(pc, col)
            known = ~torch.isnan(up[:, 0])
            if known.any():
                pu = pu[known] / (pu[known].norm(dim=1, keepdim=True) + 1e-6)
                loss = loss + 0.5 * (1 - (pu * up[known]).sum(1)).mean()
            opt.zero_grad()
            loss.backward()
            lr = learning_rate(args.lr, progress(), run.schedule.warmup, run.schedule.floor, run.schedule.start)
            for group in opt.param_groups:
                group["lr"] = max(lr, args.lr * 1e-3)
            opt.step()
            step += 1
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.3f}")
        if not losses:  # the budget ran out at an epoch boundary
            break
        metrics = {key: evaluate(net, samples, args.size, plain_fn=run.plain_fn) for key, samples in run.val.items() if samples}
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), **metrics})
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}; " + "; ".join(
            f"{key} exact {m['exact_acc']:.4f} (number {m['number_acc']:.4f}, colour {m['colour_acc']:.4f}, "
            f"none {m['none_recall']:.3f}, up err {m['up_median_err_deg']} deg)" for key, m in metrics.items()), flush=True)
        torch.save(net.state_dict(), out / f"{run.name}.last.pt")
        names = (run.select,) if isinstance(run.select, str) else run.select
        score = float(np.mean([metrics.get(name, {}).get("exact_acc", 0.0) for name in names]))
        if score >= best:
            best, best_metrics = score, {**metrics, "epoch": epoch + 1}
            torch.save(net.state_dict(), out / f"{run.name}.pt")
        if progress() >= 1.0:
            if step < total:
                print(f"time budget reached after {step} of {total} steps (learning rate annealed on time)", flush=True)
            break
    net.load_state_dict(torch.load(out / f"{run.name}.pt", map_location="cpu"))
    return best_metrics, history, step


def evaluate(net, samples: list[Sample], size: int, batch: int = 256,
             plain_fn: Callable[[Sample, np.random.Generator, int], tuple[np.ndarray, np.ndarray]] = _plain) -> dict[str, float]:
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
            x, num, col, up = make_batch(samples, idx, rng, size, plain_fn)
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


MEMORY_HEADROOM_GB = 2.0
"""Memory a reader training needs beyond its loaded crops (the network, batches, the validation)."""


def _check_memory(samples: list[Sample], after: Path) -> None:
    """Stop with a clear message when the crops loaded so far leave less than MEMORY_HEADROOM_GB
    of the machine's memory: such a run would be killed by the kernel later, without a word. (Each
    crop is a PATCH_SIDE-px square, 110 kB: session 11's first run loaded 170,000, 19 GB, and was
    killed at its ninth epoch, a detector training beside it.)"""
    free_gb = _available_gb()
    if free_gb is None:  # not Linux: no check
        return
    if free_gb < MEMORY_HEADROOM_GB:
        held = sum(s.patch.nbytes for s in samples) / 1e9
        raise SystemExit(f"the training crops loaded up to {after} take {held:.1f} GB and leave {free_gb:.1f} GB of memory "
                         f"free (at least {MEMORY_HEADROOM_GB:.0f} GB are needed to train): give fewer rendered sets, "
                         "or cap each with --synthetic-images")


def _available_gb() -> float | None:
    """The memory the kernel could still give (``MemAvailable`` of /proc/meminfo), or None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1e6  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def train_reader(args) -> None:
    """Train the tile reader on real and/or rendered tiles; writes tile_reader.onnx/.pt/.json."""
    import torch

    from vision.train.reader_net import ReaderNet, width_of, widen

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
            from vision.train.reader_data import load_detector_box_samples

            real_pool += load_detector_box_samples("train", Path(args.detector_boxes), rng)
        pools.append(real_pool)
        weights.append(args.real_share if len(sources) > 1 else 1.0)
    folders = [Path(f) for f in args.synthetic.split(",")]  # several rendered sets: their training scenes pooled
    if "synthetic" in sources:
        rendered: list[Sample] = []
        miner = None
        if getattr(args, "mine_negatives", 0) > 0:
            if not args.detector_boxes:
                raise SystemExit("--mine-negatives needs --detector-boxes MODELS_DIR (the detector that mines them)")
            from vision.detect import DetectorSettings, TileModel

            miner = TileModel(Path(args.detector_boxes), DetectorSettings(min_score=args.mine_negatives), threads=1)
        mine_in = ({Path(f) for f in args.mine_scenes.split(",")} if getattr(args, "mine_scenes", None)
                   else set(folders))
        for folder in folders:
            rendered += load_synthetic_samples(folder / "train", rng, args.synthetic_images,
                                               miner if folder in mine_in else None)
            _check_memory(rendered, folder)
        if miner is not None:
            mined = sum(1 for s in rendered if s.source == "synthetic-mined")
            print(f"mined {mined} 'not a tile' boxes from the detector on the rendered scenes", flush=True)
        pools.append(rendered)
        weights.append(1.0 - args.real_share if len(sources) > 1 else 1.0)
    val = {"real_valid": load_real_samples("valid", np.random.default_rng(1)), "synthetic_valid": []}
    if getattr(args, "val_scenes", None):
        val_folders = [Path(f) for f in args.val_scenes.split(",")]
    else:  # the first set that has validation scenes
        val_folders = [f / "val" for f in folders if (f / "val").is_dir()][:1]
    if "synthetic" in sources:
        for val_folder in val_folders:
            if not (val_folder / "tiles").is_dir():
                raise SystemExit(f"{val_folder} holds no rendered scenes (tiles/*.json): give a folder such as data/x/val")
            val["synthetic_valid"] += load_synthetic_samples(val_folder, np.random.default_rng(1), 120)
    print(f"reader data: {' + '.join(str(len(p)) for p in pools)} training samples ({', '.join(sources)}), "
          f"{len(val['real_valid'])} real validation samples, {len(val['synthetic_valid'])} synthetic validation samples; "
          f"loaded in {time.time() - started:.0f} s", flush=True)

    net = ReaderNet(width=args.width)
    if args.init:
        state = torch.load(args.init, map_location="cpu")
        if width_of(state) < args.width:  # a wider reader continues from a narrower one's function
            print(f"widening {args.init} from width {width_of(state)} to {args.width} (Net2WiderNet)", flush=True)
            state = widen(state, args.width, seed=args.seed, noise=0.01)
        net.load_state_dict(state)
    # The real validation photos read almost perfectly: the rendered ones (other editions, racks,
    # fonts) are what still tells two epochs apart, so both choose the checkpoint.
    select = ("real_valid", "synthetic_valid") if val["synthetic_valid"] else "real_valid"
    stretch = float(getattr(args, "crop_stretch", 0.0))
    run = ReaderRun("tile_reader", pools, weights, val, select,
                    functools.partial(augment, strong=True, stretch_at=stretch), Schedule(),
                    functools.partial(augment, strong=False, stretch_at=stretch))
    best, history, steps = fit_reader(net, run, args, rng)
    out = Path(args.out)
    export_reader(net, out / "tile_reader.onnx", args.size)
    card = {
        "model": "tile_reader", "architecture": f"ReaderNet(width={args.width}) (vision/train/reader_net.py)",
        "input": f"{args.size}x{args.size} BGR crop, vision.crops.crop_square of the detector box"
                 + (f" (boxes elongated {stretch}:1 or more cut from a {stretch}:1 window)" if stretch > 1 else ""),
        "crop_stretch_at": stretch,
        "data": args.data, "samples": sum(len(p) for p in pools), "epochs_run": len(history), "steps": steps,
        "batch": args.batch, "training_minutes": round((time.time() - started) / 60, 1), "date": date.today().isoformat(),
        "command": command_of(args), "best": best, "history": history,
    }
    (out / "tile_reader.json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"wrote {out / 'tile_reader.onnx'}; best real-valid exact accuracy "
          f"{best.get('real_valid', {}).get('exact_acc', 0.0):.4f}", flush=True)
    stale = out / "tile_reader.int8.onnx"
    if stale.exists():  # the integer copy of the reader this one replaces (vision.train.quantize)
        stale.unlink()
        print(f"removed {stale}: it was the old reader's; `python -m vision.train.quantize --net reader --models {out}` "
              "makes this one's")


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

    from vision.train.reader_net import ExportWrapper

    wrapper = ExportWrapper(net).eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        wrapper, dummy, str(path), input_names=["crops"], output_names=["number", "colour", "up", "features"],
        dynamic_axes={"crops": {0: "n"}, "number": {0: "n"}, "colour": {0: "n"}, "up": {0: "n"}, "features": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    from vision.train.onnx_compact import compact

    compact(path)
