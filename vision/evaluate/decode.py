"""How often rule-aware decoding fixes a misread tile, and how often it spoils a right one:
``python -m vision.evaluate.decode``.

The reader's probabilities are simulated with a seeded model of its typical confusions (6/9, 1/7,
3/8, 12/13, 10/11, orange/red, black/blue; see :func:`simulate_probs`), on tiles whose truth is
known: the labelled real photos (``--source real``: true boxes, the tiles of
``datasets/labels/sets_real.json``) or scenes rendered by ``datasets.synth`` (``--source
rendered``, with the scenes' true up vectors, as the reader's orientation head gives them). Each
photo then goes through :func:`vision.decode.build_reading` and every tile's
final reading is compared with the reader's first choice and with the truth.

Reported, split by the reader's confidence (``CONFIDENT`` and above, or below):
* fixed: the reader's first choice was wrong, the decoded reading is right;
* spoiled: the reader's first choice was right, the decoded reading is wrong;
* still wrong / still right: unchanged outcome.
With ``--model`` the shipped models read the labelled real photos instead (no simulation).

A confident tile must never change: ``confident changed`` is expected to be 0. Per set (as laid
out): how many sets legal in truth are read legal, by the reader alone and after decoding, and how
many sets illegal in truth (pairs being built, real mistakes) are read legal.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee.ruleset import RuleSet
from referee.tiles import Tile
from vision.decode import CONFIDENT, build_reading
from vision.detections import N_CODES, TileDetections

__all__ = ["NoiseModel", "simulate_probs", "DecodeReport", "evaluate", "evaluate_model", "main", "CONFUSIONS"]

# Digits the reader mixes up (same colour), and colours it mixes up (same number).
_DIGITS = {6: (9, 8, 5), 9: (6, 8), 1: (7, 11), 7: (1,), 3: (8, 5), 8: (3, 6, 9), 5: (6, 3), 12: (13, 2),
           13: (12, 3), 10: (11, 1), 11: (10, 1), 2: (12, 7), 4: (1,)}
_COLOURS = {0: (1,), 1: (0,), 2: (3,), 3: (2,)}  # K<->B, O<->R (index order K, B, O, R)
CONFUSIONS = {"digits": _DIGITS, "colours": _COLOURS}
"""The confusion pairs the simulation draws from."""


@dataclass(frozen=True)
class NoiseModel:
    """Shares of tiles in each reader state (the rest are read right and confidently)."""

    uncertain_right: float = 0.10
    """Right first choice with probability 0.45-0.85; a confusion partner second."""
    uncertain_wrong: float = 0.10
    """A confusion partner first (0.45-0.8); the truth second."""
    confident_wrong: float = 0.02
    """A confusion partner first with 0.9-0.97: the rules must NOT fix these."""
    colour_share: float = 0.35
    """Share of confusions that are about colour rather than digit."""


def _partner(code: int, rng: np.random.Generator, model: NoiseModel) -> int:
    if code == 52:  # a joker is only confused with a random tile
        return int(rng.integers(0, 52))
    colour, number = divmod(code, 13)
    number += 1
    if rng.random() < model.colour_share or number not in _DIGITS:
        colour = int(rng.choice(_COLOURS[colour]))
    else:
        number = int(rng.choice(_DIGITS[number]))
    return colour * 13 + number - 1


def simulate_probs(truth: list[Tile], rng: np.random.Generator, model: NoiseModel = NoiseModel()) -> np.ndarray:
    """(N, 53) reader probabilities for tiles whose truth is ``truth``, with seeded confusions."""
    out = np.zeros((len(truth), N_CODES))
    for i, tile in enumerate(truth):
        true = tile.index
        other = _partner(true, rng, model)
        r = rng.random()
        row = np.full(N_CODES, 0.0)
        if r < model.confident_wrong:
            p_other = rng.uniform(0.9, 0.97)
            row[other], row[true] = p_other, (1 - p_other) * 0.8
        elif r < model.confident_wrong + model.uncertain_wrong:
            p_other = rng.uniform(0.45, 0.8)
            row[other], row[true] = p_other, (1 - p_other) * rng.uniform(0.5, 0.95)
        elif r < model.confident_wrong + model.uncertain_wrong + model.uncertain_right:
            p_true = rng.uniform(0.45, 0.85)
            row[true], row[other] = p_true, (1 - p_true) * rng.uniform(0.5, 0.95)
        else:
            p_true = rng.uniform(0.9, 0.999)
            row[true], row[other] = p_true, (1 - p_true) * rng.uniform(0.3, 0.9)
        rest = 1.0 - row.sum()
        spread = rng.dirichlet(np.ones(N_CODES)) * rest
        out[i] = row + spread
    return out


@dataclass
class DecodeReport:
    """Counts of tiles by the reader's confidence and what decoding did to them."""

    counts: dict[str, dict[str, int]] = field(default_factory=lambda: {
        band: {"tiles": 0, "fixed": 0, "spoiled": 0, "still_wrong": 0, "still_right": 0, "changed": 0}
        for band in ("confident", "uncertain")})
    sets: dict[str, int] = field(default_factory=lambda: {
        "legal": 0, "legal_read_legal_by_reader": 0, "legal_read_legal": 0,
        "illegal": 0, "illegal_read_legal_by_reader": 0, "illegal_read_legal": 0})
    photos: int = 0
    times_ms: list[float] = field(default_factory=list)

    def add(self, reader_first: int, decoded: int, truth: int, confident: bool) -> None:
        row = self.counts["confident" if confident else "uncertain"]
        row["tiles"] += 1
        row["changed"] += int(decoded != reader_first)
        first_right, final_right = reader_first == truth, decoded == truth
        key = ("still_right" if final_right else "spoiled") if first_right else ("fixed" if final_right else "still_wrong")
        row[key] += 1

    def add_set(self, truth: list[Tile], reader_first: list[Tile], decoded_valid: bool) -> None:
        """One set as laid out: legal in truth or not, read legal by the reader alone, after decoding."""
        from referee.sets import check_set

        kind = "legal" if check_set(tuple(truth)).valid else "illegal"
        self.sets[kind] += 1
        self.sets[f"{kind}_read_legal_by_reader"] += int(check_set(tuple(reader_first)).valid)
        self.sets[f"{kind}_read_legal"] += int(decoded_valid)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"photos": self.photos, **self.counts, "sets": dict(self.sets)}
        if self.times_ms:
            out["median_build_reading_ms"] = round(float(np.median(self.times_ms)), 2)
            out["max_build_reading_ms"] = round(float(np.max(self.times_ms)), 2)
        return out


Photo = tuple[tuple[int, int], np.ndarray, list[Tile], "np.ndarray | None"]
"""Image size, true boxes, true tiles, up vectors (None when unknown)."""


def _real_photos(splits: list[str]) -> Iterator[Photo]:
    from datasets.real import load_split
    from vision.evaluate.layout import load_set_labels

    labels = load_set_labels()
    for split in splits:
        for photo in load_split(split):
            label = labels.get(photo.image_path.name)
            if label is None or not label["sets"] or len(photo.tiles) != label["n_tiles"]:
                continue  # only photos with tiles lying in sets say something about set decoding
            boxes = np.array([t.box_xyxy for t in photo.tiles], dtype=np.float64)
            yield (photo.width, photo.height), boxes, [t.tile for t in photo.tiles], None


def _rendered_photos(count: int, seed: int) -> Iterator[Photo]:
    from datasets.synth import render_scene
    from referee.tiles import parse_tile

    for k in range(count):
        _, record = render_scene(np.random.default_rng((seed, 7, k)), 640)
        tiles = [t for t in record["tiles"] if not t["truncated"]]
        if not tiles:
            continue
        boxes = np.array([t["box"] for t in tiles], dtype=np.float64)
        a = np.radians([t["up_deg"] for t in tiles])  # what the reader's orientation head gives
        up = np.stack([np.sin(a), -np.cos(a)], axis=1)
        yield (record["width"], record["height"]), boxes, [parse_tile(t["code"]) for t in tiles], up


def evaluate(source: str = "real", splits: tuple[str, ...] = ("valid", "test", "train"), rendered: int = 100,
             seed: int = 0, rules: RuleSet = RuleSet.classic(), model: NoiseModel = NoiseModel(), repeats: int = 1) -> DecodeReport:
    """Simulate the reader on every photo of ``source`` ``repeats`` times and decode (module doc)."""
    import time

    if source not in ("real", "rendered"):
        raise ValueError(f'unknown source "{source}": choose real or rendered')
    photos = list(_real_photos(list(splits)) if source == "real" else _rendered_photos(rendered, seed))
    rng = np.random.default_rng(seed)
    report = DecodeReport()
    for _ in range(repeats):
        for size, boxes, truth, up in photos:
            probs = simulate_probs(truth, rng, model)
            det = TileDetections(boxes, np.ones(len(truth)), probs, up)
            t0 = time.perf_counter()
            reading = build_reading(size, det, rules)
            report.times_ms.append((time.perf_counter() - t0) * 1000)
            report.photos += 1
            for i, t in enumerate(reading.tiles):
                first = int(probs[i].argmax())
                decoded = t.tile.index if t.tile is not None else -1
                report.add(first, decoded, truth[i].index, bool(probs[i, first] / probs[i].sum() >= CONFIDENT))
            for read_set in reading.sets:
                idx = list(read_set.indices)
                report.add_set([truth[i] for i in idx], [Tile.from_index(int(probs[i].argmax())) for i in idx], read_set.valid)
    return report


def evaluate_model(splits: tuple[str, ...] = ("valid", "test"), rules: RuleSet = RuleSet.classic(),
                   models_dir: str | None = None) -> DecodeReport:
    """The same counts with the shipped models on the labelled real photos (no simulation): the
    reader's first choice of each detected tile against the decoded reading and the label."""
    import cv2

    from datasets.real import load_split
    from referee.tiles import parse_tile
    from vision.evaluate.layout import load_set_labels, matched_truth
    from vision.pipeline import TableReader, load_reader

    reader = TableReader(models_dir) if models_dir else load_reader()
    labels = load_set_labels()
    report = DecodeReport()
    for split in splits:
        for photo in load_split(split):
            if photo.image_path.name not in labels or not photo.tiles:
                continue
            reading = reader.read_table(cv2.imread(str(photo.image_path)), rules)
            report.photos += 1
            report.times_ms.append(float(reading.timing_ms.get("layout", 0.0)))
            boxes = np.array([t.box_xyxy for t in reading.tiles], dtype=np.float64).reshape(-1, 4)
            truth_boxes = np.array([t.box_xyxy for t in photo.tiles], dtype=np.float64)
            to_truth = matched_truth(boxes, truth_boxes)
            for i, t in enumerate(reading.tiles):
                if to_truth[i] is None or not t.alternatives or t.tile is None:
                    continue
                first_code, first_p = t.alternatives[0]
                truth = photo.tiles[to_truth[i]].tile
                report.add(parse_tile(first_code).index, t.tile.index, truth.index, first_p >= CONFIDENT)
            for read_set in reading.sets:
                idx = list(read_set.indices)
                if any(to_truth[i] is None or reading.tiles[i].tile is None for i in idx):
                    continue
                report.add_set([photo.tiles[to_truth[i]].tile for i in idx],  # type: ignore[index]
                               [parse_tile(reading.tiles[i].alternatives[0][0]) for i in idx], read_set.valid)
    return report


def _print(report: DecodeReport, title: str) -> None:
    print(title)
    print(f"{'reader':10} {'tiles':>6} {'fixed':>6} {'spoiled':>8} {'still wrong':>12} {'still right':>12} {'changed':>8}")
    for band, row in report.counts.items():
        print(f"{band:10} {row['tiles']:>6} {row['fixed']:>6} {row['spoiled']:>8} {row['still_wrong']:>12} "
              f"{row['still_right']:>12} {row['changed']:>8}")
    d = report.to_dict()
    sets = d["sets"]
    print(f"sets legal in truth: {sets['legal']}, read legal by the reader alone {sets['legal_read_legal_by_reader']}, "
          f"after decoding {sets['legal_read_legal']}")
    print(f"sets illegal in truth: {sets['illegal']}, read legal by the reader alone {sets['illegal_read_legal_by_reader']}, "
          f"after decoding {sets['illegal_read_legal']}")
    if "median_build_reading_ms" in d:
        print(f"build_reading: median {d['median_build_reading_ms']} ms, max {d['max_build_reading_ms']} ms per photo")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.decode", description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", choices=["real", "rendered", "both"], default="real")
    parser.add_argument("--splits", nargs="+", default=["valid", "test", "train"], choices=["train", "valid", "test"])
    parser.add_argument("--rendered", type=int, default=100, help="rendered scenes (about 0.7 s each)")
    parser.add_argument("--repeats", type=int, default=5, help="simulated readings per photo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--model", nargs="?", const="", default=None, metavar="MODELS_DIR",
                        help="instead of simulating, read the labelled real photos with the shipped models")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rules = RuleSet.preset(args.rules)
    results = {}
    if args.model is not None:
        try:
            report = evaluate_model(tuple(args.splits), rules, args.model or None)
        except FileNotFoundError as exc:  # models or photos missing: say which
            print(f"error: {exc}", file=sys.stderr)
            return 3
        if args.json:
            print(json.dumps({"model": report.to_dict()}))
        else:
            _print(report, f"shipped models on real photos ({', '.join(args.splits)}, rules {rules.name}):")
        return 0
    for source in (["real", "rendered"] if args.source == "both" else [args.source]):
        try:
            report = evaluate(source, tuple(args.splits), args.rendered, args.seed, rules, repeats=args.repeats)
        except FileNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 3
        results[source] = report.to_dict()
        if not args.json:
            _print(report, f"{source} ({report.photos} simulated readings, rules {rules.name}):")
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
