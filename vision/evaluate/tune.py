"""Choose the detection thresholds on validation photos only: ``python -m vision.evaluate.tune FOLDER [FOLDER ...]``.

Every setting of :class:`vision.detect.DetectorSettings` that decides which boxes become tiles -
the detector's ``min_score``, the straddling-box filter ``max_covered``, the recogniser's second
opinion ``ocr_below``, the reader's confirmation of low-scoring boxes ``confirm_below`` /
``confirm_read`` and the reading every box needs ``min_read`` - is tried on the given labelled folders (the real ``valid`` split and the
rendered ``val`` scenes; never a test split), and the mean tile F1 over the folders is reported
for each. The defaults in ``vision/detect.py`` are the best row (models/README.md keeps the table).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.evaluate.tune", description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+", type=Path, help="labelled validation folders")
    p.add_argument("--min-score", default="0.35,0.5,0.6", help="detector thresholds to try")
    p.add_argument("--max-covered", default="0.7,0.85", help="straddling-box filter values to try")
    p.add_argument("--ocr-below", default="0", help="second-opinion thresholds to try (0: off)")
    p.add_argument("--confirm-below", default="0", help="lowest detector scores of boxes the reader must confirm, to try (0: off)")
    p.add_argument("--confirm-read", default="0.9", help="reader certainty such a box needs, to try")
    p.add_argument("--min-read", default="0", help="reader certainty every box needs, to try (0: off)")
    p.add_argument("--limit", type=int, default=None, help="at most this many photos per folder")
    p.add_argument("--models", type=Path, default=None)
    args = p.parse_args(argv)
    for folder in args.folders:
        if "test" in folder.name:
            p.error(f"{folder} looks like a test split: thresholds are chosen on validation data only")
    from vision.detect import MODELS_DIR, DetectorSettings
    from vision.evaluate.tiles import evaluate
    from vision.pipeline import TableReader

    reader = TableReader(args.models or MODELS_DIR)
    grid = itertools.product(*(map(float, v.split(",")) for v in (args.min_score, args.max_covered, args.ocr_below,
                                                                   args.confirm_below, args.confirm_read, args.min_read)))
    rows = []
    for min_score, max_covered, ocr_below, confirm_below, confirm_read, min_read in grid:
        if confirm_below == 0 and confirm_read != float(args.confirm_read.split(",")[0]):
            continue  # confirm_read means nothing while confirming is off
        reader.model.settings = replace(DetectorSettings(), min_score=min_score, max_covered=max_covered, ocr_below=ocr_below,
                                        confirm_below=confirm_below, confirm_read=confirm_read, min_read=min_read)
        f1 = {f"{f.parent.name}/{f.name}": evaluate(f, reader, limit=args.limit, progress=False).to_dict()["tile_f1"]
              for f in args.folders}
        row = {"min_score": min_score, "max_covered": max_covered, "ocr_below": ocr_below,
               "confirm_below": confirm_below, "confirm_read": confirm_read, "min_read": min_read,
               "mean_f1": round(sum(f1.values()) / len(f1), 4), **f1}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    best = max(rows, key=lambda r: r["mean_f1"])
    print(json.dumps({"best": best, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
