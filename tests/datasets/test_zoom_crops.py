"""Quarter crops for the zoom-scale detector: geometry and cut tiles."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.zoom_crops import crop_labels, main
from vision.detect import quarters


@pytest.mark.parametrize("w, h, overlap, n", [(1024, 768, 0.2, 2), (1000, 1000, 0.0, 2), (641, 479, 0.35, 2),
                                           (1024, 768, 0.2, 3), (2312, 1734, 0.2, 3)])
def test_windows_cover_the_image_and_overlap(w: int, h: int, overlap: float, n: int) -> None:
    cw, ch, origins = quarters(w, h, overlap, n)
    assert len(origins) == n * n
    covered = np.zeros((h, w), bool)
    for x0, y0 in origins:
        assert 0 <= x0 and x0 + cw <= w and 0 <= y0 and y0 + ch <= h
        covered[y0:y0 + ch, x0:x0 + cw] = True
    assert covered.all()
    xs = sorted({x0 for x0, _ in origins})
    assert min(cw - (b - a) for a, b in zip(xs, xs[1:])) >= round(w * overlap / (n - 1)) - 1  # neighbours share it


def test_quarters_are_the_views_the_detector_was_trained_on() -> None:
    assert quarters(1000, 800, 0.2) == (600, 480, [(0, 0), (400, 0), (0, 320), (400, 320)])
    with pytest.raises(ValueError, match="2 or more"):
        quarters(1000, 800, 0.2, 1)


def _poly(x0: float, y0: float, x1: float, y1: float, w: int, h: int) -> np.ndarray:
    return np.array([x0, y0, x1, y0, x1, y1, x0, y1], float) / np.array([w, h] * 4, float)


def test_cut_tiles_kept_only_when_mostly_inside() -> None:
    w, h = 1000, 800
    polys = np.stack([
        _poly(100, 100, 140, 160, w, h),   # wholly inside the crop (0..600, 0..480)
        _poly(590, 100, 630, 160, w, h),   # a quarter of it inside: dropped
        _poly(560, 100, 610, 160, w, h),   # 80% inside: kept, clipped
        _poly(800, 700, 840, 760, w, h),   # outside
    ])
    out = crop_labels(polys, w, h, 0, 0, 600, 480, min_visible=0.6)
    assert len(out) == 2
    xs = out[1].reshape(4, 2)[:, 0] * 600
    assert xs.min() == pytest.approx(560) and xs.max() == pytest.approx(600)


def test_command_writes_whole_scenes_and_quarters(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for split in ("train", "val", "test"):
        (src / split / "images").mkdir(parents=True)
        (src / split / "labels").mkdir(parents=True)
        cv2.imwrite(str(src / split / "images" / "000000.jpg"), np.full((300, 400, 3), 128, np.uint8))
        (src / split / "labels" / "000000.txt").write_text(
            "0 " + " ".join(f"{v:.6f}" for v in _poly(10, 10, 50, 60, 400, 300)) + "\n")
    assert main([str(src), str(tmp_path / "out"), "--per-image", "2"]) == 0
    train = sorted(p.name for p in (tmp_path / "out" / "train" / "images").iterdir())
    assert train == ["000000.jpg", "000000_q0.jpg", "000000_q1.jpg"]
    assert sorted(p.name for p in (tmp_path / "out" / "val" / "images").iterdir()) == ["000000.jpg"]
    labels = [(tmp_path / "out" / "train" / "labels" / f"000000_q{k}.txt").read_text() for k in (0, 1)]
    assert all(line.startswith("0 ") for text in labels for line in text.splitlines())
