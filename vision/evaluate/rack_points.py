"""How far a told rack's points are from the truth, on rendered scenes with a rack.

    python -m vision.evaluate.rack_points data/s22_toldrack/val data/s14_layout79/val [--json]

Scoring a rack at the end of a game is the job a player asks of a rack photo: the total is what
goes on the score sheet. Tile F1 counts each tile once; this counts what the player sees. Every
rendered scene with rack tiles is read as the player would (``--rack``: mode ``"rack"``), and the
reading's ``rack_points`` is compared with the points of the rack's tiles the scene shows (not
hidden behind another tier; a joker 30, ``referee.scoring.rack_value``). A table tile counted in
the rack, a rack tile left out or misread, all show here, by the points they cost. A tile cut by
the photo's edge counts in the truth: the reading leaves it out of its total and says so, and it
shows here as points off.

Figures per folder: scenes, the mean and median of the points off, how many scenes are exact,
within 10 points and off by more than 50 (the table beyond the rack counted in it), and the
scenes furthest off.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

WORST_SHOWN = 5


def rack_truth(record: dict[str, Any]) -> int | None:
    """The points of the rack tiles a rendered scene shows, or None without a rack tile."""
    from referee.scoring import rack_value
    from referee.tiles import parse_tile

    shown = [parse_tile(t["code"]) for t in record["tiles"] if t.get("rack") is not None and not t.get("hidden")]
    return rack_value(shown) if shown else None


def evaluate(folder: Path, reader: Any = None, progress: bool = True) -> dict[str, Any]:
    """Read every rendered scene of ``folder`` that holds rack tiles as a told rack; the figures."""
    import cv2
    from tqdm import tqdm

    from vision.pipeline import load_reader

    folder = Path(folder)
    labels = sorted((folder / "tiles").glob("*.json"))
    if not labels:
        raise FileNotFoundError(f"{folder} holds no rendered scene labels (tiles/*.json)")
    reader = reader or load_reader()
    scenes = []
    for path in tqdm(labels, desc=f"racks of {folder.name}", disable=not progress, file=sys.stderr):
        record = json.loads(path.read_text())
        truth = rack_truth(record)
        if truth is None:
            continue
        image = cv2.imread(str(folder / "images" / record["image"]))
        if image is None:
            raise FileNotFoundError(f"cannot read {folder / 'images' / record['image']}")
        scenes.append((record["image"], truth, reader.read_table(image, mode="rack").rack_points))
    off = np.array([abs(read - truth) for _, truth, read in scenes], dtype=np.float64)
    worst = sorted(scenes, key=lambda s: -abs(s[2] - s[1]))[:WORST_SHOWN]
    return {
        "scenes": len(scenes),
        "mean_points_off": round(float(off.mean()), 2) if len(off) else None,
        "median_points_off": float(np.median(off)) if len(off) else None,
        "exact": int((off == 0).sum()),
        "within_10": int((off <= 10).sum()),
        "over_50": int((off > 50).sum()),
        "worst": [{"image": name, "truth": truth, "read": read} for name, truth, read in worst],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.rack_points", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="rendered folders (images/ and tiles/*.json)")
    parser.add_argument("--models", type=Path, default=None, help="models folder (default models/)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    from vision.pipeline import load_reader

    reader = load_reader(args.models)
    figures = {str(f): evaluate(f, reader, progress=not args.json) for f in args.folders}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        shown = (("scenes", 6), ("mean_points_off", 15), ("median_points_off", 17), ("exact", 5), ("within_10", 9), ("over_50", 7))
        print(f"{'folder':<32}" + "".join(f" {name:>{width}}" for name, width in shown))
        for folder, d in figures.items():
            print(f"{folder:<32}" + "".join(f" {str(d[name]):>{width}}" for name, width in shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
