"""A bare 6 or 9 told apart by its loop on an upright tile (vision.glyph)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.glyph import LOOP_ABOVE, LOOP_BELOW, loop_side, quarter_turns

FACE = (215, 235, 245)  # cream, BGR
INKS = {"black": (30, 30, 30), "red": (40, 40, 200), "blue": (170, 90, 20), "orange": (20, 140, 245)}


def tile_crop(numeral: str, ink: tuple[int, int, int] = INKS["black"], mark: str = "", px: int = 60) -> np.ndarray:
    """An upright tile ``px`` wide as a detector box cuts it: a strip of table around a cream face,
    the numeral in its upper part, and optionally a ``mark`` ("bar" under the numeral, "dot" beside it)."""
    h = int(px * 1.35)
    crop = np.full((h + 8, px + 8, 3), (120, 140, 160), np.uint8)
    crop[4:h + 4, 4:px + 4] = FACE
    scale = px / 48
    (tw, th), _ = cv2.getTextSize(numeral, cv2.FONT_HERSHEY_SIMPLEX, scale, max(2, px // 12))
    org = (4 + (px - tw) // 2, 4 + int(h * 0.55))
    cv2.putText(crop, numeral, org, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, max(2, px // 12), cv2.LINE_AA)
    if mark == "bar":
        cv2.rectangle(crop, (org[0], org[1] + px // 8), (org[0] + tw, org[1] + px // 8 + px // 16), ink, -1)
    elif mark == "dot":
        cv2.circle(crop, (org[0] + tw + px // 10, org[1] - 2), max(2, px // 16), ink, -1)
    return crop


def turned(crop: np.ndarray, turns: int) -> np.ndarray:
    """The crop turned so that the face's top points ``turns`` quarter turns clockwise from up."""
    for _ in range(turns % 4):
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


@pytest.mark.parametrize("ink", sorted(INKS))
@pytest.mark.parametrize("px", [30, 60, 120])
def test_an_upright_six_has_its_loop_below_and_a_nine_above(ink: str, px: int) -> None:
    assert loop_side(tile_crop("6", INKS[ink], px=px)) == LOOP_BELOW
    assert loop_side(tile_crop("9", INKS[ink], px=px)) == LOOP_ABOVE


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_the_rack_s_up_turns_the_glyph_upright_first(turns: int) -> None:
    six, nine = turned(tile_crop("6"), turns), turned(tile_crop("9"), turns)
    assert loop_side(six, turns) == LOOP_BELOW
    assert loop_side(nine, turns) == LOOP_ABOVE
    if turns == 2:  # seen the wrong way up, a 6 is a 9
        assert loop_side(six, 0) == LOOP_ABOVE


@pytest.mark.parametrize("mark", ["bar", "dot"])
def test_a_marked_numeral_is_left_to_the_reader(mark: str) -> None:
    assert loop_side(tile_crop("9", mark=mark)) == 0
    assert loop_side(tile_crop("6", mark=mark)) == 0


@pytest.mark.parametrize("numeral", ["1", "7", "13"])
def test_no_single_loop_no_answer(numeral: str) -> None:
    assert loop_side(tile_crop(numeral)) == 0


def test_blank_or_tiny_crops_give_no_answer() -> None:
    assert loop_side(np.full((80, 60, 3), FACE, np.uint8)) == 0
    assert loop_side(np.zeros((5, 4, 3), np.uint8)) == 0


def test_quarter_turns_of_up_vectors() -> None:
    assert quarter_turns(np.array([[0.0, -1.0], [0.1, -0.99]])) == 0
    assert quarter_turns(np.array([[1.0, 0.0], [0.9, 0.2]])) == 1
    assert quarter_turns(np.array([[0.0, 1.0]])) == 2
    assert quarter_turns(np.array([[-1.0, 0.1]])) == 3
    assert quarter_turns(np.array([[0.0, -1.0], [0.0, 1.0]])) is None  # they do not agree
    assert quarter_turns(np.array([[np.nan, np.nan]])) is None
    assert quarter_turns(np.zeros((0, 2))) is None
