"""The one container every stage after the networks works with (supervision-style).

``TileDetections`` holds N detected tiles as parallel numpy arrays, checked on construction.
Model libraries (onnxruntime, ultralytics) stay inside ``vision.detect`` / ``vision.reader``;
everything after them sees only this type and referee types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.tiles import Tile

__all__ = ["TileDetections", "N_CODES", "CODES", "JOKER_INDEX"]

N_CODES = 53
"""Reading classes: ``Tile.index`` order, 0-51 numbered tiles (K1..K13, B1.., O1.., R1..R13), 52 joker."""
CODES: tuple[str, ...] = tuple(Tile.from_index(i).code for i in range(N_CODES))
JOKER_INDEX = N_CODES - 1
"""The joker's reading class (the last)."""


@dataclass
class TileDetections:
    """N tiles found in one upright image.

    Attributes:
        boxes_xyxy: (N, 4) float32 pixel boxes ``x1, y1, x2, y2`` in the upright (EXIF-applied) image.
        scores: (N,) float32 detector confidence that the box is a tile.
        probs: (N, 53) float32 reading probabilities over ``Tile.index`` (rows sum to 1);
            all zeros where the tile was not read yet.
        up_xy: (N, 2) float32 unit vector pointing to the top of each tile's face in image
            coordinates (x right, y down), or NaN where unknown.
    """

    boxes_xyxy: np.ndarray
    scores: np.ndarray
    probs: np.ndarray = field(default=None)  # type: ignore[assignment]
    up_xy: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.boxes_xyxy = np.asarray(self.boxes_xyxy, dtype=np.float32).reshape(-1, 4)
        n = len(self.boxes_xyxy)
        self.scores = np.asarray(self.scores, dtype=np.float32).reshape(-1)
        if self.probs is None:
            self.probs = np.zeros((n, N_CODES), dtype=np.float32)
        self.probs = np.asarray(self.probs, dtype=np.float32).reshape(-1, N_CODES)
        if self.up_xy is None:
            self.up_xy = np.full((n, 2), np.nan, dtype=np.float32)
        self.up_xy = np.asarray(self.up_xy, dtype=np.float32).reshape(-1, 2)
        for name in ("scores", "probs", "up_xy"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"TileDetections.{name} has {len(getattr(self, name))} rows for {n} boxes")

    def __len__(self) -> int:
        return len(self.boxes_xyxy)

    @classmethod
    def empty(cls) -> TileDetections:
        return cls(np.zeros((0, 4)), np.zeros(0))

    @classmethod
    def from_tiles(cls, boxes_xyxy: np.ndarray, tiles: list[Tile], confidence: float = 1.0) -> TileDetections:
        """Certain readings (e.g. ground-truth labels): one-hot probabilities."""
        probs = np.zeros((len(tiles), N_CODES), dtype=np.float32)
        for i, t in enumerate(tiles):
            probs[i, t.index] = 1.0
        return cls(boxes_xyxy, np.full(len(tiles), confidence), probs)

    def __getitem__(self, index: object) -> TileDetections:
        """Select rows with a numpy index (slice, boolean mask or integer array)."""
        idx = np.arange(len(self))[index]  # type: ignore[index]
        idx = np.atleast_1d(idx)
        return TileDetections(self.boxes_xyxy[idx], self.scores[idx], self.probs[idx], self.up_xy[idx])

    @property
    def centers_xy(self) -> np.ndarray:
        b = self.boxes_xyxy
        return np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)

    def best_tiles(self) -> list[Tile | None]:
        """Most probable reading of each tile (None where unread)."""
        out: list[Tile | None] = []
        for row in self.probs:
            out.append(Tile.from_index(int(row.argmax())) if row.sum() > 0 else None)
        return out
