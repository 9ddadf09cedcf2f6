#!/usr/bin/env bash
# Session 17's int8 detector (models/tile_detector.int8.onnx, the card's "int8" entry): the shipped
# float detector quantized by onnxruntime, calibrated on 30 real training photos and 30 rendered
# training scenes of synth_r16 (seed 101, rendered here when missing, as reader_session16.sh does).
# Run from the repository root, the project's virtual environment active (pip install -e ".[train]"),
# the real set where datasets.real finds it. About 10 seconds once synth_r16 is there; the same
# inputs give the same file byte for byte.
set -euo pipefail
export YOLO_OFFLINE=1
T="rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05"
B="wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13"
[ -d data/synth_r16 ] || python -m datasets.synth --card none --quiet --workers 2 --out data/synth_r16 --train 2000 --val 0 --test 0 --seed 101 --scenes $T --backgrounds $B
python -m vision.train.quantize --net detector
