"""The live referee: a fixed camera follows a whole game, turn by turn.

    python -m vision.follow INPUT [--players N] [--names A,B,C] [--fps F] [--rules classic] --json
    python -m vision.follow --camera 0 --names Ann,Bob --json

INPUT is a video file or a folder of frames (read in name order, one every ``1/fps`` seconds,
default 2 per second); ``--camera N`` reads OpenCV camera N. Names are given in playing order: the
first name plays first (the rule book has each player turn a tile; the highest starts). ``--json``
prints one JSON object (DESIGN.md, "Following a game from a fixed camera"); without it a line per
turn. ``--history DIR`` keeps every stable state's photo (downscaled JPEG) and verdict there.

How a turn is found, frame by frame (choices measured on rendered games, see ``vision/evaluate/follow.py``):

- *Moving*: the share of pixels of a small grey copy that changed since the previous frame, after
  matching the overall brightness (a drifting light does not count).
- *Hand*: the share of skin-coloured pixels (YCrCb) above what the table showed at rest.
- A *rest* is ``still`` frames in a row (default 2) with neither. At each rest the picture is
  registered to the last settled one (ORB features, a homography with RANSAC); a shift of more
  than a few pixels is a bumped camera: the ``camera_moved`` event, and the old tiles' places are
  carried into the new view. The two pictures are then compared after dividing each by its own
  blurred copy (light and shadows change slowly across the picture, tiles do not): regions that
  differ by at least a third of a tile.
- No such region: nothing happened (a hand rested, a shadow passed, the light changed). Regions
  off every tile (the face-down pool lost a tile): a *draw*. Regions on tiles: the table is read
  and the turn checked.

Reading a rest reads only what changed since the last settled state, so that the checked verdict
follows the rest within a second or so on a 2-core laptop (``reading_s``; the step times are in
``stats.rest_steps_ms``, the figures in ``vision/evaluate/follow.py``):

- the detector runs only in windows over the changed regions (two tiles of margin; regions that
  fit one window share it), each small enough that tiles stay ``window_tile_px`` detector pixels
  high (one run per window); the whole frame only at the first rest or when more than
  ``max_windows`` windows would be needed;
- a box on a settled tile whose face did not change keeps its settled identity and is not read
  again (tiles only arrive from racks); settled tiles the windows do not reach are carried over;
- every tile read (not carried over) is read in both rest frames and the two readings averaged
  (readings agreed across frames: two that disagree leave the tile unsure);
- face-down tiles (no ink on the face) are dropped; the readings are decoded with the rules (valid
  sets, at most two copies of a tile).

A tile in a changed region read with less than ``--sure`` confidence is *unsure*: the turn is
marked ``check_by_hand`` and no violation resting on that tile is called.

What the camera cannot see: a draw is seen as a face-down tile leaving the pool, so the pool must
lie in view. A tile drawn from a pool off camera changes nothing the camera sees: the follower
cannot tell that turn from a player still thinking. Such a draw must be told
(:meth:`Follower.drew`; the Referee screen's "drew from the pool" button), else the next change
of the table is credited to the player who drew.

Event ``kind`` values: ``game_start``, ``camera_moved``, ``glare`` (the view at rest became
overexposed: its tiles are found with the glare settings, ``DetectorSettings.glare_share``, and the
players are told how to mend the light; said once until the light is fair again), ``timer_warning`` (ten seconds left),
``time_up``, ``table_restored`` (the table went back to how it was before a faulty turn: the
rule book's consequence carried out), ``check_by_hand``, ``game_end``.

Each turn: ``number``, ``player``, ``kind``, ``start_s``, ``end_s`` (video seconds), ``laid``,
``moved``, ``missing``, ``opening_points``, ``ok``, ``violations`` (the referee's ``code``,
``message``, ``tiles``), ``verdict``, ``consequence`` (a sentence, or null), ``check_by_hand``,
``unsure`` (tile codes), ``check_message`` (sentences naming the unsure tiles, or null),
``table`` (notation), ``reading_s`` (seconds from the table coming to rest to the full, checked
reading); a draw also ``told`` (true when a person told it with :meth:`Follower.drew`: a pool
off camera).

Turn ``kind`` values: ``draw`` (nothing laid: the table is as it was and a tile left the pool, or
a person told the draw; ``laid`` is empty and the verdict ``ok``) and ``play`` (the table
changed; checked by the referee). Turn ``verdict`` values (:data:`VERDICTS`): ``ok`` (checked,
no rule broken), ``violation`` (at least one violation called: ``ok`` false), ``check_by_hand``
(no violation called, but the turn rests on tiles that could not be settled, listed in
``unsure``: it was not checked in full, and a ``check_by_hand`` event names the tiles). A turn
with a violation called may still list unsure tiles (``check_by_hand`` true): the violation
then rests on other tiles only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.i18n import _, join_sentences
from referee.ruleset import MatchScoring, RuleSet, RuleSetError, TimeoutPenalty
from referee.table import unmatched_sets
from referee.tiles import Tile, format_table, format_tiles
from referee.turn import check_turn
from vision.boxes import iou_matrix

__all__ = ["FollowSettings", "Follower", "History", "frames_from", "rules_named", "follow", "main", "EVENT_KINDS",
           "VERDICTS"]

VERDICTS = ("ok", "violation", "check_by_hand")  # a turn's ``verdict`` (module doc)
EVENT_KINDS = ("game_start", "camera_moved", "glare", "timer_warning", "time_up", "table_restored", "check_by_hand",
               "game_end")
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def rules_named(name: str) -> RuleSet:
    """``classic``, ``xp`` or ``spanish`` (the 1999 Spanish rule book, 004: table restored without
    the 3-tile penalty, a joker replaced only from the rack, matches to 1000 points)."""
    key = name.strip().lower()
    if key in ("spanish", "spanish1999", "004"):
        return RuleSet.classic(timeout_penalty=TimeoutPenalty.RETURN_TO_POOL, joker_from_table_tile=False,
                               match_scoring=MatchScoring.TARGET_POINTS)
    return RuleSet.preset(key)


@dataclass
class FollowSettings:
    """Thresholds of the follower (defaults chosen on rendered games; see the module doc)."""

    fps: float = 2.0
    """Frames analysed per second of video."""
    still: int = 2
    """Frames in a row without movement or hand that make a rest."""
    motion: float = 0.004
    """Share of changed pixels (small grey copy) above which a frame counts as moving."""
    hand: float = 0.006
    """Share of the picture in one skin-coloured blob, above the table's own at rest, that means a
    hand is in view."""
    change: float = 0.18
    """Change of the light-normalised picture (relative) that marks a pixel as changed."""
    region: float = 0.33
    """Smallest changed region that counts, as a share of a tile's area."""
    moved_px: float = 1.5
    """Mean shift of the picture corners (pixels of the work copy) above which the camera moved."""
    sure: float = 0.6
    """Reading confidence below which a changed tile is unsure (the turn: check by hand)."""
    face_change: float = 0.018
    """Share of a tile's face that must differ from the settled picture for the tile to count as changed."""
    blank_std: float = 6.0
    """Grey-level spread under which a detected tile's face is blank (a face-down pool tile)."""
    work_width: int = 480
    """Width of the copy used to compare rests (pixels)."""
    window_tile_px: float = 28.0
    """Height of a tile's short side, in the detector's input pixels, in the windows read again
    around the changes of a rest (the detector searches small tiles twice over below 24)."""
    max_windows: int = 4
    """Windows read again at most; beyond, the whole frame is read (it costs five detector runs)."""
    history_side: int = 640
    """Long side of the photos kept in the history (pixels)."""
    max_history: int = 4000
    """States kept in the history at most (a two-hour game has a few hundred)."""
    timer: bool = True
    """Emit the one-minute timer's warning and time-up events."""


@dataclass
class _Settled:
    """The last settled table: the detections (one-hot for settled tiles) and the sets."""

    det: Any  # vision.detections.TileDetections in the reference view
    sets: list[list[Tile]]
    image: np.ndarray  # BGR frame at work size (light-normalised comparisons)
    norm: np.ndarray  # light-normalised grey of ``image``
    grey: np.ndarray  # grey at registration size
    tile_area: float  # median tile box area in work pixels
    full: np.ndarray  # the full-size frame (each tile's face compared with it)
    set_of: np.ndarray  # for each row of ``det``, the index of its set in ``sets``
    conf: np.ndarray  # for each row of ``det``, the reader's confidence when it was settled
    features: Any = None  # ORB keypoints and descriptors of ``grey`` (computed once, on first use)


class History:
    """Every stable state with its photo (downscaled JPEG), sets and verdict, in a folder.

    ``DIR/NNNNN.jpg`` and ``DIR/history.json`` (a list of states: index, t, turn, table, verdict,
    photo). Bounded: at most ``max_states`` states; the oldest photos are deleted beyond it.
    """

    def __init__(self, folder: Path | str | None, side: int = 640, max_states: int = 4000) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.side = side
        self.max_states = max_states
        self.states: deque[dict[str, Any]] = deque(maxlen=max_states)
        self.count = 0
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, frame_bgr: np.ndarray, t: float, table: str, turn: int | None, verdict: dict[str, Any] | None,
            kind: str) -> dict[str, Any]:
        """Keep one state; returns its entry."""
        index = self.count
        self.count += 1
        entry: dict[str, Any] = {"index": index, "t": round(t, 2), "kind": kind, "turn": turn, "table": table,
                                 "verdict": verdict, "photo": None}
        if self.folder is not None:
            h, w = frame_bgr.shape[:2]
            s = min(1.0, self.side / max(h, w))
            small = cv2.resize(frame_bgr, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else frame_bgr
            name = f"{index:05d}.jpg"
            cv2.imwrite(str(self.folder / name), small, [cv2.IMWRITE_JPEG_QUALITY, 75])
            entry["photo"] = name
            if len(self.states) == self.max_states:
                old = self.states[0].get("photo")
                if old:
                    (self.folder / old).unlink(missing_ok=True)
        self.states.append(entry)
        self.save()
        return entry

    def save(self) -> None:
        """Write ``history.json`` (atomically: a reader never sees half a file)."""
        if self.folder is None:
            return
        tmp = self.folder / "history.json.tmp"
        tmp.write_text(json.dumps(list(self.states)))
        tmp.replace(self.folder / "history.json")


class _Steps:
    """Wall-clock milliseconds of each step of one rest (``lap`` after each step), so that the
    benchmark can say where the time from rest to reading goes."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        """Charge the time since the previous lap to ``name``."""
        now = time.perf_counter()
        self.ms[name] = self.ms.get(name, 0.0) + (now - self._t) * 1000
        self._t = now


def _to_width(frame: np.ndarray, width: int) -> np.ndarray:
    """``frame`` scaled to ``width`` pixels wide, its aspect kept (area averaging)."""
    h, w = frame.shape[:2]
    return cv2.resize(frame, (width, max(1, int(round(h * width / w)))), interpolation=cv2.INTER_AREA)


def _skin_share(frame_small_bgr: np.ndarray) -> float:
    """Share of the picture covered by its largest skin-coloured blob (YCrCb box). Opening the
    mask first removes thin skin-coloured strokes such as orange numerals."""
    ycc = cv2.cvtColor(frame_small_bgr, cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    mask = ((y > 50) & (cr >= 138) & (cr <= 178) & (cb >= 80) & (cb <= 128)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _labels, stats, _c = cv2.connectedComponentsWithStats(mask)
    if n <= 1:
        return 0.0
    return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size


def _normalised(grey: np.ndarray) -> np.ndarray:
    """Grey divided by its own blurred copy: slow light changes and soft shadows cancel."""
    g = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.0)
    base = cv2.GaussianBlur(g, (0, 0), max(4.0, grey.shape[1] / 24))
    return g / np.maximum(base, 8.0)


class Follower:
    """Feed it frames (:meth:`feed`); it keeps the game: turns, events, history.

    ``names`` in playing order; ``reader`` a :class:`vision.pipeline.TableReader` (the shipped
    models by default).
    """

    def __init__(self, names: list[str], rules: RuleSet | None = None, settings: FollowSettings | None = None,
                 reader: Any = None, history: History | None = None) -> None:
        if len(names) < 1:
            raise ValueError("at least one player name is needed")
        self.names = list(names)
        self.rules = rules or RuleSet.classic()
        self.s = settings or FollowSettings()
        self._reader = reader
        self.history = history or History(None)
        self.turns: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.opened = {n: False for n in self.names}
        self.next_player = 0
        self.settled: _Settled | None = None
        self.last_faulty: dict[str, Any] | None = None  # the last play, until the next turn or its undoing
        self.turn_start = 0.0
        self.warned = False
        self.timed_out = False
        self.prev_small: np.ndarray | None = None
        self.prev_frame: np.ndarray | None = None
        self.still_run = 0
        self.rest_start_t: float | None = None
        self.rest_handled = False
        self.rest_frames: deque[np.ndarray] = deque(maxlen=2)
        self.skin_base: float | None = None
        self.frames = 0
        self.readings = 0
        self.analyse_s = 0.0
        self.analyse_cpu_s = 0.0  # CPU seconds of this process (all its threads): fair on a shared machine
        self.last_t = 0.0
        self.last_prev_t = 0.0
        self._full_w = 1
        self._kept: dict[int, int] = {}
        self._unsure_idx: list[int] = []
        self._fresh_rows: list[int] = []  # rows of the last detection that were read (not carried over)
        self._steps = _Steps()
        self._last_windows = 0
        self._glared = False  # the last rest's view was overexposed (one event when it becomes so)
        self._frame_reader: Any = None  # the reader for this rest's frames (the glare twin when overexposed)
        self.rests: deque[dict[str, Any]] = deque(maxlen=2000)  # per rest: its outcome and step times (ms)
        self.on_update: Any = None  # called with (kind, payload) for each new turn or event

    # ----------------------------------------------------------------- frames in

    @property
    def reader(self) -> Any:
        if self._reader is None:
            from vision.pipeline import load_reader

            self._reader = load_reader()
        return self._reader

    def feed(self, frame_bgr: np.ndarray, t: float) -> list[dict[str, Any]]:
        """Analyse one frame taken at ``t`` seconds; return the turns and events it produced."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError("a frame must be a BGR image: a numpy array of shape (height, width, 3)")
        t0 = time.perf_counter()
        c0 = time.process_time()
        out: list[dict[str, Any]] = []
        self.frames += 1
        self.last_t = t
        self._full_w = frame_bgr.shape[1]
        small_bgr = _to_width(frame_bgr, 160)
        small = cv2.GaussianBlur(cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (3, 3), 0)
        moving = True
        if self.prev_small is not None and self.prev_small.shape == small.shape:
            gain = float(np.median(self.prev_small)) / max(float(np.median(small)), 1.0)
            diff = np.abs(self.prev_small - small * gain)
            moving = float((diff > 10).mean()) > self.s.motion
        skin = _skin_share(small_bgr)
        hand = self.skin_base is not None and skin - self.skin_base > self.s.hand
        self.prev_small = small
        if not moving and not hand:
            self.still_run += 1
            if self.still_run == 1:
                self.rest_start_t = self.last_prev_t
                self.rest_frames.clear()
                self.rest_frames.append(self.prev_frame if self.prev_frame is not None else frame_bgr)
            self.rest_frames.append(frame_bgr)
            if self.still_run + 1 >= self.s.still and not self.rest_handled:
                self.rest_handled = True
                self.skin_base = skin if self.skin_base is None else min(self.skin_base * 0.5 + skin * 0.5, skin)
                out += self._at_rest(frame_bgr, t)
        else:
            self.still_run = 0
            self.rest_handled = False
        out += self._timer(t)
        self.prev_frame = frame_bgr
        self.last_prev_t = t
        self.analyse_s += time.perf_counter() - t0
        self.analyse_cpu_s += time.process_time() - c0
        for item in out:
            if self.on_update is not None:
                self.on_update(item)
        return out

    def drew(self, t: float) -> list[dict[str, Any]]:
        """The next player drew a tile from a pool the camera does not see, as told by a person
        (the Referee screen's "drew from the pool" button): a draw turn (``told``: true), the
        photo of the last frame in the history. A draw from a pool in view is seen by itself.
        Raises ValueError before the table was first seen at rest."""
        if self.settled is None or self.prev_frame is None:
            raise ValueError("the table has not been seen at rest yet: a draw can be told once the referee is watching")
        t = max(float(t), self.last_t)
        out = self._turn_draw(t, t, self.prev_frame, time.perf_counter())
        out[0]["turn"]["told"] = True
        for item in out:
            if self.on_update is not None:
                self.on_update(item)
        return out

    # ----------------------------------------------------------------- timer

    def _timer(self, t: float) -> list[dict[str, Any]]:
        if not self.s.timer or self.settled is None:
            return []
        limit = float(self.rules.turn_seconds)
        player = self.names[self.next_player]
        out = []
        if not self.warned and t - self.turn_start >= limit - 10:
            self.warned = True
            out.append(self._event(t, "timer_warning", _("{player}: ten seconds left.").format(player=player)))
        if not self.timed_out and t - self.turn_start >= limit:
            self.timed_out = True
            from referee.penalties import penalty_for_timeout

            # Nothing laid yet as far as the camera knows (the table is checked when it rests).
            out.append(self._event(t, "time_up", f"{player}: " + penalty_for_timeout(rules=self.rules).message))
        return out

    def _event(self, t: float, kind: str, message: str, **extra: Any) -> dict[str, Any]:
        ev = {"t": round(t, 2), "kind": kind, "message": message, **extra}
        self.events.append(ev)
        return {"event": ev}

    # ----------------------------------------------------------------- at rest

    def _at_rest(self, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        self._steps = _Steps()
        c0 = time.process_time()
        out = self._rest(frame, t)
        cpu_ms = (time.process_time() - c0) * 1000
        outcome = "start" if not self.rests else "nothing"
        for item in out:
            if "turn" in item:
                outcome = item["turn"]["kind"]
            elif item["event"]["kind"] == "table_restored":
                outcome = "restored"
        if outcome == "nothing" and self._steps.ms.keys() & {"detect", "read"}:
            outcome = "same"  # read, and the table reads as before (a tile straightened)
        ms = {k: round(v, 1) for k, v in self._steps.ms.items()}
        self.rests.append({"t": round(t, 2), "outcome": outcome, "ms": ms, "total_ms": round(sum(ms.values()), 1),
                           "cpu_ms": round(cpu_ms, 1), "windows": self._last_windows})
        return out

    def _rest(self, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        self._last_windows = 0
        rest_t = self.rest_start_t if self.rest_start_t is not None else t
        t0 = time.perf_counter()
        work = self._work(frame)
        grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        self._steps.lap("work_copy")
        out: list[dict[str, Any]] = self._exposure(t)
        if self.settled is None:
            det, reading, _unsure = self._read(list(self.rest_frames), None, None)
            sets, set_of = self._sets_of(reading, {})
            self._steps.lap("sets")
            self.settled = self._settle(det, reading, work, sets, set_of)
            self._steps.lap("settle")
            self.turn_start = t
            table = format_table(self.settled.sets)
            self.history.add(frame, t, table, None, None, "start")
            return [self._event(t, "game_start", _("The referee is watching: {table}").format(
                table=table or _("the table is empty")), table=table)] + out
        H, features = self._register(grey)
        self._steps.lap("register")
        if H is not None:
            out.append(self._event(t, "camera_moved", _(
                "The camera moved: the table was found again in the new view.")))
            self._move_settled(H, work)
            self._steps.lap("move_settled")
        norm = _normalised(grey)
        changed = self._changes(self.settled.norm, norm)
        self._steps.lap("changes")
        # Tiles whose face changed in place (a joker swapped for its tile, an 8 for a 9) are too
        # small a change for the mask: they count as changed regions too.
        # Each settled face is compared once per rest: _keep_settled reuses these answers.
        fx = self._scale_full
        faces = np.array([self._face_changed(box, self.rest_frames[-1]) for box in self.settled.det.boxes_xyxy], bool)
        for box, face_changed in zip(self.settled.det.boxes_xyxy, faces):
            if face_changed:
                x1, y1, x2, y2 = (int(round(v / fx)) for v in box)
                changed["mask"][max(0, y1):max(0, y2), max(0, x1):max(0, x2)] = 1
                changed["regions"] += 1
        self._steps.lap("faces")
        if not changed["regions"]:
            # Nothing happened on the table; follow the light so later comparisons stay fair.
            self.settled.image, self.settled.norm, self.settled.grey = work, norm, grey
            self.settled.full, self.settled.features = self.rest_frames[-1], features
            return out
        det, reading, unsure = self._read(list(self.rest_frames), changed["mask"], self.settled.det, faces,
                                          self._set_mates(faces))
        new_sets, set_of = self._sets_of(reading, self._kept)
        unsure = sorted(unsure + self._doubtful_sets(det, new_sets, set_of))
        self._steps.lap("sets")
        sets_equal = not unmatched_sets(new_sets, self.settled.sets) and not unmatched_sets(self.settled.sets, new_sets)
        if sets_equal:
            # The table reads the same. A change off every tile (the pool lost a tile) is a draw;
            # a change on tiles only is a tile straightened: no turn.
            off = self._off_tiles(changed["mask"], [self.settled.det, det])
            if off:
                out += self._turn_draw(rest_t, t, frame, t0)
        else:
            out += self._turn_play(rest_t, t, frame, new_sets, unsure, t0)
        self._steps.lap("turn")
        self.settled = self._settle(det, reading, work, new_sets, set_of)
        self.settled.features = features
        self._steps.lap("settle")
        return out

    def _exposure(self, t: float) -> list[dict[str, Any]]:
        """Choose the reader for this rest's frames: the glare twin when the last one is
        overexposed (``DetectorSettings.glare_share``; white faces lose the edges the detector
        scores), the plain one otherwise; a ``glare`` event when the view has just become so."""
        from vision.reading import glare_note

        measure = getattr(self.reader, "glare", None)  # stand-in readers in tests may not measure
        glared = bool(measure(self.rest_frames[-1])) if measure is not None else False
        self._frame_reader = self.reader.for_glare() if glared else self.reader
        self._steps.lap("exposure")
        became, self._glared = glared and not self._glared, glared
        return [self._event(t, "glare", glare_note(live=True))] if became else []

    def _work(self, frame: np.ndarray) -> np.ndarray:
        return _to_width(frame, self.s.work_width)

    def _register(self, grey: np.ndarray) -> tuple[np.ndarray | None, Any]:
        """The homography taking the settled view's points to this view when the camera moved,
        else None; and this view's ORB features (kept with the next settled state, so that each
        picture's features are computed once)."""
        st = self.settled
        assert st is not None
        orb = cv2.ORB_create(1500)
        features = orb.detectAndCompute(grey, None)
        if st.grey.shape != grey.shape:
            return np.eye(3), features
        if st.features is None:
            st.features = orb.detectAndCompute(st.grey, None)
        (k1, d1), (k2, d2) = st.features, features
        if d1 is None or d2 is None or len(k1) < 12 or len(k2) < 12:
            return None, features
        matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(d1, d2)
        if len(matches) < 12:
            return None, features
        src = np.float32([k1[m.queryIdx].pt for m in matches])
        dst = np.float32([k2[m.trainIdx].pt for m in matches])
        H, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 2.0)
        if H is None or int(inliers.sum()) < 12:
            return None, features
        h, w = grey.shape
        corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]]).reshape(-1, 1, 2)
        shift = float(np.linalg.norm(cv2.perspectiveTransform(corners, H) - corners, axis=2).mean())
        return (H if shift > self.s.moved_px else None), features

    def _move_settled(self, H: np.ndarray, work: np.ndarray) -> None:
        """Carry the settled state into the camera's new view."""
        from vision.detections import TileDetections

        st = self.settled
        assert st is not None
        h, w = work.shape[:2]
        img = cv2.warpPerspective(st.image, H, (w, h), borderMode=cv2.BORDER_REPLICATE)
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        det = st.det
        if len(det):
            fx = self._scale_full
            b = det.boxes_xyxy / fx
            pts = np.float32([[x1, y1] for x1, y1, _, _ in b] + [[x2, y2] for _, _, x2, y2 in b]).reshape(-1, 1, 2)
            moved = cv2.perspectiveTransform(pts, H).reshape(-1, 2) * fx
            n = len(b)
            boxes = np.hstack([np.minimum(moved[:n], moved[n:]), np.maximum(moved[:n], moved[n:])])
            det = TileDetections(boxes, det.scores, det.probs, det.up_xy)
        fx = self._scale_full
        S = np.diag([fx, fx, 1.0])
        full = cv2.warpPerspective(st.full, S @ H @ np.linalg.inv(S), (st.full.shape[1], st.full.shape[0]),
                                   borderMode=cv2.BORDER_REPLICATE)
        self.settled = _Settled(det, st.sets, img, _normalised(grey), grey, st.tile_area, full, st.set_of, st.conf)

    def _changes(self, ref_norm: np.ndarray, norm: np.ndarray) -> dict[str, Any]:
        diff = np.abs(ref_norm - norm)
        mask = (diff > self.s.change).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        n, labels, stats, _c = cv2.connectedComponentsWithStats(mask)
        tile_area = self.settled.tile_area if self.settled is not None else 400.0
        keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= self.s.region * tile_area]
        clean = np.isin(labels, keep).astype(np.uint8) if keep else np.zeros_like(mask)
        return {"regions": len(keep), "mask": clean}

    @property
    def _scale_full(self) -> float:
        """Full-frame pixels per work pixel."""
        return self._full_w / self.s.work_width

    def _off_tiles(self, mask: np.ndarray, dets: list[Any]) -> bool:
        """A changed region of at least ``region`` tiles lies off every face-up tile."""
        rest = mask.copy()
        for det in dets:
            for box in det.boxes_xyxy / self._scale_full:
                x1, y1, x2, y2 = (int(round(v)) for v in box)
                pad = max(2, (x2 - x1) // 6)
                rest[max(0, y1 - pad):max(0, y2 + pad), max(0, x1 - pad):max(0, x2 + pad)] = 0
        tile_area = self.settled.tile_area if self.settled is not None else 400.0
        n, _labels, stats, _c = cv2.connectedComponentsWithStats(rest)
        return any(stats[i, cv2.CC_STAT_AREA] >= self.s.region * tile_area for i in range(1, n))

    # ----------------------------------------------------------------- reading

    def _set_mates(self, faces: np.ndarray) -> np.ndarray:
        """For each settled tile: whether it is to be read again, its face changed or that of a
        tile of its set. A set laid again in place shifts its tiles along, and a tile whose face
        barely changes (a 5 become a 6 where the set's next tile stood) would otherwise keep the
        identity of the tile that stood there (dev seed 116: O6 kept as O5)."""
        st = self.settled
        if st is None or not len(faces) or not faces.any():
            return faces
        return faces | np.isin(st.set_of, np.unique(st.set_of[faces]))

    def _read(self, frames: list[np.ndarray], changed: np.ndarray | None, settled_det: Any,
              faces: np.ndarray | None = None, reread: np.ndarray | None = None) -> tuple[Any, Any, list[str]]:
        """Read the rest frames, agree them, keep settled tiles where nothing changed, decode.
        ``faces``: for each settled tile, whether its face changed (computed when not given);
        ``reread``: the settled tiles read again where the detector finds them (default: those
        whose face changed); the others keep their settled identity."""
        from vision.decode import build_reading
        from vision.detections import TileDetections

        self._full_w = frames[-1].shape[1]
        windows = self._windows(changed, frames[-1].shape) if settled_det is not None and changed is not None else None
        self._last_windows = -1 if windows is None else len(windows)  # -1: the whole frame
        if reread is None:
            reread = faces
        known = None
        if settled_det is not None and reread is not None and len(settled_det):
            known = settled_det[~reread]  # settled tiles whose face did not change: not read again
        det = self._detect(frames[-1], windows, known)
        self._steps.lap("detect")
        disagree: list[int] = []
        if len(frames) > 1 and self._fresh_rows:
            # The tiles read now (not settled and unchanged) are read in the other rest frame too
            # and the readings agreed (the table is at rest: the same box holds the same tile). A
            # tile read as two different tiles in the two frames, or found in one only, is not
            # agreed: unsure, however confident the average, hence checked by hand.
            det, disagree = self._second_look(det, self._fresh_rows, frames[-2])
            self._steps.lap("second_look")
        unsure_idx: list[int] = []
        kept: dict[int, int] = {}
        if settled_det is not None and changed is not None and len(settled_det):
            det, unsure_idx, kept = self._keep_settled(det, settled_det, changed, faces, reread)
        elif changed is None:
            unsure_idx = [i for i in range(len(det)) if float(det.probs[i].max()) < self.s.sure]
        # (_keep_settled appends rows after the detected ones: the rows of ``disagree`` stay.)
        unsure_idx = sorted(set(unsure_idx) | {i for i in disagree if i not in kept})
        self._steps.lap("keep_settled")
        h, w = frames[-1].shape[:2]
        reading = build_reading((w, h), det, self.rules, "table")
        self._steps.lap("decode")
        # Faint tiles on their own (loose, or in a set of faint tiles only) that were not settled
        # before are taken for noise, such as the edge of a face-down pool tile: tiles only
        # arrive from racks, and a tile laid is read clearly once the hand has gone.
        noise = self._faint_alone(reading, kept)
        if noise:
            keep = np.array([i not in noise for i in range(len(det))])
            remap = {old: new for new, old in enumerate(np.flatnonzero(keep))}
            det = det[keep]
            kept = {remap[i]: j for i, j in kept.items() if i in remap}
            unsure_idx = [remap[i] for i in unsure_idx if i in remap]
            reading = build_reading((w, h), det, self.rules, "table")
            self._steps.lap("decode")
        # Tiles the decoder doubts (a third copy read with confidence, unreadable) are
        # unsure too, unless they are settled tiles that did not change.
        doubted = {d.index for d in reading.doubts if d.reason in ("too_many_copies", "unreadable")}
        unsure_idx = sorted(set(unsure_idx) | {i for i in doubted if i not in kept})
        unsure = sorted(reading.tiles[i].code for i in unsure_idx if i < len(reading.tiles))
        unsure += ["?" for t in reading.tiles if t.tile is None]
        self._kept = kept
        self._unsure_idx = unsure_idx
        return det, reading, unsure

    def _windows(self, changed: np.ndarray, shape: tuple[int, ...]) -> list[tuple[int, int, int, int]] | None:
        """Where to look again (full-frame pixels, xyxy): windows over the changed regions with a
        margin of two tiles, each small enough that the detector sees the tiles at least
        ``window_tile_px`` high (so one detector run each, no quarter pass); None when more than
        ``max_windows`` would be needed (the whole frame is read then)."""
        st = self.settled
        fx = self._scale_full
        h, w = shape[:2]
        if st is None or not changed.any():
            return None
        tile = math.sqrt(st.tile_area)  # work pixels
        if len(st.det):
            b = st.det.boxes_xyxy
            short = float(np.median(np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])))
        else:
            short = 0.8 * tile * fx
        side = int(min(max(w, h), max(8 * tile * fx, self.reader_input * short / self.s.window_tile_px)))
        # Changed regions within two tiles of each other are read together.
        margin = max(1, int(round(2 * tile)))
        grown = cv2.dilate(changed, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
        n, _labels, stats, _c = cv2.connectedComponentsWithStats(grown)
        overlap = 2 * tile * fx  # a tile cut by one window's edge lies whole in the next
        regions = [(max(0.0, x * fx), max(0.0, y * fx), min(float(w), (x + bw) * fx), min(float(h), (y + bh) * fx))
                   for x, y, bw, bh in (stats[k, :4].tolist() for k in range(1, n))]
        regions = _pack(regions, side)
        out: list[tuple[int, int, int, int]] = []
        for x0, y0, x1, y1 in regions:
            for a0, a1 in _spans(x0, x1, side, overlap, 0, w):
                for b0, b1 in _spans(y0, y1, side, overlap, 0, h):
                    out.append((a0, b0, a1, b1))
            if len(out) > self.s.max_windows:
                return None
        return out or None

    @property
    def reader_input(self) -> int:
        """The detector's input side (pixels)."""
        size = getattr(getattr(self.reader, "model", None), "det_size", (512, 512))
        return int(min(size))

    def _detect(self, frame: np.ndarray, windows: list[tuple[int, int, int, int]] | None = None,
                known: Any = None) -> Any:
        """Tiles of the frame (or of its ``windows``, boxes in frame pixels), face-down ones
        dropped. In a window, tiles cut by its edge are left out: they lie mostly outside, where
        the settled table still holds them. ``known``: settled tiles whose face did not change; a
        box found on one of them keeps its settled reading and is not read again (the reader's
        time goes to new tiles only)."""
        from vision.detections import TileDetections

        reader = self._frame_reader or self.reader
        boxes, scores = reader.find_boxes(frame, windows)
        self.readings += 1
        same = np.full(len(boxes), -1)
        if known is not None and len(known) and len(boxes):
            iou = iou_matrix(boxes, known.boxes_xyxy)
            best = iou.argmax(axis=1)
            for i, j in enumerate(best):
                if iou[i, j] > 0.5 and j not in same:
                    same[i] = j
        old, new = same >= 0, same < 0
        # Face-down tiles of the pool are told by their blank face, not read (the reader's time
        # goes to faces; a detector that finds the pool's tiles does not make a rest slower).
        new[new] = ~self._blank(frame, boxes[new])
        d = reader.read_boxes(frame, boxes[new], scores[new])
        n_known = int(old.sum())
        self._fresh_rows = list(range(n_known, n_known + len(d)))  # rows read now (after the known ones)
        if not n_known:
            return d
        rows = same[old]
        return TileDetections(np.vstack([boxes[old], d.boxes_xyxy]), np.concatenate([scores[old], d.scores]),
                              np.vstack([known.probs[rows], d.probs]), np.vstack([known.up_xy[rows], d.up_xy]))

    def _second_look(self, det: Any, rows: list[int], frame: np.ndarray) -> tuple[Any, list[int]]:
        """``det`` with the tiles of ``rows`` read again in ``frame`` (the other rest frame) and
        each reading averaged with the first: a tile read faintly once may read clearly in the
        other frame (a reflection, noise), and an agreed reading is steadier than either. Also
        the rows not agreed: read as another tile in ``frame`` (whatever the average says), or
        not found there (the other frame calls the box "not a tile")."""
        from vision.detections import TileDetections

        again = (self._frame_reader or self.reader).read_boxes(frame, det.boxes_xyxy[rows], det.scores[rows])
        probs = det.probs.copy()
        disagree: list[int] = []
        iou = iou_matrix(det.boxes_xyxy[rows], again.boxes_xyxy) if len(again) else np.zeros((len(rows), 0))
        for k, i in enumerate(rows):
            j = int(iou[k].argmax()) if iou.shape[1] else -1
            if j < 0 or iou[k, j] <= 0.99:  # not the same box: the other frame called it "not a tile"
                disagree.append(i)
                continue
            if int(again.probs[j].argmax()) != int(det.probs[i].argmax()):
                disagree.append(i)
            probs[i] = (det.probs[i] + again.probs[j]) / 2
        return TileDetections(det.boxes_xyxy, det.scores, probs, det.up_xy), disagree

    def _faint_alone(self, reading: Any, kept: dict[int, int]) -> set[int]:
        """Indices of new tiles read with less than ``sure`` confidence that stand alone: loose, or
        in a set whose tiles are all faint and new."""
        faint = {i for i, t in enumerate(reading.tiles) if i not in kept and t.confidence < self.s.sure}
        out = {i for i in reading.loose if i in faint}
        for rs in reading.sets:
            if all(i in faint for i in rs.indices):
                out.update(rs.indices)
        return out

    def _blank(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Boxes (xyxy) whose face shows no ink: face-down tiles of the pool."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        out = np.zeros(len(boxes), bool)
        for i, (x1, y1, x2, y2) in enumerate(boxes):
            w, h = x2 - x1, y2 - y1
            c = grey[int(y1 + h / 4):int(y2 - h / 4), int(x1 + w / 4):int(x2 - w / 4)]
            out[i] = c.size == 0 or float(c.std()) < self.s.blank_std
        return out

    def _face_changed(self, box: np.ndarray, frame: np.ndarray) -> bool:
        """The face inside ``box`` differs from the settled picture: each colour channel divided
        by its median (light changes cancel), blurred a little, the best of the shifts up to two
        pixels (a tile nudged, the camera trembling); more than ``face_change`` of the face's
        pixels still differ by over 25% (how much a changed and an untouched face differ:
        docs/measurements.md)."""
        ref = self.settled.full if self.settled is not None else None
        if ref is None or ref.shape != frame.shape:
            return True
        h, w = frame.shape[:2]
        x1, y1, x2, y2 = box
        bw, bh = x2 - x1, y2 - y1
        xa, ya = max(0, int(x1 + bw / 8)), max(0, int(y1 + bh / 8))
        xb, yb = min(w, int(x2 - bw / 8)), min(h, int(y2 - bh / 8))
        if xb - xa < 3 or yb - ya < 3:
            return True
        pad = max(0, min(2, xa, ya, w - xb, h - yb))  # fewer shifts at the picture's edge

        def prep(img: np.ndarray, p: int) -> np.ndarray:
            crop = img[ya - p:yb + p, xa - p:xb + p].astype(np.float32)
            return cv2.GaussianBlur(crop / np.maximum(np.median(crop.reshape(-1, 3), axis=0), 1.0), (0, 0), 1.0)

        a, b = prep(ref, 0), prep(frame, pad)
        # The smallest shifts first: an untouched tile usually matches at once.
        shifts = sorted(((dy, dx) for dy in range(2 * pad + 1) for dx in range(2 * pad + 1)),
                        key=lambda s: abs(s[0] - pad) + abs(s[1] - pad))
        for dy, dx in shifts:
            share = float((np.abs(a - b[dy:dy + a.shape[0], dx:dx + a.shape[1]]).max(axis=2) > 0.25).mean())
            if share <= self.s.face_change:
                return False
        return True

    def _keep_settled(self, det: Any, settled: Any, changed: np.ndarray,
                      faces: np.ndarray | None = None, reread: np.ndarray | None = None
                      ) -> tuple[Any, list[int], dict[int, int]]:
        """Settled tiles whose face did not change keep their identity (and come back if the
        detector missed them); other tiles keep the reader's probabilities. ``faces``: for each
        settled tile, whether its face changed (computed here when not given); ``reread``: the
        settled tiles that were read again (default ``faces``)."""
        from vision.detections import TileDetections

        fx = self._scale_full
        if faces is None:
            frame = self.rest_frames[-1]
            faces = np.array([self._face_changed(box, frame) for box in settled.boxes_xyxy], bool)
        settled_conf = self.settled.conf if self.settled is not None else np.ones(len(settled))

        def in_change(box: np.ndarray) -> float:
            x1, y1, x2, y2 = (int(round(v / fx)) for v in box)
            region = changed[max(0, y1):max(0, y2), max(0, x1):max(0, x2)]
            return float(region.mean()) if region.size else 1.0

        iou = iou_matrix(det.boxes_xyxy, settled.boxes_xyxy) if len(det) and len(settled) else np.zeros((len(det), len(settled)))
        used: set[int] = set()
        probs = det.probs.copy()
        unsure: list[int] = []
        kept: dict[int, int] = {}  # row of the new detections -> row of the settled ones
        if reread is None:
            reread = faces
        for i in range(len(det)):
            j = int(iou[i].argmax()) if iou.shape[1] else -1
            # A tile read again only because its set changed keeps its identity unless it now
            # reads confidently as another tile (the swap below then needs both sides sure).
            confirmed = j >= 0 and not faces[j] and (not reread[j] or int(probs[i].argmax()) == int(
                settled.probs[j].argmax()) or float(probs[i].max()) < 0.9)
            if j >= 0 and iou[i, j] > 0.5 and j not in used and confirmed:
                used.add(j)
                kept[i] = j
                probs[i] = settled.probs[j]
            elif float(probs[i].max()) < self.s.sure:
                unsure.append(i)
            elif j >= 0 and iou[i, j] > 0.5 and j not in used:
                # A tile in a settled tile's place reads differently. A swap happens (a joker
                # replaced in place), but so does a misread on either side: only two confident
                # readings settle it.
                old_code, new_code = int(settled.probs[j].argmax()), int(probs[i].argmax())
                need = self.s.sure if 52 in (old_code, new_code) else 0.9  # a joker is hard to mistake
                if old_code != new_code and (float(settled_conf[j]) < need or float(probs[i].max()) < need):
                    unsure.append(i)
        boxes, scores, ups = [det.boxes_xyxy], [det.scores], [det.up_xy]
        extra = [j for j in range(len(settled)) if j not in used and in_change(settled.boxes_xyxy[j]) < 0.15
                 and not faces[j] and (not len(det) or iou[:, j].max() < 0.3)]
        if extra:
            for k, j in enumerate(extra):
                kept[len(det) + k] = j
            boxes.append(settled.boxes_xyxy[extra]); scores.append(settled.scores[extra]); ups.append(settled.up_xy[extra])
            probs = np.vstack([probs, settled.probs[extra]])
        out = TileDetections(np.vstack(boxes), np.concatenate(scores), probs, np.vstack(ups))
        return out, unsure, kept

    def _sets_of(self, reading: Any, kept: dict[int, int]) -> tuple[list[list[Tile]], dict[int, int]]:
        """The table as sets of tiles, and the set of each tile (by reading index).

        The layout's grouping, corrected by what is settled: a settled set whose tiles all lie
        unchanged stays one set when the layout split it, and several such sets that the layout
        merged (with nothing else) are split again. Loose tiles count as one-tile sets (the
        referee then calls them loose). Unreadable tiles are left out (the turn is then unsure).
        """
        groups: list[list[int]] = [list(rs.indices) for rs in reading.sets]
        groups += [[i] for i in reading.loose]
        # The camera looks at the table, not at a rack: rows the layout took for a rack's ledges
        # (long tight rows of sets look like one) are rows of sets, cut at their gaps.
        for row in reading.rack_rows:
            groups += _cut_row(reading, list(row))
        parent = list(range(len(reading.tiles)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: int, b: int) -> None:
            parent[find(a)] = find(b)

        for g in groups:
            for i in g[1:]:
                union(g[0], i)
        units: dict[int, list[int]] = {}
        st = self.settled
        if st is not None and kept:
            for i, j in kept.items():
                units.setdefault(int(st.set_of[j]), []).append(i)
            units = {u: m for u, m in units.items() if 0 <= u < len(st.sets) and len(m) == len(st.sets[u])}
            for members in units.values():
                for i in members[1:]:
                    union(members[0], i)
        comps: dict[int, list[int]] = {}
        for g in groups:
            for i in g:
                comps.setdefault(find(i), []).append(i)
        unit_of = {i: u for u, m in units.items() for i in m}
        final: list[list[int]] = []
        for members in comps.values():
            us = {unit_of.get(i) for i in members}
            if None not in us and len(us) >= 2:
                final += [units[u] for u in us]  # whole settled sets the layout ran together
            else:
                final.append(members)
        final = self._join_fragments(reading, final)
        reading_order = {frozenset(g): g for g in groups}
        sets: list[list[Tile]] = []
        set_of: dict[int, int] = {}
        for members in final:
            if any(reading.tiles[i].tile is None for i in members):
                continue
            order = reading_order.get(frozenset(members))
            if order is None and st is not None and len(unit_of) and all(i in unit_of for i in members) \
                    and len({unit_of[i] for i in members}) == 1:
                u = unit_of[members[0]]
                by_code: dict[str, list[int]] = {}
                for i in members:
                    by_code.setdefault(reading.tiles[i].tile.code, []).append(i)
                order = [by_code[t.code].pop() for t in st.sets[u]]
            if order is None:
                order = self._spatial_order(reading, members)
            for i in order:
                set_of[i] = len(sets)
            sets.append([reading.tiles[i].tile for i in order])
        return sets, set_of

    @staticmethod
    def _join_fragments(reading: Any, groups: list[list[int]]) -> list[list[int]]:
        """Pieces of one set the layout cut apart: a piece of one or two tiles lying in line with
        another piece, less than a tile's width away, when together they make a valid set."""
        from referee.sets import check_set

        groups = [list(g) for g in groups]
        boxes = {i: np.array(reading.tiles[i].box_xyxy, np.float64) for g in groups for i in g}

        def near(a: list[int], b: list[int]) -> bool:
            for i in a:
                for j in b:
                    bi, bj = boxes[i], boxes[j]
                    w = min(bi[2] - bi[0], bj[2] - bj[0])
                    h = min(bi[3] - bi[1], bj[3] - bj[1])
                    gap = max(bi[0], bj[0]) - min(bi[2], bj[2])
                    dy = abs((bi[1] + bi[3]) / 2 - (bj[1] + bj[3]) / 2)
                    if gap < w and dy < 0.5 * h:
                        return True
            return False

        merged = True
        while merged:
            merged = False
            for a in range(len(groups)):
                if len(groups[a]) > 2 or any(reading.tiles[i].tile is None for i in groups[a]):
                    continue
                for b in range(len(groups)):
                    if a == b or any(reading.tiles[i].tile is None for i in groups[b]) or not near(groups[a], groups[b]):
                        continue
                    both = groups[a] + groups[b]
                    xs = sorted(both, key=lambda i: reading.tiles[i].center_xy[0])
                    if any(check_set([reading.tiles[i].tile for i in o]).valid for o in (xs, xs[::-1])):
                        groups[b] = both
                        del groups[a]
                        merged = True
                        break
                if merged:
                    break
        return groups

    def _doubtful_sets(self, det: Any, sets: list[list[Tile]], set_of: dict[int, int]) -> list[str]:
        """New tiles of invalid sets that one of the reader's other likely readings (3% or more)
        would make valid: a misread is as likely as a broken rule, so they are unsure."""
        from referee.sets import check_set

        out: list[str] = []
        by_set: dict[int, list[int]] = {}
        for i, k in set_of.items():
            by_set.setdefault(k, []).append(i)
        for k, members in by_set.items():
            tiles = sets[k]
            if len(tiles) < 3 or check_set(tiles).valid:
                continue
            for i in members:
                if i in self._kept or i >= len(det):
                    continue
                pos = next((n for n, t in enumerate(tiles) if t.index == int(det.probs[i].argmax())), None)
                row = det.probs[i] / max(float(det.probs[i].sum()), 1e-9)
                for code in np.argsort(-row)[1:4]:
                    if pos is None or row[code] < 0.03:
                        break
                    trial = list(tiles)
                    trial[pos] = Tile.from_index(int(code))
                    if check_set(trial).valid:
                        out.append(tiles[pos].code)
                        break
        return out

    @staticmethod
    def _spatial_order(reading: Any, members: list[int]) -> list[int]:
        """Tiles of a set rebuilt from pieces, along the row; the direction that makes a valid set."""
        from referee.sets import check_set

        xs = sorted(members, key=lambda i: reading.tiles[i].center_xy[0])
        for order in (xs, xs[::-1]):
            if check_set([reading.tiles[i].tile for i in order]).valid:
                return order
        return xs

    def _settle(self, det: Any, reading: Any, work: np.ndarray, sets: list[list[Tile]], set_of: dict[int, int]) -> _Settled:
        """The reading becomes the settled table: every tile one-hot on its decoded identity."""
        from vision.detections import TileDetections

        keep = [i for i, t in enumerate(reading.tiles) if t.tile is not None and i in set_of]
        probs = np.zeros((len(keep), det.probs.shape[1]), np.float32)
        boxes = np.array([reading.tiles[i].box_xyxy for i in keep], np.float32).reshape(-1, 4)
        for k, i in enumerate(keep):
            probs[k, reading.tiles[i].tile.index] = 1.0
        ups = np.array([reading.tiles[i].up_xy or (np.nan, np.nan) for i in keep], np.float32).reshape(-1, 2)
        settled_det = TileDetections(boxes, np.ones(len(keep)), probs, ups)
        grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        fx = work.shape[1] / reading.width
        areas = [(b[2] - b[0]) * (b[3] - b[1]) * fx * fx for b in boxes]
        tile_area = float(np.median(areas)) if areas else (self.settled.tile_area if self.settled else 400.0)
        set_rows = np.array([set_of[i] for i in keep], np.int32)
        kept = getattr(self, "_kept", {}) if self.settled is not None else {}
        unsure = set(self._unsure_idx)  # settled, but easily changed by a clearer reading later
        conf = np.array([float(self.settled.conf[kept[i]]) if i in kept else
                         (0.0 if i in unsure else reading.tiles[i].confidence) for i in keep], np.float32)
        return _Settled(settled_det, sets, work, _normalised(grey), grey, tile_area, self.rest_frames[-1], set_rows,
                        conf)

    # ----------------------------------------------------------------- turns

    def _new_turn(self, rest_t: float, t: float) -> dict[str, Any]:
        player = self.names[self.next_player]
        self.next_player = (self.next_player + 1) % len(self.names)
        turn = {"number": len(self.turns) + 1, "player": player, "start_s": round(self.turn_start, 2),
                "end_s": round(rest_t, 2)}
        self.turn_start = t
        self.warned = self.timed_out = False
        return turn

    def _turn_draw(self, rest_t: float, t: float, frame: np.ndarray, t0: float) -> list[dict[str, Any]]:
        """A turn that left the table as it was and took a tile from the pool. ``t0`` as in
        :meth:`_turn_play`."""
        turn = self._new_turn(rest_t, t)
        table = format_table(self.settled.sets if self.settled else [])
        turn.update(kind="draw", laid=[], moved=[], missing=[], opening_points=None, ok=True, violations=[],
                    verdict="ok", consequence=None, check_by_hand=False, unsure=[], check_message=None, table=table,
                    told=False,
                    reading_s=round(t - rest_t + time.perf_counter() - t0, 2),
                    message=_("{player} drew a tile.").format(player=turn["player"]))
        self.turns.append(turn)
        self.last_faulty = None
        self.history.add(frame, t, table, turn["number"], {"ok": True, "violations": []}, "draw")
        return [{"turn": turn}]

    def _turn_play(self, rest_t: float, t: float, frame: np.ndarray, after: list[list[Tile]], unsure: list[str],
                   t0: float) -> list[dict[str, Any]]:
        """A turn that changed the table, checked. ``t0``: when this rest's work began
        (``perf_counter``): ``reading_s`` counts from the rest to the checked verdict."""
        assert self.settled is not None
        before = self.settled.sets
        faulty = self.last_faulty
        if faulty is not None and Counter(t for x in after for t in x) == Counter(t for x in faulty["before_sets"] for t in x):
            # The table went back to how it was before the last play (a faulty turn undone, or a
            # play taken back): not a new turn.
            # The table went back to how it was before the faulty turn: the consequence carried out.
            self.last_faulty = None
            self.opened[faulty["turn"]["player"]] = faulty["opened"]
            table = format_table(after)
            self.history.add(frame, t, table, faulty["turn"]["number"], None, "restored")
            self.turn_start = t
            self.warned = self.timed_out = False
            return [self._event(rest_t, "table_restored", _(
                "The table is back as it was before turn {number}.").format(number=faulty["turn"]["number"]),
                turn=faulty["turn"]["number"])]
        turn = self._new_turn(rest_t, t)
        player = turn["player"]
        opened = self.opened[player]
        verdict = check_turn(before, after, opened=opened, rules=self.rules)
        changed_after = set(verdict.new_sets)
        # The game has no third copy of a tile: a table that shows one holds a misread, new or
        # settled earlier. Those tiles are checked by hand; no rule is called on them.
        counts = Counter(t for x in after for t in x)
        over = [t.code for t, n in counts.items() if n > (self.rules.jokers if t.is_joker else self.rules.copies)]
        # Table tiles never leave the table, and a misread turns one tile into another: a tile
        # gone missing while a tile of its colour or number was laid may be that very tile read
        # wrong (an O6 read O5 where the set was laid again). Neither can be settled from the
        # picture, so neither carries a violation.
        swaps = _misread_swaps(verdict.missing, verdict.laid)
        fresh_unsure = bool(unsure) or bool(swaps)  # tiles of this turn's reading that could not be settled
        unsure = sorted(set(unsure) | set(over) | {x.code for pair in swaps for x in pair})
        unsure_set = set(unsure)
        violations = []
        for v in verdict.violations:
            codes = {x.code for x in v.tiles}
            # A set that did not change this turn was judged at an earlier turn.
            if v.code not in ("table_tile_removed", "joker_missing", "opening_touched_table",
                              "joker_taken_before_opening", "no_tile_played") and v.sets and not changed_after & set(v.sets):
                continue
            # Never a violation resting on a tile that could not be settled.
            # A tile missing or none laid may be a misread of this turn's: unsure new tiles (or a
            # missing tile that is itself doubtful) leave it to a check by hand.
            counted = v.code in ("table_tile_removed", "joker_missing", "no_tile_played")
            if counted and (fresh_unsure or codes & unsure_set):
                continue
            if not counted and unsure_set and (codes & unsure_set or any(
                    x.code in unsure_set for i in v.sets if i < len(after) for x in after[i])):
                continue
            violations.append(v)
        moved = _moved(before, after)
        laid = [x.code for x in verdict.laid]
        ok = not violations
        consequence = self._consequence(player, verdict.laid, verdict.missing) if not ok else None
        turn.update(
            kind="play", laid=laid, moved=moved, missing=[x.code for x in verdict.missing],
            opening_points=verdict.opening_points, ok=ok, violations=[v.to_dict() for v in violations],
            verdict=_verdict(violations, unsure), consequence=consequence, check_by_hand=bool(unsure), unsure=unsure,
            check_message=_check_message(turn["number"], unsure, swaps), table=format_table(after),
            reading_s=round(t - rest_t + time.perf_counter() - t0, 2),
        )
        self.turns.append(turn)
        out: list[dict[str, Any]] = [{"turn": turn}]
        self.last_faulty = {"turn": turn, "before_sets": [list(s) for s in before], "opened": self.opened[player]}
        if ok and verdict.laid:
            self.opened[player] = True
        if unsure:
            out.append(self._event(t, "check_by_hand", turn["check_message"], turn=turn["number"]))
        self.history.add(frame, t, turn["table"], turn["number"],
                         {"ok": ok, "violations": turn["violations"], "consequence": consequence}, "turn")
        return out

    def _consequence(self, player: str, laid: tuple[Tile, ...], missing: tuple[Tile, ...]) -> str:
        """The rule book's answer to a faulty turn, as a sentence (RULES.md section 6)."""
        parts = [_("The table goes back to how it was at the start of the turn.")]
        if laid:
            parts.append(_("{player} takes back {tiles}.").format(player=player, tiles=format_tiles(laid)))
        if missing:
            parts.append(_("{tiles} go back on the table.").format(tiles=format_tiles(missing)))
        if self.rules.timeout_penalty is TimeoutPenalty.RETURN_TO_POOL:
            parts.append(_("No penalty under these rules."))
        else:
            n = self.rules.timeout_draw + (0 if self.rules.timeout_penalty is TimeoutPenalty.DRAW_THREE else 0)
            parts.append(_("{player} draws {count} tiles as a penalty.").format(player=player, count=n))
        return join_sentences(parts)

    # ----------------------------------------------------------------- out

    def result(self) -> dict[str, Any]:
        """The contract's JSON object (plus ``players``, ``rules`` and ``stats``)."""
        final = format_table(self.settled.sets) if self.settled is not None else ""
        return {
            "players": self.names,
            "rules": self.rules.name,
            "turns": self.turns,
            "events": self.events,
            "final_table": final,
            "stats": {"frames": self.frames, "readings": self.readings,
                      "analyse_s": round(self.analyse_s, 2), "analyse_cpu_s": round(self.analyse_cpu_s, 2),
                      "frames_per_s": round(self.frames / self.analyse_s, 2) if self.analyse_s > 0 else None,
                      "rest_steps_ms": self.step_summary()},
        }

    def step_summary(self) -> dict[str, dict[str, float]]:
        """For each step of a rest (register, changes, faces, detect, ...): its median and worst
        wall-clock milliseconds over the rests that ran it, and how many did (``rests``)."""
        by_step: dict[str, list[float]] = {}
        for rest in self.rests:
            for step, ms in rest["ms"].items():
                by_step.setdefault(step, []).append(ms)
        return {step: {"rests": len(v), "median": round(float(np.median(v)), 1), "worst": round(max(v), 1)}
                for step, v in by_step.items()}

    def finish(self) -> dict[str, Any]:
        """End of the input: a ``game_end`` event and the result."""
        self._event(self.last_t, "game_end", _("End of the game after {count} turns.").format(count=len(self.turns)))
        self.history.save()
        return self.result()


def _misread_swaps(missing: tuple[Tile, ...], laid: tuple[Tile, ...]) -> list[tuple[Tile, Tile]]:
    """Pairs (a table tile gone missing, a tile laid) where the laid tile may be the missing one
    misread: both numbered, of the same colour or the same number (what the reader confuses). A
    joker is hard to mistake, so a joker gone missing stays a violation."""
    return [(m, x) for m in dict.fromkeys(missing) for x in dict.fromkeys(laid)
            if not m.is_joker and not x.is_joker and (m.colour == x.colour or m.number == x.number)]


def _check_message(number: int, unsure: list[str], swaps: list[tuple[Tile, Tile]]) -> str | None:
    """The sentences of a turn to be checked by hand, naming the tiles (None when there are none)."""
    if not unsure:
        return None
    parts = [_("Turn {number}: {tiles} could not be read for sure; check by hand.").format(
        number=number, tiles=", ".join(unsure))]
    for missing, laid in swaps:
        parts.append(_("{missing} is no longer on the table and {laid} was laid: one may be the other misread.").format(
            missing=missing.code, laid=laid.code))
    return join_sentences(parts)


def _verdict(violations: list[Any], unsure: list[str]) -> str:
    """A turn's ``verdict``: a violation called wins; else a turn resting on tiles that could not
    be settled was not checked in full (check by hand); else the turn is fine."""
    if violations:
        return "violation"
    return "check_by_hand" if unsure else "ok"


def _cut_row(reading: Any, row: list[int]) -> list[list[int]]:
    """A row of tiles (spatial order) cut into sets where neighbours stand apart by more than
    half a tile width."""
    if not row:
        return []
    boxes = np.array([reading.tiles[i].box_xyxy for i in row], np.float64)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    width = float(np.median(boxes[:, 2] - boxes[:, 0]))
    out: list[list[int]] = [[row[0]]]
    for k in range(1, len(row)):
        gap = float(np.linalg.norm(centres[k] - centres[k - 1])) - width
        if gap > 0.5 * width:
            out.append([])
        out[-1].append(row[k])
    return out


def _pack(regions: list[tuple[float, float, float, float]], side: float) -> list[tuple[float, float, float, float]]:
    """Regions (xyxy) merged while two of them fit together in one window of ``side`` pixels:
    one detector run reads both."""
    regions = list(regions)
    merged = True
    while merged:
        merged = False
        for i in range(len(regions)):
            for j in range(i + 1, len(regions)):
                a, b = regions[i], regions[j]
                u = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                if u[2] - u[0] <= side and u[3] - u[1] <= side:
                    regions[i] = u
                    del regions[j]
                    merged = True
                    break
            if merged:
                break
    return regions


def _spans(lo: float, hi: float, side: int, overlap: float, start: int, end: int) -> list[tuple[int, int]]:
    """Windows of at most ``side`` pixels covering ``[lo, hi]`` inside ``[start, end]``, each
    overlapping the next by ``overlap``; a span shorter than ``side / 2`` is widened to it around
    its centre (the detector then does not magnify a few tiles beyond what it was trained on)."""
    length = hi - lo
    if length <= side:
        grow = max(length, side / 2)
        c = (lo + hi) / 2
        a = int(max(start, min(c - grow / 2, end - grow)))
        return [(a, int(min(end, a + grow)))]
    count = math.ceil((length - overlap) / (side - overlap))
    step = (length - side) / max(1, count - 1)
    return [(int(lo + k * step), int(min(end, lo + k * step + side))) for k in range(count)]


def _moved(before: list[list[Tile]], after: list[list[Tile]]) -> list[str]:
    """Table tiles that ended in a different set: tiles of changed old sets, still on the table,
    unless their whole old set now lies inside one new set (a set that only grew)."""
    on_after = Counter(t for s in after for t in s)
    out: list[Tile] = []
    changed_after = [after[i] for i in unmatched_sets(after, before)]
    for i in unmatched_sets(before, after):
        old = Counter(before[i])
        if any(not (old - Counter(s)) for s in changed_after):
            continue
        for t in before[i]:
            if on_after[t] > 0:
                on_after[t] -= 1
                out.append(t)
    return [t.code for t in sorted(out, key=lambda x: x.sort_key)]


# --------------------------------------------------------------------------- inputs

def frames_from(source: str | int, fps: float) -> Iterator[tuple[np.ndarray, float]]:
    """Frames and their times from a folder (name order, ``1/fps`` apart), a video file (sampled at
    ``fps``) or a camera number (live, at most ``fps`` a second)."""
    if isinstance(source, int):
        cap = cv2.VideoCapture(source)
        if not cap.isOpened():
            raise ValueError(f"camera {source} could not be opened")
        start = time.monotonic()
        try:
            while True:
                ok, frame = cap.read()
                if not ok:
                    return
                t = time.monotonic() - start
                yield frame, t
                wait = 1.0 / fps - (time.monotonic() - start - t)
                if wait > 0:
                    time.sleep(wait)
        finally:
            cap.release()
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS)
        if not files:
            raise ValueError(f"{path} holds no frames (looked for {', '.join(IMAGE_EXTENSIONS)})")
        for i, p in enumerate(files):
            frame = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if frame is None:
                raise ValueError(f"{p} is not an image that can be read")
            yield frame, i / fps
        return
    if not path.exists():
        raise ValueError(f"{path} does not exist: give a video file, a folder of frames or --camera N")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise ValueError(f"{path} is not a video that can be read")
    video_fps = cap.get(cv2.CAP_PROP_FPS) or fps
    step = max(1, int(round(video_fps / fps)))
    i = 0
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            if i % step == 0:
                yield frame, i / video_fps
            i += 1
    finally:
        cap.release()


def follow(source: str | int, names: list[str], rules: RuleSet | None = None, settings: FollowSettings | None = None,
           history_dir: Path | None = None, reader: Any = None) -> dict[str, Any]:
    """Follow a whole recorded (or live) game; return the contract's JSON object."""
    s = settings or FollowSettings()
    f = Follower(names, rules, s, reader, History(history_dir, s.history_side, s.max_history))
    for frame, t in frames_from(source, s.fps):
        f.feed(frame, t)
    return f.finish()


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m vision.follow", description="Follow a Rummikub game from a fixed camera.")
    p.add_argument("input", nargs="?", help="a video file or a folder of frames (name order)")
    p.add_argument("--camera", type=int, default=None, help="read OpenCV camera N instead of a file")
    p.add_argument("--players", type=int, default=None, help="number of players (default: from --names, else 2)")
    p.add_argument("--names", default=None, help="player names in playing order, comma-separated (default P1,P2,...)")
    p.add_argument("--fps", type=float, default=2.0, help="frames analysed per second of video (default 2)")
    p.add_argument("--rules", default="classic", help="classic, xp or spanish (1999 rule book: no 3-tile penalty)")
    p.add_argument("--history", type=Path, default=None, help="folder for every stable state's photo and verdict")
    p.add_argument("--no-timer", action="store_true", help="no one-minute timer events")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if (args.input is None) == (args.camera is None):
        p.error("give INPUT (a video file or a folder of frames) or --camera N, not both")
    if args.fps <= 0:
        p.error(f"--fps must be positive, not {args.fps}")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    if names is not None and (not all(names) or len(set(names)) != len(names)):
        p.error(f"--names must be distinct, non-empty names separated by commas, not {args.names!r}")
    players = args.players or (len(names) if names else 2)
    if names is None:
        names = [f"P{i + 1}" for i in range(players)]
    if len(names) != players:
        p.error(f"--players {players} but --names gives {len(names)} names")
    try:
        rules = rules_named(args.rules)
    except RuleSetError as exc:
        p.error(f"--rules: {exc}")
    if not rules.min_players <= players <= rules.max_players:
        p.error(f"{players} players: the {rules.name} rules are for {rules.min_players} to {rules.max_players}")
    settings = FollowSettings(fps=args.fps, timer=not args.no_timer)
    try:
        result = follow(args.camera if args.camera is not None else args.input, names, rules, settings, args.history)
    except ValueError as exc:
        print(f"vision.follow: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for turn in result["turns"]:
            verdict = "; ".join(v["message"] for v in turn["violations"]) or turn["verdict"].replace("_", " ")
            what = "drew" if turn["kind"] == "draw" else "laid " + (" ".join(turn["laid"]) or "nothing")
            unsure = f"  (not read for sure: {' '.join(turn['unsure'])})" if turn["check_by_hand"] else ""
            print(f"{turn['end_s']:8.1f}s  turn {turn['number']:3d}  {turn['player']}: {what}  {verdict}{unsure}")
        for ev in result["events"]:
            print(f"{ev['t']:8.1f}s  {ev['kind']}: {ev['message']}")
        print(f"final table: {result['final_table']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
