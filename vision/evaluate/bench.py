"""Speed of reading a photo, from the JPEG's bytes: ``python -m vision.evaluate.bench [--json]``.

The inputs are phone-sized JPEGs (12 megapixels, 4000x3000 or 4624x3468) made on the fly: every
real photo of the real set's test split upscaled (tables), and rendered rack close-ups of the rack test
split (``datasets.synth``, when rendered under ``data/``). Each input is timed ONCE, in a process
warmed on another photo (a repeat of the same input would measure caches), and each against a
baseline measured on the same input in the same run, interleaved (these machines are noisy):

* ours: :meth:`vision.pipeline.TableReader.read_photo` on the bytes: decoding (straight at the size
  reading needs), finding and reading every tile, laying out the sets and checking them;
* baseline: ``cv2.imdecode`` of the same bytes plus a plain ultralytics ``predict`` of the same
  detector weights (``models/tile_detector.pt``; needs the train extra), which only finds boxes.

The figure is the ratio of the medians (target <= 1.0). Also reported: the old path (whole decode
with Pillow, then ``read_table``) and our detector alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

SIZES = ((4000, 3000), (4624, 3468))
RACK_SCENES = Path("data/synth_racks_eval/test")  # rendered by models/recipes/rendered_sets.sh


def _jpeg(image: np.ndarray, size: tuple[int, int]) -> bytes:
    if image.shape[0] > image.shape[1]:
        size = (size[1], size[0])
    big = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return data.tobytes()


def bench_photos(limit_racks: int = 12) -> list[tuple[str, str, bytes]]:
    """(kind, name, 12-MP JPEG bytes) of every benchmark input."""
    from datasets.real import real_root

    out = []
    for i, path in enumerate(sorted((real_root() / "test" / "images").glob("*.jpg"))):
        out.append(("table", path.stem[:20], _jpeg(cv2.imread(str(path)), SIZES[i % 2])))
    racks = []
    if (RACK_SCENES / "tiles").is_dir():
        for label in sorted((RACK_SCENES / "tiles").glob("*.json")):
            record = json.loads(label.read_text())
            if record["scene"] == "rack" and record["tiles"]:
                racks.append(RACK_SCENES / "images" / record["image"])
    for i, path in enumerate(racks[:limit_racks]):
        out.append(("rack", path.stem, _jpeg(cv2.imread(str(path)), SIZES[i % 2])))
    return out


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def run() -> dict:
    from datasets.real import real_root
    from vision.image import decode_image
    from vision.pipeline import load_reader

    photos = bench_photos()
    reader = load_reader()
    warm = _jpeg(cv2.imread(str(sorted((real_root() / "valid" / "images").glob("*.jpg"))[0])), SIZES[0])
    reader.read_photo(warm)
    try:
        from vision.train import yolo_env

        yolo_env.prepare()
        from ultralytics import YOLO
    except ImportError:
        raise SystemExit("the baseline needs ultralytics: pip install -e '.[train]'") from None
    model = YOLO(str(Path(__file__).resolve().parents[2] / "models" / "tile_detector.pt"))
    imgsz = reader.model.det_size[0]

    def baseline(data: bytes) -> None:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        model.predict(image, imgsz=imgsz, device="cpu", verbose=False)

    baseline(warm)
    rows = []
    for i, (kind, name, data) in enumerate(photos):
        row = {"kind": kind, "photo": name, "mb": round(len(data) / 1e6, 2)}
        first_ours = i % 2 == 0  # interleave the order: neither side always runs on a warmer cache
        if first_ours:
            row["ours_ms"] = _time(lambda: reader.read_photo(data))
            row["baseline_ms"] = _time(lambda: baseline(data))
        else:
            row["baseline_ms"] = _time(lambda: baseline(data))
            row["ours_ms"] = _time(lambda: reader.read_photo(data))
        image = decode_image(data)
        row["old_path_ms"] = row["whole_decode_ms"] = _time(lambda: decode_image(data))
        row["old_path_ms"] += _time(lambda: reader.read_table(image))
        row["detector_ms"] = _time(lambda: reader.model.find_boxes(image))
        row["tiles"] = len(reader.read_photo(data).tiles)
        rows.append(row)
    results: dict = {"inputs": len(rows), "rows": rows}
    for kind in ("all", "table", "rack"):
        sel = [r for r in rows if kind == "all" or r["kind"] == kind]
        if not sel:
            continue
        med = {k: statistics.median(r[k] for r in sel) for k in ("ours_ms", "baseline_ms", "old_path_ms", "detector_ms")}
        results[kind] = {"photos": len(sel), **{k: round(v, 1) for k, v in med.items()},
                         "ratio_ours_vs_baseline": round(med["ours_ms"] / med["baseline_ms"], 2),
                         "ratio_old_path_vs_baseline": round(med["old_path_ms"] / med["baseline_ms"], 2)}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{results['inputs']} inputs, each timed once in a warm process (medians; baseline = cv2.imdecode + ultralytics predict)")
    for kind in ("all", "table", "rack"):
        if kind in results:
            r = results[kind]
            print(f"  {kind:5} {r['photos']:3} photos: ours {r['ours_ms']:7.1f} ms, baseline {r['baseline_ms']:7.1f} ms, "
                  f"ratio {r['ratio_ours_vs_baseline']:.2f}; old path (whole decode + read_table) {r['old_path_ms']:7.1f} ms "
                  f"(ratio {r['ratio_old_path_vs_baseline']:.2f}); our detector alone {r['detector_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
