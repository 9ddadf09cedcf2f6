#!/usr/bin/env bash
# Session 15's tile reader run: continued from the session-14 reader (shipped before it) on three
# rendered sets, synth_r14 (models/recipes/detector_session13.sh renders it), synth_r15
# (models/recipes/reader_session14.sh) and a new one, synth_r16 (seed 101, 2,000 scenes), with
# "not a tile" boxes mined by the shipped detector on synth_r16. Run from the repository root, the
# project's virtual environment active (pip install -e ".[train]"), after rendering those sets and
# the validation folders (models/recipes/rendered_sets.sh):
#   B=wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13
#   python -m datasets.synth --card none --workers 2 --out data/synth_r16 --train 2000 --val 0 --test 0 --seed 101 \
#     --scenes rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05 --backgrounds $B
# Two threads, beside evaluation runs and a solver benchmark.
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
python -m vision.train reader --data real,synthetic --synthetic data/synth_r14,data/synth_r15,data/synth_r16 \
  --mine-negatives 0.3 --mine-scenes data/synth_r16 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours 1.2 --lr 1e-3 --threads 2 \
  --init models/tile_reader.pt --crop-stretch 1.8 --out data/reader_s15
