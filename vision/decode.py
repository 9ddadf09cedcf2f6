"""From the networks' output to a :class:`~vision.reading.TableReading`: layout, rules, verdicts.

:func:`build_reading` takes the detections of one photo (boxes, reading probabilities over the 53
codes, up vectors) and

1. groups the tiles into sets, loose tiles and rack rows (:func:`vision.layout.group_sets`); two
   sets (or a set and a loose tile) in line across a gap the layout cannot judge
   (:attr:`~vision.layout.Layout.joins`) are joined when together they read as one legal set; a line that no plausible reading makes one
   legal set, but that splits into legal sets of at least ``MIN_PART`` tiles, is cut there (sets
   pushed together leave no gap to see); failing that, it is cut at the gap the layout offers
   (:attr:`~vision.layout.Layout.cuts`) when a part of at least ``MIN_PART`` tiles reads legal;
2. **decodes with the rules.** Each tile keeps its likely readings (the reader's top
   ``TOP_K`` above ``CANDIDATE_FLOOR``). A tile read with probability ``CONFIDENT`` or more is
   fixed: nothing overrules it. For every set, the combinations of its tiles' likely readings are
   enumerated; the most probable combination the referee finds valid is chosen, provided it is at
   least ``MIN_RATIO`` times as probable as the reader's own reading (so a set is only "corrected"
   when the correction is plausible; prior odds of about 50:1 that a set on the table is legal).
   A set with no such combination keeps the reader's reading and is reported illegal. Then the
   tile counts of the rule set (RULES.md section 1: 2 copies and 2 jokers classic, 3 and 4 XP)
   are enforced over the whole photo by switching, one at a time, the set or tile whose next
   option removes an excess at the least cost in probability;
3. orders each set for the referee (a run from low to high, whichever way it lies in the photo)
   and asks ``referee.sets.check_set`` for the verdict;
4. lists as doubts every tile whose reading was decided by the rules or stays uncertain.

Orientation: a tile whose up vector points the other way from the rest of its set, and that the
reader read as 6 or 9 without being sure, gets its 6 and 9 probabilities swapped (the reader's
number and orientation come from the same, upside-down-looking digit).

Racks (the player said so, or one is seen; :mod:`vision.layout`) are read as racks:

* tiles stand upright facing the camera, so a 6 or a 9 is the reader's own reading of the
  upright glyph: it is not swapped by the reader's up vector (which, on small rack tiles, errs
  more often than the number does: rendered rack val scenes, 6/9 read wrong 18 -> 13, mean tile
  F1 over racks, cloth and held-out families val 0.9547 -> 0.9570 without the swap; real valid 1.0
  either way). Tiles on the table are still turned by their set's orientation;
* where the reader is torn between 6 and 9 (under ``CONFIDENT``, the other number still a
  candidate) and the numeral is bare, the loop decides, seen the way up the rack stands
  (:mod:`vision.glyph`: the mean of its row's up vectors, which the other numbers make sure of).
  Editions that print no mark under either (issue 14's white edition) leave the reader to guess
  the tile's up from a glyph it never saw. Validation (session 18, models/README.md): 3 rack tiles
  mended, none broken (rendered rack val 0.9705 -> 0.9717); on the real photos no reading changes
  (on the real training photos the loop agrees with the label on every upright 6 and 9 where it
  finds one: 137 of 137). Where the loop gives no answer (a marked numeral, an outlined one),
  the numeral's weight does (:func:`vision.glyph.mass_side`: a 6 is heavy below), its mark saying
  which way up the tile stands; and where the rack's up vectors do not agree on average (small
  tiles), the way most of them point is the rack's up. Validation (session 24, models/README.md):
  11 rack tiles mended, none broken, over the rendered rack, held-out family, cloth and told-rack
  val scenes; real valid and train photos read as before;
* a short, wide box (under ``BAR_MAX_HEIGHT`` of the rack tiles' height, wider than tall) on a
  rack's span, with no box of its height beside it, is the rack's bar or its wordmark, not a tile:
  it is left out and listed in ``not_tiles`` (tiles lying flat in a line on the table, in front of
  or behind the rack, are short and wide too, and stay tiles);
* a tile cut by the photo's edge (its box touches the edge and is under ``CUT_MAX_SIZE`` of its
  neighbours' size across that edge) is marked ``cut`` and left out of the rack's total;
* the rack's tiles come in reading order: tiers top first, each left to right.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from referee.i18n import _
from referee.ruleset import RuleSet
from referee.sets import check_set
from referee.tiles import JOKER, Tile
from vision.detections import N_CODES, TileDetections
from vision.layout import MODES, Layout, group_sets, rack_slope
from vision.reading import UNREADABLE, Doubt, NotTile, ReadSet, ReadTile, TableReading

__all__ = [
    "build_reading",
    "CONFIDENT",
    "CANDIDATE_FLOOR",
    "TOP_K",
    "MIN_RATIO",
    "MAX_COMBINATIONS",
    "MIN_PART",
]

CONFIDENT = 0.9
"""A reading at least this probable is fixed: the rules never change it (an illegal set read with
confidence is reported illegal, not "corrected")."""
CANDIDATE_FLOOR = 0.05
"""Readings less probable than this are not considered."""
TOP_K = 3
"""Likely readings kept per tile."""
MIN_RATIO = 0.02
"""A combination of readings is considered only if it is at least this many times as probable as
the reader's own reading of the set (prior odds of about 50:1 that a set on the table is legal)."""
MAX_COMBINATIONS = 4096
"""Combinations tried per set at most; beyond, the least probable alternatives are dropped first."""
MAX_OPTIONS = 12
"""Options per set kept for enforcing the tile counts."""
ALTERNATIVES_SHOWN = 3
"""Readings listed per tile (the reader's own first)."""
MIN_PART = 3
"""Fewest tiles of each part when a line of touching tiles is cut into the legal sets it holds."""
_SHOWN_FLOOR = 0.01
_TILES: tuple[Tile, ...] = tuple(Tile.from_index(i) for i in range(N_CODES))  # index -> Tile, built once
_FLIP_DOT = -0.5  # up vectors this opposed (cos 120 deg) point "the other way"
BAR_MAX_HEIGHT = 0.6
"""A box on a rack less tall than this share of the rack tiles' median height, and wider than
tall, is the rack's bar (or the wordmark on it), not a standing tile."""
CUT_MAX_SIZE = 0.85
"""A box touching the photo's edge and smaller than this share of its neighbours' median size
across that edge is a tile cut by the edge."""
EDGE_PX = 2.0
"""A box side within this many pixels of the photo's border touches the edge."""


@dataclass
class _Option:
    """One way to read a unit (a set or a single tile): a code index per tile (-1 unreadable)."""

    codes: tuple[int, ...]
    logp: float
    valid: bool


@dataclass
class _Unit:
    """Tiles decided together: a set (validity matters) or a single loose or rack tile."""

    indices: tuple[int, ...]
    is_set: bool
    options: list[_Option] = field(default_factory=list)
    current: int = 0
    reason: str = ""  # why the chosen option is not the reader's own: "set" or "count"

    @property
    def chosen(self) -> _Option:
        return self.options[self.current]


def build_reading(
    image_size: tuple[int, int],
    det: TileDetections,
    rules: RuleSet = RuleSet.classic(),
    mode: str = "table",
    image_bgr: np.ndarray | None = None,
    rack_tiles: list[int] | None = None,
    image_scale: float = 1.0,
) -> TableReading:
    """Rebuild the table of one photo from its detections (see the module doc).

    Args:
        image_size: ``(width, height)`` of the upright photo in pixels.
        det: the tiles found: boxes, detector scores, reading probabilities (53 codes in
            ``Tile.index`` order; an all-zero row is an unreadable tile), up vectors.
        rules: the rule set whose tile counts the readings must respect.
        mode: ``"table"`` (sets, and a rack where one is seen), ``"rack"`` (the user says the
            photo shows a rack) or ``"flat"`` (the user says there is no rack in the photo).
        image_bgr: the photo itself; in ``"table"`` mode a rack is called only where the photo
            shows one (without it, no rack is called).
        rack_tiles: tiles known to stand on a rack seen before (a corrected reading keeps its
            rack without the photo); see :func:`vision.layout.group_sets`.
        image_scale: pixels of the boxes per pixel of ``image_bgr`` (the photo decoded smaller).
    """
    t0 = time.perf_counter()
    width, height = _check_size(image_size)
    if not isinstance(det, TileDetections):
        raise TypeError(f"det must be TileDetections, not {type(det).__name__}")
    if not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, not {type(rules).__name__}")
    if mode not in MODES:
        raise ValueError(f'unknown mode "{mode}": choose one of {", ".join(MODES)}')
    _normalised(det.probs)  # bad probabilities are an error before anything else
    layout = group_sets(det.boxes_xyxy, det.up_xy, mode=mode, image_bgr=image_bgr, rack_tiles=rack_tiles,
                        image_scale=image_scale)
    bar = _bar_boxes(det.boxes_xyxy, layout)
    not_tiles: tuple[NotTile, ...] = ()
    if bar:
        not_tiles = tuple(NotTile(tuple(float(v) for v in det.boxes_xyxy[i]), "rack_bar") for i in sorted(bar))  # type: ignore[misc]
        keep = [i for i in range(len(det)) if i not in bar]
        det = det[np.array(keep, dtype=int)]
        new_index = {i: k for k, i in enumerate(keep)}
        kept_rack = None if rack_tiles is None else [new_index[i] for i in rack_tiles if i in new_index]
        layout = group_sets(det.boxes_xyxy, det.up_xy, mode=mode, image_bgr=image_bgr, rack_tiles=kept_rack,
                            image_scale=image_scale)
    n = len(det)
    t1 = time.perf_counter()

    probs = _normalised(det.probs)
    readable = probs.sum(axis=1) > 0
    reader_top = np.where(readable, probs.argmax(axis=1), -1).tolist()
    shown = [_top_readings(row) for row in probs]
    flipped = _orientation_flips(probs, det.up_xy, [list(s) for s in layout.sets])
    if image_bgr is not None:
        flipped += _upright_loops(probs, det, layout.rack_rows, image_bgr, image_scale)
    for i in flipped:
        probs[i] = _swap_six_nine(probs[i])
    candidates = [_candidates(row) for row in probs]
    layout = _cut_where_offered(_split_touching_sets(_join_across_gaps(layout, candidates), candidates), candidates)

    in_set = set(i for s in layout.sets for i in s)
    units = [_set_unit(tuple(s), candidates) for s in layout.sets]
    units += [_single_unit(i, candidates) for i in range(n) if i not in in_set]
    excess = _enforce_counts(units, rules)

    chosen = [-1] * n
    for unit in units:
        for i, code in zip(unit.indices, unit.chosen.codes):
            chosen[i] = code
    t2 = time.perf_counter()

    set_of: dict[int, int] = {}
    read_sets: list[ReadSet] = []
    for k, spatial in enumerate(layout.sets):
        read_set = _verdict(list(spatial), chosen)
        read_sets.append(read_set)
        for i in spatial:
            set_of[i] = k
    rack_rows = tuple(tuple(r) for r in layout.rack_rows)
    on_rack = {i for r in rack_rows for i in r}
    cut = _cut_by_edge(det.boxes_xyxy, width, height)
    tiles = []
    for i in range(n):
        up = det.up_xy[i]
        tiles.append(
            ReadTile(
                tile=_TILES[chosen[i]] if chosen[i] >= 0 else None,
                box_xyxy=tuple(float(v) for v in det.boxes_xyxy[i]),  # type: ignore[arg-type]
                confidence=float(det.probs[i, chosen[i]] / max(float(det.probs[i].sum()), 1e-12)) if chosen[i] >= 0 else 0.0,
                set=set_of.get(i),
                rack=i in on_rack,
                alternatives=shown[i],
                up_xy=None if np.isnan(up).any() else (float(up[0]), float(up[1])),
                detector_confidence=float(det.scores[i]),
                cut=i in cut,
            )
        )
    reasons = {i: u.reason for u in units for i, c, r in zip(u.indices, u.chosen.codes, u.options[0].codes) if c != r}
    doubts = _doubts(tiles, chosen, reader_top, reasons, excess, rules)
    rack_points = sum(_rack_value(tiles[i].tile, rules) for i in on_rack if i not in cut)
    t3 = time.perf_counter()
    timing = {
        "layout": (t1 - t0) * 1000,
        "rules": (t3 - t1) * 1000,
        "total": (t3 - t0) * 1000,
    }
    return TableReading(
        width=width,
        height=height,
        tiles=tuple(tiles),
        sets=tuple(read_sets),
        loose=tuple(sorted(i for i in layout.loose)),
        rack_rows=rack_rows,
        rack_points=rack_points,
        doubts=tuple(doubts),
        timing_ms=timing,
        mode=mode,
        rules=rules.name,
        rack_cues=layout.racks,
        not_tiles=not_tiles,
    )


# --------------------------------------------------------------------------- racks


def _bar_boxes(boxes_xyxy: np.ndarray, layout: Layout) -> set[int]:
    """Boxes that are the rack's bar or wordmark: short and wide, in a rack's span (see the
    module doc). None when no rack is told or seen."""
    if not layout.rack_rows:
        return set()
    boxes = np.asarray(boxes_xyxy, dtype=np.float64)
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    on_rack = [i for row in layout.rack_rows for i in row]
    upright = [i for i in on_rack if bh[i] >= bw[i]]
    if not upright:
        return set()
    h = float(np.median(bh[upright]))
    cxs, cys = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    # Only boxes on a rack's span are its bar, told or seen: measured along the rack's rows (a rack
    # seen at an angle runs diagonally across the photo, the table's tiles above and below its
    # span). A told rack's photo often shows table tiles too, lying flat and so short and wide.
    spans = []
    first = 0
    for cue in layout.racks:
        rows = layout.rack_rows[first:first + cue.rows]
        first += cue.rows
        mine = [i for row in rows for i in row if bh[i] >= bw[i]]
        if not mine:
            continue
        slope = rack_slope(boxes, rows)
        x_ref = float(cxs[mine].mean())
        shift = slope * (cxs[mine] - x_ref)
        spans.append((slope, x_ref, float(boxes[mine, 0].min()), float(boxes[mine, 2].max()),
                      float((boxes[mine, 1] - shift).min()), float((boxes[mine, 3] - shift).max())))
    out = set()
    for i in range(len(boxes)):
        if bh[i] >= BAR_MAX_HEIGHT * h or bw[i] <= bh[i] or _in_a_line(i, boxes, bw, bh, cys):
            continue
        if any(left <= cxs[i] <= right and top <= cys[i] - slope * (cxs[i] - x_ref) <= bottom + h
               for slope, x_ref, left, right, top, bottom in spans):
            out.add(i)
    return out


def _in_a_line(i: int, boxes: np.ndarray, bw: np.ndarray, bh: np.ndarray, cys: np.ndarray) -> bool:
    """Whether box ``i`` has a neighbour of its height beside it, edge to edge: tiles lying in a
    set on the table in front of (or behind) a rack, not the rack's bar, which stands alone."""
    for j in range(len(boxes)):
        if j == i or not 0.7 * bh[i] <= bh[j] <= 1.4 * bh[i] or abs(cys[j] - cys[i]) > 0.5 * bh[i]:
            continue
        gap = max(boxes[j, 0] - boxes[i, 2], boxes[i, 0] - boxes[j, 2])
        if gap < 0.5 * bw[i]:
            return True
    return False


def _cut_by_edge(boxes_xyxy: np.ndarray, width: int, height: int) -> set[int]:
    """Tiles cut by the photo's edge: the box touches a border and is clearly smaller across it
    than the median of the other boxes (a whole tile touching the edge keeps its size)."""
    boxes = np.asarray(boxes_xyxy, dtype=np.float64).reshape(-1, 4)
    if len(boxes) < 2:
        return set()
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    out = set()
    for i in range(len(boxes)):
        at_x = boxes[i, 0] <= EDGE_PX or boxes[i, 2] >= width - EDGE_PX
        at_y = boxes[i, 1] <= EDGE_PX or boxes[i, 3] >= height - EDGE_PX
        if not (at_x or at_y):
            continue
        # Its neighbours (the nearest few) say how big a whole tile is here.
        d = np.linalg.norm(centres - centres[i], axis=1)
        near = [j for j in np.argsort(d).tolist() if j != i][:4]
        if at_x and bw[i] < CUT_MAX_SIZE * float(np.median(bw[near])) and bh[i] >= CUT_MAX_SIZE * float(np.median(bh[near])):
            out.add(i)
        elif at_y and bh[i] < CUT_MAX_SIZE * float(np.median(bh[near])) and bw[i] >= CUT_MAX_SIZE * float(np.median(bw[near])):
            out.add(i)
    return out


# --------------------------------------------------------------------------- readings per tile


def _check_size(image_size: tuple[int, int]) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in image_size)
    except (TypeError, ValueError):
        raise ValueError(f"image_size must be (width, height) in pixels, not {image_size!r}") from None
    if width <= 0 or height <= 0:
        raise ValueError(f"image_size must be positive (width, height), not {image_size!r}")
    return width, height


def _normalised(probs: np.ndarray) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64).reshape(-1, N_CODES)
    if np.any(~np.isfinite(p)) or np.any(p < 0):
        raise ValueError("reading probabilities must be finite and non-negative")
    total = p.sum(axis=1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0)


def _top_readings(row: np.ndarray) -> tuple[tuple[str, float], ...]:
    """The reader's own most probable readings, its first choice first (for ReadTile and doubts)."""
    if row.sum() <= 0:
        return ()
    order = np.argsort(-row, kind="stable")[:ALTERNATIVES_SHOWN]
    return tuple(
        (_TILES[int(k)].code, float(row[k])) for j, k in enumerate(order) if j == 0 or row[k] >= _SHOWN_FLOOR
    )


def _candidates(row: np.ndarray) -> list[tuple[int, float]]:
    """Likely readings (code index, probability), most probable first; one when confident."""
    if row.sum() <= 0:
        return [(-1, 1.0)]  # unreadable: stays "?"
    order = np.argsort(-row, kind="stable")[:TOP_K]
    top = float(row[order[0]])
    if top >= CONFIDENT:
        return [(int(order[0]), top)]
    out = [(int(order[0]), top)]
    for k in order[1:]:
        p = float(row[k])
        if p >= CANDIDATE_FLOOR and p >= MIN_RATIO * top:
            out.append((int(k), p))
    return out


def _swap_six_nine(row: np.ndarray) -> np.ndarray:
    out = row.copy()
    for colour in range(4):
        six, nine = colour * 13 + 5, colour * 13 + 8
        out[six], out[nine] = row[nine], row[six]
    return out


def _unsure_six_or_nine(row: np.ndarray) -> bool:
    """Whether a tile's reading is a 6 or a 9 under ``CONFIDENT`` (a readable tile, not a joker)."""
    top = int(row.argmax())
    return bool(row.sum() > 0) and row[top] < CONFIDENT and top != JOKER.index and top % 13 + 1 in (6, 9)


def _orientation_flips(probs: np.ndarray, up_xy: np.ndarray, groups: list[list[int]]) -> list[int]:
    """Tiles read as 6 or 9 without confidence whose up vector opposes the rest of their set or
    rack (at least two others with known, agreeing up vectors)."""
    up = np.asarray(up_xy, dtype=np.float64)
    flips = []
    for members in groups:
        known = [i for i in members if not np.isnan(up[i]).any()]
        if len(known) < 3:
            continue
        for i in known:
            if not _unsure_six_or_nine(probs[i]):
                continue
            others = up[[j for j in known if j != i]]
            mean = others.mean(axis=0)
            if np.linalg.norm(mean) < 0.7:  # the others do not agree on a direction
                continue
            if float(up[i] @ (mean / np.linalg.norm(mean))) < _FLIP_DOT:
                flips.append(i)
    return flips


def _upright_loops(probs: np.ndarray, det: TileDetections, rack_rows: tuple[tuple[int, ...], ...], image_bgr: np.ndarray,
                   image_scale: float) -> list[int]:
    """Rack tiles read as 6 or 9 without confidence, the other number still a candidate
    (``CANDIDATE_FLOOR``), whose bare numeral, seen the way up its rack stands
    (:func:`vision.glyph.quarter_turns` of the row's up vectors, else the whole rack's, else the
    way most of the rack's tiles point), has its loop on the other number's side
    (:func:`vision.glyph.loop_side`), or, where the loop says nothing (a marked or outlined
    numeral), its weight (:func:`vision.glyph.mass_side`)."""

    def torn(i: int) -> bool:  # unsure of 6 or 9, the other number still a candidate (else a mark or the tile's body told it)
        row = probs[i]
        if not _unsure_six_or_nine(row):
            return False
        top = int(row.argmax())
        return bool(row[top + 3 if top % 13 == 5 else top - 3] >= CANDIDATE_FLOOR * row.sum())

    rows = [list(r) for r in rack_rows]
    looked = {i for r in rows for i in r if torn(i)}
    if not looked:  # (most racks: no turn to find, no crop to cut)
        return []
    from vision.glyph import LOOP_BELOW, loop_side, mass_side, quarter_turns

    on_rack = [i for r in rows for i in r]
    whole = quarter_turns(det.up_xy[on_rack])
    if whole is None:  # the up vectors do not agree on average (small tiles): the way most of them point
        each = [quarter_turns(det.up_xy[[i]]) for i in on_rack]
        counts = Counter(t for t in each if t is not None)
        if counts:
            turn, count = counts.most_common(1)[0]
            whole = turn if 2 * count >= sum(counts.values()) else None
    h, w = image_bgr.shape[:2]
    swaps = []
    for row_tiles in rows:
        if looked.isdisjoint(row_tiles):
            continue
        turns = quarter_turns(det.up_xy[row_tiles]) if len(row_tiles) >= 3 else None
        turns = whole if turns is None else turns
        if turns is None:
            continue
        for i in looked.intersection(row_tiles):
            x1, y1, x2, y2 = (float(v) / image_scale for v in det.boxes_xyxy[i])
            crop = image_bgr[max(int(y1), 0):min(int(math.ceil(y2)), h), max(int(x1), 0):min(int(math.ceil(x2)), w)]
            side = (loop_side(crop, turns) or mass_side(crop, turns)) if crop.size else 0
            if side and (side == LOOP_BELOW) != (int(probs[i].argmax()) % 13 == 5):
                swaps.append(i)
    return swaps


# --------------------------------------------------------------------------- decoding with the rules


def _tiles_of(codes: tuple[int, ...]) -> tuple[Tile, ...]:
    return tuple(_TILES[c] for c in codes)


def _set_unit(indices: tuple[int, ...], candidates: list[list[tuple[int, float]]]) -> _Unit:
    """A set's options: the reader's reading first, then plausible combinations, valid ones by
    probability; the chosen one is the most probable valid option, else the reader's."""
    cands = [list(candidates[i]) for i in indices]
    _limit_combinations(cands)
    top = tuple(c[0][0] for c in cands)
    top_logp = sum(math.log(c[0][1]) for c in cands)
    readable = all(code >= 0 for code in top)
    floor = top_logp + math.log(MIN_RATIO)
    found: list[tuple[float, tuple[int, ...]]] = []

    def walk(k: int, codes: list[int], logp: float) -> None:
        if logp < floor:
            return  # no completion can be plausible enough (every factor is at most 1)
        if k == len(cands):
            found.append((logp, tuple(codes)))
            return
        for code, p in cands[k]:
            codes.append(code)
            walk(k + 1, codes, logp + math.log(p))
            codes.pop()

    walk(0, [], 0.0)
    options: list[_Option] = []
    for logp, codes in found:
        valid = readable and check_set(_tiles_of(codes)).valid
        options.append(_Option(codes, logp, valid))
    reader = next(o for o in options if o.codes == top)
    others = sorted((o for o in options if o is not reader), key=lambda o: (not o.valid, -o.logp))
    options = [reader] + others[: MAX_OPTIONS - 1]
    unit = _Unit(indices, True, options)
    if not reader.valid:
        best = next((k for k, o in enumerate(options) if o.valid), 0)
        if best:
            unit.current, unit.reason = best, "set"
    return unit


def _join_across_gaps(layout: Layout, candidates: list[list[tuple[int, float]]]) -> Layout:
    """Join two sets (or a set and a loose tile) in line across a gap the layout could not judge (:attr:`Layout.joins`: as wide
    as a set's own gaps seen at an angle, or as the gap between two sets laid loosely) when
    together they read as one legal set under a plausible reading."""
    if not layout.joins:
        return layout
    groups: dict[int, list[int]] = {k: list(s) for k, s in enumerate(layout.sets)}
    owner = {i: k for k, s in enumerate(layout.sets) for i in s}
    loose = set(layout.loose)
    for i in sorted({t for pair in layout.joins for t in pair} & loose):  # a lone tile joins as a set of one
        owner[i] = len(layout.sets) + i
        groups[owner[i]] = [i]
    for i, j in layout.joins:
        a, b = owner.get(i), owner.get(j)
        if a is None or b is None or a == b:
            continue
        first, second = groups[a], groups[b]
        if first[-1] != i:
            first = first[::-1]  # i ends the first set
        if second[0] != j:
            second = second[::-1]  # j starts the second (a set of two ending in j was not turned)
        joined = first + second
        if not _set_unit(tuple(joined), candidates).chosen.valid:
            continue
        keep, gone = min(a, b), max(a, b)
        groups[keep] = joined
        del groups[gone]
        for t in joined:
            owner[t] = keep
    kept = [k for k in sorted(groups) if len(groups[k]) >= 2]  # lone tiles left alone stay loose
    if len(kept) == len(layout.sets) and all(len(groups[k]) == len(layout.sets[k]) for k in kept):
        return layout
    axes = layout.set_axes_xy
    in_set = {t for k in kept for t in groups[k]}
    return replace(layout, sets=tuple(tuple(groups[k]) for k in kept),
                   set_axes_xy=tuple(axes[k] if k < len(axes) else (1.0, 0.0) for k in kept),
                   loose=tuple(t for t in layout.loose if t not in in_set))


def _split_touching_sets(layout: Layout, candidates: list[list[tuple[int, float]]]) -> Layout:
    """Cut lines of tiles that hold two or more sets pushed together (no gap for the layout to see).

    A line is cut only when no plausible reading makes it one legal set and it splits, where its
    tiles touch, into consecutive parts of at least ``MIN_PART`` tiles each legal under a plausible
    reading (the split of the most probable readings when several do). A line read wrongly is
    rarely cut: a misread tile spoils the part it falls in as much as the whole line.
    """
    sets: list[tuple[int, ...]] = []
    axes: list[tuple[float, float]] = []
    changed = False
    for k, members in enumerate(layout.sets):
        axis = layout.set_axes_xy[k] if k < len(layout.set_axes_xy) else (1.0, 0.0)
        parts = _legal_parts(tuple(members), candidates) if len(members) >= 2 * MIN_PART else None
        if parts is None:
            sets.append(tuple(members))
            axes.append(axis)
            continue
        changed = True
        sets.extend(parts)
        axes.extend([axis] * len(parts))
    return replace(layout, sets=tuple(sets), set_axes_xy=tuple(axes)) if changed else layout


def _cut_where_offered(layout: Layout, candidates: list[list[tuple[int, float]]]) -> Layout:
    """Cut a set at the gap the layout offers (:attr:`Layout.cuts`: its widest, somewhat wider than
    its others but not enough for geometry alone) when no plausible reading makes the whole one
    legal set and a part of at least ``MIN_PART`` tiles reads legal: two sets laid close, one of
    them misread or laid wrongly. A part of one tile is loose."""
    if not layout.cuts:
        return layout
    sets: list[tuple[int, ...]] = []
    axes: list[tuple[float, float]] = []
    loose = list(layout.loose)
    changed = False
    for k, members in enumerate(layout.sets):
        axis = layout.set_axes_xy[k] if k < len(layout.set_axes_xy) else (1.0, 0.0)
        at = next((members.index(j) for i, j in layout.cuts if i in members and j in members
                   and members.index(j) == members.index(i) + 1), None)
        parts = [members] if at is None else [members[:at], members[at:]]
        if at is not None and not _set_unit(tuple(members), candidates).chosen.valid and any(
                len(part) >= MIN_PART and _set_unit(tuple(part), candidates).chosen.valid for part in parts):
            changed = True
            for part in parts:
                if len(part) >= 2:
                    sets.append(tuple(part))
                    axes.append(axis)
                else:
                    loose.extend(part)
            continue
        sets.append(tuple(members))
        axes.append(axis)
    if not changed:
        return layout
    return replace(layout, sets=tuple(sets), set_axes_xy=tuple(axes), loose=tuple(sorted(loose)))


def _legal_parts(members: tuple[int, ...], candidates: list[list[tuple[int, float]]]) -> list[tuple[int, ...]] | None:
    """The split of an illegal line into legal consecutive parts (see :func:`_split_touching_sets`),
    or None when the whole line reads legal or no such split exists."""
    if _set_unit(members, candidates).chosen.valid:
        return None
    n = len(members)
    # best[end]: (log-probability, parts) of the most probable split of members[:end] into legal parts.
    best: list[tuple[float, list[tuple[int, ...]]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for end in range(MIN_PART, n + 1):
        for start in range(0, end - MIN_PART + 1):
            head = best[start]
            if head is None:
                continue
            unit = _set_unit(members[start:end], candidates)
            if not unit.chosen.valid:
                continue
            score = head[0] + unit.chosen.logp
            if best[end] is None or score > best[end][0]:  # type: ignore[index]
                best[end] = (score, head[1] + [members[start:end]])
    whole = best[n]
    return whole[1] if whole is not None and len(whole[1]) >= 2 else None


def _limit_combinations(cands: list[list[tuple[int, float]]]) -> None:
    """Drop the least probable alternatives until at most MAX_COMBINATIONS combinations remain."""
    while math.prod(len(c) for c in cands) > MAX_COMBINATIONS:
        k = min((k for k in range(len(cands)) if len(cands[k]) > 1), key=lambda k: cands[k][-1][1])
        cands[k].pop()


def _single_unit(i: int, candidates: list[list[tuple[int, float]]]) -> _Unit:
    options = [_Option((code,), math.log(p), True) for code, p in candidates[i]]
    return _Unit((i,), False, options)


def _limit(code: int, rules: RuleSet) -> int:
    return rules.jokers if code == JOKER.index else rules.copies


def _enforce_counts(units: list[_Unit], rules: RuleSet) -> set[int]:
    """Switch options, one unit at a time, until no tile is read more often than the game has it
    (RULES.md section 1) or no switch helps. Returns the codes still in excess."""
    counts = [0] * N_CODES
    for unit in units:
        for code in unit.chosen.codes:
            if code >= 0:
                counts[code] += 1
    limits = [_limit(code, rules) for code in range(N_CODES)]
    over = sum(max(0, c - lim) for c, lim in zip(counts, limits))

    def change(old: tuple[int, ...], new: tuple[int, ...]) -> int:
        """How the total excess changes when a unit's codes go from ``old`` to ``new``."""
        delta: dict[int, int] = {}
        for code in old:
            if code >= 0:
                delta[code] = delta.get(code, 0) - 1
        for code in new:
            if code >= 0:
                delta[code] = delta.get(code, 0) + 1
        return sum(max(0, counts[c] + d - limits[c]) - max(0, counts[c] - limits[c]) for c, d in delta.items() if d)

    for _step in range(4 * len(units) + 8):
        if over == 0:
            break
        best: tuple[tuple[int, int, float], int, int] | None = None
        for u, unit in enumerate(units):
            cur = unit.chosen
            for k, opt in enumerate(unit.options):
                if k == unit.current:
                    continue
                new_over = over + change(cur.codes, opt.codes)
                if new_over >= over:
                    continue
                key = (new_over, int(cur.valid) - int(opt.valid), cur.logp - opt.logp)
                if best is None or key < best[0]:
                    best = (key, u, k)
        if best is None:
            break
        _, u, k = best
        unit = units[u]
        over = best[0][0]
        for code in unit.chosen.codes:
            if code >= 0:
                counts[code] -= 1
        unit.current = k
        unit.reason = "count" if k != 0 else ""
        for code in unit.chosen.codes:
            if code >= 0:
                counts[code] += 1
    return {code for code in range(N_CODES) if counts[code] > limits[code]}


# --------------------------------------------------------------------------- verdicts and doubts


def _verdict(spatial: list[int], chosen: list[int]) -> ReadSet:
    """The set in the referee's order with ``check_set``'s verdict."""
    if any(chosen[i] < 0 for i in spatial):
        codes = tuple(_TILES[chosen[i]].code if chosen[i] >= 0 else UNREADABLE for i in spatial)
        face = sum(_TILES[chosen[i]].number or 0 for i in spatial if chosen[i] >= 0)
        return ReadSet(
            tuple(spatial), codes, None, False, face,
            _("A tile of this set could not be read: check it and correct it by hand."), "unreadable",
        )
    tiles = [_TILES[chosen[i]] for i in spatial]
    verdict = check_set(tuple(tiles))
    order = list(spatial)
    if verdict.valid:
        if verdict.reading is not None and verdict.reading.reversed:
            order.reverse()  # a run photographed right to left: the referee reads it low to high
            verdict = check_set(tuple(_TILES[chosen[i]] for i in order))
    elif _descending(tiles):
        order.reverse()  # an illegal run is still shown in the direction its numbers mostly rise
        verdict = check_set(tuple(_TILES[chosen[i]] for i in order))
    return ReadSet(
        indices=tuple(order),
        codes=tuple(_TILES[chosen[i]].code for i in order),
        kind=verdict.kind.value if verdict.kind is not None else None,
        valid=verdict.valid,
        points=verdict.points,
        problem=verdict.problem,
        code=verdict.code,
        jokers=tuple(t.code for t in verdict.jokers),
    )


def _descending(tiles: list[Tile]) -> bool:
    numbers = [t.number for t in tiles if t.number is not None]
    ups = sum(1 for a, b in zip(numbers, numbers[1:]) if b > a)
    downs = sum(1 for a, b in zip(numbers, numbers[1:]) if b < a)
    return downs > ups


def _percent(p: float) -> str:
    return f"{round(100 * p)}%"


def _doubts(
    tiles: list[ReadTile],
    chosen: list[int],
    reader_top: list[int],
    reasons: dict[int, str],
    excess: set[int],
    rules: RuleSet,
) -> list[Doubt]:
    out: list[Doubt] = []
    for i, t in enumerate(tiles):
        number = i + 1
        alternatives = t.alternatives
        if chosen[i] < 0:
            out.append(Doubt(i, UNREADABLE, alternatives, "unreadable",
                             _("Tile {number} could not be read: check it and correct it by hand.").format(number=number)))
            continue
        code = _TILES[chosen[i]].code
        first = _TILES[reader_top[i]].code
        if chosen[i] in excess:
            count = sum(1 for c in chosen if c == chosen[i])
            message = _("{tile} is read {count} times, but the game has only {copies}: one of them is misread.")
            out.append(Doubt(i, code, alternatives, "too_many_copies",
                             message.format(tile=code, count=count, copies=_limit(chosen[i], rules))))
            continue
        if chosen[i] != reader_top[i]:
            reason = reasons.get(i, "")
            if reason == "count":
                message = _("Tile {number} looks most like {first}, but the game has no more {first} tiles: read as {tile}.")
                out.append(Doubt(i, code, alternatives, "changed_for_count", message.format(number=number, first=first, tile=code)))
            elif reason == "set":
                message = _("Tile {number} looks most like {first}, but {tile} makes its set valid: check it.")
                out.append(Doubt(i, code, alternatives, "changed_for_set", message.format(number=number, first=first, tile=code)))
            else:  # only the orientation changed the reading
                message = _("Tile {number} lies the other way up from its neighbours: read as {tile}, not {first}.")
                out.append(Doubt(i, code, alternatives, "changed_for_orientation", message.format(number=number, first=first, tile=code)))
            continue
        if t.confidence < CONFIDENT:
            others = ", ".join(f"{c} ({_percent(p)})" for c, p in alternatives if c != code) or "?"
            message = _("Tile {number} is read as {tile} ({percent}), but it could also be {others}.")
            out.append(Doubt(i, code, alternatives, "uncertain",
                             message.format(number=number, tile=code, percent=_percent(t.confidence), others=others)))
    return out


def _rack_value(tile: Tile | None, rules: RuleSet) -> int:
    """What a rack tile counts at the end of a game: its number, a joker 30 (RULES.md section 1)."""
    if tile is None:
        return 0
    if tile.is_joker:
        return rules.joker_rack_penalty
    assert tile.number is not None
    return tile.number
