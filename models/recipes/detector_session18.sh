#!/usr/bin/env bash
# Session 18's tile detector candidate (not shipped: models/README.md, card in
# models/eval/detector_session18_candidate.json): the session-9 detector continued for 2 epochs with
# session 9's fine-tuning schedule on the real training photos x3 and 5,000 images of the two rendered
# sets the reader met in session 16 (synth_r16, seed 101; synth_r17, seed 111; 2,000 scenes each,
# racks 45%, mixed 25%), whole scenes and quarters. Run from the repository root, the project's
# virtual environment active (pip install -e ".[train]"), the validation folders rendered
# (models/recipes/rendered_sets.sh). Two threads; 65 minutes beside other work.
set -euo pipefail
export YOLO_OFFLINE=1 OMP_NUM_THREADS=2
T="rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05"
B="wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13"
q="--card none --quiet"
[ -d data/synth_r16 ] || python -m datasets.synth $q --workers 2 --out data/synth_r16 --train 2000 --val 0 --test 0 --seed 101 --scenes $T --backgrounds $B
[ -d data/synth_r17 ] || python -m datasets.synth $q --workers 2 --out data/synth_r17 --train 2000 --val 0 --test 0 --seed 111 --scenes $T --backgrounds $B
python -m datasets.zoom_crops data/synth_r16 data/synth_r16_zoom --seed 101
python -m datasets.zoom_crops data/synth_r17 data/synth_r17_zoom --seed 111
mix=data/synth_s18_mix
python models/recipes/link_mix.py "$mix" 18 a:synth_r16_zoom:2500 b:synth_r17_zoom:2500
python -m vision.train detector --data real,synthetic --synthetic "$mix" --real-repeat 3 --model models/tile_detector.pt \
  --imgsz 512 --epochs 2 --lr0 0.001 --warmup-epochs 0.2 --cos-lr --lrf 0.05 --close-mosaic 1 --workers 1 \
  --name dets18 --out data/dets18_out --work data/dets18
