"""Image in, TableReading out: decode, detect, read, lay out, decode with the rules.

Heavy modules (onnxruntime, the models) load lazily: ``import vision`` stays cheap.

>>> from vision import read_table, load_reader
>>> reading = read_table(image_bgr)          # shipped models, loaded once
>>> reading.to_dict()["sets"]
"""

from __future__ import annotations

from typing import Any

__all__ = ["read_table", "load_reader", "TableReader", "TableReading", "decode_image"]


def __getattr__(name: str) -> Any:
    if name in ("read_table", "load_reader", "TableReader"):
        from vision import pipeline

        return getattr(pipeline, name)
    if name == "TableReading":
        from vision.reading import TableReading

        return TableReading
    if name == "decode_image":
        from vision.image import decode_image

        return decode_image
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
