#!/usr/bin/env bash
# Session 20's tile reader (shipped): the session-14 reader (width 24) widened to width 32 by
# Net2WiderNet (vision.train.reader_net.widen: --init with a narrower reader does it, the same
# function to start from) and continued on synth_r16 and synth_r17 (rendered by reader_session16.sh),
# with "not a tile" boxes mined by the shipped detector on synth_r17. Validation folders from
# models/recipes/rendered_sets.sh. Run from the repository root, the project's virtual environment
# active (pip install -e ".[train]"). Two threads: 138 minutes (5.7 of them loading crops), 82 epochs,
# best epoch 76. Start from the width-24 reader: git show 414f1ae:models/tile_reader.pt > /tmp/r24.pt
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
INIT="${INIT:-/tmp/r24.pt}"
[ -f "$INIT" ] || git show 414f1ae:models/tile_reader.pt > "$INIT"
python -m vision.train reader --data real,synthetic --synthetic data/synth_r16,data/synth_r17 \
  --mine-negatives 0.3 --mine-scenes data/synth_r17 --val-scenes data/s7_racks/val,data/s7_fontsval2k/fonts \
  --detector-boxes models --real-share 0.3 --epochs 200 --hours "${HOURS:-2.2}" --lr 1e-3 --threads 2 \
  --init "$INIT" --width 32 --crop-stretch 1.8 --out data/reader_s20
