"""Skips by marker: a test marked ``realdata`` needs the whole real photo set, and says where it looked."""

from __future__ import annotations

import pytest

from datasets.real import real_root
from tests.photos import HAVE_FULL_SET


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``realdata`` tests when the whole real set (230 photos) is not on this machine."""
    if HAVE_FULL_SET:
        return
    skip = pytest.mark.skip(reason=f"needs the whole real photo set (230 photos, CC BY 4.0) at {real_root()}: "
                                   "set $RUMMIKUB_REAL_DATA (README, Data)")
    for item in items:
        if item.get_closest_marker("realdata"):
            item.add_marker(skip)
