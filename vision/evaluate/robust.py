"""How reading holds up when the light or the camera is worse than in the labelled photos.

    python -m vision.evaluate.robust data/rummikub-real-v1/valid [--json] [--sheet robust.png]

The real labelled photos come from one phone in fair light. Players' photos do not: a dim room, a
lamp's warm cast, a shaky hand, a cheap webcam's noise and compression, glare that blows the
white tiles out. Each perturbation below is applied to every photo of a labelled folder and the
photos are read again with the shipped models, so the figures say how much each costs on real
tiles (tile F1, tiles found, tiles read right), beside the photos as they are. The strengths are
those of a poor but usable phone photo; ``overexposed`` and ``overexposed_hard`` bracket glare.
``--sheet`` draws the first photo under every perturbation, to see what was asked of the reader.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

Perturbation = Callable[[np.ndarray], np.ndarray]


def _scaled(image: np.ndarray, gain, offset: float = 0.0) -> np.ndarray:  # noqa: ANN001 - a number or per-channel gains
    return np.clip(image.astype(np.float32) * np.asarray(gain, np.float32) + offset, 0, 255).astype(np.uint8)


def dim(image: np.ndarray) -> np.ndarray:
    """A dim room: gamma 1.8 and 60% of the light (the mid-greys fall from 128 to about 45)."""
    lut = np.clip(((np.arange(256) / 255.0) ** 1.8) * 255 * 0.6, 0, 255).astype(np.uint8)
    return cv2.LUT(image, lut)


def overexposed(image: np.ndarray) -> np.ndarray:
    """Glare or a flash: 1.5 times the light plus 20 levels, the white tiles clipped."""
    return _scaled(image, 1.5, 20)


def overexposed_hard(image: np.ndarray) -> np.ndarray:
    """Strong glare: 1.8 times the light plus 30 levels."""
    return _scaled(image, 1.8, 30)


def warm_light(image: np.ndarray) -> np.ndarray:
    """A tungsten lamp without white balance: blue x0.7, red x1.25 (BGR)."""
    return _scaled(image, (0.7, 0.95, 1.25))


def cool_light(image: np.ndarray) -> np.ndarray:
    """Daylight through a window, balanced for a lamp: blue x1.25, red x0.75."""
    return _scaled(image, (1.25, 1.0, 0.75))


def out_of_focus(image: np.ndarray) -> np.ndarray:
    """The phone focused elsewhere: a Gaussian blur of 2 px."""
    return cv2.GaussianBlur(image, (0, 0), 2.0)


def shaky(image: np.ndarray) -> np.ndarray:
    """A shaky hand: 9 px of horizontal motion blur."""
    kernel = np.zeros((9, 9), np.float32)
    kernel[4, :] = 1 / 9
    return cv2.filter2D(image, -1, kernel)


def compressed(image: np.ndarray) -> np.ndarray:
    """A messenger app's recompression: JPEG quality 25."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 25])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def noisy(image: np.ndarray) -> np.ndarray:
    """A small sensor in low light: Gaussian noise of 12 levels (fixed seed)."""
    noise = np.random.default_rng(0).normal(0, 12, image.shape)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def low_resolution(image: np.ndarray) -> np.ndarray:
    """A webcam's half resolution, scaled back up."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def faded(image: np.ndarray) -> np.ndarray:
    """Washed-out colours: halfway to grey."""
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return cv2.addWeighted(image, 0.5, grey, 0.5, 0)


def side_shadow(image: np.ndarray) -> np.ndarray:
    """Light from one side: 35% of it at the left edge rising to all of it at the right."""
    ramp = np.linspace(0.35, 1.0, image.shape[1], dtype=np.float32)[None, :, None]
    return np.clip(image * ramp, 0, 255).astype(np.uint8)


PERTURBATIONS: dict[str, Perturbation] = {
    "as taken": lambda image: image,
    "dim": dim,
    "overexposed": overexposed,
    "overexposed_hard": overexposed_hard,
    "warm_light": warm_light,
    "cool_light": cool_light,
    "out_of_focus": out_of_focus,
    "shaky": shaky,
    "compressed": compressed,
    "noisy": noisy,
    "low_resolution": low_resolution,
    "faded": faded,
    "side_shadow": side_shadow,
}


def evaluate(folder: Path, reader=None, names: list[str] | None = None, progress: bool = True) -> dict[str, dict]:  # noqa: ANN001
    """Figures (``vision.evaluate.tiles.Report.to_dict``) per perturbation of ``folder``'s photos."""
    from tqdm import tqdm

    from vision.evaluate.tiles import Report, load_labelled, reading_mode, score_reading
    from vision.pipeline import load_reader

    reader = reader or load_reader(None)
    items = load_labelled(folder)
    if not items:
        raise SystemExit(f"{folder} holds no labelled photos")
    names = names or list(PERTURBATIONS)
    _check_names(names)
    out = {}
    with tqdm(total=len(names) * len(items), desc=f"robustness {folder.name}", disable=not progress) as bar:
        for name in names:
            report = Report()
            for item in items:
                image = PERTURBATIONS[name](cv2.imread(str(item.path)))
                score_reading(reader.read_table(image, None, reading_mode(item, "auto")), item, report)
                bar.update()
            out[name] = report.to_dict()
    return out


def _check_names(names: list[str]) -> None:
    unknown = [n for n in names if n not in PERTURBATIONS]
    if unknown:
        raise SystemExit(f"unknown perturbation {', '.join(unknown)}: choose from {', '.join(PERTURBATIONS)}")


def contact_sheet(photo: Path, out: Path, names: list[str], width: int = 360) -> None:
    """``photo`` under each perturbation, side by side with its name, into ``out`` (PNG)."""
    image = cv2.imread(str(photo))
    h = int(image.shape[0] * width / image.shape[1])
    cells = []
    for name in names:
        cell = cv2.resize(PERTURBATIONS[name](image), (width, h), interpolation=cv2.INTER_AREA)
        cv2.rectangle(cell, (0, 0), (width, 24), (0, 0, 0), -1)
        cv2.putText(cell, name, (6, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
        cells.append(cell)
    cols = 4
    while len(cells) % cols:
        cells.append(np.zeros_like(cells[0]))
    rows = [np.hstack(cells[i:i + cols]) for i in range(0, len(cells), cols)]
    cv2.imwrite(str(out), np.vstack(rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.robust", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a labelled folder (a real split or a rendered one)")
    parser.add_argument("--models", type=Path, default=None, help="models folder (default models/)")
    parser.add_argument("--only", default="", help="comma-separated perturbations (default: all)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--sheet", type=Path, default=None, help="also draw the first photo under every perturbation (PNG)")
    args = parser.parse_args(argv)
    from vision.pipeline import load_reader

    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(PERTURBATIONS)
    _check_names(names)
    figures = evaluate(args.folder, load_reader(args.models), names, progress=not args.json)
    if args.sheet:
        from vision.evaluate.tiles import load_labelled

        contact_sheet(load_labelled(args.folder)[0].path, args.sheet, names)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{'perturbation':<18} {'tile F1':>8} {'found':>7} {'read right':>11} {'no error':>9}")
    for name, d in figures.items():
        print(f"{name:<18} {d['tile_f1']:>8.4f} {d['detection_recall']:>7.3f} {d['read_accuracy']:>11.3f} "
              f"{d['photos_without_error']:>9.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
