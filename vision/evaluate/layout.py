"""How well the layout rebuilds sets on real photos: ``python -m vision.evaluate.layout``.

Compares :func:`vision.layout.group_sets` with the hand labels of set membership in
``datasets/labels/sets_real.json`` (see ``datasets/labels/README.md``), on the shared real photos.

Boxes come from
* the labels (``--source truth``, default): the axis-aligned box of each labelled outline;
  with ``--axes`` each tile's long axis (from its outline) is passed as the up vector, which is what
  a reader that knows each tile's orientation gives;
* the shipped models (``--source model``): detected boxes and the reader's up vectors; a
  labelled tile is found when a detection overlaps it with IoU >= 0.5. With ``--model`` the same
  detections are also scored "read": the sets of :func:`vision.decode.build_reading`, as the page
  shows them (the layout's lines, cut where the readings show sets pushed together).

Reported per kind of photo (table: sets laid on a table; pile: a handful of tiles pushed
together; spread: tiles strewn face up; rack; single) and in total:
* exact sets: labelled sets whose tiles the layout puts together in one set, no more, no fewer;
* false sets: sets the layout makes that are not labelled sets;
* unfound (with the models' boxes): labelled sets missed because the detector found no box for
  at least one of their tiles - the detector's loss, not the grouping's;
* racks: rack photos whose rack rows come out exactly when found without being told
  (``mode="table"``), and "told": when the user says the photo is a rack (``mode="rack"``);
* called: photos in which a rack was called without being told (in photos of flat tiles, each
  one is a mistake: issue 15).

``--rendered N`` renders N scenes in process (seed 0, 640 px) and scores them; ``--scenes DIR``
scores scenes already rendered into DIR by ``python -m datasets.synth --out DIR`` (any seed,
kinds and size: a held-out set of its own).

``--rack-order DIR`` scores the rack reading order on rendered scenes already written by
``python -m datasets.synth --out DIR`` (their labels give each rack tile's tier and slot): a rack
is in reading order when, told it is a rack, its tiers come top tier first and each tier's tiles
left to right, exactly as labelled; the same for the tiles found (a tile the detector misses is
left out of both); per tile, the found rack tiles at their labelled place in reading order. Run
with label boxes and up vectors from the labelled faces, without up vectors, and (``--model``)
with the shipped models' detections.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.boxes import match_boxes
from vision.layout import Layout, group_sets

__all__ = ["LABELS_PATH", "KINDS", "load_set_labels", "PhotoScore", "score_layout", "LayoutReport", "evaluate",
           "scene_label", "score_scene", "evaluate_rendered", "evaluate_folder", "main"]

LABELS_PATH = Path(__file__).resolve().parents[2] / "datasets" / "labels" / "sets_real.json"
KINDS = ("table", "pile", "spread", "rack", "single")
IOU_MATCH = 0.5


def load_set_labels(path: Path = LABELS_PATH) -> dict[str, dict[str, Any]]:
    """The labels by photo file name: ``split``, ``kind``, ``n_tiles``, ``sets``, ``rack``, ``loose``."""
    data = json.loads(Path(path).read_text())
    photos = data.get("photos")
    if not isinstance(photos, dict):
        raise ValueError(f"{path}: expected an object with a 'photos' mapping")
    for name, item in photos.items():
        if item.get("kind") not in KINDS:
            raise ValueError(f"{path}: photo {name} has unknown kind {item.get('kind')!r}: choose one of {', '.join(KINDS)}")
        used = [i for s in item["sets"] for i in s] + [i for r in item["rack"] for i in r] + list(item["loose"])
        if sorted(used) != list(range(item["n_tiles"])):
            raise ValueError(f"{path}: photo {name}: sets, rack and loose must hold every tile index once")
    return photos


@dataclass
class PhotoScore:
    """One photo: labelled sets, how many came out exactly, sets made that are not labelled."""

    true_sets: int = 0
    exact_sets: int = 0
    false_sets: int = 0
    unfound_sets: int = 0
    rack_photo: bool = False
    rack_exact: bool = False
    rack_told_exact: bool = False
    rack_told_scored: bool = False
    rack_called: bool = False
    missed: list[list[int]] = field(default_factory=list)
    extra: list[list[int]] = field(default_factory=list)


def score_layout(
    label: dict[str, Any], layout: Layout, to_truth: list[int | None] | None = None, rack_layout: Layout | None = None
) -> PhotoScore:
    """Compare one layout with one photo's labels.

    ``to_truth`` maps each laid-out tile to its labelled tile (None: a detection matching no
    labelled tile); omitted, the layout's tiles are the labelled tiles. ``rack_layout`` is the
    layout of the same tiles with ``mode="rack"`` (the user says it is a rack), scored on rack photos.
    """
    n = len(layout.widths) if to_truth is None else len(to_truth)
    mapping = list(range(n)) if to_truth is None else to_truth

    def mapped(group: Iterable[int]) -> frozenset[int | None]:
        return frozenset(mapping[i] for i in group)

    truth = {frozenset(s) for s in label["sets"]}
    made = {mapped(s) for s in layout.sets}
    score = PhotoScore(true_sets=len(truth), exact_sets=len(truth & made), false_sets=len(made - truth))
    score.rack_called = bool(layout.rack_rows)
    score.missed = [sorted(s) for s in truth - made]
    if to_truth is not None:  # a missed set with a tile the detector found no box for
        found = set(mapping)
        score.unfound_sets = sum(1 for s in truth - made if not s <= found)
    score.extra = [sorted(i if i is not None else -1 for i in s) for s in made - truth]
    if label["rack"]:
        score.rack_photo = True
        want = {frozenset(r) for r in label["rack"]}
        got = {mapped(r) for r in layout.rack_rows}
        score.rack_exact = want == got
        if rack_layout is not None:
            score.rack_told_scored = True
            score.rack_told_exact = want == {mapped(r) for r in rack_layout.rack_rows}
    return score


@dataclass
class LayoutReport:
    """Totals per kind of photo."""

    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)

    def add(self, kind: str, name: str, score: PhotoScore) -> None:
        row = self.by_kind.setdefault(kind, {"photos": 0, "true_sets": 0, "exact_sets": 0, "false_sets": 0, "unfound_sets": 0,
                                             "rack_photos": 0, "racks_exact": 0, "racks_told": 0, "racks_exact_told": 0,
                                             "racks_called": 0})
        row["photos"] += 1
        row["true_sets"] += score.true_sets
        row["exact_sets"] += score.exact_sets
        row["false_sets"] += score.false_sets
        row["unfound_sets"] += score.unfound_sets
        row["rack_photos"] += int(score.rack_photo)
        row["racks_exact"] += int(score.rack_exact)
        row["racks_told"] += int(score.rack_told_scored)
        row["racks_exact_told"] += int(score.rack_told_exact)
        row["racks_called"] += int(score.rack_called)
        if score.missed or score.extra or (score.rack_photo and not score.rack_exact):
            self.failures.append({"photo": name, "kind": kind, "missed": score.missed, "extra": score.extra,
                                  "rack_exact": score.rack_exact if score.rack_photo else None})

    def totals(self) -> dict[str, Any]:
        keys = ("photos", "true_sets", "exact_sets", "false_sets", "unfound_sets", "rack_photos", "racks_exact", "racks_told",
                "racks_exact_told", "racks_called")
        total = {k: sum(r[k] for r in self.by_kind.values()) for k in keys}
        out: dict[str, Any] = {}
        for kind, row in list(self.by_kind.items()) + [("all", total)]:
            out[kind] = dict(row, exact_share=round(row["exact_sets"] / row["true_sets"], 4) if row["true_sets"] else None)
        if self.times_ms:
            out["median_layout_ms"] = round(float(np.median(self.times_ms)), 2)
        return out


def _axes_from_polygons(tiles: Iterable[Any]) -> np.ndarray:
    """Each labelled tile's long axis as a unit vector (its sign is unknown: only the axis counts)."""
    import cv2

    out = []
    for t in tiles:
        poly = np.asarray(t.polygon_xy, dtype=np.float32)
        if len(poly) < 3:
            out.append((np.nan, np.nan))
            continue
        corners = cv2.boxPoints(cv2.minAreaRect(poly))
        e1, e2 = corners[1] - corners[0], corners[2] - corners[1]
        long = e1 if np.linalg.norm(e1) >= np.linalg.norm(e2) else e2  # a tile's up runs along its long side
        long = long / max(float(np.linalg.norm(long)), 1e-9)
        out.append((float(long[0]), float(long[1])))
    return np.asarray(out, dtype=np.float64).reshape(-1, 2)


def matched_truth(found: np.ndarray, truth: np.ndarray) -> list[int | None]:
    """For each found box, the labelled box it matches (:func:`vision.boxes.match_boxes`, IoU >=
    0.5, best pairs first), or None."""
    out: list[int | None] = [None] * len(found)
    for f, t in match_boxes(found, truth, IOU_MATCH):
        out[f] = t
    return out


def evaluate(
    splits: Iterable[str] = ("valid", "test"),
    source: str = "truth",
    axes: bool = False,
    labels_path: Path = LABELS_PATH,
    models_dir: Path | None = None,
    read_report: LayoutReport | None = None,
) -> LayoutReport:
    """Score the layout on every labelled photo of ``splits`` (see the module doc). With the
    models' boxes, ``read_report`` (when given) gets the scores of the sets as read
    (:func:`vision.decode.build_reading`) from the same detections."""
    from datasets.real import load_split

    if source not in ("truth", "model"):
        raise ValueError(f'unknown source "{source}": choose truth or model')
    labels = load_set_labels(labels_path)
    reader = None
    if source == "model":
        from vision.pipeline import TableReader, load_reader  # lazy: needs the shipped models

        reader = TableReader(models_dir) if models_dir else load_reader()
    report = LayoutReport()
    for split in splits:
        for photo in load_split(split):
            label = labels.get(photo.image_path.name)
            if label is None:
                continue
            if label["n_tiles"] != len(photo.tiles):
                raise ValueError(f"{photo.image_path.name}: labels name {label['n_tiles']} tiles, the label file has {len(photo.tiles)}")
            truth_boxes = np.array([t.box_xyxy for t in photo.tiles], dtype=np.float64).reshape(-1, 4)
            import cv2

            image = cv2.imread(str(photo.image_path))  # a rack is called only where the photo shows one
            if reader is None:
                up = _axes_from_polygons(photo.tiles) if axes else None
                t0 = time.perf_counter()
                layout = group_sets(truth_boxes, up, image_bgr=image)
                report.times_ms.append((time.perf_counter() - t0) * 1000)
                rack = group_sets(truth_boxes, up, mode="rack", image_bgr=image) if label["rack"] else None
                score = score_layout(label, layout, rack_layout=rack)
            else:
                det = reader.detect(image)
                t0 = time.perf_counter()
                layout = group_sets(det.boxes_xyxy, det.up_xy, image_bgr=image)
                report.times_ms.append((time.perf_counter() - t0) * 1000)
                rack = group_sets(det.boxes_xyxy, det.up_xy, mode="rack", image_bgr=image) if label["rack"] else None
                to_truth = matched_truth(det.boxes_xyxy.astype(np.float64), truth_boxes)
                score = score_layout(label, layout, to_truth, rack)
                if read_report is not None:
                    read_layout, read_boxes = _read_layout(det, image)
                    read_report.add(label["kind"], photo.image_path.name,
                                    score_layout(label, read_layout, matched_truth(read_boxes, truth_boxes)))
            report.add(label["kind"], photo.image_path.name, score)
    return report


def _read_layout(det: Any, image: np.ndarray) -> tuple[Layout, np.ndarray]:
    """The sets, loose tiles and rack rows of :func:`vision.decode.build_reading` as a Layout, and
    the boxes its indices refer to (a rack's bar is left out of the reading's tiles)."""
    from vision.decode import build_reading

    reading = build_reading((image.shape[1], image.shape[0]), det, image_bgr=image)
    boxes = np.array([t.box_xyxy for t in reading.tiles], dtype=np.float64).reshape(-1, 4)
    return Layout(tuple(s.indices for s in reading.sets), reading.loose, reading.rack_rows), boxes


def scene_label(record: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray, np.ndarray, list[int]]:
    """A rendered scene's labels as :func:`score_layout` takes them, the label boxes (the
    detector's: the visible part of a tile partly hidden), the labelled up vectors, and which of
    the record's tiles they are. Tiles marked ``hidden`` (mostly behind a rack's front tier) are
    left out: neither to be found nor penalised, as for the detector."""
    from datasets.synth import PARTLY_HIDDEN_BELOW  # lazy: the renderer is evaluation's, not serving's

    keep = [i for i, t in enumerate(record["tiles"]) if not t.get("hidden")]
    tiles = [record["tiles"][i] for i in keep]
    boxes = np.array([t["visible_box"] if t.get("visible", 1.0) < PARTLY_HIDDEN_BELOW else t["box"] for t in tiles],
                     dtype=np.float64).reshape(-1, 4)
    sets: dict[int, list[int]] = {}
    rows: dict[tuple[int, int], list[int]] = {}
    for i, t in enumerate(tiles):
        if t["set"] is not None:
            sets.setdefault(t["set"], []).append(i)
        if t["rack"] is not None:
            rows.setdefault((t["rack"], t["rack_row"]), []).append(i)
    label = {"sets": [v for v in sets.values() if len(v) >= 2], "rack": list(rows.values())}
    a = np.radians([t["up_deg"] for t in tiles])
    up = np.stack([np.sin(a), -np.cos(a)], axis=1).reshape(-1, 2)
    return label, boxes, up, keep


def score_scene(image: np.ndarray, record: dict[str, Any], name: str, report: LayoutReport, axes: bool = False,
                reader: Any = None, read_report: LayoutReport | None = None) -> None:
    """Score one rendered scene into ``report`` (kind: the scene kind): the layout of its label
    boxes (with ``axes``, and the labelled up vectors), or with ``reader`` of the models'
    detections (matched to the label boxes by IoU >= 0.5) and, into ``read_report``, the sets as
    read. A scene without tiles is skipped."""
    label, boxes, up_true, _ = scene_label(record)
    if not len(boxes):
        return
    told = bool(label["rack"])  # a scene with a rack (and perhaps the table): also scored told it is a rack
    if reader is not None:
        det = reader.detect(image)
        found = det.boxes_xyxy.astype(np.float64)
        layout = group_sets(found, det.up_xy, image_bgr=image)
        rack = group_sets(found, det.up_xy, mode="rack", image_bgr=image) if told else None
        report.add(record["scene"], name, score_layout(label, layout, matched_truth(found, boxes), rack))
        if read_report is not None:
            read_layout, read_boxes = _read_layout(det, image)
            read_report.add(record["scene"], name, score_layout(label, read_layout, matched_truth(read_boxes, boxes)))
        return
    up = up_true if axes else None
    t0 = time.perf_counter()
    layout = group_sets(boxes, up, image_bgr=image)
    report.times_ms.append((time.perf_counter() - t0) * 1000)
    rack = group_sets(boxes, up, mode="rack", image_bgr=image) if told else None
    report.add(record["scene"], name, score_layout(label, layout, rack_layout=rack))


def evaluate_rendered(count: int = 60, seed: int = 0, axes: bool = False, reader: Any = None,
                      read_report: LayoutReport | None = None) -> LayoutReport:
    """Score the layout on scenes rendered by ``datasets.synth`` (exact set and rack membership;
    about 0.7 s a scene, 640 px). Kinds are the scene kinds: table, scatter, rack, mixed. With
    ``reader`` (a :class:`vision.pipeline.TableReader`) the layout is of its detections, and
    ``read_report`` (when given) gets the sets as read (:func:`score_scene`)."""
    from datasets.synth import render_scene

    report = LayoutReport()
    for k in range(count):
        image, record = render_scene(np.random.default_rng((seed, 11, k)), 640)
        score_scene(image, record, f"rendered {k}", report, axes, reader, read_report)
    return report


def evaluate_folder(folder: Path, axes: bool = False, reader: Any = None,
                    read_report: LayoutReport | None = None) -> LayoutReport:
    """Score the layout on scenes already rendered into ``folder`` by ``python -m datasets.synth
    --out FOLDER`` (every ``tiles/*.json`` under it, with its image), as :func:`score_scene`: a
    set of scenes of its own seed, kinds and size, rendered once and scored as often as needed."""
    import cv2

    records = sorted(Path(folder).glob("**/tiles/*.json"))
    if not records:
        raise FileNotFoundError(f"no rendered scenes (tiles/*.json) under {folder}")
    report = LayoutReport()
    for path in records:
        record = json.loads(path.read_text())
        image_path = path.parent.parent / "images" / (path.stem + ".jpg")
        image = cv2.imread(str(image_path))
        if image is None:
            raise FileNotFoundError(f"{path}: its image {image_path} is missing or unreadable")
        score_scene(image, record, f"{path.parent.parent.name}/{path.stem}", report, axes, reader, read_report)
    return report


def rack_order(folder: Path, source: str = "truth", models_dir: Path | None = None) -> dict[str, Any]:
    """Reading order of racks told as racks, on rendered scenes in ``folder`` (see the module doc).

    ``source``: "truth" (label boxes and the labelled faces' up vectors), "truth-no-up" (label
    boxes only) or "model" (the shipped models' detections, matched to labels by IoU >= 0.5; a
    label tile not found is out of place).
    """
    import cv2

    if source not in ("truth", "truth-no-up", "model"):
        raise ValueError(f'unknown source "{source}": choose truth, truth-no-up or model')
    records = sorted(Path(folder).glob("**/tiles/*.json"))
    if not records:
        raise FileNotFoundError(f"no rendered scenes (tiles/*.json) under {folder}")
    reader = None
    if source == "model":
        from vision.pipeline import TableReader, load_reader

        reader = TableReader(models_dir) if models_dir else load_reader()
    racks = exact = tiles = placed = missing = rows_right = 0
    for path in records:
        record = json.loads(path.read_text())
        if record.get("scene") != "rack" or not record["tiles"]:
            continue
        labelled = record["tiles"]
        # Reading order as labelled: tiers top (back) first, slots left to right.
        want = sorted((t["rack_row"], t["rack_slot"], i) for i, t in enumerate(labelled) if t["rack"] is not None)
        want_rows: dict[int, list[int]] = {}
        for row, _slot, i in want:
            want_rows.setdefault(row, []).append(i)
        truth_boxes = np.array([t["box"] for t in labelled], dtype=np.float64)
        image = cv2.imread(str(path.parent.parent / "images" / (path.stem + ".jpg")))
        if reader is None:
            boxes = truth_boxes
            a = np.radians([t["up_deg"] for t in labelled])
            up = np.stack([np.sin(a), -np.cos(a)], axis=1) if source == "truth" else None
            mapping: list[int | None] = list(range(len(labelled)))
        else:
            det = reader.detect(image)
            boxes, up = det.boxes_xyxy.astype(np.float64), det.up_xy.astype(np.float64)
            mapping = matched_truth(boxes, truth_boxes)
        layout = group_sets(boxes, up, mode="rack", image_bgr=image)
        got_rows = [[mapping[i] for i in row] for row in layout.rack_rows]
        racks += 1
        exact += int(got_rows == list(want_rows.values()))
        # Order among the rack tiles found (a tile not found is the detector's miss, not the order's).
        order_got = [i for row in got_rows for i in row if i is not None and labelled[i]["rack"] is not None]
        found = set(order_got)
        order_want = [i for row in want_rows.values() for i in row if i in found]
        tiles += len(order_want)
        missing += sum(len(r) for r in want_rows.values()) - len(order_want)
        placed += sum(1 for a, b in zip(order_got, order_want) if a == b)
        # Rows of detections matching no labelled rack tile (background tiles, false detections)
        # are left out: they are the detector's, not the order's.
        rows_right += int([[i for i in r if i in found] for r in want_rows.values()]
                          == [[i for i in r if i in found] for r in got_rows if any(i in found for i in r)])
    return {"racks": racks, "exact": exact, "exact_share": round(exact / racks, 4) if racks else None,
            "order_of_found_right": rows_right, "tiles_found": tiles, "not_found": missing, "in_place": placed,
            "in_place_share": round(placed / tiles, 4) if tiles else None}


def _print(report: LayoutReport, title: str, show_failures: bool) -> None:
    totals = report.totals()
    print(title)
    print(f"{'kind':8} {'photos':>6} {'sets':>5} {'exact':>6} {'share':>6} {'false':>6} {'unfound':>7} {'racks':>6} {'told':>6} {'called':>6}")
    for kind in list(KINDS) + ["scatter", "mixed", "all"]:
        row = totals.get(kind)
        if not row:
            continue
        share = f"{row['exact_share']:.1%}" if row["exact_share"] is not None else "-"
        racks = f"{row['racks_exact']}/{row['rack_photos']}" if row["rack_photos"] else "-"
        told = f"{row['racks_exact_told']}/{row['racks_told']}" if row["racks_told"] else "-"
        print(f"{kind:8} {row['photos']:>6} {row['true_sets']:>5} {row['exact_sets']:>6} {share:>6} {row['false_sets']:>6} {row['unfound_sets']:>7} "
              f"{racks:>6} {told:>6} {row['racks_called']:>6}")
    if "median_layout_ms" in totals:
        print(f"median layout time {totals['median_layout_ms']} ms per photo")
    if show_failures:
        for f in report.failures:
            print(f"  {f['photo'][:40]} ({f['kind']}): missed {f['missed']} extra {f['extra']}"
                  + ("" if f["rack_exact"] is None else f" rack {'ok' if f['rack_exact'] else 'wrong'}"))



def _score_runs(title: str, score: Any, key_suffix: str, shown: str, reader: Any, args: argparse.Namespace,
                results: dict[str, Any]) -> None:
    """Rendered scenes scored with the label boxes (and, with ``--axes``, their up vectors) and,
    given ``reader``, with the models' detections and the sets as read; into ``results`` and,
    unless ``--json``, printed. ``score(axes, reader, read_report)`` gives a report."""
    runs: list[tuple[str, bool, Any]] = [(title, False, None)] + ([(f"{title} + tile axes", True, None)] if args.axes else [])
    if reader is not None:
        runs.append((f"{title}, model boxes", False, reader))
    for name, axes, rd in runs:
        read = LayoutReport() if rd is not None else None
        report = score(axes, rd, read)
        for key, rep in ((name, report), (f"{name}, read", read)):
            if rep is None:
                continue
            results[key + key_suffix] = rep.totals()
            if not args.json:
                _print(rep, f"{key} ({shown}):", args.failures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.layout", description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", nargs="+", default=["valid", "test"], choices=["train", "valid", "test"])
    parser.add_argument("--model", nargs="?", const="", default=None, metavar="MODELS_DIR",
                        help="also lay out the shipped models' detections (optionally from another models folder)")
    parser.add_argument("--axes", action="store_true", help="with label boxes, also give each tile's axis as the up vector")
    parser.add_argument("--labels", type=Path, default=LABELS_PATH)
    parser.add_argument("--rendered", type=int, default=0, metavar="N",
                        help="also score N scenes rendered by datasets.synth (about 0.7 s each; with --model "
                             "also the models' detections and the sets as read)")
    parser.add_argument("--scenes", type=Path, metavar="DIR",
                        help="also score the scenes rendered into DIR by python -m datasets.synth --out DIR "
                             "(with --model also the models' detections and the sets as read)")
    parser.add_argument("--rack-order", type=Path, metavar="DIR",
                        help="also score the reading order of racks on scenes rendered into DIR by datasets.synth")
    parser.add_argument("--failures", action="store_true", help="list every photo with a missed or extra set")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)

    results: dict[str, Any] = {}
    runs = [("truth boxes", "truth", False)]
    if args.axes:
        runs.append(("truth boxes + tile axes", "truth", True))
    if args.model is not None:
        runs.append(("model boxes", "model", False))
    for title, source, axes in runs:
        read = LayoutReport() if source == "model" else None
        try:
            report = evaluate(args.splits, source, axes, args.labels, Path(args.model) if args.model else None, read)
        except FileNotFoundError as exc:  # models or data missing: say which
            print(f"error: {exc}", file=sys.stderr)
            return 3
        results[title] = report.totals()
        if not args.json:
            _print(report, f"{title} ({', '.join(args.splits)}):", args.failures)
        if read is not None:
            results["model boxes, read"] = read.totals()
            if not args.json:
                _print(read, f"model boxes, read: the sets as the page shows them ({', '.join(args.splits)}):", args.failures)
    reader = None
    if args.model is not None and (args.rendered or args.scenes):
        from vision.pipeline import TableReader, load_reader

        reader = TableReader(Path(args.model)) if args.model else load_reader()
    if args.rendered:
        _score_runs("rendered scenes", lambda axes, rd, read: evaluate_rendered(args.rendered, axes=axes, reader=rd, read_report=read),
                    "", str(args.rendered), reader, args, results)
    if args.scenes:
        try:
            _score_runs("scenes", lambda axes, rd, read: evaluate_folder(args.scenes, axes, rd, read),
                        f" ({args.scenes})", str(args.scenes), reader, args, results)
        except FileNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 3
    if args.rack_order:
        for source in ("truth", "truth-no-up") + (("model",) if args.model is not None else ()):
            try:
                order = rack_order(args.rack_order, source, Path(args.model) if args.model else None)
            except FileNotFoundError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 3
            results[f"rack order ({source})"] = order
            if not args.json:
                print(f"rack reading order ({source}, told): {order['exact']}/{order['racks']} racks exact; "
                      f"tiers and order of the tiles found right on {order['order_of_found_right']}/{order['racks']}; "
                      f"{order['in_place']}/{order['tiles_found']} tiles found in place ({order['not_found']} not found)")
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
