#!/usr/bin/env bash
# Session 19's tile detector candidate: the shipped (session-9) detector continued for 2 epochs with
# session 9's fine-tuning schedule and a wider brightness augmentation (--hsv-v 0.7: value gains of
# 0.3-1.7, clipped), so that glare which blows the white tiles out (real valid photos at 1.5x the
# light: 2.5% of tiles lost, at 1.8x 8.6%; python -m vision.evaluate.robust) and dim rooms do not
# hide tiles. Data: the real training photos x4 and 2,500 images of synth_r16_zoom and
# synth_r17_zoom (models/recipes/detector_session18.sh renders them). Run from the repository root,
# the project's virtual environment active (pip install -e ".[train]"). Two threads.
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
mix=data/synth_s19_mix
python models/recipes/link_mix.py "$mix" 19 a:synth_r16_zoom:1250 b:synth_r17_zoom:1250
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 4 --model models/tile_detector.pt \
  --imgsz 512 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 --hsv-v 0.7 --workers 1 \
  --name dets19 --out data/dets19_out --work data/dets19
