#!/usr/bin/env bash
# How the session-12 tile reader (shipped) was trained: continued from the session-10 reader on crops
# cut by the stretched-window rule (--crop-stretch 1.8, vision.crops), on the rendered sets synth_r11,
# synth_r10 and synth_r8 with "not a tile" boxes mined by the shipped detector on synth_r11. Run from
# the repository root, the project's virtual environment active (pip install -e ".[train]"), after
# rendering synth_r11, synth_r10, synth_r8 and the validation folders (models/recipes/rendered_sets.sh).
# Before it ran, models/tile_reader.pt was the session-10 reader (git show a912583:models/tile_reader.pt).
# One thread: 8 minutes to load 143,000 crops (about 16 GB), then 66 minutes of training.
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=1
python -m vision.train reader --data real,synthetic --synthetic data/synth_r11,data/synth_r10,data/synth_r8 \
  --mine-negatives 0.3 --mine-scenes data/synth_r11 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours 1.1 --lr 1e-3 --threads 1 \
  --init models/tile_reader.pt --crop-stretch 1.8 --out data/reader_s12
