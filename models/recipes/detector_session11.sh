#!/usr/bin/env bash
# How the session-11 tile detector candidate was trained: 2 epochs from the session-9 detector on the
# real training photos x3 and 4,000 rendered images sampled (seed 11), mostly from the two newest
# rendered sets (synth_r11: the 14 font families added in session 11; synth_r10: racks and mixed
# scenes), whole scenes and quarters. Run from the repository root, the project's virtual
# environment active (pip install -e ".[train]"), after rendering and cutting the sets into quarters:
#   python -m datasets.synth --out data/synth_r11 --train 2000 --val 0 --test 0 --seed 61 --workers 2 \
#     --scenes rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05 \
#     --backgrounds wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13
#   python -m datasets.zoom_crops data/synth_r11 data/synth_r11_zoom --seed 61
#   python -m datasets.zoom_crops data/synth_r10 data/synth_r10_zoom --seed 51
# (synth_r10, r8, r7 and synth_racks as in models/README.md). One thread, beside the reader's training.
set -euo pipefail
mix=data/synth_s11_mix
python models/recipes/link_mix.py "$mix" 11 a:synth_racks_zoom:300 c:synth_r7_zoom:300 \
  d:synth_r8_zoom:600 e:synth_r10_zoom:1200 f:synth_r11_zoom:1600
export YOLO_OFFLINE=1 OMP_NUM_THREADS=1
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 3 --model models/tile_detector.pt \
  --imgsz 512 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 --workers 1 \
  --name dets11 --out data/dets11_out --work data/dets11
