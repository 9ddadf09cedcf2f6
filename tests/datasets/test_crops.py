"""Export of reader crops from a labelled folder (python -m datasets.crops)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from datasets import crops, synth


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("syn")
    synth.generate(out, {"train": 2}, seed=3, size=256, card=None, progress=False)
    return out / "train"


def test_export_writes_one_crop_per_labelled_tile(split: Path, tmp_path: Path) -> None:
    n_tiles = sum(len(t) for _, t in crops.iter_labelled_tiles(split))
    n = crops.export_crops(split, tmp_path / "png", size=32)
    assert n == n_tiles > 0
    with open(tmp_path / "png" / "labels.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == n and (tmp_path / "png" / rows[0]["file"]).exists()
    assert crops.export_crops(split, tmp_path / "npz", size=32, npz=True) == n
    data = np.load(tmp_path / "npz" / "crops.npz")
    assert data["images"].shape == (n, 32, 32, 3) and data["tile_index"].max() <= 52
