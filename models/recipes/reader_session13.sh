#!/usr/bin/env bash
# How the session-13 tile reader (shipped) was trained: continued from the session-12 reader on two new
# rendered sets (synth_r13, synth_r14: models/recipes/detector_session13.sh renders them) with "not a
# tile" boxes mined by the shipped detector on synth_r13. Run from the repository root, the project's
# virtual environment active (pip install -e ".[train]"), after rendering those sets and the validation
# folders (models/recipes/rendered_sets.sh). Before it ran, models/tile_reader.pt was the session-12
# reader (git show 7f07313:models/tile_reader.pt). Two threads: 5 minutes to load 85,000 crops, then
# 66 minutes of training (beside the detector's training, so about half the epochs a quiet machine gives).
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
python -m vision.train reader --data real,synthetic --synthetic data/synth_r13,data/synth_r14 \
  --mine-negatives 0.3 --mine-scenes data/synth_r13 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours 1.1 --lr 1e-3 --threads 2 \
  --init models/tile_reader.pt --crop-stretch 1.8 --out data/reader_s13
