"""Does teaching help, and never hurt? ``python -m vision.evaluate.teach [--photos 16] [--json]``.

For every font family held out of training (``datasets.fonts.HELD_OUT``), one edition look is
drawn in that family; two rendered teaching photos of it (``datasets.teach_scenes``: 1-13 of each
colour and the jokers, in rows) are taught with :func:`vision.teach.teach`, then other rendered
photos of the same look (racks, tables, mixed scenes) are read with and without the profile. The
figures per family: tile F1 without and with the profile, and the seconds teaching took per photo.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

SCENES = {"rack": 0.55, "mixed": 0.2, "table": 0.25}


def _f1(reader, images: list[tuple[np.ndarray, dict]]) -> dict:
    """Tile F1 of ``reader`` on rendered (image, record) pairs, scored as ``vision.evaluate`` scores."""
    from vision.evaluate.tiles import Report, labelled_from_record, reading_mode, score_reading

    total = Report()
    for image, record in images:
        item = labelled_from_record(record, Path("rendered.jpg"))
        score_reading(reader.read_table(image, mode=reading_mode(item, "auto")), item, total)
    return total.to_dict()


def run(photos: int = 16, seed: int = 0, models: Path | None = None) -> dict:
    from datasets import fonts
    from datasets.render_tiles import EDITION_WEIGHTS, sample_style
    from datasets.synth import choose_weighted, render_scene
    from datasets.teach_scenes import FULL_SET_ROWS, render_layout
    from vision.pipeline import load_reader
    from vision.profile import ProfileError
    from vision.teach import teach

    reader = load_reader(models)
    out: dict = {}
    for k, family in enumerate(f for f in fonts.HELD_OUT if f in fonts.available()):
        rng = np.random.default_rng([seed, k])
        style = sample_style(choose_weighted(rng, {e: w for e, w in EDITION_WEIGHTS.items() if e != "hershey"}), rng, [family])
        profile = None
        refused = []
        with tempfile.TemporaryDirectory() as tmp:
            seconds = []
            for n in range(2):
                img, _ = render_layout(rng, FULL_SET_ROWS, style)
                ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
                t0 = time.perf_counter()
                try:
                    profile, result = teach(data.tobytes(), " | ".join(" ".join(r) for r in FULL_SET_ROWS), tmp, reader, seed=n)
                except ProfileError as exc:  # a player would see this sentence: counted, not hidden
                    refused.append(str(exc))
                seconds.append(time.perf_counter() - t0)
            scenes = [render_scene(rng, 1024, None, SCENES, style) for _ in range(photos)]
        without = _f1(reader, scenes)
        with_profile = _f1(reader.with_profile(profile), scenes) if profile is not None else without
        out[family] = {"edition": style.edition, "photos": photos, "tiles": without["labelled_tiles"],
                       "f1_without": without["tile_f1"], "f1_with_profile": with_profile["tile_f1"],
                       "perfect_without": without["photos_without_error"], "perfect_with": with_profile["photos_without_error"],
                       # what a profile can change (the reading of found tiles) and what it cannot (finding them)
                       "read_without": without["read_accuracy"], "read_with": with_profile["read_accuracy"],
                       "detection_recall": without["detection_recall"], "detection_precision": without["detection_precision"],
                       "teach_seconds": [round(s, 2) for s in seconds], "check": profile.check if profile else None,
                       "teaching_refused": refused}
        print(f"{family:15} ({style.edition}): F1 {without['tile_f1']:.4f} -> {with_profile['tile_f1']:.4f} with the profile "
              f"(tiles found read right {without['read_accuracy']:.3f} -> {with_profile['read_accuracy']:.3f}; "
              f"detection recall {without['detection_recall']:.3f}, precision {without['detection_precision']:.3f}) "
              f"({photos} photos, {without['labelled_tiles']} tiles); teaching {', '.join(f'{s:.1f}' for s in seconds)} s"
              + (f"; refused: {'; '.join(refused)}" if refused else ""),
              file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.evaluate.teach", description=__doc__.split("\n\n")[0])
    p.add_argument("--photos", type=int, default=16, help="rendered photos read per family (default 16)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--models", type=Path, default=None, help="folder of the models (default models/)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results = run(args.photos, args.seed, args.models)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
