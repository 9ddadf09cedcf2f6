"""Halve an ONNX file on disk without changing how it runs: float16 storage, float32 compute.

Every large float32 weight is stored as float16 followed by a ``Cast`` back to float32.
onnxruntime folds those casts when the session is created, so inference runs in float32 as
before, with weights rounded to float16 (a relative error of about 1e-3, far below what moves a
detection). Used by ``vision.train`` when it writes models/.
"""

from __future__ import annotations

from pathlib import Path


def compact(path: Path, min_elements: int = 1024) -> tuple[int, int]:
    """Rewrite ``path`` in place; return (bytes before, bytes after)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    before = path.stat().st_size
    model = onnx.load(str(path))
    graph = model.graph
    casts = []
    kept = []
    for init in graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT and int(np.prod(init.dims)) >= min_elements:
            half_name = init.name + "__fp16"
            array = numpy_helper.to_array(init).astype(np.float16)
            kept.append(numpy_helper.from_array(array, half_name))
            casts.append(helper.make_node("Cast", [half_name], [init.name], to=onnx.TensorProto.FLOAT, name=init.name + "__cast"))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    del graph.value_info[:]  # intermediate shapes the exporter recorded: onnxruntime infers them (0.7 MB on the detector)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return before, path.stat().st_size
