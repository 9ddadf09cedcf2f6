#!/usr/bin/env bash
# How the session-9 tile detector (models/tile_detector.*) was trained: 2 epochs from the session-7
# detector on the real training photos x3 and 5,000 rendered images sampled (seed 9) from the four
# rendered training sets, whole scenes and quarters. Run from the repository root, the project's
# virtual environment active (pip install -e ".[train]"), after rendering
# and cutting the sets into quarters (models/README.md gives those commands: python -m datasets.synth
# --out data/synth_r8 ... then python -m datasets.zoom_crops data/synth_r8 data/synth_r8_zoom, and
# so on for synth_racks, synth_r6 and synth_r7). Needs the train extra; about 53 minutes on 2 cores.
set -euo pipefail
mix=data/synth_s9b_mix
rm -rf "$mix" && mkdir -p "$mix/train/images" "$mix/train/labels" "$mix/val"
python - <<'P'
import os
import random
from pathlib import Path

rng = random.Random(9)
out = Path("data/synth_s9b_mix/train")
for prefix, source, count in (("a", "synth_racks_zoom", 800), ("b", "synth_r6_zoom", 1000),
                              ("c", "synth_r7_zoom", 1200), ("d", "synth_r8_zoom", 2000)):
    images = sorted(Path("data", source, "train", "images").glob("*.jpg"))
    for image in rng.sample(images, count):
        label = image.parent.parent / "labels" / (image.stem + ".txt")
        os.symlink(image.resolve(), out / "images" / f"{prefix}_{image.name}")
        os.symlink(label.resolve(), out / "labels" / f"{prefix}_{image.stem}.txt")
print("linked 5000 training images")
P
ln -s "$(pwd)/data/s7_racks/val/images" "$mix/val/images"
ln -s "$(pwd)/data/s7_racks/val/labels" "$mix/val/labels"
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 3 --model models/tile_detector.pt \
  --imgsz 512 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 \
  --name dets9b --out data/dets9b_out --work data/dets9b
