"""Choose the detection thresholds on validation photos only: ``python -m vision.evaluate.tune FOLDER [FOLDER ...]``.

Every setting of :class:`vision.detect.DetectorSettings` that decides which boxes become tiles -
the detector's ``min_score``, the straddling-box filter ``max_covered``, the recogniser's second
opinion ``ocr_below``, the reader's confirmation of low-scoring boxes ``confirm_below`` /
``confirm_read``, the reading every box needs ``min_read`` and a joker needs ``joker_read``, the
finer second search of far shots ``ninths_below``, the second search of a close-up with far tiles
``small_hints`` / ``hint_score``, the windows it searches ``window_score``, the look along the
lines of tiles ``line_none``, the further readings of doubtful tiles ``wider_below`` / ``wider_turns`` - is tried
on the given labelled folders (the real ``valid`` split and the rendered ``val`` scenes; never a
test split), and the mean tile F1 over the folders is reported for each. The defaults in
``vision/detect.py`` are the best row (models/README.md keeps the table).

The networks run once per photo and setting that changes what they see (the detector's boxes for
``min_score``/``max_covered``/``confirm_below``/``ninths_below``/``small_hints``, the readings for ``ocr_below``, ``wider_below`` and ``wider_turns``); the thresholds on
readings are then tried on the remembered outputs, so a grid of them costs little more than one run.
"""

from __future__ import annotations

import argparse
import hashlib
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
    p.add_argument("--joker-read", default="0", help="reader certainty a box read as a joker needs, to try (0: off)")
    p.add_argument("--ninths-below", default=None,
                   help="tile sizes under which far shots are searched in 3 x 3 windows, to try (0: off; default: the setting's default)")
    p.add_argument("--quarters-below", default=None,
                   help="tile sizes under which a photo is searched again in quarters, to try (0: off; default: the setting's default)")
    p.add_argument("--small-hints", default="0",
                   help="faint small boxes that make a close-up searched again in windows, to try (0: off)")
    p.add_argument("--hint-score", default=None,
                   help="least detector score of such a faint box, to try (default: the setting's default)")
    p.add_argument("--window-score", default=None,
                   help="least detector score of an unsure small box that makes its window searched again, to try "
                        "(0: every window; default: the setting's default)")
    p.add_argument("--line-none", default=None,
                   help="most P(not a tile) of a tile seen where a line says the next tile lies, to try "
                        "(0: no look along the lines; default: the setting's default)")
    p.add_argument("--wider-below", default=None,
                   help="reading certainty under which a tile is read again from a wider window, to try "
                        "(0: off; default: the setting's default)")
    p.add_argument("--wider-turns", default=None,
                   help="quarter turns a doubtful tile's own crop is read in, to try "
                        "(1: as it is; default: the setting's default)")
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
    _remember_network_outputs(reader.model)
    grid = itertools.product(*(map(float, v.split(",")) for v in (args.min_score, args.max_covered, args.ocr_below,
                                                                   args.confirm_below, args.confirm_read, args.min_read,
                                                                   args.joker_read,
                                                                   args.ninths_below or str(DetectorSettings().ninths_below),
                                                                   args.quarters_below or str(DetectorSettings().quarters_below),
                                                                   args.small_hints, args.hint_score or str(DetectorSettings().hint_score),
                                                                   args.window_score or str(DetectorSettings().window_score),
                                                                   args.line_none or str(DetectorSettings().line_none),
                                                                   args.wider_below or str(DetectorSettings().wider_below),
                                                                   args.wider_turns or str(DetectorSettings().wider_turns))))
    rows = []
    for min_score, max_covered, ocr_below, confirm_below, confirm_read, min_read, joker_read, ninths_below, quarters_below, hints, hint_score, window_score, line_none, wider_below, wider_turns in grid:
        if confirm_below == 0 and confirm_read != float(args.confirm_read.split(",")[0]):
            continue  # confirm_read means nothing while confirming is off
        reader.model.settings = replace(DetectorSettings(), min_score=min_score, max_covered=max_covered, ocr_below=ocr_below,
                                        confirm_below=confirm_below, confirm_read=confirm_read, min_read=min_read,
                                        joker_read=joker_read, ninths_below=ninths_below, quarters_below=quarters_below,
                                        small_hints=int(hints),
                                        hint_score=hint_score, window_score=window_score, line_none=line_none,
                                        wider_below=wider_below, wider_turns=int(wider_turns))
        f1 = {f"{f.parent.name}/{f.name}": evaluate(f, reader, limit=args.limit, progress=False).to_dict()["tile_f1"]
              for f in args.folders}
        row = {"min_score": min_score, "max_covered": max_covered, "ocr_below": ocr_below,
               "confirm_below": confirm_below, "confirm_read": confirm_read, "min_read": min_read, "joker_read": joker_read,
               "ninths_below": ninths_below, "quarters_below": quarters_below, "small_hints": int(hints), "hint_score": hint_score,
               "window_score": window_score, "line_none": line_none, "wider_below": wider_below, "wider_turns": int(wider_turns), "mean_f1": round(sum(f1.values()) / len(f1), 4), **f1}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    best = max(rows, key=lambda r: r["mean_f1"])  # the first of equals: the grid's order breaks ties
    print(json.dumps({"best": best, "rows": rows}, indent=1))
    return 0



def _remember_network_outputs(model) -> None:  # noqa: ANN001 - a vision.detect.TileModel
    """Make ``model`` remember its boxes and readings per photo and the settings they depend on,
    so that trying another threshold on readings does not run the networks again."""
    find_boxes, read_boxes = model.find_boxes, model.read_boxes
    boxes_seen: dict[tuple, tuple] = {}
    readings_seen: dict[tuple, tuple] = {}

    def key(image) -> str:  # noqa: ANN001
        return hashlib.blake2b(image.tobytes(), digest_size=16).hexdigest() + str(image.shape)

    def remembered_boxes(image):  # noqa: ANN001, ANN202
        st = model.settings
        k = (key(image), st.min_score, st.max_covered, st.confirm_below, st.quarters_below, st.ninths_below, st.nms_iou,
             st.small_hints, st.hint_score, st.window_score)
        if k not in boxes_seen:
            boxes_seen[k] = find_boxes(image)
        return boxes_seen[k]

    def remembered_readings(image, boxes, profile=None):  # noqa: ANN001, ANN202
        if profile is not None:
            return read_boxes(image, boxes, profile)
        k = (key(image), boxes.tobytes(), model.settings.ocr_below, model.settings.wider_below, model.settings.wider_turns)
        if k not in readings_seen:
            readings_seen[k] = read_boxes(image, boxes)
        return readings_seen[k]

    model.find_boxes, model.read_boxes = remembered_boxes, remembered_readings


if __name__ == "__main__":
    raise SystemExit(main())
