"""The real photos: labels load by class name, and checked label errors are corrected.

The six photos in tests/fixtures carry two of the corrections; the checks over all 230 photos need
the whole set.
"""

from __future__ import annotations

from collections import Counter

import pytest

from datasets import real
from tests.photos import SAMPLE


def test_class_names_are_alphabetical_and_mapped_by_name() -> None:
    names = real.class_names(SAMPLE)
    assert len(names) == 53 and names == sorted(names) and names[26] == "joker"


def test_corrections_fix_the_black_row_labelled_blue() -> None:
    def colours(corrected: bool) -> Counter:
        photo = next(p for p in real.load_split("test", SAMPLE, corrected=corrected) if p.image_path.name.startswith("rummy-2_"))
        return Counter(t.tile.colour.value if t.tile.colour else "J" for t in photo.tiles)

    assert colours(False)["B"] == 26 and colours(False)["K"] == 0
    assert colours(True)["B"] == 13 and colours(True)["K"] == 13


@pytest.mark.realdata
def test_every_correction_points_at_an_existing_row() -> None:
    fixes = real.corrections()
    by_name = {p.image_path.name: p for split in real.SPLITS for p in real.load_split(split, corrected=False)}
    for name, rows in fixes.items():
        assert name in by_name
        assert max(rows) < len(by_name[name].tiles)


def test_a_second_outline_over_one_tile_is_dropped() -> None:
    def photo(corrected: bool) -> real.LabelledPhoto:
        return next(p for p in real.load_split("test", SAMPLE, corrected=corrected) if p.image_path.name.startswith("rummy4-17_"))

    raw, fixed = photo(False), photo(True)
    assert len(raw.tiles) == 55 and len(fixed.tiles) == 54
    assert Counter(t.tile.code for t in raw.tiles)["K13"] == 2
    assert Counter(t.tile.code for t in fixed.tiles)["K13"] == 1
    # every other row is kept, in file order
    assert [t.polygon_xy for t in fixed.tiles] == [t.polygon_xy for i, t in enumerate(raw.tiles) if i != 38]


@pytest.mark.realdata
def test_every_drop_points_at_an_existing_row() -> None:
    by_name = {p.image_path.name: p for split in real.SPLITS for p in real.load_split(split, corrected=False)}
    for name, rows in real.dropped_rows().items():
        assert name in by_name and max(rows) < len(by_name[name].tiles)
