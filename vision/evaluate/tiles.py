"""Accuracy of the shipped models on any labelled folder: ``python -m vision.evaluate FOLDER``.

FOLDER is a real-photo split in ultralytics layout (``images/``, ``labels/``, the class names in
``../data.yaml``, e.g. ``data/rummikub-real-v1/valid``) or a rendered split from
``datasets.synth`` (``images/`` and ``tiles/*.json``).

Reported (IoU >= 0.5 to match a detection with a labelled tile):
detection precision and recall; exact-read accuracy of matched tiles (number and colour, after the
rule-aware decoding, and the reader's own top choice); end-to-end tile F1 (a tile counts when it is
found AND read right); the share of photos read with no error at all; a confusion matrix (PNG);
every photo with an error, listed with what went wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.tiles import Tile, parse_tile
from vision.boxes import intersections, match_boxes


@dataclass
class LabelledImage:
    path: Path
    tiles: list[Tile]
    boxes_xyxy: np.ndarray
    # Tiles mostly hidden behind others (rendered racks): finding them is neither counted nor penalised.
    ignore_xyxy: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    group: str = ""  # e.g. the font family of a rendered image, for per-family figures
    scene: str = ""
    edition: str = ""  # the tile edition(s) of a rendered image, for per-edition figures
    unreadable: int = 0  # rendered tiles left out because nobody could read them (:func:`legible`)
    places: list[str] = field(default_factory=list)  # rendered tiles: "rack" or "table", as ``tiles``


def load_labelled(folder: Path) -> list[LabelledImage]:
    """Labelled images of a real split (ultralytics polygons) or a rendered split (tiles/*.json)."""
    folder = Path(folder)
    if (folder / "tiles").is_dir():
        out = []
        for label in sorted((folder / "tiles").glob("*.json")):
            out.append(labelled_from_record(json.loads(label.read_text()), folder / "images" / (label.stem + ".jpg")))
        return out
    if (folder / "labels").is_dir() and (folder.parent / "data.yaml").exists():
        from datasets import real

        photos = real.load_split(folder.name, folder.parent)
        return [
            LabelledImage(p.image_path, [t.tile for t in p.tiles], np.array([t.box_xyxy for t in p.tiles], np.float32).reshape(-1, 4))
            for p in photos
        ]
    raise SystemExit(f"{folder} is not a labelled folder: expected images/ with labels/ (and ../data.yaml) or tiles/*.json")


LEGIBLE_FACE_PX = 14.0
"""A rendered tile whose face is less than this across, along either of its axes, in the image
cannot be read by anyone: its numeral is 5-7 px on that axis (a flat tile far beyond a rack, seen at
a grazing angle). It is scored like a hidden tile: neither counted nor penalised
(:attr:`Report.unreadable`)."""
LEGIBLE_BLUR = 0.1
"""...and so is one blurred by the depth of field (``defocus_px``) by more than this share of its
face's shorter side: the numeral's strokes, about a tenth of the face, melt into the body."""


def face_sides(polygon: Sequence[Sequence[float]]) -> tuple[float, float]:
    """How thick a tile face is in the image, in pixels, across each of its two axes (corners
    top-left, top-right, bottom-right, bottom-left of the upright tile): the face's area over its
    width, and over its height. For an upright face these are its height and width; for a flat tile
    seen at a grazing angle, sheared into a thin parallelogram, the first is that thin height."""
    pts = np.asarray(polygon, np.float64)[:4]
    (tl, tr, br, bl) = pts
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    width = float(np.linalg.norm((tl + bl) / 2 - (tr + br) / 2))
    height = float(np.linalg.norm((tl + tr) / 2 - (bl + br) / 2))
    return area / max(width, 1e-6), area / max(height, 1e-6)


def legible(tile: dict) -> bool:
    """Whether a rendered tile's numeral can be read at all (:data:`LEGIBLE_FACE_PX`, :data:`LEGIBLE_BLUR`)."""
    short = min(face_sides(tile["polygon"]))
    return short >= LEGIBLE_FACE_PX and tile.get("defocus_px", 0.0) <= LEGIBLE_BLUR * short


def labelled_from_record(record: dict, path: Path) -> LabelledImage:
    """The labels of one rendered scene record (``datasets.synth.render_scene``). Tiles mostly
    hidden or that nobody could read (:func:`legible`) are boxes to ignore, not labels."""
    shown, ignored = [], []
    for t in record["tiles"]:
        (ignored if t.get("hidden") or not legible(t) else shown).append(t)
    # A tile partly behind another is boxed where it shows (as the detector is taught).
    boxes = [t["visible_box"] if t.get("visible", 1.0) < 0.9 else [*np.min(t["polygon"], axis=0), *np.max(t["polygon"], axis=0)]
             for t in shown]
    ignore = [t["visible_box"] for t in ignored]
    return LabelledImage(path, [parse_tile(t["code"]) for t in shown], np.array(boxes, np.float32).reshape(-1, 4),
                         np.array(ignore, np.float32).reshape(-1, 4), ",".join(record.get("font_families", [])),
                         record.get("scene", ""), ",".join(record.get("editions", [])),
                         sum(1 for t in ignored if not t.get("hidden")),
                         ["rack" if t.get("rack") is not None else "table" for t in shown])


def reading_mode(item: LabelledImage, mode: str) -> str:
    """The mode a player would choose: "auto" reads rendered rack scenes as racks, the rest as tables."""
    return mode if mode != "auto" else ("rack" if item.scene == "rack" else "table")


def _reader_top1(read_tile) -> Tile | None:
    """The reader's own most probable reading, before the rules had their say."""
    alternatives = getattr(read_tile, "alternatives", None)
    if alternatives:
        code, _ = max(alternatives, key=lambda a: a[1])
        return None if code == "?" else parse_tile(code)
    return read_tile.tile


@dataclass
class Report:
    images: int = 0
    truth: int = 0
    predicted: int = 0
    matched: int = 0
    read_right: int = 0
    raw_read_right: int = 0
    perfect_images: int = 0
    unreadable: int = 0  # rendered tiles too small or blurred to read: ignored like hidden ones
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((55, 55), dtype=int))  # 53 + missed/false
    failures: list[dict] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    groups: dict[str, "Report"] = field(default_factory=dict)  # per font family (rendered splits)
    editions: dict[str, "Report"] = field(default_factory=dict)  # per tile edition (rendered splits)
    scenes: dict[str, "Report"] = field(default_factory=dict)  # per scene kind: rack, table... (rendered splits)
    sizes: dict[int, np.ndarray] = field(default_factory=dict)
    """Per tile size, keyed by the lower edge of its :data:`SIZE_BUCKETS` bucket (the label box's
    short side in the image's pixels): [labelled tiles, found, found and read right] - where
    reading fails, by how many pixels it had."""
    places: dict[str, np.ndarray] = field(default_factory=dict)
    """The same counts for rendered tiles standing on a rack and lying on the table: a player
    scoring a rack cares about its own tiles, not the table's far beyond it."""

    def add(self, other: "Report") -> None:
        """Fold one image's counts into this report."""
        for name in ("images", "truth", "predicted", "matched", "read_right", "raw_read_right", "perfect_images", "unreadable"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.confusion += other.confusion
        self.failures += other.failures
        self.times_ms += other.times_ms
        for bucket, counts in other.sizes.items():
            self.sizes[bucket] = self.sizes.get(bucket, np.zeros(3, int)) + counts
        for place, counts in other.places.items():
            self.places[place] = self.places.get(place, np.zeros(3, int)) + counts

    def size_figures(self) -> dict[str, dict]:
        """:attr:`sizes` as figures: tiles, detection recall and read accuracy of the found ones."""
        return {_bucket_name(b): _found_and_read(c) for b, c in sorted(self.sizes.items())}

    def place_figures(self) -> dict[str, dict]:
        """:attr:`places` as figures, as :meth:`size_figures`."""
        return {p: _found_and_read(c) for p, c in sorted(self.places.items())}

    def to_dict(self) -> dict:
        p = self.matched / max(self.predicted, 1)
        r = self.matched / max(self.truth, 1)
        e2e_p = self.read_right / max(self.predicted, 1)
        e2e_r = self.read_right / max(self.truth, 1)
        return {
            "images": self.images, "labelled_tiles": self.truth, "unreadable_tiles_ignored": self.unreadable,
            "detected_tiles": self.predicted,
            "detection_precision": round(p, 4), "detection_recall": round(r, 4),
            "read_accuracy": round(self.read_right / max(self.matched, 1), 4),
            "reader_top1_accuracy": round(self.raw_read_right / max(self.matched, 1), 4),
            "tile_f1": round(2 * e2e_p * e2e_r / max(e2e_p + e2e_r, 1e-9), 4),
            "photos_without_error": round(self.perfect_images / max(self.images, 1), 4),
            "median_ms": round(float(np.median(self.times_ms)), 1) if self.times_ms else None,
        }


def _found_and_read(counts: np.ndarray) -> dict:
    return {"tiles": int(counts[0]), "detection_recall": round(counts[1] / max(counts[0], 1), 4),
            "read_accuracy": round(counts[2] / max(counts[1], 1), 4)}


SIZE_BUCKETS = (0, 20, 30, 50, 80, 130)
"""Lower edges, in pixels, of the tile-size buckets of :attr:`Report.sizes` (label box's short side)."""


def _size_floor(short_side: float) -> int:
    return max(b for b in SIZE_BUCKETS if short_side >= b) if short_side >= 0 else 0


def _bucket_name(floor: int) -> str:
    higher = [b for b in SIZE_BUCKETS if b > floor]
    return f"{floor}-{higher[0]} px" if higher else f"{floor}+ px"


def size_bucket(short_side: float) -> str:
    """The :data:`SIZE_BUCKETS` bucket of a tile whose label box's short side is ``short_side`` pixels."""
    return _bucket_name(_size_floor(short_side))


def mostly_covered(box: np.ndarray, ignore: np.ndarray) -> bool:
    """Whether most of ``box`` lies on one of the ``ignore`` boxes (a hidden tile found anyway)."""
    if len(ignore) == 0:
        return False
    inter = intersections(box, ignore)[0]
    area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-6)
    return bool((inter / area).max() >= 0.5)


def score_reading(reading, item: LabelledImage, report: Report) -> Report:
    """Compare one photo's reading with its labels and count it into ``report`` (IoU >= 0.5 to
    match; a detection mostly on a hidden tile is neither right nor wrong). Returns ``report``."""
    pred_boxes = np.array([t.box_xyxy for t in reading.tiles], np.float32).reshape(-1, 4)
    pred_tiles = [t.tile for t in reading.tiles]
    pairs = match_boxes(pred_boxes, item.boxes_xyxy)
    matched_first = {p for p, _ in pairs}
    dont_care = {p for p in range(len(pred_tiles)) if p not in matched_first and mostly_covered(pred_boxes[p], item.ignore_xyxy)}
    if dont_care:  # a mostly hidden tile found anyway: neither right nor wrong
        keep = [p for p in range(len(pred_tiles)) if p not in dont_care]
        pred_boxes, pred_tiles = pred_boxes[keep], [pred_tiles[p] for p in keep]
        read_tiles = [reading.tiles[p] for p in keep]
        pairs = match_boxes(pred_boxes, item.boxes_xyxy)
    else:
        read_tiles = list(reading.tiles)
    report.images += 1
    report.unreadable += item.unreadable
    report.truth += len(item.tiles)
    report.predicted += len(pred_tiles)
    report.matched += len(pairs)
    errors = []
    matched_p = {p for p, _ in pairs}
    matched_t = {t for _, t in pairs}
    for p, t in pairs:
        got, want = pred_tiles[p], item.tiles[t]
        report.confusion[want.index, got.index if got is not None else 54] += 1
        raw = _reader_top1(read_tiles[p])
        if raw == want:
            report.raw_read_right += 1
        if got == want:
            report.read_right += 1
        else:
            errors.append(f"{want.code} read as {got.code if got else '?'}")
    for t in set(range(len(item.tiles))) - matched_t:
        report.confusion[item.tiles[t].index, 53] += 1
        errors.append(f"{item.tiles[t].code} missed")
    read_right_t = {t for p, t in pairs if pred_tiles[p] == item.tiles[t]}
    for t, box in enumerate(item.boxes_xyxy):
        bucket = _size_floor(float(min(box[2] - box[0], box[3] - box[1])))
        counts = report.sizes.setdefault(bucket, np.zeros(3, int))
        counts += (1, t in matched_t, t in read_right_t)
        if t < len(item.places):
            report.places.setdefault(item.places[t], np.zeros(3, int))[:] += (1, t in matched_t, t in read_right_t)
    for p in set(range(len(pred_tiles))) - matched_p:
        got = pred_tiles[p]
        report.confusion[53, got.index if got is not None else 54] += 1
        errors.append(f"extra tile {got.code if got else '?'}")
    if errors:
        report.failures.append({"image": item.path.name, "errors": errors})
    else:
        report.perfect_images += 1
    return report


def evaluate(folder: Path, reader=None, rules=None, limit: int | None = None, progress: bool = True,
             mode: str = "auto") -> Report:
    """Run the models on every labelled image of ``folder`` and compare with the labels.

    ``mode``: "table", "rack", or "auto" (rendered rack scenes in rack mode, as a player would
    choose for a photo of a rack; everything else in table mode)."""
    import cv2
    from tqdm import tqdm

    from vision.pipeline import load_reader

    reader = reader or load_reader()
    items = load_labelled(folder)[:limit]
    total = Report()
    for item in tqdm(items, desc=f"evaluating {Path(folder).name}", disable=not progress, file=sys.stderr):
        report = Report()
        image = cv2.imread(str(item.path))
        t0 = time.perf_counter()
        reading = reader.read_table(image, rules, reading_mode(item, mode))
        report.times_ms.append((time.perf_counter() - t0) * 1000)
        score_reading(reading, item, report)
        total.add(report)
        if item.group:
            total.groups.setdefault(item.group, Report()).add(report)
        if item.edition:
            total.editions.setdefault(item.edition, Report()).add(report)
        if item.scene:
            total.scenes.setdefault(item.scene, Report()).add(report)
    return total


def save_confusion(report: Report, path: Path, title: str) -> None:
    """Confusion matrix of labelled (rows) vs read (columns), with missed and extra tiles."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [Tile.from_index(i).code for i in range(53)] + ["none", "?"]
    m = report.confusion.astype(float)
    fig, ax = plt.subplots(figsize=(14, 13))
    shown = np.where(m > 0, np.log1p(m), np.nan)
    ax.imshow(shown, cmap="viridis")
    off = [(i, j) for i in range(55) for j in range(55) if i != j and m[i, j] > 0]
    from matplotlib.patches import Rectangle

    for i, j in off:  # errors: a red square that stands out at any zoom, with the count
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="red", edgecolor="darkred", lw=1))
        ax.text(j, i, int(m[i, j]), ha="center", va="center", color="white", fontsize=7, fontweight="bold")
    ax.set_xticks(range(55), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(55), labels, fontsize=7)
    ax.set_xlabel("read as (none = labelled tile missed)")
    ax.set_ylabel("labelled (none = extra detection)")
    ax.set_title(f"{title}: {len(off)} kinds of error (red squares, with counts)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="labelled folders")
    parser.add_argument("--confusion", type=Path, default=None, help="PNG path (default: <folder name>_confusion.png in --out)")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the confusion PNGs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--limit", type=int, default=None, help="evaluate only the first N images")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--models", type=Path, default=None, help="folder with tile_detector.onnx and tile_reader.onnx (default models/)")
    parser.add_argument("--mode", choices=("auto", "table", "rack"), default="auto",
                        help="reading mode: auto (rendered rack scenes as racks, the rest as tables; default), table or rack")
    parser.add_argument("--quiet", action="store_true", help="no per-photo error lines")
    parser.add_argument("--ocr-below", type=float, default=None,
                        help="second opinion from the text recogniser below this reader confidence (default: the shipped setting; 0 off)")
    args = parser.parse_args(argv)
    from referee.ruleset import RuleSet
    from vision.pipeline import load_reader

    reader = load_reader(args.models)
    if args.ocr_below is not None:
        from dataclasses import replace

        reader.model.settings = replace(reader.model.settings, ocr_below=args.ocr_below)

    results = {}
    for folder in args.folders:
        report = evaluate(folder, reader=reader, rules=RuleSet.preset(args.rules), limit=args.limit, mode=args.mode)
        name = f"{folder.parent.name}/{folder.name}"
        png = args.confusion if args.confusion and len(args.folders) == 1 else args.out / f"{folder.parent.name}_{folder.name}_confusion.png"
        png.parent.mkdir(parents=True, exist_ok=True)  # --out may name a folder not made yet
        save_confusion(report, png, name)
        figures = report.to_dict()
        figures["confusion_png"] = str(png)
        figures["failures"] = report.failures
        if report.groups:
            figures["by_font_family"] = {g: {**r.to_dict(), "by_place": r.place_figures()} if r.places else r.to_dict()
                                         for g, r in sorted(report.groups.items())}
        if report.editions:
            figures["by_edition"] = {g: r.to_dict() for g, r in sorted(report.editions.items())}
        if report.scenes:
            figures["by_scene"] = {g: r.to_dict() for g, r in sorted(report.scenes.items())}
        if report.sizes:
            figures["by_tile_size"] = report.size_figures()
        if report.places:
            figures["by_place"] = report.place_figures()
        results[name] = figures
        if not args.json:
            print(f"\n{name}: {json.dumps({k: v for k, v in figures.items() if not k.startswith('by_') and k != 'failures'})}")
            if report.groups and len(report.groups) <= 12:
                for g, r in sorted(report.groups.items()):
                    d = r.to_dict()
                    print(f"  font {g}: {d['images']} photos, {d['labelled_tiles']} tiles, tile F1 {d['tile_f1']:.4f}, "
                          f"read right {d['read_accuracy']:.4f}, recall {d['detection_recall']:.4f}")
            if not args.quiet:
                for f in report.failures:
                    print(f"  {f['image']}: {'; '.join(f['errors'])}")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
