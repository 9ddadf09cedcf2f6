#!/usr/bin/env bash
# Session 23's int8 reader (models/tile_reader.int8.onnx, the "int8" entry of tile_reader.json): the
# shipped float reader quantized by onnxruntime (its first convolution and three heads left in float),
# calibrated on the crops of the tiles the float networks find on 30 real training photos and 30
# rendered training scenes of synth_r21 (seed 121, rendered here when missing, as reader_session21.sh
# does). Run from the repository root, the project's virtual environment active (pip install -e
# ".[train]"), the real set where datasets.real finds it. About 15 seconds once synth_r21 is there.
set -euo pipefail
export YOLO_OFFLINE=1
T="rack=0.45,mixed=0.25,table=0.15,scatter=0.1,empty=0.05"
B="wood=0.2,marble=0.1,felt=0.08,solid=0.15,fabric=0.15,noise=0.07,dots=0.12,motifs=0.13"
[ -d data/synth_r21 ] || python -m datasets.synth --card none --quiet --workers 2 --out data/synth_r21 --train 2000 --val 0 --test 0 --seed 121 --scenes $T --backgrounds $B
REAL=$(python -c "from datasets.real import real_root; print(real_root())")
python -m vision.train.quantize --net reader --calibration "$REAL/train,data/synth_r21/train"
