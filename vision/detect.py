"""Tile detection and reading with onnxruntime: the only module that touches model runtimes.

``TileModel`` loads the two shipped networks once (``models/tile_detector.onnx`` and
``models/tile_reader.onnx``) and turns an upright BGR image into :class:`TileDetections`:

1. the detector runs on the photo letterboxed to its input size (e.g. 512 px); when the tiles it
   finds are small (a far shot), also on those of the photo's overlapping windows (four quarters,
   or a 3 x 3 grid) that hold a small box it was unsure of;
2. the reader runs on square crops cut from the full-resolution photo around each box;
3. the reader's number and colour probabilities combine into 53 tile probabilities; crops the
   reader calls "not a tile" are dropped.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.boxes import intersections, iou_matrix
from vision.detections import JOKER_INDEX, N_CODES, TileDetections
from vision.layout import next_in_line

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "tile_detector.onnx"
DETECTOR_INT8_FILE = "tile_detector.int8.onnx"
"""The same detector with its backbone and neck in 8-bit integers and its head in float (``python
-m vision.train.quantize``): served instead of :data:`DETECTOR_FILE` when it is there. Measured in
session 17 (models/README.md): 0.8x the float model's time a run; on validation the same mean tile
F1 (0.9778) and sets (1,366 of 1,460 layout dev sets against 1,369; real train and valid 256 of 263
both)."""
READER_FILE = "tile_reader.onnx"
READER_INT8_FILE = "tile_reader.int8.onnx"
"""The same reader with its convolutions in 8-bit integers but the first, which stays in float
with its three heads (``python -m vision.train.quantize --net reader``): served instead of
:data:`READER_FILE` when it is there and made from it, except where a taught profile is taught or
read (its features are the float reader's: :meth:`TileModel.with_float_networks`,
:meth:`TileModel.with_float_reader`). About twice as fast alone (13 crops 18 -> 9 ms, session 23)."""


class ModelMissingError(FileNotFoundError):
    """The shipped weights are not where they should be."""


@dataclass(frozen=True)
class DetectorSettings:
    """Thresholds of the detection stage (defaults measured on the real validation split)."""

    min_score: float = 0.5
    """Detector confidence below which a box is dropped before reading (but see ``confirm_below``).
    Chosen on validation with the session-9 detector (models/README.md): mean F1 over real valid
    and the rendered rack, held-out families and cloth val scenes 0.9592 at 0.3, 0.9603 at 0.4,
    0.9607 at 0.5, 0.9566 at 0.6 (session 8's detector: 0.9590 at 0.4, 0.9589 at 0.5)."""
    confirm_below: float = 0.0
    """Boxes scoring from this up to ``min_score`` are read too, and kept only when the reader is
    sure they hold a tile and which one (``confirm_read``): a tile the detector half-saw (a back
    tier, a grazing angle) is still found, a patch of cloth is not. 0: off."""
    confirm_read: float = 0.9
    """P(a tile) x P(its most likely reading) a low-scoring box needs to be kept."""
    min_read: float = 0.2
    """A box whose best reading, P(a tile) x P(its most likely tile), is below this is dropped: a
    patterned cloth's dots or a knot in the wood that the detector took for a tile reads as no
    tile in particular. 0: off. Chosen on validation (models/README.md, session 7): mean F1 0.9536
    off, 0.9544 at 0.15, 0.9581 at 0.3, 0.9569 at 0.4, 0.9523 at 0.5; again in session 8, with the
    patterned cloths' validation scenes and the new reader: 0.9533 at 0.15, 0.9543 at 0.3, 0.9529 at 0.4.
    Session 13, with its reader and ``sure_score``: 0.9737 at 0.2, 0.9734 at 0.3, 0.9730 at 0.4."""
    sure_score: float = 0.6
    """A box the detector scores at least this, and the reader calls a tile (P(not a tile) at most
    ``sure_none``), is kept however unsure its reading (``min_read`` does not apply): a tile whose
    numeral is hard to read is still a tile, shown with its doubt, and a set's other tiles can tell
    what it is. 0: off. Measured on validation (session 13, models/README.md): of the rack val
    scenes' missed tiles, 38 of 91 had been found and then dropped by ``min_read`` (P(a tile) near 1,
    the reading spread over a few codes). Sets read exactly on the held-out layout scenes
    (seed 78) 1,249 off -> 1,298 of 1,382 at 0.6 / 0.2 (1,274 at 0.7 / 0.05, 1,300 at 0.5 / 0.2),
    real train and valid 255 -> 257 of 263; mean tile F1 0.9723 -> 0.9718 (racks 0.9631 -> 0.9637,
    held-out families 0.9689 -> 0.9685, cloths 0.9571 -> 0.9552: half the tiles kept are read
    right, and a few are a cloth's pattern)."""
    sure_none: float = 0.2
    """Most P(not a tile) a box kept by ``sure_score`` may have."""
    joker_read: float = 0.0
    """A box read as a joker needs at least this certainty (as ``min_read``; the higher of the two
    applies). A game has 2 jokers in 106 tiles, while a cloth's rings, flowers and faces look more
    like a joker's face than like any numeral. 0: only ``min_read``. Measured on validation
    (session 8): with the session-7 reader 0.7 helped (mean F1 0.9433 -> 0.9445), with the reader
    trained on mined cloth boxes it costs (0.9543 off, 0.9529 at 0.7, 0.9523 at 0.85), so off."""
    nms_iou: float = 0.4
    """Boxes overlapping more than this (IoU) with a better one are duplicates. Tiles side by side,
    or a rack's tiers, overlap far less; a second box shifted along one tile (IoU 0.45-0.5) took a
    real tile's place in a set or split it. Chosen on validation (session 20), 0.5 / 0.45 / 0.4 /
    0.35: mean tile F1 0.9788 / 0.9788 / 0.9790 / 0.9792 (racks 0.9715 / 0.9717 / 0.9711 / 0.9711),
    sets as read on the layout dev scenes 1,376 / - / 1,384 / 1,382 (false sets 107 / - / 97 / 99),
    real train and valid photos 257 of 263 at each."""
    max_none: float = 0.5
    """Reader probability of "not a tile" above which a box is dropped."""
    max_covered: float = 0.85
    """A box whose area is covered more than this by more confident boxes is dropped: it
    straddles two touching tiles that were both found (NMS keeps it, its IoU with each is low)."""
    glare_share: float = 0.05
    """A photo with more than this share of clipped white pixels (:func:`clipped_share`) is
    overexposed - glare, a flash, a phone exposing for a black rack - and its tiles lose the edges
    the detector scores: it is read with ``confirm_below`` at ``glare_confirm_below`` and
    ``confirm_read`` at ``glare_confirm_read``, so boxes the detector half-saw are kept where the
    reader is sure of them. 0: off. The real train and valid photos hold no clipped pixel (their
    213), rendered scenes with glare up to 0.6. Chosen on validation (session 19,
    models/README.md): the real valid photos at 1.5 times the light plus 20 levels
    (``python -m vision.evaluate.robust``) tile F1 0.9862 off -> 0.9958, at 1.8 times plus 30
    0.9496 -> 0.9755; mean tile F1 on the four validation sets as taken 0.9781 -> 0.9788."""
    glare_confirm_below: float = 0.1
    """``confirm_below`` on an overexposed photo (``glare_share``)."""
    glare_confirm_read: float = 0.7
    """``confirm_read`` on an overexposed photo (``glare_share``)."""
    quarters_below: float = 24.0
    """When the tiles found are this small (median short side, in detector input pixels) or
    none are found, the photo is searched again in four overlapping quarters, each at the
    detector's full input size (twice the resolution): far shots of a whole table. 0: off.
    The shared close-ups have tiles of 26-107 px, so it leaves them alone; chosen on the far
    shots of the real valid split and the rendered val scenes (models/README.md)."""
    quarters_overlap: float = 0.2
    """Share of each quarter's width and height that overlaps its neighbour, so that a tile cut
    by one quarter's edge lies whole in the next (``datasets.zoom_crops`` trains on the same)."""
    ninths_below: float = 20.0
    """When the tiles the whole photo's run found are smaller still (median short side, detector
    input pixels), the second search uses a 3 x 3 grid of overlapping windows (three times the
    resolution) instead of the quarters: a whole table shot from a standing player's height. 0: off.
    Chosen on validation (session 9, models/README.md): mean F1 over the rendered rack, held-out
    families and cloth val scenes 0.9411 off, 0.9423 at 12, 0.9434 at 16, 0.9454 at 20, 0.9451 at
    24 (a 4 x 4 grid below 12 px as well: 0.9452). Since session 14 the quarters also become the
    3 x 3 grid when the small things alone (``_finer_grid``) are under it, where the windows keep
    the photo's own resolution: a rack close up with the table's tiles far behind. On the
    rendered layout dev scenes (seed 79) tiles never boxed 119 -> 85 of 6,150, sets read exactly
    1,345 -> 1,355 of 1,460; mean tile F1 on validation 0.9737 -> 0.9736 (racks 0.9651 -> 0.9647)."""
    small_hints: int = 5
    """The second search also runs when the whole photo's run has at least this many faint, small
    boxes (scoring ``hint_score`` or more but under ``min_score``, short side under
    ``quarters_below`` detector pixels, apart after NMS), however large the tiles it found surely
    are: a rack close up with the table's tiles far behind it, where the median of the sure boxes is
    the rack's. The grid is chosen by the faint boxes' median (3 x 3 under ``ninths_below``).
    0: off. Chosen on validation (session 10, models/README.md): mean F1 over real valid and the
    rendered rack, held-out families and cloth val scenes 0.9655 off, 0.9658 at 3, 0.9660 at 5,
    0.9657 at 8 and 15 (``hint_score`` 0.3; 0.1 and 0.2 no better). It searches again 1 of 34 real
    valid photos (read as before) and 31 of 280 rendered val scenes."""
    hint_score: float = 0.3
    """Least detector score of a faint box counted by ``small_hints``."""
    window_score: float = 0.01
    """The second search runs only in the windows that hold the centre of a small thing the whole
    photo's run was unsure of: a box with a short side under ``quarters_below`` detector pixels,
    scoring at least this but under ``min_score``, apart from better boxes after NMS. Windows of
    bare table, of the rack's bar or of tiles already found are not searched again; when the run
    found nothing at all, every window is. 0: every window (the second search costs one detector
    run per window). Chosen on validation (session 14, models/README.md), real valid and the
    rendered rack, held-out families and cloth val scenes: every window 0.9737 mean tile F1 and
    1,294 windows searched; 0.01: 0.9737, 665 windows; 0.05: 0.9734, 509; 0.1: 0.9732; 0.2:
    0.9729. Seeding with every small box from 0.05 up, found tiles too: 0.9737, 729 windows, but
    the benchmark's rendered racks stayed at 1.5 times the baseline's time (a found tile has faint
    boxes around it); with this setting 0.93-0.96 (session 13: 1.71)."""
    line_none: float = 0.2
    """Where a line of tiles says its next tile would lie (one step beyond each end of every line
    of two or more tiles, :func:`vision.layout.next_in_line`) and no box is, the reader looks at
    that place; a tile it sees there with P(not a tile) at most this is kept (detector score 0).
    Tiles the detector missed (far and tiny, half hidden, blurred) lie there most often: a set's
    last tile, or one inside a set that the gap cut in two. 0: off. Measured on the rendered
    layout dev scenes (seed 79; models/README.md, session 15): of 2,369 places read, 30 held a
    missed tile, 16 of them read with P(not a tile) under 0.2, and none of the 1,474 places
    of bare table."""
    line_colour: float = 60.0
    """A place looked at along a line is read only when the middle of it is within this colour
    distance (CIELAB, OpenCV's 8-bit scale) of the middle of the line's end tile: bare table
    mostly is not, a tile of the line's mostly is (dev scenes, seed 79: every tile the look kept
    within 52, 1,112 of 2,553 places within 60). 0: read every place."""
    line_rounds: int = 2
    """How many times the look along the lines is repeated (a tile found extends its line)."""
    wider_below: float = 0.95
    """A tile whose most probable number (or joker) has less than this probability is read again
    from a window ``wider_scale`` times as wide, and the two readings of its number and colour are
    averaged (P(not a tile) stays the first reading's): more of the tile's face and edge around a
    numeral the reader is unsure of. 0: off. Chosen on validation (session 15, models/README.md):
    mean tile F1 0.9748 off, **0.9757 at 0.9** (15% of the tiles read twice; held-out families
    0.9696 -> 0.9734, cloths 0.9626 -> 0.9633, racks 0.9669 -> 0.9660), 0.9760 at 0.95 (33% read
    twice) and, averaging P(not a tile) too, 0.9760 at 0.99 (82%: nearly the reader's time again,
    which the speed target has no room for). Sets read exactly on the dev layout scenes 1,370 ->
    1,368 of 1,460 (averaging P(not a tile) too: 1,365). With ``wider_turns`` 4 (session 16): 0.9778
    at 0.9, 0.9780 at 0.95, 0.9782 at 0.99. Session 23, with the reader in 8 bits
    (:data:`READER_INT8_FILE`, about twice as fast alone), **0.95**: 0.9790 at 0.9, 0.9799 at 0.95 (the
    float reader: 0.9795 at 0.9, 0.9804 at 0.95; an earlier int8 file 0.9800 at 0.95, 0.9801 at 0.99)."""
    wider_scale: float = 1.1
    """How much wider the second window is."""
    wider_turns: int = 4
    """A doubtful tile's own crop is read in this many quarter turns (1: as it is; 4: all four), and
    those readings averaged with the wider window's: the reader learned every rotation, so each turn
    is one more look at the numeral. Chosen on validation (session 16, models/README.md): mean tile
    F1 0.9757 with 1 (session 15), **0.9778 with 4** (racks 0.9660 -> 0.9713, held-out families
    0.9734 -> 0.9753, cloths 0.9633 -> 0.9647; real valid 1.0); the 180-degree turn alone 0.9751.
    Turning the wider window as well reads 0.9787 but costs 7 more reader passes per doubtful tile
    instead of 4, which the speed target (issue 14) has no room for."""
    ocr_below: float = 0.0
    """A tile whose most probable number has less than this probability gets a second opinion
    from the general text recogniser (``vision.ocr``, the ``ocr`` extra), when it is installed.
    0: never (the default): with the shipped models it does not help on validation, but it does on
    held-out serif numerals, so it stays a setting to measure again with the next reader
    (``python -m vision.evaluate.tune``; figures in models/README.md, "Thresholds")."""
    ocr_weight: float = 1.0
    """Exponent of the recogniser's number probabilities in the product with the reader's."""
    ocr_max_tiles: int = 16
    """At most this many doubtful tiles per photo go to the recogniser (each costs a recogniser run:
    docs/measurements.md)."""


STRIDE = 32  # the detector's largest stride: a rectangular input is padded to a multiple of it


def onnx_session(path: Path, threads: int | None):  # noqa: ANN201 - onnxruntime stays a lazy import
    """An onnxruntime CPU session for one model file (``threads`` for its operators; default all cores).

    Raises :class:`ModelMissingError` naming the file when it is absent.
    """
    import onnxruntime as ort  # lazy: importing vision must stay cheap

    if not path.exists():
        raise ModelMissingError(f"model file {path} is missing: train it with `python -m vision.train` or restore models/")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # Idle worker threads sleep instead of spinning: on a CPU shared with the web server (or a
    # training), spinning threads steal the cores the work needs (measured: 2 threads under load,
    # detector median 143 ms spinning vs 93 ms not).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def detector_input(session, card: dict) -> tuple[bool, tuple[int, int]]:  # noqa: ANN001 - onnxruntime session
    """(rectangular?, (width, height)) of a detector's input. A model exported with dynamic sizes
    takes the photo letterboxed to the card's ``imgsz`` on its long side and padded to a multiple of
    :data:`STRIDE` (as ultralytics predicts); a fixed-size one takes a square."""
    shape = session.get_inputs()[0].shape  # [1, 3, H, W]; names instead of sizes when dynamic
    if all(isinstance(d, int) for d in shape[2:]):
        return False, (int(shape[3]), int(shape[2]))
    side = int(card.get("imgsz", 512))
    return True, (side, side)


def letterbox(image_bgr: np.ndarray, det_size: tuple[int, int], rect_input: bool) -> tuple[np.ndarray, float, int, int]:
    """A detector's input for ``image_bgr`` (1, 3, H, W float32 RGB in 0..1), letterboxed as
    ultralytics predicts into ``det_size`` (width, height; :func:`detector_input`), and the scale
    image -> input with the left and top padding."""
    h, w = image_bgr.shape[:2]
    dw, dh = det_size
    r = min(dw / w, dh / h)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    if rect_input:  # as ultralytics predicts: pad only up to a multiple of the stride, not a square
        dw, dh = -(-nw // STRIDE) * STRIDE, -(-nh // STRIDE) * STRIDE
    small = _resize(image_bgr, nw, nh)
    canvas = np.full((dh, dw, 3), 114, dtype=np.uint8)
    top, left = (dh - nh) // 2, (dw - nw) // 2
    canvas[top:top + nh, left:left + nw] = small
    blob = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0  # ultralytics wants RGB
    return blob, r, left, top


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file's bytes."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def int8_twin(models_dir: Path, card: dict, float_name: str = DETECTOR_FILE, int8_name: str = DETECTOR_INT8_FILE) -> Path | None:
    """``models_dir``'s 8-bit file ``int8_name`` when it was made from the float network
    ``float_name`` that is there now (the card's ``int8.from_sha256``, written by
    ``vision.train.quantize``), else None: a network trained again is served in float until it is
    quantized again, never through the old one's integer copy."""
    int8 = models_dir / int8_name
    made_from = card.get("int8", {}).get("from_sha256")
    if not int8.exists() or not made_from:
        return None
    float_file = models_dir / float_name
    return int8 if not float_file.exists() or file_sha256(float_file) == made_from else None


class TileModel:
    """The detector and the reader, loaded once; call :meth:`detect` per image."""

    _ocr = None  # vision.ocr.NumberOCR, loaded on the first doubtful tile (per instance; DiceModel too)
    crop_stretch_at = 0.0  # the reader's crop rule (vision.crops.crop_square), from its card

    def __init__(self, models_dir: Path | str = MODELS_DIR, settings: DetectorSettings | None = None, threads: int | None = None,
                 float_detector: bool = False, float_reader: bool = False) -> None:
        """``float_detector``: run :data:`DETECTOR_FILE` even when :data:`DETECTOR_INT8_FILE` is
        there; ``float_reader``: :data:`READER_FILE` even when :data:`READER_INT8_FILE` is."""
        models_dir = Path(models_dir)
        self.settings = settings or DetectorSettings()
        self.cards = {}
        for name in ("tile_detector", "tile_reader"):
            card = models_dir / f"{name}.json"
            if card.exists():
                self.cards[name] = json.loads(card.read_text())
        int8 = None if float_detector else int8_twin(models_dir, self.cards.get("tile_detector", {}))
        self.detector_file = int8 or models_dir / DETECTOR_FILE
        self.detector = onnx_session(self.detector_file, threads)
        self._threads, self._float_twins = threads, {}
        int8 = None if float_reader else int8_twin(models_dir, self.cards.get("tile_reader", {}), READER_FILE, READER_INT8_FILE)
        self.reader_file = int8 or models_dir / READER_FILE
        self.reader = onnx_session(self.reader_file, threads)
        self.reader_size = int(self.reader.get_inputs()[0].shape[3])
        self.rect_input, self.det_size = detector_input(self.detector, self.cards.get("tile_detector", {}))
        self.crop_stretch_at = float(self.cards.get("tile_reader", {}).get("crop_stretch_at", 0.0))

    def with_float_networks(self) -> "TileModel":
        """This model with the float detector (:data:`DETECTOR_FILE`) and the float reader
        (:data:`READER_FILE`), the same settings; itself when it already runs both. Teaching reads
        with it (``vision.teach``): there a tile the detector half-saw is taken because the player
        said it is there, and the int8 detector's faint scores differ most (a white edition's
        joker on a teaching photo: 0.26 in float, 0.09 in 8 bits, under the 0.15 teaching floor;
        models/README.md, session 17); and a profile's features are the float reader's."""
        return self._twin(float_detector=True)

    def with_float_reader(self) -> "TileModel":
        """This model with the float reader (:data:`READER_FILE`), the same detector and settings;
        itself when it already runs it. A taught profile's features are the float reader's, so a
        photo read with a profile is read by it (:meth:`vision.pipeline.TableReader.with_profile`),
        its tiles found as without one (the float detector there read one tile of 236 worse on the
        held-out hack family's photos: models/README.md, session 23)."""
        return self._twin(float_detector=False)

    def _twin(self, float_detector: bool) -> "TileModel":
        """This model with the float reader, and the float detector too if ``float_detector``
        (each twin made once, sharing the float sessions; the settings always this model's, and a
        twin shared between requests never changed: another model's settings get a shallow copy)."""
        detector_file = self.detector_file.with_name(DETECTOR_FILE) if float_detector else self.detector_file
        if detector_file == self.detector_file and self.reader_file.name == READER_FILE:
            return self
        twin = self._float_twins.get(float_detector)
        if twin is None:
            import copy

            twin = copy.copy(self)
            twin._float_twins = {}
            if detector_file != self.detector_file:
                twin.detector_file = detector_file
                twin.detector = onnx_session(detector_file, self._threads)
            if self.reader_file.name != READER_FILE:
                other = next(iter(self._float_twins.values()), None)  # a float reader already loaded
                twin.reader_file = self.reader_file.with_name(READER_FILE)
                twin.reader = other.reader if other is not None else onnx_session(twin.reader_file, self._threads)
            self._float_twins[float_detector] = twin
        if twin.settings is not self.settings:  # e.g. the glare settings (for_glare shares the twins)
            import copy

            twin = copy.copy(twin)
            twin.settings = self.settings
        return twin

    # ------------------------------------------------------------------ detector
    @property
    def score_floor(self) -> float:
        """The lowest detector score a box may have to be read at all."""
        low = self.settings.confirm_below
        return min(self.settings.min_score, low) if low > 0 else self.settings.min_score

    def find_boxes(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tile boxes (N, 4) xyxy in image pixels and their detector scores (N,)."""
        h, w = image_bgr.shape[:2]
        settings = self.settings
        hints = settings.small_hints > 0 and settings.quarters_below > 0
        floor = min(settings.hint_score, self.score_floor) if hints else self.score_floor
        seeding = settings.window_score > 0 and settings.quarters_below > 0
        boxes, scores, scale = self._raw_boxes(image_bgr, min(floor, settings.window_score) if seeding else floor)
        seeds = None
        if seeding:  # small things the run was unsure of, however faint: where to search again
            seeds = _small_apart(boxes, scores, scale, settings.quarters_below, settings.nms_iou, boxes_too=True)
            seeds = seeds[seeds[:, 4] < self.score_floor, :4]
            boxes, scores = boxes[scores >= floor], scores[scores >= floor]
        if hints:  # the faint boxes only hint at far tiles; the sure ones go on as before
            faint = scores < self.score_floor
            faint_boxes, faint_scores = boxes[faint], scores[faint]
            boxes, scores = boxes[~faint], scores[~faint]
        if settings.quarters_below > 0 and min(h, w) >= 64:
            sides = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * scale
            median = float(np.median(sides)) if len(sides) else 0.0
            n = 0
            if len(sides) == 0 or median < settings.quarters_below:
                n = 3 if len(sides) and median < settings.ninths_below else 2
            elif hints:
                small = _small_apart(faint_boxes, faint_scores, scale, settings.quarters_below, settings.nms_iou)
                if len(small) >= settings.small_hints:
                    n = 3 if float(np.median(small)) < settings.ninths_below else 2
            if n == 2:
                n = self._finer_grid(sides, seeds, scale, w, h)
            if n:
                if seeds is not None and not len(boxes):
                    seeds = None  # nothing seen at all: every window, as a far shot needs
                more, more_scores = self._quarter_boxes(image_bgr, n, seeds)
                boxes, scores = np.concatenate([boxes, more]), np.concatenate([scores, more_scores])
        return self._merge(boxes, scores, w, h)

    def _finer_grid(self, sides: np.ndarray, seeds: np.ndarray | None, scale: float, w: int, h: int) -> int:
        """3 (a 3 x 3 grid) when the small things of the photo - the sure boxes under
        ``quarters_below`` and the seeds, short sides in detector pixels - have a median under
        ``ninths_below`` and the 3 x 3 windows still hold as many photo pixels as the detector's
        input (no window blown up past the photo's own resolution); else 2. The sure boxes'
        median alone mixes a close rack's tiles with the table's far ones."""
        small = [sides[sides < self.settings.quarters_below]]
        if seeds is not None:
            small.append(np.minimum(seeds[:, 2] - seeds[:, 0], seeds[:, 3] - seeds[:, 1]) * scale)
        small = np.concatenate(small)
        fits = max(w, h) * (1 + self.settings.quarters_overlap) / 3 >= max(self.det_size)
        return 3 if len(small) and fits and float(np.median(small)) < self.settings.ninths_below else 2

    def _raw_boxes(self, image_bgr: np.ndarray, floor: float | None = None) -> tuple[np.ndarray, np.ndarray, float]:
        """One detector run on the image letterboxed to the detector's input: boxes (xyxy, image
        pixels) and scores of at least ``floor`` (default :attr:`score_floor`), before NMS; and
        the scale image -> input."""
        blob, r, left, top = letterbox(image_bgr, self.det_size, self.rect_input)
        out = self.detector.run(None, {self.detector.get_inputs()[0].name: blob})[0][0]  # (5, A)
        keep = out[4] >= (self.score_floor if floor is None else floor)
        cx, cy, bw, bh = out[0][keep], out[1][keep], out[2][keep], out[3][keep]
        boxes = np.stack([cx - bw / 2 - left, cy - bh / 2 - top, cx + bw / 2 - left, cy + bh / 2 - top], axis=1) / r
        return boxes.reshape(-1, 4).astype(np.float32), out[4][keep].astype(np.float32), r

    def _quarter_boxes(self, image_bgr: np.ndarray, n: int = 2, seeds: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Boxes and scores from the image's ``n`` x ``n`` overlapping windows (four quarters by
        default), each run alone; with ``seeds`` (boxes, xyxy), only the windows holding a seed's
        centre. A box touching a window's edge inside the image may be a cut tile: it is left to
        the neighbouring window, which holds that tile whole."""
        h, w = image_bgr.shape[:2]
        cw, ch, origins = quarters(w, h, self.settings.quarters_overlap, n)
        windows = [(x0, y0, x0 + cw, y0 + ch) for x0, y0 in origins]
        if seeds is not None:
            cx, cy = (seeds[:, 0] + seeds[:, 2]) / 2, (seeds[:, 1] + seeds[:, 3]) / 2
            windows = [(x0, y0, x1, y1) for x0, y0, x1, y1 in windows
                       if ((cx >= x0) & (cx < x1) & (cy >= y0) & (cy < y1)).any()]
        return self._window_boxes(image_bgr, windows)

    def _window_boxes(self, image_bgr: np.ndarray, windows: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Boxes and scores (image pixels, before NMS) from one detector run per window (xyxy).
        A box touching a window's edge inside the image may be a cut tile: it is left out (a
        neighbouring window holds that tile whole)."""
        h, w = image_bgr.shape[:2]
        found_boxes, found_scores = [np.zeros((0, 4), np.float32)], [np.zeros(0, np.float32)]
        for x0, y0, x1, y1 in windows:
            boxes, scores, r = self._raw_boxes(image_bgr[y0:y1, x0:x1])
            margin = 4.0 / r  # 4 detector pixels
            whole = np.ones(len(boxes), dtype=bool)
            if x0 > 0:
                whole &= boxes[:, 0] > margin
            if x1 < w:
                whole &= boxes[:, 2] < x1 - x0 - margin
            if y0 > 0:
                whole &= boxes[:, 1] > margin
            if y1 < h:
                whole &= boxes[:, 3] < y1 - y0 - margin
            found_boxes.append(boxes[whole] + np.array([x0, y0, x0, y0], np.float32))
            found_scores.append(scores[whole])
        return np.concatenate(found_boxes), np.concatenate(found_scores)

    def find_boxes_in(self, image_bgr: np.ndarray, windows: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Tile boxes (N, 4) xyxy in image pixels and their scores, searched only inside
        ``windows`` (xyxy, image pixels; one detector run each, no quarter pass), merged as in
        :meth:`find_boxes`. Tiles cut by a window's edge inside the image are left out. For a
        caller that knows where the picture changed (the live referee)."""
        h, w = image_bgr.shape[:2]
        clipped = []
        for x0, y0, x1, y1 in windows:
            x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
            if x1 - x0 < 8 or y1 - y0 < 8:
                raise ValueError(f"window {(x0, y0, x1, y1)} is empty or too small inside a {w} x {h} image")
            clipped.append((x0, y0, x1, y1))
        boxes, scores = self._window_boxes(image_bgr, clipped)
        return self._merge(boxes, scores, w, h)

    def _merge(self, boxes: np.ndarray, scores: np.ndarray, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
        """Non-maximum suppression, clipping to the image, then the straddling-box filter."""
        if len(boxes) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
        idx = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), self.score_floor, self.settings.nms_iou)
        idx = np.array(idx, dtype=int).reshape(-1)
        boxes = boxes[idx].copy()
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        scores = scores[idx]
        keep = _not_straddling(boxes, scores, self.settings.max_covered)
        return boxes[keep].astype(np.float32), scores[keep].astype(np.float32)

    # ------------------------------------------------------------------ reader
    @property
    def has_features(self) -> bool:
        """Whether the reader gives its features (needed by taught profiles, ``vision.teach``)."""
        return len(self.reader.get_outputs()) >= 4

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, ...]:
        """The reader on (N, S, S, 3) uint8 BGR crops: number (N, 15), colour (N, 4), up (N, 2) and,
        for readers that export them, features (N, D); else an empty (N, 0) array."""
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        outs = self.reader.run(None, {self.reader.get_inputs()[0].name: x})
        features = outs[3] if len(outs) >= 4 else np.zeros((len(crops), 0), np.float32)
        return outs[0], outs[1], outs[2], features

    def crops(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> np.ndarray:
        """The reader's square crops of ``boxes_xyxy`` (N, S, S, 3), cut as in training."""
        from vision.crops import crop_square

        s = self.reader_size
        return np.stack([crop_square(image_bgr, tuple(b), s, stretch_at=self.crop_stretch_at) for b in boxes_xyxy])

    def read_boxes(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, profile=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each box: 53 tile probabilities, P(not a tile), up vector in image coordinates.

        ``profile`` (a :class:`vision.profile.Profile`) mixes a player's taught prototypes in.
        """
        n = len(boxes_xyxy)
        if n == 0:
            return np.zeros((0, N_CODES), np.float32), np.zeros(0, np.float32), np.zeros((0, 2), np.float32)
        crops = self.crops(image_bgr, boxes_xyxy)
        number, colour, up, features = self.read_crops(crops)
        if self.settings.wider_below > 0:
            number, colour = self._read_wider(image_bgr, boxes_xyxy, number, colour, crops)
        if self.crop_stretch_at > 1.0:
            from vision.crops import up_to_image

            up = up_to_image(up, boxes_xyxy, stretch_at=self.crop_stretch_at)
        if self.settings.ocr_below > 0:
            number = self._second_opinion(image_bgr, boxes_xyxy, number, up)
        probs = combine(number, colour)
        if profile is not None:
            if features.shape[1] == 0:
                from vision.profile import ProfileError

                raise ProfileError("this reader gives no features, so it cannot read with a taught profile: "
                                   "use the reader shipped with the profile support (models/tile_reader.onnx)")
            probs = profile.apply(probs, features)
        return probs, number[:, 14].astype(np.float32), up.astype(np.float32)

    def _read_wider(self, image_bgr: np.ndarray, boxes: np.ndarray, number: np.ndarray, colour: np.ndarray,
                    crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Number and colour probabilities with the doubtful tiles' (``wider_below``) averaged over
        more readings: a window ``wider_scale`` times as wide, and their ``crops`` in ``wider_turns``
        quarter turns (the reader learned every rotation, so each turn is another look at the same
        numeral)."""
        numbered = number[:, :14].sum(axis=1)
        top = number[:, :14].max(axis=1) / np.clip(numbered, 1e-9, None)
        doubtful = np.flatnonzero((top < self.settings.wider_below) & (number[:, 14] < 0.5))
        if len(doubtful) == 0:
            return number, colour
        b = np.asarray(boxes, np.float32)[doubtful]
        centre, half = (b[:, :2] + b[:, 2:]) / 2, (b[:, 2:] - b[:, :2]) / 2 * self.settings.wider_scale
        wide = self.crops(image_bgr, np.concatenate([centre - half, centre + half], axis=1))
        turns = range(1, max(1, min(4, self.settings.wider_turns)))
        views = [wide] + [np.rot90(crops[doubtful], t, axes=(1, 2)) for t in turns]  # the crop itself is read
        more_number, more_colour, _up, _features = self.read_crops(np.ascontiguousarray(np.concatenate(views)))
        m = len(doubtful)
        # Only which number: P(not a tile) stays the first reading's (the filters on it were
        # chosen on single readings).
        more_number = more_number[:, :14] / np.clip(more_number[:, :14].sum(axis=1, keepdims=True), 1e-9, None)
        first = number[doubtful, :14] / np.clip(numbered[doubtful, None], 1e-9, None)
        mean = (first + more_number.reshape(len(views), m, 14).sum(axis=0)) / (len(views) + 1)
        number, colour = number.copy(), colour.copy()
        number[doubtful, :14] = mean * numbered[doubtful, None]
        colour[doubtful] = (colour[doubtful] + more_colour.reshape(len(views), m, -1).sum(axis=0)) / (len(views) + 1)
        return number, colour

    def _second_opinion(self, image_bgr: np.ndarray, boxes: np.ndarray, number: np.ndarray, up: np.ndarray) -> np.ndarray:
        """Number probabilities with the text recogniser's opinion multiplied in, for doubtful tiles."""
        numbered = number[:, :13].sum(axis=1)
        top = number[:, :13].max(axis=1) / np.clip(numbered, 1e-9, None)
        doubtful = np.flatnonzero((top < self.settings.ocr_below) & (numbered > 0.5))
        if len(doubtful) == 0:
            return number
        if self._ocr is None:
            from vision.ocr import NumberOCR, ocr_available

            if not ocr_available():
                return number
            self._ocr = NumberOCR()
        from vision.ocr import upright_numeral

        doubtful = doubtful[np.argsort(top[doubtful])][: self.settings.ocr_max_tiles]
        crops = [upright_numeral(image_bgr, boxes[i], up[i]) for i in doubtful]
        opinion = self._ocr.number_probs(crops) ** self.settings.ocr_weight
        out = number.copy()
        mixed = out[doubtful, :13] * (opinion + 1e-4)
        out[doubtful, :13] = mixed / mixed.sum(axis=1, keepdims=True) * numbered[doubtful, None]
        return out

    def detect(self, image_bgr: np.ndarray, timing: dict[str, float] | None = None, profile=None,
               glare: float | None = None) -> TileDetections:
        """Find and read every tile of an upright BGR image (with a taught ``profile``, if given);
        an overexposed photo (``glare_share``) with its own ``confirm_below``. ``glare``: the
        photo's :func:`clipped_share` when the caller has it already."""
        if self.settings.glare_share > 0:
            share = clipped_share(image_bgr) if glare is None else glare
            if share > self.settings.glare_share:
                return self.for_glare().detect(image_bgr, timing, profile)
        t0 = time.perf_counter()
        boxes, scores = self.find_boxes(image_bgr)
        t1 = time.perf_counter()
        det = self.read_detections(image_bgr, boxes, scores, profile)
        if self.settings.line_none > 0:
            det = self.look_along_lines(image_bgr, det, profile)
        t2 = time.perf_counter()
        if timing is not None:
            timing["detect"] = (t1 - t0) * 1000
            timing["read"] = (t2 - t1) * 1000
        return det

    def for_glare(self) -> "TileModel":
        """This model (the same sessions, a shallow copy) with the settings of an overexposed
        photo: ``confirm_below`` and ``confirm_read`` from ``glare_confirm_below`` and
        ``glare_confirm_read``, and no second look at the exposure."""
        import copy

        twin = copy.copy(self)
        twin.settings = replace(self.settings, confirm_below=self.settings.glare_confirm_below,
                                confirm_read=self.settings.glare_confirm_read, glare_share=0.0)
        return twin

    def look_along_lines(self, image_bgr: np.ndarray, det: TileDetections, profile=None) -> TileDetections:
        """``det`` with the tiles the reader sees where its lines say the next tile would lie
        (``line_none``, ``line_rounds``), appended with detector score 0."""
        h, w = image_bgr.shape[:2]
        looked = np.zeros((0, 4), np.float32)
        for _ in range(self.settings.line_rounds):
            places, ends = next_in_line(det.boxes_xyxy, det.up_xy, (w, h))
            places = places.astype(np.float32)
            fresh = iou_matrix(places, looked).max(axis=1, initial=0.0) < 0.5
            places, ends = places[fresh], ends[fresh]
            looked = np.concatenate([looked, places])
            if self.settings.line_colour > 0:  # bare table does not look like the line's tiles
                like = _colour_distance(image_bgr, places, det.boxes_xyxy[ends]) <= self.settings.line_colour
                places = places[like]
            if not len(places):
                break
            probs, p_none, up = self.read_boxes(image_bgr, places, profile)
            seen = p_none <= self.settings.line_none
            if not seen.any():
                break
            det = TileDetections(np.concatenate([det.boxes_xyxy, places[seen]]),
                                 np.concatenate([det.scores, np.zeros(int(seen.sum()), np.float32)]),
                                 np.concatenate([det.probs, probs[seen]]), np.concatenate([det.up_xy, up[seen]]))
        return det

    def read_detections(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, scores: np.ndarray,
                        profile=None) -> TileDetections:
        """The tiles in ``boxes_xyxy`` (with their detector ``scores``), read: boxes the reader
        calls "not a tile" are dropped. :meth:`detect` is :meth:`find_boxes` then this; a caller
        that knows some boxes already (the live referee's settled tiles) reads only the others."""
        boxes_xyxy = np.asarray(boxes_xyxy, np.float32).reshape(-1, 4)
        probs, p_none, up = self.read_boxes(image_bgr, boxes_xyxy, profile)
        scores = np.asarray(scores, np.float32).reshape(-1)
        certainty = (1 - p_none) * probs.max(axis=1, initial=0.0)  # P(a tile) x P(its most likely reading)
        keep = (p_none <= self.settings.max_none) & (certainty >= self.settings.min_read)
        if self.settings.sure_score > 0:  # a sure box and a sure tile, whatever its number
            keep |= (scores >= self.settings.sure_score) & (p_none <= self.settings.sure_none)
        if self.settings.joker_read > 0 and len(probs):
            joker = probs.argmax(axis=1) == JOKER_INDEX
            keep &= ~joker | (certainty >= self.settings.joker_read)
        if self.settings.confirm_below > 0:  # boxes under min_score come from find_boxes only then
            keep &= (scores >= self.settings.min_score) | (certainty >= self.settings.confirm_read)
        return TileDetections(boxes_xyxy[keep], scores[keep], probs[keep], up[keep])


CLIPPED_LEVEL = 250
"""A pixel whose three channels are all at least this is clipped white (:func:`clipped_share`)."""


def clipped_share(image_bgr: np.ndarray, samples: int = 128) -> float:
    """The share of ``image_bgr``'s pixels that are clipped white (every channel at least
    :data:`CLIPPED_LEVEL`): how much of the photo glare or overexposure has blown out. Measured
    on a grid of about ``samples`` pixels across (every k-th pixel, no resampling: 0.6 ms on a
    12-MP photo decoded at half size, where an area resize to 256 px wide took 16.5 ms)."""
    if image_bgr.ndim != 3 or not image_bgr.size:
        return 0.0
    step = max(1, max(image_bgr.shape[:2]) // samples)
    return float((image_bgr[::step, ::step].min(axis=2) >= CLIPPED_LEVEL).mean())


def _colour_distance(image_bgr: np.ndarray, boxes_a: np.ndarray, boxes_b: np.ndarray) -> np.ndarray:
    """(N,) CIELAB distance (OpenCV's 8-bit scale) between the mean colours of the middle halves
    of ``boxes_a[i]`` and ``boxes_b[i]`` (an empty middle counts as black)."""
    h, w = image_bgr.shape[:2]

    def means(boxes: np.ndarray) -> np.ndarray:
        out = np.zeros((len(boxes), 3), np.float32)
        for k, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, np.float64).reshape(-1, 4)):
            qx, qy = (x2 - x1) / 4, (y2 - y1) / 4
            patch = image_bgr[max(int(y1 + qy), 0):min(int(math.ceil(y2 - qy)), h), max(int(x1 + qx), 0):min(int(math.ceil(x2 - qx)), w)]
            if patch.size:
                out[k] = patch.reshape(-1, 3).mean(axis=0)
        return cv2.cvtColor(out.round().astype(np.uint8)[None], cv2.COLOR_BGR2LAB)[0].astype(np.float32)

    if len(boxes_a) == 0:
        return np.zeros(0, np.float32)
    return np.linalg.norm(means(boxes_a) - means(boxes_b), axis=1)


def quarters(w: int, h: int, overlap: float, n: int = 2) -> tuple[int, int, list[tuple[int, int]]]:
    """The ``n`` x ``n`` overlapping windows of a ``w`` x ``h`` image the second pass searches
    (the four quarters by default): their width, height and top-left corners. The windows
    together cover ``1 + overlap`` times the image's width and height, evenly spread, so that a
    tile cut by one window's edge lies whole in the next (``datasets.zoom_crops`` trains on the
    quarters)."""
    if n < 2:
        raise ValueError(f"a grid of {n} x {n} windows is no finer search: use 2 or more")
    cw, ch = int(round(w * (1 + overlap) / n)), int(round(h * (1 + overlap) / n))
    xs = [round(k * (w - cw) / (n - 1)) for k in range(n)]
    ys = [round(k * (h - ch) / (n - 1)) for k in range(n)]
    return cw, ch, [(x0, y0) for y0 in ys for x0 in xs]


def _small_apart(boxes: np.ndarray, scores: np.ndarray, scale: float, below: float, iou: float,
                 boxes_too: bool = False) -> np.ndarray:
    """Short sides (detector pixels) of the boxes under ``below`` that stay apart after NMS at
    ``iou``: the distinct faint small things the whole photo's run saw. ``boxes_too``: those
    boxes instead, (N, 5) xyxy and score."""
    sides = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * scale
    small = sides < below
    if not small.any():
        return np.zeros((0, 5), np.float32) if boxes_too else np.zeros(0)
    b = boxes[small]
    xywh = np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], axis=1).tolist()
    kept = np.asarray(cv2.dnn.NMSBoxes(xywh, scores[small].tolist(), 0.0, iou), dtype=int).reshape(-1)
    if boxes_too:
        return np.concatenate([b[kept], scores[small][kept, None]], axis=1)
    return sides[small][kept]


def _not_straddling(boxes: np.ndarray, scores: np.ndarray, max_covered: float) -> np.ndarray:
    """Mask of boxes not mostly covered by more confident boxes (sum of pairwise overlaps)."""
    if len(boxes) < 3:
        return np.ones(len(boxes), dtype=bool)
    inter = intersections(boxes, boxes)
    better = scores[None, :] > scores[:, None]
    area = np.clip((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-6, None)
    covered = (inter * better).sum(axis=1) / area
    return covered <= max_covered


def combine(number: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(N, 15) number probabilities x (N, 4) colour probabilities -> (N, 53) tile probabilities.

    P(colour c, number n) = P(n) P(c); P(joker) = P(joker); "not a tile" is left out and the row
    renormalised, so each row is a distribution over tiles given that the box is a tile.
    """
    numbered = colour[:, :, None] * number[:, None, :13]  # (N, 4, 13) in Tile.index order
    probs = np.concatenate([numbered.reshape(len(number), 52), number[:, 13:14]], axis=1)
    return (probs / np.clip(probs.sum(axis=1, keepdims=True), 1e-9, None)).astype(np.float32)


def _resize(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """Downscale for the detector.

    Area averaging keeps thin tile edges but is slow on a large photo; a bilinear step to twice
    the target first, then area averaging, looks the same to the network for a fraction of the
    time (docs/measurements.md).
    """
    h, w = image.shape[:2]
    if w > 2 * width and h > 2 * height:
        image = cv2.resize(image, (2 * width, 2 * height), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
