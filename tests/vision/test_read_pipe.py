"""``python -m vision.read PHOTO | head``: the command line ends quietly when its reader stops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.photos import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.model
def test_piping_a_reading_into_head_ends_quietly() -> None:
    """Issue 15: the JSON of a photo piped into a reader that has gone ended in a BrokenPipeError
    traceback; now the command stops quietly with 141 (128 + SIGPIPE)."""
    if not (ROOT / "models" / "tile_detector.onnx").exists():
        pytest.skip("the trained tile model is missing (models/tile_detector.onnx)")
    (photo,) = SAMPLE.glob("test/images/rummy-37_*.jpg")
    process = subprocess.Popen([sys.executable, "-m", "vision.read", str(photo), "--json"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line is written
    err = process.stderr.read().decode()
    assert process.wait(120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
