"""The real photo set (rummikub-real-v1): loading labels and exporting training sets.

The 230 photos are CC BY 4.0 (Roboflow Universe, see the README's "Data"). Apart from the six test
fixtures in ``tests/fixtures`` they are not in this repository: tools read them in place (see
:func:`real_root`) and training folders link to them.

Labels are ultralytics polygon rows with ALPHABETICAL class order (``black_1, black_10, ...``):
classes are mapped by name, never by index.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from referee.tiles import Tile, parse_tile

__all__ = ["REAL_ROOT", "LabelledTile", "LabelledPhoto", "load_split", "real_root", "class_names", "corrections", "dropped_rows"]

REPO = Path(__file__).resolve().parent.parent
REAL_ROOT = REPO / "data" / "rummikub-real-v1"
# Where this team's machines keep the set, beside the repository (used when REAL_ROOT is absent).
_BESIDE = REPO.parent / "shared" / "datasets" / "rummikub-real-v1"
CORRECTIONS = Path(__file__).resolve().parent / "labels" / "real_corrections.json"
SPLITS = ("train", "valid", "test")


def real_root() -> Path:
    """Where the real data set lies: ``$RUMMIKUB_REAL_DATA``, else ``data/rummikub-real-v1`` in the
    repository (git-ignored), else the team machines' folder beside the repository."""
    env = os.environ.get("RUMMIKUB_REAL_DATA")
    if env:
        return Path(env)
    return REAL_ROOT if REAL_ROOT.is_dir() or not _BESIDE.is_dir() else _BESIDE


@dataclass(frozen=True)
class LabelledTile:
    """One labelled tile: its reading and its outline in pixels of the photo."""

    tile: Tile
    polygon_xy: tuple[tuple[float, float], ...]

    @property
    def box_xyxy(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.polygon_xy]
        ys = [p[1] for p in self.polygon_xy]
        return (min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class LabelledPhoto:
    image_path: Path
    label_path: Path
    width: int
    height: int
    tiles: tuple[LabelledTile, ...] = field(default_factory=tuple)


def class_names(root: Path | None = None) -> list[str]:
    """Class names in the label files' (alphabetical) index order, read from data.yaml."""
    import yaml  # lazy: PyYAML comes with the test and train extras, not the app

    path = (root or real_root()) / "data.yaml"
    names = yaml.safe_load(path.read_text()).get("names")
    if isinstance(names, dict):  # ultralytics also writes names as {index: name}
        names = [names[k] for k in sorted(names)]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{path}: 'names' is not a list of class names")
    return names


def _image_size(path: Path) -> tuple[int, int]:
    import cv2  # lazy: datasets may be imported without opencv for label work

    image = cv2.imread(str(path))
    if image is None:
        raise OSError(f"cannot read image {path}")
    return image.shape[1], image.shape[0]


def _correction_entries() -> dict[str, dict]:
    import json

    data = json.loads(CORRECTIONS.read_text())
    return {name: entry for name, entry in data.items() if isinstance(entry, dict)}


def corrections() -> dict[str, dict[int, Tile]]:
    """Label errors of the shared set, checked by eye: photo name -> {label row: right tile}."""
    return {name: {int(row): parse_tile(code) for row, code in entry.get("rows", {}).items()}
            for name, entry in _correction_entries().items() if entry.get("rows")}


def dropped_rows() -> dict[str, frozenset[int]]:
    """Label rows that outline no tile of their own (checked by eye): photo name -> label rows."""
    return {name: frozenset(int(r) for r in entry["drop"]) for name, entry in _correction_entries().items() if entry.get("drop")}


def load_split(split: str, root: Path | None = None, corrected: bool = True) -> list[LabelledPhoto]:
    """All photos of one split ("train", "valid" or "test"), labels in pixels, sorted by name.

    ``corrected`` applies datasets/labels/real_corrections.json (label errors checked by eye).
    """
    if split not in SPLITS:
        raise ValueError(f'unknown split "{split}": choose one of {", ".join(SPLITS)}')
    root = root or real_root()
    if not (root / split).is_dir():
        raise FileNotFoundError(f"real data set not found at {root} (set RUMMIKUB_REAL_DATA)")
    names = class_names(root)
    tiles_by_class = [parse_tile(n) for n in names]
    fixes = corrections() if corrected else {}
    drops = dropped_rows() if corrected else {}
    photos = []
    for image_path in sorted((root / split / "images").glob("*.jpg")):
        label_path = root / split / "labels" / (image_path.stem + ".txt")
        width, height = _image_size(image_path)
        tiles = []
        drop = drops.get(image_path.name, frozenset())
        if label_path.exists():
            row_index = -1
            for row in label_path.read_text().split("\n"):
                parts = row.split()
                if len(parts) < 5:
                    continue
                row_index += 1
                if row_index in drop:
                    continue
                cls = int(parts[0])
                coords = [float(v) for v in parts[1:]]
                if len(coords) == 4:  # a box row (cx, cy, w, h): make it a 4-point polygon
                    cx, cy, w, h = coords
                    coords = [cx - w / 2, cy - h / 2, cx + w / 2, cy - h / 2, cx + w / 2, cy + h / 2, cx - w / 2, cy + h / 2]
                poly = tuple((coords[i] * width, coords[i + 1] * height) for i in range(0, len(coords) - 1, 2))
                tile = fixes.get(image_path.name, {}).get(row_index, tiles_by_class[cls])
                tiles.append(LabelledTile(tile, poly))
        photos.append(LabelledPhoto(image_path, label_path, width, height, tuple(tiles)))
    return photos
