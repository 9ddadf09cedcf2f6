"""The reader's training augmentation (vision.train.reader_data): shape warps keep the tile's label geometry."""

import numpy as np

from vision.train.reader_data import PATCH_SIDE, Sample, _compose, _shape_warp, augment


def _sample() -> Sample:
    patch = np.full((PATCH_SIDE, PATCH_SIDE, 3), 200, np.uint8)
    c = PATCH_SIDE / 2
    poly = np.array([[c - 25, c - 32], [c + 25, c - 32], [c + 25, c + 32], [c - 25, c + 32]], np.float32)
    patch[int(c - 32):int(c + 32), int(c - 25):int(c + 25)] = 240
    patch[int(c - 20):int(c + 5), int(c - 4):int(c + 4)] = 30  # a "1", ink above the centre
    return Sample(patch, poly, 0, 0, np.array([0.0, -1.0], np.float32), "test")


def test_shape_warp_keeps_the_patch_centre_and_composes_with_rotation() -> None:
    rng = np.random.default_rng(3)
    centre = np.array([PATCH_SIDE / 2, PATCH_SIDE / 2, 1.0])
    for _ in range(20):
        m = _shape_warp(rng)
        assert np.allclose(m @ centre, centre[:2])
        det = np.linalg.det(m[:, :2])
        assert 0.85 < det < 1.15  # aspect and shear, not a zoom
    shift = np.array([[1.0, 0, 5], [0, 1.0, -2]])
    assert np.allclose(_compose(shift, np.hstack([np.eye(2), np.zeros((2, 1))])), shift)


def test_augmented_crops_are_crops_with_a_unit_up_vector() -> None:
    rng = np.random.default_rng(0)
    s = _sample()
    for _ in range(50):
        crop, up = augment(s, rng, 64)
        assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
        assert abs(float(np.linalg.norm(up)) - 1.0) < 1e-3
    plain, up = augment(s, rng, 64, strong=False)
    assert np.allclose(up, [0.0, -1.0], atol=1e-3)
    assert plain[32 - 10, 32].mean() < 100 < plain[5, 5].mean()  # the ink stays where the label says
