"""Photo in, :class:`~vision.reading.TableReading` out: networks, then layout and rules."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import numpy as np

from referee.ruleset import RuleSet
from vision.detect import MODELS_DIR, DetectorSettings, TileModel, clipped_share
from vision.layout import MODES

__all__ = ["TableReader", "load_reader", "read_table", "read_photo"]


class TableReader:
    """The shipped models loaded once, ready to read any number of photos (thread-safe)."""

    def __init__(self, models_dir: Path | str = MODELS_DIR, settings: DetectorSettings | None = None, threads: int | None = None,
                 profile=None) -> None:
        self.model = TileModel(models_dir, settings, threads)
        self.profile = profile  # a vision.profile.Profile taught on the player's edition, or None

    def with_profile(self, profile) -> "TableReader":
        """The same loaded models reading with a taught :class:`~vision.profile.Profile` (None:
        without). A profile's features come from the float reader it was taught with, so a reading
        with one runs that reader (:meth:`vision.detect.TileModel.with_float_reader`)."""
        other = object.__new__(TableReader)
        other.model = self.model if profile is None else self.model.with_float_reader()
        other.profile = profile
        return other

    def for_glare(self) -> "TableReader":
        """The same models and profile with the settings of an overexposed photo
        (:meth:`vision.detect.TileModel.for_glare`), for callers that find and read boxes
        themselves (the live referee)."""
        other = object.__new__(TableReader)
        other.model, other.profile = self.model.for_glare(), self.profile
        return other

    def detect(self, image_bgr: np.ndarray, timing: dict[str, float] | None = None, glare: float | None = None):
        """The tiles of one photo as :class:`~vision.detections.TileDetections` (no layout);
        ``glare`` as :meth:`vision.detect.TileModel.detect` takes it."""
        _check_image(image_bgr)
        return self.model.detect(image_bgr, timing, self.profile, glare)

    def find_boxes(self, image_bgr: np.ndarray, windows: list[tuple[int, int, int, int]] | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Tile boxes (N, 4) xyxy in image pixels and their detector scores (N,), not yet read:
        in the whole photo, or only inside ``windows`` (xyxy; one detector run each)."""
        _check_image(image_bgr)
        if windows is None:
            return self.model.find_boxes(image_bgr)
        return self.model.find_boxes_in(image_bgr, windows)

    def read_boxes(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, scores: np.ndarray):
        """The tiles in the given boxes as :class:`~vision.detections.TileDetections`, read (with
        the taught profile, if any); boxes the reader calls "not a tile" are dropped."""
        _check_image(image_bgr)
        return self.model.read_detections(image_bgr, boxes_xyxy, scores, self.profile)

    def read_table(self, image_bgr: np.ndarray, rules: RuleSet | None = None, mode: str = "table"):
        """Read every tile of an upright BGR photo, rebuild the sets and check them.

        ``mode`` is "table" (sets on the table; a rack where the photo shows one), "rack" (the
        photo shows one player's rack: every tile standing on it is a rack tile) or "flat" (the player says
        there is no rack in the photo).
        """
        h, w = image_bgr.shape[:2]
        return self._read(image_bgr, (w, h), 1.0, rules, mode, {})

    def read_photo(self, photo, rules: RuleSet | None = None, mode: str = "table"):
        """Read a :class:`~vision.image.DecodedPhoto` (or photo bytes, decoded here with
        :func:`~vision.image.decode_photo`): the fast path from a phone's JPEG, decoded straight at
        the size the networks need. Boxes and sizes in the reading are the full photo's pixels;
        ``timing_ms`` includes ``decode`` when bytes are given."""
        from vision.image import DecodedPhoto, decode_photo

        timing: dict[str, float] = {}
        if not isinstance(photo, DecodedPhoto):
            t0 = time.perf_counter()
            photo = decode_photo(photo)
            timing["decode"] = (time.perf_counter() - t0) * 1000
        return self._read(photo.image, (photo.width, photo.height), photo.scale, rules, mode, timing)

    def _read(self, image_bgr: np.ndarray, size: tuple[int, int], scale: float, rules: RuleSet | None, mode: str,
              timing: dict[str, float]):
        from vision.decode import build_reading
        from vision.detections import TileDetections

        if mode not in MODES:
            raise ValueError(f'unknown mode "{mode}": choose one of {", ".join(MODES)}')
        t0 = time.perf_counter()
        glare = self.glare(image_bgr)
        det = self.detect(image_bgr, timing, glare)
        if scale != 1.0:
            det = TileDetections(det.boxes_xyxy * np.float32(scale), det.scores, det.probs, det.up_xy)
        t1 = time.perf_counter()
        # The rack cue looks at the photo: image_bgr is it at 1/scale of the boxes' pixels.
        reading = build_reading(size, det, rules or RuleSet.classic(), mode, image_bgr, image_scale=scale)
        timing["layout"] = (time.perf_counter() - t1) * 1000
        timing["total"] = (time.perf_counter() - t0) * 1000 + timing.get("decode", 0.0)
        reading.timing_ms.update({k: round(v, 1) for k, v in timing.items()})
        return dataclasses.replace(reading, glare=glare) if glare else reading

    def glare(self, image_bgr: np.ndarray) -> float:
        """The share of ``image_bgr`` clipped white when it is past the glare gate
        (``DetectorSettings.glare_share``, where the detector reads it with its glare settings), else 0."""
        gate = getattr(getattr(self.model, "settings", None), "glare_share", 0.0)
        share = clipped_share(image_bgr) if gate > 0 else 0.0
        return share if share > gate else 0.0


def _check_image(image_bgr: np.ndarray) -> None:
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError("expected an upright BGR image: a numpy uint8 array of shape (height, width, 3)")


_lock = threading.Lock()
_default: TableReader | None = None


def load_reader(models_dir: Path | str | None = None) -> TableReader:
    """The process-wide reader with the shipped models (loaded on first call)."""
    global _default
    if models_dir is not None:
        return TableReader(models_dir)
    with _lock:
        if _default is None:
            _default = TableReader()
        return _default


def read_table(image_bgr: np.ndarray, rules: RuleSet | None = None, mode: str = "table"):
    """Read a table photo with the shipped models (see :meth:`TableReader.read_table`)."""
    return load_reader().read_table(image_bgr, rules, mode)


def read_photo(photo, rules: RuleSet | None = None, mode: str = "table"):
    """Read photo bytes or a :class:`~vision.image.DecodedPhoto` with the shipped models (see
    :meth:`TableReader.read_photo`)."""
    return load_reader().read_photo(photo, rules, mode)
