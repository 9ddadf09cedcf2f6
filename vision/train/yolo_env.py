"""Offline set-up for ultralytics: call :func:`prepare` before importing ultralytics.

Nothing may be downloaded at run time (no weights, fonts or data): ultralytics is told it is
offline, may not pip-install anything, keeps its settings in a project folder, and finds the font
its plots want there (copied from matplotlib's DejaVu Sans, an installed package).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parents[2] / ".cache" / "ultralytics"


def prepare(threads: int | None = None) -> None:
    """Set the environment ultralytics reads at import time. Idempotent."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    os.environ.setdefault("YOLO_VERBOSE", "True")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(CONFIG_DIR))
    # ultralytics sets OMP_NUM_THREADS=1 when it is unset: use every core instead.
    os.environ.setdefault("OMP_NUM_THREADS", str(threads or os.cpu_count() or 1))
    config = Path(os.environ["YOLO_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    for font in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = config / font
        if not target.exists():
            source = _dejavu()
            if source is not None:
                shutil.copyfile(source, target)


def _dejavu() -> Path | None:
    try:
        import matplotlib
    except ImportError:
        return None
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return path if path.exists() else None
