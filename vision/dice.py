"""Reading a roll of Rummikub Dice from a photo (docs/rules.md section 8).

``read_dice(image_bgr) -> DiceReading``:

1. a one-class detector (``models/dice_detector.onnx``) finds the TOP face of every die;
2. a reader (``models/dice_reader.onnx``: the tile reader's network trained on dice top faces)
   reads number, colour or joker from a square crop of the full-resolution photo; crops it calls
   "not a top face" (a side face, a half die, the score sheet) are dropped - a side face must never
   be scored;
3. the nine readings are decoded together with what the dice allow: each of the 52 coloured
   numbers is on one die only and there are 2 jokers (docs/rules.md section 8), so two dice cannot
   show the same coloured number - the most probable reading that respects this is chosen and
   every change it makes is reported as a doubt;
4. with exactly nine dice the referee (:func:`referee.dice.best_arrangement`) finds the best
   arrangement and its score. With fewer or more, the reading says so in ``message`` (a sentence
   for the player), and :meth:`DiceReading.raise_for_count` turns it into a :class:`DiceCountError`.

Models load once per process, on first use (:func:`load_dice_model`, thread-safe).
``draw_dice_overlay`` draws the faces and the arrangement on the photo.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.assignment import best_assignment
from referee.i18n import _, use_language
from referee.tiles import Tile
from vision.detect import MODELS_DIR, DetectorSettings, TileModel, detector_input, onnx_session
from vision.detections import CODES, JOKER_INDEX, N_CODES

__all__ = [
    "DICE",
    "DICE_DETECTOR_FILE",
    "DICE_READER_FILE",
    "DiceSettings",
    "DieFace",
    "DiceReading",
    "DiceCountError",
    "DiceModel",
    "load_dice_model",
    "read_dice",
    "decode_faces",
    "draw_dice_overlay",
    "run_cli",
]

DICE = 9
"""A roll is always the nine dice (docs/rules.md section 8)."""
DICE_DETECTOR_FILE = "dice_detector.onnx"
DICE_READER_FILE = "dice_reader.onnx"
MAX_JOKERS = 2  # the dice carry 2 jokers (docs/rules.md section 8)


class DiceCountError(ValueError):
    """The photo does not show exactly nine dice. The message is a sentence for the player."""

    def __init__(self, message: str, found: int, expected: int = DICE) -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected


@dataclass(frozen=True)
class DiceSettings:
    """Thresholds of the dice reader (defaults chosen on the rendered validation split)."""

    detector: DetectorSettings = DetectorSettings(min_score=0.3, nms_iou=0.5, max_none=0.5, quarters_below=0.0)
    """Detector confidence, duplicate overlap, and reader P("not a top face") above which a box goes.
    The tile detector's quarter pass stays off: dice have their own second look (``zoom_below`` below)."""
    zoom_below: float = 0.6
    """When the dice cover less than this share of the photo, the detector looks a second time at
    the part of the photo where they lie (dice are small in a 320-pixel view of the whole photo)."""
    window_scales: tuple[float, ...] = ()
    """Extra reading windows, relative to the detector's box (empty: read the box only). Off by
    default: on rendered photos they gain about a thousandth of accuracy for 60 ms a photo
    (docs/measurements.md)."""
    min_confidence: float = 0.0
    """A box whose best reading has less probability than this is not scored as a die (with a
    doubt), so that the count message asks for another photo instead of a guessed face being
    scored. Off by default: on the rendered validation split it catches no false box, and on the
    held-out test split it refuses true dice along with false boxes (docs/measurements.md,
    datasets/cards/dice.md)."""
    weak_extra: float = 0.5
    """With more than nine boxes, extras whose confidence is below this are dropped (with a doubt)."""
    doubt_below: float = 0.7
    """A face read with less confidence than this is reported as a doubt. On the rendered
    validation split 0.7 flags 5.5 % of the dice and 18 of the 21 misreadings; 0.85 would flag
    18.5 % to catch all 21."""


@dataclass(frozen=True)
class DieFace:
    """One die's top face as read from the photo.

    ``tile`` is the reading (``None``: unreadable), ``box_xyxy`` pixels of the upright photo,
    ``confidence`` the reader's probability of ``tile``, ``detector_confidence`` the detector's
    score that the box is a top face, ``alternatives`` the next readings with their probabilities.
    """

    tile: Tile | None
    box_xyxy: tuple[float, float, float, float]
    confidence: float
    detector_confidence: float
    alternatives: tuple[tuple[str, float], ...] = ()

    @property
    def code(self) -> str:
        """The face in notation, ``"?"`` when unreadable."""
        return self.tile.code if self.tile is not None else "?"

    @property
    def center_xy(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box_xyxy
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": self.code,
            "box": [round(float(v), 1) for v in self.box_xyxy],
            "confidence": round(float(self.confidence), 4),
            "detector_confidence": round(float(self.detector_confidence), 4),
            "alternatives": [{"tile": c, "p": round(float(p), 4)} for c, p in self.alternatives],
        }


@dataclass
class DiceReading:
    """What the camera saw of a roll: the faces, the count check, the best arrangement, doubts.

    ``arrangement`` is the referee's :class:`~referee.dice.DiceArrangement` (``None`` unless
    exactly nine dice were read); ``message`` is a sentence for the player when the count is wrong.
    """

    image_size: tuple[int, int]
    faces: list[DieFace]
    message: str | None = None
    arrangement: Any = None
    doubts: list[dict[str, Any]] = field(default_factory=list)
    timing_ms: dict[str, float] = field(default_factory=dict)
    expected: int = DICE

    @property
    def ok(self) -> bool:
        """Exactly nine dice were read and scored."""
        return self.message is None and len(self.faces) == self.expected

    @property
    def tiles(self) -> list[Tile | None]:
        return [f.tile for f in self.faces]

    @property
    def score(self) -> int | None:
        return None if self.arrangement is None else int(self.arrangement.score)

    def raise_for_count(self) -> None:
        """Raise :class:`DiceCountError` when the photo does not show exactly nine dice."""
        if len(self.faces) != self.expected:
            raise DiceCountError(self.message or count_message(len(self.faces), self.expected), len(self.faces), self.expected)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``image``, ``faces``, ``count``, ``expected``, ``ok``, ``message``,
        ``arrangement`` (the referee's dict: score, arrangement, chains, unused, bonus ...),
        ``score``, ``summary``, ``doubts``, ``timing_ms``."""
        w, h = self.image_size
        arr = self.arrangement.to_dict() if self.arrangement is not None else None
        summary = None
        if self.arrangement is not None:
            from referee.dice import format_arrangement

            summary = format_arrangement(self.arrangement)
        return {
            "image": {"width": int(w), "height": int(h)},
            "faces": [f.to_dict() for f in self.faces],
            "count": len(self.faces),
            "expected": self.expected,
            "ok": self.ok,
            "message": self.message,
            "arrangement": arr,
            "score": self.score,
            "summary": summary,
            "doubts": list(self.doubts),
            "timing_ms": {k: round(float(v), 1) for k, v in self.timing_ms.items()},
        }


def count_message(found: int, expected: int = DICE) -> str:
    """The sentence a player reads when the photo does not show the nine dice."""
    if found == 0:
        return _("No dice found in the photo: take the picture from above with all {expected} dice in view.").format(
            expected=expected)
    if found < expected:
        return _("Found {found} dice, but a roll has {expected}: put all {expected} dice in the picture, "
                 "top faces visible, and take it again.").format(found=found, expected=expected)
    return _("Found {found} dice, but a roll has {expected}: leave only the {expected} dice of one roll "
             "in the picture and take it again.").format(found=found, expected=expected)


# --------------------------------------------------------------------------- decoding

def decode_faces(probs: np.ndarray) -> np.ndarray:
    """Most probable readings (``Tile.index`` per die) that a set of dice can show together.

    Each coloured number is on one die only and the dice carry 2 jokers (docs/rules.md section 8): the
    product of the probabilities is maximised over readings with no coloured number twice and at
    most two jokers. More than 54 dice cannot be decoded this way; rolls of two sets (more than nine
    dice) are decoded face by face.
    """
    probs = np.asarray(probs, dtype=np.float64).reshape(-1, N_CODES)
    best = probs.argmax(axis=1)
    counts = np.bincount(best, minlength=N_CODES)
    if len(probs) > DICE or ((counts[:JOKER_INDEX] <= 1).all() and counts[JOKER_INDEX] <= MAX_JOKERS):
        return best
    cost = -np.log(np.clip(probs, 1e-12, 1.0))
    cost = np.concatenate([cost, np.repeat(cost[:, JOKER_INDEX:], MAX_JOKERS - 1, axis=1)], axis=1)
    # The project's one Hungarian algorithm (referee.assignment, pure Python): nine dice against
    # 54 faces is well under a millisecond.
    cols = np.asarray(best_assignment(cost.tolist(), maximize=False), dtype=int)
    return np.minimum(cols, JOKER_INDEX)


def _reading_order(boxes: np.ndarray) -> np.ndarray:
    """Indices of the boxes in reading order: rows top to bottom, left to right within a row."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=int)
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    row_h = float(np.median(boxes[:, 3] - boxes[:, 1])) or 1.0
    order = np.argsort(cy)
    rows: list[list[int]] = []
    for i in order:
        if rows and cy[i] - cy[rows[-1][0]] < row_h * 0.6:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array([i for row in rows for i in sorted(row, key=lambda k: cx[k])], dtype=int)


# --------------------------------------------------------------------------- models

class DiceModel(TileModel):
    """The dice detector and reader, loaded once: the tile pipeline's code with the dice weights."""

    def __init__(self, models_dir: Path | str = MODELS_DIR, settings: DiceSettings | None = None,
                 threads: int | None = None, reader_file: str = DICE_READER_FILE) -> None:
        models_dir = Path(models_dir)
        self.dice_settings = settings or DiceSettings()
        self.settings = self.dice_settings.detector
        self.detector = onnx_session(models_dir / DICE_DETECTOR_FILE, threads)
        self.reader = onnx_session(models_dir / reader_file, threads)
        self.reader_size = int(self.reader.get_inputs()[0].shape[3])
        self.cards = {}
        for name in ("dice_detector", Path(reader_file).stem):
            card = models_dir / f"{name}.json"
            if card.exists():
                self.cards[name] = json.loads(card.read_text())
        self.rect_input, self.det_size = detector_input(self.detector, self.cards.get("dice_detector", {}))

    def read_boxes(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The reader on each box, averaged over the box as found and a slightly larger and smaller one.

        The reader reads the true top-face box better than the detector's box (the detector's box
        edges wander by up to a tenth of a die); three windows around it average that out, for
        two more small crops per die.
        """
        n = len(boxes_xyxy)
        if n == 0 or not self.dice_settings.window_scales:
            return super().read_boxes(image_bgr, boxes_xyxy)
        b = np.asarray(boxes_xyxy, np.float32)
        centre, half = (b[:, :2] + b[:, 2:]) / 2, (b[:, 2:] - b[:, :2]) / 2
        windows = [b] + [np.concatenate([centre - half * f, centre + half * f], axis=1) for f in self.dice_settings.window_scales]
        probs, p_none, up = super().read_boxes(image_bgr, np.concatenate(windows))
        k = len(windows)
        probs = probs.reshape(k, n, -1).mean(axis=0)
        return probs / probs.sum(axis=1, keepdims=True), p_none.reshape(k, n).mean(axis=0), up[:n]

    def find_dice(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Top-face boxes (N, 4) xyxy and detector scores, in two passes when the dice are small.

        The first pass sees the whole photo at the detector's input size; dice lying close
        together on the board are then only a few pixels apart. The second pass looks again at
        the region around the first pass's boxes (with a margin of two dice), enlarged, and its
        boxes replace the first pass's.
        """
        boxes, scores = self.find_boxes(image_bgr)
        if len(boxes) == 0:
            return boxes, scores
        h, w = image_bgr.shape[:2]
        side = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
        x1, y1 = np.maximum(boxes[:, :2].min(axis=0) - 2 * side, 0)
        x2, y2 = np.minimum(boxes[:, 2:].max(axis=0) + 2 * side, (w, h))
        if (x2 - x1) * (y2 - y1) >= self.dice_settings.zoom_below * w * h:
            return boxes, scores
        x1, y1, x2, y2 = int(x1), int(y1), int(np.ceil(x2)), int(np.ceil(y2))
        sub_boxes, sub_scores = self.find_boxes(image_bgr[y1:y2, x1:x2])
        if len(sub_boxes) == 0:
            return boxes, scores
        return sub_boxes + np.array([x1, y1, x1, y1], np.float32), sub_scores

    def read_dice(self, image_bgr: np.ndarray) -> DiceReading:
        """Read the top face of every die in an upright BGR photo (see the module doc)."""
        if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
            raise ValueError("expected an upright BGR image: a numpy uint8 array of shape (height, width, 3)")
        s = self.dice_settings
        timing: dict[str, float] = {}
        t0 = time.perf_counter()
        boxes, scores = self.find_dice(image_bgr)
        t1 = time.perf_counter()
        probs, p_none, _up = self.read_boxes(image_bgr, boxes)
        t2 = time.perf_counter()
        timing["detect"] = (t1 - t0) * 1000
        timing["read"] = (t2 - t1) * 1000
        doubts: list[dict[str, Any]] = []
        keep = p_none <= s.detector.max_none  # side faces and other non-dice go here
        boxes, scores, probs, p_none = boxes[keep], scores[keep], probs[keep], p_none[keep]
        readable = probs.max(axis=1) >= s.min_confidence if len(probs) else np.zeros(0, bool)
        for i in np.nonzero(~readable)[0]:
            doubts.append({"code": "unreadable", "dice": [],
                           "message": _("Left out something near ({x}, {y}) that looks like a die but cannot be read: "
                                        "if it is a die, make its top face clear and take the photo again.").format(
                               x=int((boxes[i, 0] + boxes[i, 2]) / 2), y=int((boxes[i, 1] + boxes[i, 3]) / 2))})
        boxes, scores, probs, p_none = boxes[readable], scores[readable], probs[readable], p_none[readable]
        strength = scores * (1 - p_none)
        if len(boxes) > DICE:
            # A tenth box that the networks barely believe in is more likely a mistake than a tenth die.
            order = np.argsort(-strength)
            extra = order[DICE:]
            if (strength[extra] < s.weak_extra).all():
                for i in extra:
                    doubts.append({"code": "weak_extra", "dice": [],
                                   "message": _("Ignored a doubtful extra die near ({x}, {y}).").format(
                                       x=int((boxes[i, 0] + boxes[i, 2]) / 2), y=int((boxes[i, 1] + boxes[i, 3]) / 2))})
                kept = np.sort(order[:DICE])
                boxes, scores, probs, p_none = boxes[kept], scores[kept], probs[kept], p_none[kept]
        order = _reading_order(boxes)
        boxes, scores, probs = boxes[order], scores[order], probs[order]
        chosen = decode_faces(probs)
        faces: list[DieFace] = []
        for i, (box, score, row, idx) in enumerate(zip(boxes, scores, probs, chosen)):
            tile = Tile.from_index(int(idx))
            alts = tuple((CODES[j], float(row[j])) for j in np.argsort(-row)[:4] if j != idx and row[j] >= 0.01)[:3]
            faces.append(DieFace(tile, tuple(float(v) for v in box), float(row[idx]), float(score), alts))
            first = int(row.argmax())
            if first != idx:
                doubts.append({"code": "duplicate_face", "dice": [i],
                               "message": _("Die {n} looks most like {first}, but {first} is on another die's top face: "
                                            "read as {tile}.").format(n=i + 1, first=CODES[first], tile=tile.code)})
            elif row[idx] < s.doubt_below:
                alt = alts[0][0] if alts else "?"
                doubts.append({"code": "low_confidence", "dice": [i],
                               "message": _("Die {n} reads {tile}, but it could be {alt}: check it.").format(
                                   n=i + 1, tile=tile.code, alt=alt)})
        t3 = time.perf_counter()
        timing["rules"] = (t3 - t2) * 1000
        h, w = image_bgr.shape[:2]
        reading = DiceReading((w, h), faces, doubts=doubts, timing_ms=timing)
        if len(faces) != DICE:
            reading.message = count_message(len(faces))
        else:
            from referee.dice import DiceError, best_arrangement

            try:
                reading.arrangement = best_arrangement([f.tile for f in faces if f.tile is not None])
            except DiceError as exc:  # cannot happen after decode_faces; a reading must not crash anyway
                reading.message = str(exc)
        timing["arrange"] = (time.perf_counter() - t3) * 1000
        timing["total"] = (time.perf_counter() - t0) * 1000
        return reading


_lock = threading.Lock()
_default: DiceModel | None = None


def load_dice_model(models_dir: Path | str | None = None) -> DiceModel:
    """The process-wide dice model with the shipped weights (loaded on first call, thread-safe)."""
    global _default
    if models_dir is not None:
        return DiceModel(models_dir)
    with _lock:
        if _default is None:
            _default = DiceModel()
        return _default


def read_dice(image_bgr: np.ndarray) -> DiceReading:
    """Read a photo of a Rummikub Dice roll with the shipped models (see :class:`DiceModel`)."""
    return load_dice_model().read_dice(image_bgr)


# --------------------------------------------------------------------------- overlay

_INK = {"K": (40, 40, 40), "B": (200, 110, 20), "O": (0, 190, 250), "R": (40, 40, 220), "J": (160, 40, 160), "?": (0, 0, 255)}
_SET_COLOURS = ((255, 140, 0), (0, 200, 0), (200, 0, 200), (0, 140, 255), (255, 0, 120), (0, 220, 220))


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],
          bg: tuple[int, int, int] = (255, 255, 255), thick: int = 2) -> tuple[int, int]:
    """Text on a filled badge (readable over any background); returns the badge size."""
    font = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    x, y = org
    pad = max(2, int(th * 0.3))
    x = int(min(max(x, 0), max(img.shape[1] - tw - 2 * pad, 0)))
    y = int(min(max(y, th + 2 * pad), img.shape[0] - base))
    cv2.rectangle(img, (x, y - th - 2 * pad), (x + tw + 2 * pad, y + base), bg, -1)
    cv2.putText(img, text, (x + pad, y - pad), font, scale, colour, thick, cv2.LINE_AA)
    return tw + 2 * pad, th + base + 2 * pad


def _ascii(translated: str, english: str) -> str:
    """OpenCV's Hershey fonts draw ASCII only (Chinese or Japanese letters come out as ???): a
    translation in another script is drawn in English, as vision/overlay.py does."""
    return translated if translated.isascii() else english


def _ascii_message(reading: DiceReading) -> str:
    """The reading's message for the banner: as it is when OpenCV can draw it, else in English."""
    message = reading.message or ""
    if message.isascii():
        return message
    if len(reading.faces) != reading.expected:
        with use_language("en"):
            return count_message(len(reading.faces), reading.expected)
    return f"{len(reading.faces)}/{reading.expected} dice: ?"  # any other message: no words to draw


def draw_dice_overlay(image_bgr: np.ndarray, reading: DiceReading) -> np.ndarray:
    """A copy of the photo with every face read, the sets of the best arrangement and the score.

    Sizes follow the photo so that a phone screen shows them: each die gets its number and reading
    on a badge, each set a coloured line through its dice, the banner the score (or the count
    problem). Doubtful dice are outlined in orange.
    """
    img = image_bgr.copy()
    h, w = img.shape[:2]
    unit = max(h, w) / 1000.0
    thick = max(2, int(round(2.5 * unit)))
    scale = max(0.6, 0.9 * unit)
    doubtful = {d for doubt in reading.doubts for d in doubt.get("dice", [])}
    sets = reading.arrangement.sets if reading.arrangement is not None else ()
    for si, s in enumerate(sets):
        pts = np.array([reading.faces[d].center_xy for d in s.dice], np.float32)
        colour = _SET_COLOURS[si % len(_SET_COLOURS)]
        cv2.polylines(img, [np.round(pts).astype(np.int32)], False, (255, 255, 255), thick * 4, cv2.LINE_AA)
        cv2.polylines(img, [np.round(pts).astype(np.int32)], False, colour, thick * 2, cv2.LINE_AA)
        for p in pts:
            cv2.circle(img, (int(p[0]), int(p[1])), thick * 3, colour, -1, cv2.LINE_AA)
    for i, f in enumerate(reading.faces):
        x1, y1, x2, y2 = (int(round(v)) for v in f.box_xyxy)
        colour = (0, 140, 255) if i in doubtful else (255, 255, 255)
        cv2.rectangle(img, (x1, y1), (x2, y2), (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.rectangle(img, (x1, y1), (x2, y2), colour, thick, cv2.LINE_AA)
        letter = f.code[0] if f.tile is not None else "?"
        label = f.code + ("?" if i in doubtful else "")
        # Dice lie side by side: the reading's badge is as wide as its die at most, so
        # neighbours' badges do not cover each other; the die's number (used by the doubts) sits below.
        (tw, _th), _b = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, scale, max(1, thick - 1))
        fit = min(scale, scale * (x2 - x1) * 1.05 / max(tw, 1))
        _text(img, label, (x1, y1 - thick * 2), max(fit, 0.35), _INK.get(letter, (0, 0, 0)), thick=max(1, thick - 1))
        (nw, nh), _b = cv2.getTextSize(str(i + 1), cv2.FONT_HERSHEY_DUPLEX, fit * 0.6, 1)
        _text(img, str(i + 1), (x1, y2 + nh + thick * 3), max(fit * 0.6, 0.3), (0, 0, 0), thick=1)
    if reading.arrangement is not None:
        arr = reading.arrangement
        banner = _ascii(_("Score {score}"), "Score {score}").format(score=arr.score)
        if arr.bonus:
            banner += f" ({arr.bonus.replace('_', ' ')})"
        parts = [" ".join(t.code for t in s.faces) for s in arr.sets]
        if parts:
            banner += ": " + " | ".join(parts)
        _text(img, banner, (int(10 * unit), int(10 * unit) + int(40 * scale)), scale * 1.2, (0, 0, 0), thick=max(1, thick - 1))
    elif reading.message:
        _text(img, _ascii_message(reading), (int(10 * unit), int(10 * unit) + int(40 * scale)), scale * 0.9, (255, 255, 255),
              bg=(0, 0, 200), thick=max(1, thick - 1))
    return img


# --------------------------------------------------------------------------- command line

def _summary(data: dict[str, Any]) -> str:
    lines = [_("{count} dice read in {ms} ms: {faces}").format(
        count=data["count"], ms=f"{data['timing_ms'].get('total', 0):.0f}", faces=" ".join(f["tile"] for f in data["faces"])
    )]
    if data.get("summary"):
        lines.append(data["summary"])
    for d in data.get("doubts", []):
        lines.append("  " + _("doubt: {message}").format(message=d["message"]))
    return "\n".join(lines)


def run_cli(image_bgr: np.ndarray, decode_ms: float, as_json: bool, overlay: str | None) -> int:
    """``python -m vision.read PHOTO --dice``: print the reading; exit 0, 3 models missing, 4 not nine dice.

    With the wrong number of dice the JSON (or summary) is still printed, and the problem goes to
    stderr as ``error: ...`` so a script sees it.
    """
    import sys

    from vision.detect import ModelMissingError

    try:
        model = load_dice_model()
    except ModelMissingError as exc:
        print(_("error: {message}").format(message=exc), file=sys.stderr)
        return 3
    reading = model.read_dice(image_bgr)
    reading.timing_ms["decode"] = round(decode_ms, 1)
    data = reading.to_dict()
    if overlay:
        if not cv2.imwrite(overlay, draw_dice_overlay(image_bgr, reading)):
            print(_("error: {message}").format(message=_("cannot write {path}").format(path=overlay)), file=sys.stderr)
            return 2
    print(json.dumps(data, ensure_ascii=False) if as_json else _summary(data))
    if overlay and not as_json:
        print(_("overlay written to {path}").format(path=overlay))
    if not reading.ok:
        print(_("error: {message}").format(message=reading.message), file=sys.stderr)
        return 4
    return 0
