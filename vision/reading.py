"""What a photo shows, as data: :class:`TableReading` and its parts.

Built by :func:`vision.decode.build_reading`; ``TableReading.to_dict()`` is the JSON contract of
``python -m vision.read PHOTO --json`` (DESIGN.md): the keys ``image``, ``tiles`` (``tile``,
``box``, ``confidence``, ``set``), ``sets`` (``tiles``, ``kind``, ``valid``, ``points``),
``doubts`` and ``timing_ms`` come first and keep their names; everything else is an extra key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.i18n import _
from referee.tiles import Tile
from vision.layout import RackCue

__all__ = ["ReadTile", "ReadSet", "Doubt", "NotTile", "TableReading", "DOUBT_REASONS", "UNREADABLE", "glare_note"]

UNREADABLE = "?"
"""Code of a tile that could not be read (DESIGN.md)."""

DOUBT_REASONS = (
    "unreadable",
    "uncertain",
    "changed_for_set",
    "changed_for_count",
    "changed_for_orientation",
    "too_many_copies",
)
"""Stable codes of :attr:`Doubt.reason`:

* ``unreadable``: the reader gave no reading at all;
* ``uncertain``: the most probable reading was kept, but the reader was not sure of it;
* ``changed_for_set``: a less probable reading was chosen because it makes the tile's set valid;
* ``changed_for_count``: a less probable reading was chosen because the most probable one would
  show a tile more often than the game has it (2 copies classic, 3 XP; jokers 2 and 4);
* ``changed_for_orientation``: 6 and 9 were swapped because the tile lies the other way up than
  the rest of its set;
* ``too_many_copies``: confident readings show a tile more often than the game has it, so one of
  them is misread; nothing was changed.
"""


def _alternatives_dict(alternatives: tuple[tuple[str, float], ...]) -> list[dict[str, Any]]:
    return [{"tile": code, "p": round(float(p), 4)} for code, p in alternatives]


@dataclass(frozen=True)
class ReadTile:
    """One tile found in the photo.

    Attributes:
        tile: the reading, ``None`` when unreadable (``"?"`` in JSON).
        box_xyxy: pixels ``x1, y1, x2, y2`` of the upright photo.
        confidence: the reader's probability of :attr:`tile` (0 when unreadable).
        set: index into :attr:`TableReading.sets`, ``None`` for a loose or rack tile.
        rack: True for a tile standing on a rack.
        alternatives: the reader's most probable readings ``(code, probability)``, most probable
            first; the first is the reader's own choice before the rules had their say.
        up_xy: unit vector to the top of the tile's face in image coordinates, ``None`` if unknown.
        detector_confidence: the detector's score that the box is a tile.
        cut: the photo's edge cuts the tile (its box touches the edge and is smaller than its
            neighbours'); a cut rack tile is not counted in the rack's total.
    """

    tile: Tile | None
    box_xyxy: tuple[float, float, float, float]
    confidence: float
    set: int | None = None
    rack: bool = False
    alternatives: tuple[tuple[str, float], ...] = ()
    up_xy: tuple[float, float] | None = None
    detector_confidence: float = 1.0
    cut: bool = False

    @property
    def code(self) -> str:
        """The reading in notation, ``"?"`` when unreadable."""
        return self.tile.code if self.tile is not None else UNREADABLE

    @property
    def center_xy(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box_xyxy
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_dict(self) -> dict[str, Any]:
        """``tile``, ``box``, ``confidence``, ``set`` (the contract), then ``rack``,
        ``alternatives`` ([{tile, p}]), ``up`` ([x, y] or null), ``detector_confidence``, ``cut``."""
        return {
            "tile": self.code,
            "box": [round(float(v), 1) for v in self.box_xyxy],
            "confidence": round(float(self.confidence), 4),
            "set": self.set,
            "rack": self.rack,
            "alternatives": _alternatives_dict(self.alternatives),
            "up": None if self.up_xy is None else [round(float(v), 3) for v in self.up_xy],
            "detector_confidence": round(float(self.detector_confidence), 4),
            "cut": self.cut,
        }


@dataclass(frozen=True)
class ReadSet:
    """One set as it lies on the table, in the referee's order, with the referee's verdict.

    Attributes:
        indices: indices into :attr:`TableReading.tiles`, in the referee's order (a run from low
            to high, whichever way it was photographed).
        codes: the tiles in notation, same order (``"?"`` for an unreadable tile).
        kind: ``"group"`` or ``"run"`` for a valid set, else ``None``.
        valid: the referee's verdict (``referee.sets.check_set``).
        points: the set's value (jokers count as the tile they stand for); for an invalid set
            the face values.
        problem: why the set is invalid, a sentence a player understands; ``None`` when valid.
        code: stable code of the problem (``referee.sets.SET_CODES`` or ``"unreadable"``).
        jokers: what each joker stands for (codes), in the set's order.
    """

    indices: tuple[int, ...]
    codes: tuple[str, ...]
    kind: str | None
    valid: bool
    points: int
    problem: str | None = None
    code: str | None = None
    jokers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``tiles`` (codes), ``kind``, ``valid``, ``points`` (the contract), then ``indices``,
        ``problem``, ``code``, ``jokers``."""
        return {
            "tiles": list(self.codes),
            "kind": self.kind,
            "valid": self.valid,
            "points": self.points,
            "indices": list(self.indices),
            "problem": self.problem,
            "code": self.code,
            "jokers": list(self.jokers),
        }


@dataclass(frozen=True)
class Doubt:
    """A tile whose reading the player should check.

    Attributes:
        index: index into :attr:`TableReading.tiles`.
        chosen: the reading given (code, ``"?"`` when unreadable).
        alternatives: the reader's likely readings ``(code, probability)``, most probable first.
        reason: one of :data:`DOUBT_REASONS`.
        message: the same as a sentence a player understands (translated).
    """

    index: int
    chosen: str
    alternatives: tuple[tuple[str, float], ...]
    reason: str
    message: str

    def __post_init__(self) -> None:
        if self.reason not in DOUBT_REASONS:
            raise ValueError(f'unknown doubt reason "{self.reason}": choose one of {", ".join(DOUBT_REASONS)}')

    def to_dict(self) -> dict[str, Any]:
        """``index``, ``tile`` (the reading given), ``alternatives`` ([{tile, p}]), ``reason``, ``message``."""
        return {
            "index": self.index,
            "tile": self.chosen,
            "alternatives": _alternatives_dict(self.alternatives),
            "reason": self.reason,
            "message": self.message,
        }


@dataclass(frozen=True)
class NotTile:
    """A box the detector found that is not a tile (left out of :attr:`TableReading.tiles`).

    Attributes:
        box_xyxy: pixels ``x1, y1, x2, y2`` of the upright photo.
        reason: why: ``"rack_bar"`` (the rack's bar or the wordmark on it).
    """

    box_xyxy: tuple[float, float, float, float]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """``box``, ``reason``."""
        return {"box": [round(float(v), 1) for v in self.box_xyxy], "reason": self.reason}


def glare_note(live: bool = False) -> str:
    """Advice for a photo glare has blown out (``DetectorSettings.glare_share``); ``live``: for the
    live referee's camera view, which the players mend by moving the camera or the light."""
    if live:
        # TRANSLATORS: the live referee's message when much of the camera's view is pure white.
        return _("Glare has blown out part of the camera's view: white tiles there may be missed. "
                 "Move the camera or the lamp, or turn the flash off.")
    # TRANSLATORS: shown under a photo reading when much of the photo is pure white.
    return _("Glare has blown out part of this photo: white tiles there may be missed. "
             "Tilt the phone, move away from the lamp or turn the flash off, and take it again.")


@dataclass(frozen=True)
class TableReading:
    """Everything read from one photo.

    Attributes:
        width, height: size of the upright photo in pixels.
        tiles: every tile found.
        sets: the sets as they lie, each with the referee's verdict.
        loose: indices of tiles in no set and not on a rack.
        rack_rows: indices of rack tiles, row by row (top row first, left to right).
        rack_points: what the rack tiles count at the end of a game (joker 30, RULES.md section 1).
        doubts: tiles to check.
        timing_ms: milliseconds per stage; ``total`` for the whole reading.
        mode: ``"table"``, ``"rack"`` (the photo was said to show a rack) or ``"flat"`` (said
            to show no rack).
        rules: name of the rule set the counts were checked against.
        rack_cues: why tiles were taken as a rack, one per rack (told or seen).
        not_tiles: boxes found that are not tiles (a rack's bar).
        glare: share of the photo's pixels clipped white when it is overexposed enough to be read
            with the glare settings (``DetectorSettings.glare_share``), else 0.
    """

    width: int
    height: int
    tiles: tuple[ReadTile, ...] = ()
    sets: tuple[ReadSet, ...] = ()
    loose: tuple[int, ...] = ()
    rack_rows: tuple[tuple[int, ...], ...] = ()
    rack_points: int = 0
    doubts: tuple[Doubt, ...] = ()
    timing_ms: dict[str, float] = field(default_factory=lambda: {"total": 0.0})
    mode: str = "table"
    rules: str = "classic"
    rack_cues: tuple[RackCue, ...] = ()
    not_tiles: tuple[NotTile, ...] = ()
    glare: float = 0.0

    @property
    def rack(self) -> tuple[int, ...]:
        """Indices of every rack tile, row by row."""
        return tuple(i for row in self.rack_rows for i in row)

    @property
    def rack_counted(self) -> tuple[int, ...]:
        """Rack tiles in reading order (tiers top first, left to right), cut tiles left out."""
        return tuple(i for i in self.rack if not self.tiles[i].cut)

    def rack_note(self) -> str | None:
        """Why tiles were taken as a rack, as a sentence a player understands; None without a rack."""
        if not self.rack_rows:
            return None
        if any(c.source == "told" for c in self.rack_cues):
            beside = len(self.tiles) - len(self.rack)
            if beside:
                return _("You said this photo shows a rack: the {count} tiles standing on it are the rack, "
                         "and {table} tiles lying on the table beside it are read as the table's.").format(
                    count=len(self.rack), table=beside)
            return _("You said this photo shows a rack: every tile was read as a rack tile.")
        if self.rack_cues and all(c.source == "kept" for c in self.rack_cues):
            return _("{count} tiles stand on the rack seen in the photo. "
                     "If there is no rack in this photo, say so and read it again.").format(count=len(self.rack))
        return _("{count} tiles were taken as a rack: they stand in rows on a bar unlike the table around it. "
                 "If there is no rack in this photo, say so and read it again.").format(count=len(self.rack))

    def photo_note(self) -> str | None:
        """What the photo itself made hard, as advice a player can act on; None for a fair photo."""
        return glare_note() if self.glare > 0 else None

    @property
    def table(self) -> list[list[Tile | None]]:
        """The sets as lists of tiles in the referee's order (``None`` for unreadable tiles)."""
        return [[self.tiles[i].tile for i in s.indices] for s in self.sets]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of DESIGN.md (``image``, ``tiles``, ``sets``, ``doubts``, ``timing_ms``) plus
        ``mode``, ``rules``, ``loose``, ``rack`` (reading order), ``rack_rows``, ``rack_points``
        (cut tiles not counted), ``rack_tiles`` (codes in reading order, cut tiles left out),
        ``rack_cut`` (indices of cut rack tiles), ``rack_cues`` (why: ``source`` told or seen,
        ``rows``, ``tiles``, ``backdrop_share``, ``bar_contrast``), ``rack_note`` (the same as a
        sentence, or null), ``not_tiles`` ([{box, reason}]), ``glare`` (the share above) and ``photo_note`` (advice
        when the photo itself made reading hard, such as glare; or null)."""
        return {
            "image": {"width": int(self.width), "height": int(self.height)},
            "tiles": [t.to_dict() for t in self.tiles],
            "sets": [s.to_dict() for s in self.sets],
            "doubts": [d.to_dict() for d in self.doubts],
            "timing_ms": {k: round(float(v), 1) for k, v in self.timing_ms.items()},
            "mode": self.mode,
            "rules": self.rules,
            "loose": list(self.loose),
            "rack": list(self.rack),
            "rack_rows": [list(r) for r in self.rack_rows],
            "rack_points": int(self.rack_points),
            "rack_tiles": [self.tiles[i].code for i in self.rack_counted],
            "rack_cut": [i for i in self.rack if self.tiles[i].cut],
            "rack_cues": [c.to_dict() for c in self.rack_cues],
            "rack_note": self.rack_note(),
            "not_tiles": [t.to_dict() for t in self.not_tiles],
            "glare": round(float(self.glare), 4),
            "photo_note": self.photo_note(),
        }
