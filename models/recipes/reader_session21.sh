#!/usr/bin/env bash
# Session 21's tile reader run (a candidate, not shipped: a tie on validation, models/README.md): the shipped width-32 reader (session 20) continued with a smaller
# learning rate on synth_r16, synth_r17 and a third rendered set it never saw, synth_r21 (seed 121,
# the same scene mix), with "not a tile" boxes mined by the shipped detector on synth_r21.
# Validation folders come from models/recipes/rendered_sets.sh. Run from the repository root, the
# project's virtual environment active (pip install -e ".[train]"). Rendering takes 10-40
# minutes (40 beside other work; skipped when the folder is there); training HOURS on two threads (session 21: HOURS=1.6,
# stopped during epoch 36, best epoch 29).
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
T="rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05"
B="wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13"
q="--card none --quiet"
[ -d data/synth_r21 ] || python -m datasets.synth $q --workers 2 --out data/synth_r21 --train 2000 --val 0 --test 0 --seed 121 --scenes $T --backgrounds $B
INIT="${INIT:-/tmp/r32.pt}"
[ -f "$INIT" ] || git show 206ce38:models/tile_reader.pt > "$INIT"
python -m vision.train reader --data real,synthetic --synthetic data/synth_r16,data/synth_r17,data/synth_r21 \
  --mine-negatives 0.3 --mine-scenes data/synth_r21 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours "${HOURS:-1.9}" --lr 5e-4 --threads 2 \
  --init "$INIT" --width 32 --crop-stretch 1.8 --out data/reader_s21
