#!/usr/bin/env bash
# Session 13's tile detector candidate: the session-9 detector continued at a 640 px input (its
# tiles 1.25 times as large as at 512) for 2 epochs on the real training photos x3 and 4,000
# rendered images: session 13's two new rendered sets (synth_r13, seed 71, 2,000 scenes; synth_r14,
# seed 81, 1,200 scenes; both racks 45%, mixed 25%), whole scenes and quarters. Run from the
# repository root, the project's virtual environment active (pip install -e ".[train]"), after:
#   B=wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13
#   python -m datasets.synth --card none --workers 2 --out data/synth_r13 --train 2000 --val 0 --test 0 --seed 71 \
#     --scenes rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05 --backgrounds $B
#   python -m datasets.synth --card none --workers 2 --out data/synth_r14 --train 1200 --val 0 --test 0 --seed 81 \
#     --scenes rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05 --backgrounds $B
# and the validation folders (models/recipes/rendered_sets.sh). One thread, beside the reader's training.
set -euo pipefail
python -m datasets.zoom_crops data/synth_r13 data/synth_r13_zoom --seed 71
python -m datasets.zoom_crops data/synth_r14 data/synth_r14_zoom --seed 81
mix=data/synth_s13_mix
python models/recipes/link_mix.py "$mix" 13 a:synth_r13_zoom:2500 b:synth_r14_zoom:1500
export YOLO_OFFLINE=1 OMP_NUM_THREADS=1
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 3 --model models/tile_detector.pt \
  --imgsz 640 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 --workers 1 \
  --name dets13 --out data/dets13_out --work data/dets13
