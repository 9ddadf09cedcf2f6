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
python models/recipes/link_mix.py "$mix" 9 a:synth_racks_zoom:800 b:synth_r6_zoom:1000 \
  c:synth_r7_zoom:1200 d:synth_r8_zoom:2000
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 3 --model models/tile_detector.pt \
  --imgsz 512 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 \
  --name dets9b --out data/dets9b_out --work data/dets9b
