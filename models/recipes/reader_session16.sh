#!/usr/bin/env bash
# Session 16's tile reader run (a candidate, not shipped: it tied the shipped reader's validation
# mean, models/README.md): continued from the shipped session-14 reader on two rendered sets it never saw, synth_r16 (seed 101, session 15's command) and synth_r17 (seed 111),
# 2,000 scenes each, with "not a tile" boxes mined by the shipped detector on synth_r17. The
# validation folders come from models/recipes/rendered_sets.sh. Run from the repository root, the
# project's virtual environment active (pip install -e ".[train]"). Two threads, beside other work;
# 72 minutes, 62 epochs, best epoch 60. The folders it renders are skipped when already there.
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
S="rack=0.5,mixed=0.2,table=0.17,scatter=0.1,empty=0.03"
B="wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13"
T="rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05"
q="--card none --quiet"
[ -d data/s7_racks ] || python -m datasets.synth $q --workers 2 --scenes $S --out data/s7_racks --train 0 --val 120 --test 120 --fonts 150 --seed 14
[ -d data/s7_fontsval2k ] || python -m datasets.synth $q --workers 2 --scenes $S --out data/s7_fontsval2k --train 0 --val 0 --test 0 --fonts 80 --seed 15 --size 2048
[ -d data/synth_r16 ] || python -m datasets.synth $q --workers 2 --out data/synth_r16 --train 2000 --val 0 --test 0 --seed 101 --scenes $T --backgrounds $B
[ -d data/synth_r17 ] || python -m datasets.synth $q --workers 2 --out data/synth_r17 --train 2000 --val 0 --test 0 --seed 111 --scenes $T --backgrounds $B
python -m vision.train reader --data real,synthetic --synthetic data/synth_r16,data/synth_r17 \
  --mine-negatives 0.3 --mine-scenes data/synth_r17 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours "${HOURS:-1.1}" --lr 1e-3 --threads 2 \
  --init models/tile_reader.pt --crop-stretch 1.8 --out data/reader_s16
