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


class _Boxes:
    """A detector's answer fixed in advance (the mining rule is what is tested, not a network)."""

    def __init__(self, boxes: list[list[float]]) -> None:
        self.boxes = np.array(boxes, np.float32)

    def find_boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.boxes, np.ones(len(self.boxes), np.float32)


def test_mined_negatives_are_boxes_on_no_tile_and_not_at_the_edge() -> None:
    from vision.train.reader_data import NONE_CLASS, mined_negatives

    image = np.full((200, 300, 3), 120, np.uint8)
    record = {"tiles": [{"box": [20, 20, 60, 80]}]}
    boxes = [
        [22, 21, 61, 79],     # the labelled tile: not a negative
        [150, 60, 190, 120],  # the cloth: a negative
        [0, 100, 30, 150],    # touches the edge (a cut tile is not in the record): skipped
        [250, 10, 253, 13],   # a speck: skipped
    ]
    mined = mined_negatives(image, record, _Boxes(boxes))
    assert len(mined) == 1
    assert mined[0].number == NONE_CLASS and mined[0].colour == -1 and mined[0].box_only
    assert len(mined_negatives(image, {"tiles": []}, _Boxes(boxes[:2]))) == 2  # an empty table: both are cloth


def test_reader_training_stops_with_a_clear_message_when_its_crops_would_fill_the_memory(monkeypatch) -> None:
    import pytest

    from vision.train import reader

    monkeypatch.setattr(reader, "_available_gb", lambda: 1.2)
    with pytest.raises(SystemExit, match=r"take 0\.0 GB and leave 1\.2 GB .*--synthetic-images"):
        reader._check_memory([_sample()], "data/synth_r11")
    monkeypatch.setattr(reader, "_available_gb", lambda: 9.0)
    reader._check_memory([_sample()], "data/synth_r11")  # room enough: no error
    monkeypatch.setattr(reader, "_available_gb", lambda: None)
    reader._check_memory([_sample()], "data/synth_r11")  # no /proc/meminfo: no check


def test_up_vector_follows_a_stretched_crop() -> None:
    """A flat tile seen from afar (a box 3:1) is cut from a 1.8:1 window: its up vector, in the
    crop's axes, is stretched the same way (here the tile lies on its side: up points along x)."""
    s = _sample()
    c = PATCH_SIDE / 2
    flat = Sample(s.patch, np.array([[c - 45, c - 15], [c + 45, c - 15], [c + 45, c + 15], [c - 45, c + 15]], np.float32),
                  0, 0, np.array([0.6, -0.8], np.float32), "test")
    _, up = augment(flat, np.random.default_rng(0), 64, strong=False, stretch_at=1.8)
    want = np.array([0.6 / 103.5, -0.8 / 57.5])  # window 90 x 1.15 = 103.5 by 103.5 / 1.8
    assert np.allclose(up, want / np.linalg.norm(want), atol=1e-3)
    _, square = augment(flat, np.random.default_rng(0), 64, strong=False)
    assert np.allclose(square, [0.6, -0.8], atol=1e-3)
