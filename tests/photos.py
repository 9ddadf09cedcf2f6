"""Real photos for the tests: six in the repository, and the whole set when a machine has it.

``tests/fixtures/rummikub-real-v1`` holds six photos of the real set (five of its test split, one
rack photo of its valid split) with their labels,
in the set's own layout (CC BY 4.0, attribution beside them): every photo flow, the browser tests
and the model's recall test run on them, on a fresh clone, with the same photos everywhere.

Measurements over whole splits (the layout's and the decoding's figures, the label corrections of
all 230 photos) need the whole set: they carry the ``realdata`` marker, and ``tests/conftest.py``
skips them, naming the folder, when :func:`datasets.real.real_root` does not hold it.
"""

from __future__ import annotations

from pathlib import Path

from datasets.real import real_root

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "rummikub-real-v1"
"""Six real photos with their labels and data.yaml, in the real set's layout (``test/``, ``valid/``)."""

HAVE_FULL_SET = all((real_root() / split / "labels").is_dir() for split in ("train", "valid", "test"))
"""Whether the whole real set (train, valid and test) is where :func:`datasets.real.real_root` says."""


def sample_photos() -> list[Path]:
    """The six photos in the repository (both splits), sorted by name."""
    return sorted(SAMPLE.glob("*/images/*.jpg"), key=lambda p: p.name)
