"""vision.ocr: the text recogniser's second opinion, restricted to the numbers 1-13."""

from __future__ import annotations

import numpy as np
import pytest

from vision.ocr import ocr_available, upright_numeral

pytestmark = pytest.mark.skipif(not ocr_available(), reason="the ocr extra is not installed (pip install -e '.[ocr]')")


def _tile(text: str) -> np.ndarray:
    import cv2

    img = np.full((140, 100, 3), 235, np.uint8)
    cv2.putText(img, text, (10 if len(text) > 1 else 28, 80), cv2.FONT_HERSHEY_DUPLEX, 1.9, (30, 30, 30), 5, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("number", [1, 4, 7, 9, 11, 13])
def test_reads_printed_numbers(number: int) -> None:
    from vision.ocr import NumberOCR

    probs = NumberOCR(threads=1).number_probs([_tile(str(number))[:100]])
    assert probs.shape == (1, 13) and probs.sum() == pytest.approx(1.0, abs=1e-4)
    assert probs.argmax() + 1 == number


def test_upright_numeral_turns_the_tile_by_its_up_vector() -> None:
    tile = _tile("7")
    image = np.full((300, 300, 3), 90, np.uint8)
    image[80:220, 100:200] = np.rot90(tile, 2)  # upside down
    crop = upright_numeral(image, np.array([100, 80, 200, 220], np.float32), np.array([0.0, 1.0], np.float32))
    upright = upright_numeral(image[::-1, ::-1].copy(), np.array([100, 80, 200, 220], np.float32), np.array([0.0, -1.0], np.float32))
    assert crop.shape == upright.shape and np.abs(crop.astype(int) - upright.astype(int)).mean() < 8
