"""Speed of reading a photo: ``python -m vision.bench [--runs 15] [--json]``.

The photo is a real 54-tile table photo from the shared test split, upscaled to 4000x3000
(12 megapixels) and JPEG-encoded, as a phone would send it. A second figure reads the same photo
as a far shot (``datasets.far_shots``: in the middle of a cloth twice its size, then 12 MP), where
the tiles are small enough for the detector's quarter pass. Figures are medians of warm runs,
and each is reported as a ratio against a baseline measured in the same run (these machines
are noisy): plain ``ultralytics`` ``predict`` of the same detector weights (``models/tile_detector.pt``,
needs the train extra) - which only finds boxes, where our figure includes reading every tile,
laying out the sets and checking them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

BENCH_PHOTO = "rummy-2_jpeg"
SIZE = (4000, 3000)


def bench_photo(far: float = 1.0) -> bytes:
    """The 12-MP benchmark photo as JPEG bytes (made on the fly: the data set is not copied here);
    ``far`` > 1 puts it in the middle of a cloth that many times its size first."""
    from datasets.far_shots import CLOTHS, far_shot
    from datasets.real import real_root

    folder = real_root() / "test" / "images"
    path = next(folder.glob(BENCH_PHOTO + "*.jpg"), None)
    if path is None:
        raise SystemExit(f"benchmark photo {BENCH_PHOTO}* not found in {folder}")
    image = cv2.imread(str(path))
    if far > 1:
        image, _boxes = far_shot(image, np.zeros((0, 4), np.float32), far, CLOTHS[0])
    image = cv2.resize(image, SIZE, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return data.tobytes()


def _median_ms(fn, runs: int) -> float:
    fn()  # warm
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(runs: int = 15) -> dict:
    from vision.image import decode_image
    from vision.pipeline import load_reader

    data = bench_photo()
    image = decode_image(data)
    reader = load_reader()
    results: dict = {"photo": f"{BENCH_PHOTO} upscaled to {SIZE[0]}x{SIZE[1]}, {len(data) / 1e6:.1f} MB JPEG", "runs": runs}
    results["decode_ms"] = _median_ms(lambda: decode_image(data), runs)
    results["read_table_ms"] = _median_ms(lambda: reader.read_table(image), runs)
    results["detect_only_ms"] = _median_ms(lambda: reader.model.find_boxes(image), runs)
    stages: dict[str, list[float]] = {}
    for _ in range(runs):
        reading = reader.read_table(image)
        for k, v in reading.timing_ms.items():
            stages.setdefault(k, []).append(v)
    results["stages_ms"] = {k: round(statistics.median(v), 1) for k, v in stages.items()}
    results["tiles_read"] = len(reader.read_table(image).tiles)
    far_image = decode_image(bench_photo(far=2.0))
    results["far_read_table_ms"] = _median_ms(lambda: reader.read_table(far_image), runs)
    results["far_tiles_read"] = len(reader.read_table(far_image).tiles)
    pt = Path(__file__).resolve().parent.parent / "models" / "tile_detector.pt"
    try:
        from vision import yolo_env

        yolo_env.prepare()
        from ultralytics import YOLO
    except ImportError:
        results["baseline"] = "ultralytics not installed (pip install -e '.[train]'): no baseline"
        return results
    model = YOLO(str(pt))
    imgsz = reader.model.det_size[0]
    results["ultralytics_predict_ms"] = _median_ms(lambda: model.predict(image, imgsz=imgsz, device="cpu", verbose=False), runs)
    results["ratio_read_table_vs_ultralytics"] = round(results["read_table_ms"] / results["ultralytics_predict_ms"], 2)
    results["ratio_detect_vs_ultralytics"] = round(results["detect_only_ms"] / results["ultralytics_predict_ms"], 2)
    results["ratio_far_read_table_vs_ultralytics"] = round(results["far_read_table_ms"] / results["ultralytics_predict_ms"], 2)
    for k in ("decode_ms", "read_table_ms", "detect_only_ms", "far_read_table_ms", "ultralytics_predict_ms"):
        results[k] = round(results[k], 1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run(args.runs)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"photo: {results['photo']}; {results['tiles_read']} tiles read; medians of {args.runs} warm runs")
    print(f"  decode (EXIF, to BGR)          {results['decode_ms']:8.1f} ms")
    print(f"  read_table (decoded -> sets)   {results['read_table_ms']:8.1f} ms   stages {results['stages_ms']}")
    print(f"  our detector alone             {results['detect_only_ms']:8.1f} ms")
    print(f"  read_table, far shot           {results['far_read_table_ms']:8.1f} ms   {results['far_tiles_read']} tiles read")
    if "ultralytics_predict_ms" in results:
        print(f"  ultralytics predict (baseline) {results['ultralytics_predict_ms']:8.1f} ms")
        print(f"  ratio read_table / baseline    {results['ratio_read_table_vs_ultralytics']:8.2f}")
        print(f"  ratio our detector / baseline  {results['ratio_detect_vs_ultralytics']:8.2f}")
        print(f"  ratio far read_table / baseline{results['ratio_far_read_table_vs_ultralytics']:8.2f}")
    else:
        print("  " + results["baseline"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
