"""Whole Rummikub games filmed by one fixed camera, with ground truth, to test the live referee.

    python -m datasets.render_game --out data/games/g0 --players 3 --seed 0 [--size 960] [--max-turns N]

The best-move solver (:func:`referee.solver.best_move`) plays 2-4 players from the deal to the end
(a rack emptied, or the pool empty and nobody able to play). Every state of the table is drawn in
the same scene from one camera; between two states a skin-coloured arm reaches in from the
player's side (motion blurred) and the tiles appear in two steps. Over the game the light drifts,
a lamp is dimmed once, a shadow passes, a hand rests at the table's edge without playing, and the
camera is bumped once (its pose changes a little for the rest of the game). The pool lies face
down in rows along the near edge; a draw takes its last tile.

Some turns carry a planted violation (kinds in :data:`PLANTED`): a table tile taken back, a set
left invalid, an opening under 30, a joker taken off the table and kept. The table is then
restored (the rule book's consequence) before the next player's turn.

The game's look is held out from training (:func:`held_out_look`): a quilted teal cloth that
:mod:`datasets.render_textures` does not make, a tile edition that :mod:`datasets.render_tiles`
does not sample (pale mint plastic, numerals in a font family the renderer holds out of training:
:func:`held_out_font`), and a warm lamp.

Output folder: ``frames/NNNNN.jpg`` (one every ``1/fps`` seconds, default 2 per second) and
``game.json``: players, fps, frame size, ``turns`` (number, player, kind ``play``/``draw``, the
first frame of the rest after the turn ``end_frame``, laid, missing, table in notation, the
planted violation ``planted`` and the codes a referee must find ``expect_codes``), ``events``
(camera bumps, restores, light changes, distractors with their frames), final racks and scores.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.render_scene import Camera, Lighting, Slab, draw_slab, look_at, render_ground
from datasets.render_textures import fbm
from datasets.render_tiles import TileStyle, render_back, render_face
from referee.ruleset import RuleSet
from referee.scoring import score_game
from referee.sets import check_set
from referee.tiles import ALL_NUMBERED, JOKER, Tile, format_table

__all__ = ["PLANTED", "held_out_look", "GameSim", "play_game", "GameFilm", "render_game", "main"]

Rng = np.random.Generator
PLANTED = ("table_tile_removed", "invalid_set", "opening_below_minimum", "joker_kept")
"""Kinds of planted violation. The codes a referee must report for each are in :data:`EXPECT`."""
EXPECT: dict[str, tuple[str, ...]] = {
    "table_tile_removed": ("table_tile_removed",),
    # Any of the set codes fits a set left invalid; the game plants a run with a gap.
    "invalid_set": ("not_consecutive", "too_short", "mixed_colours_and_numbers", "duplicate_colour",
                    "duplicate_number", "out_of_order"),
    "opening_below_minimum": ("opening_below_minimum",),
    "joker_kept": ("joker_missing",),
}
TILE_H = 34.0  # face height in mm (an Original tile)
TILE_W = TILE_H * 0.74
GAP_IN = 0.9  # mm between the tiles of a set
GAP_SETS = 1.1 * TILE_W  # between sets in a row
ROW_PITCH = TILE_H + 14.0
SETS_AREA = (-370.0, 370.0, -165.0, 255.0)  # x0, x1, y0, y1 in table mm: where sets lie
POOL_ROWS_Y = (-205.0, -245.0, -285.0)  # centres of the pool's rows of face-down tiles
SKIN = ((141, 170, 224), (110, 150, 205), (90, 120, 170), (70, 95, 140))  # BGR, light to dark


# --------------------------------------------------------------------------- held-out look

def quilted_cloth(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """A teal quilted table cloth (diamond stitching, fibre noise): not among training backgrounds."""
    base = np.array([118, 112, 40], np.float32) * rng.uniform(0.92, 1.08, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = 38.0 * px_per_mm
    a = np.abs(((xx + yy) / period) % 1.0 - 0.5)
    b = np.abs(((xx - yy) / period) % 1.0 - 0.5)
    seam = np.exp(-((np.minimum(a, b)) * period / (0.9 * px_per_mm)) ** 2)
    puff = 0.5 + 0.5 * np.minimum(a, b) * 2
    fib = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), max(0.5, 0.2 * px_per_mm))
    mott = fbm(h, w, 4, rng, octaves=3)
    shade = 0.82 + 0.16 * puff - 0.22 * seam + 0.04 * fib / max(float(fib.std()), 1e-6) + 0.1 * (mott - 0.5)
    return np.clip(base[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)


def held_out_font() -> tuple[str, str | None]:
    """A numeral font training never draws: a family the renderer holds out of training
    (``datasets.fonts.HELD_OUT``, Cantarell first) when that registry and its files are there,
    else the regular-weight DejaVu Sans file of matplotlib, which no training edition uses.
    Returns the font file and the family name (None for the file)."""
    try:
        from datasets import fonts  # type: ignore[attr-defined]
    except ImportError:
        fonts = None
    if fonts is not None:
        held = list(getattr(fonts, "HELD_OUT", ()))
        for name in sorted(held, key=lambda n: n != "cantarell"):
            files = [f for f in fonts.font_files(name) if not f.startswith("hershey:")]
            if files:
                return files[0], name
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("the game renderer needs matplotlib's bundled fonts: pip install matplotlib")
    return str(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"), None


def held_out_look(rng: Rng) -> TileStyle:
    """The tile edition of the test games: built here, never drawn by :func:`sample_style`."""
    import dataclasses

    inks = {"K": (35, 32, 30), "B": (185, 100, 20), "O": (25, 135, 245), "R": (40, 30, 215)}
    body = (222, 240, 228)  # pale mint plastic: no training edition has it
    font, family = held_out_font()
    extra = {"font_family": family} if family and "font_family" in {f.name for f in dataclasses.fields(TileStyle)} else {}
    return TileStyle(
        edition="holdout_mint", body=body, aspect=0.74, thickness=0.19, inks=inks,
        joker_inks={"black": inks["K"], "red": inks["R"]}, font=font, stroke=3 if family is None else 1,
        number_height=0.4, number_y=0.4, squeeze=0.82, logo="ring",
        logo_ink=tuple(int(v * 0.8) for v in body),  # type: ignore[arg-type]
        disc=False, six_nine="underline", joker="filled", bevel=0.06, corner=0.1, **extra,
    )


# --------------------------------------------------------------------------- the game

@dataclass
class Step:
    """One turn of the simulated game (ground truth)."""

    player: int
    kind: str  # "play" or "draw"
    before: list[list[Tile]]
    after: list[list[Tile]]
    laid: list[Tile] = field(default_factory=list)
    missing: list[Tile] = field(default_factory=list)
    planted: str | None = None
    opening_points: int | None = None
    restored: bool = False  # the table goes back to ``before`` after this turn


def _counts(table: list[list[Tile]]) -> Counter:
    return Counter(t for s in table for t in s)


class GameSim:
    """The state of a game: pool, racks, table, who has opened. Seeded, deterministic."""

    def __init__(self, players: int, rng: Rng, rules: RuleSet | None = None) -> None:
        if not 2 <= players <= 4:
            raise ValueError(f"players must be 2 to 4, not {players}")
        self.rules = rules or RuleSet.classic()
        tiles = [t for t in ALL_NUMBERED for _ in range(2)] + [JOKER, JOKER]
        order = rng.permutation(len(tiles))
        self.pool: list[Tile] = [tiles[i] for i in order]
        self.racks: list[list[Tile]] = [[self.pool.pop() for _ in range(14)] for _ in range(players)]
        self.table: list[list[Tile]] = []
        self.opened = [False] * players
        self.rng = rng

    def draw(self, p: int, n: int = 1) -> None:
        for _ in range(n):
            if self.pool:
                self.racks[p].append(self.pool.pop())


def play_game(players: int, seed: int, max_turns: int | None = None, p_violation: float = 0.15,
              max_violations: int = 4) -> tuple[GameSim, list[Step], dict[str, Any]]:
    """Play a whole game with the solver; return the final state, the turns and the result."""
    from referee.solver import best_move

    rng = np.random.default_rng([seed, 17])
    sim = GameSim(players, rng)
    steps: list[Step] = []
    passes = 0
    # The opening plant first: it needs a player who has not opened yet, so early in the game.
    planted_kinds = ["opening_below_minimum"] + [k for k in rng.permutation(PLANTED).tolist() if k != "opening_below_minimum"]
    n_planted = 0
    p = int(rng.integers(players))  # the first player (the rule book draws tiles for it)
    first = p
    while True:
        if max_turns is not None and len(steps) >= max_turns:
            break
        rack = sim.racks[p]
        before = [list(s) for s in sim.table]
        if n_planted < max_violations and rng.random() < p_violation:
            step = None
            for k in range(len(planted_kinds)):  # the next kind due, else any that fits this turn
                kind = planted_kinds[(n_planted + k) % len(planted_kinds)]
                step = _plant(sim, p, kind, rng)
                if step is not None:
                    break
            if step is not None:
                steps.append(step)
                n_planted += 1
                # The consequence: the table is restored; classic rules add a 3-tile penalty.
                sim.table = [list(s) for s in step.before]
                for t in step.laid:
                    sim.racks[p].append(t)
                for t in step.missing:
                    sim.racks[p].remove(t)  # back on the table
                sim.draw(p, 3)
                p = (p + 1) % players
                continue
        move = best_move(before, rack, sim.rules, opened=sim.opened[p], time_limit=2.0)
        if move is None:
            step = Step(p, "draw", before, [list(s) for s in before])
            sim.draw(p)
            passes = passes + 1 if not sim.pool else 0
            steps.append(step)
            if passes >= players:
                break
        else:
            passes = 0
            after = [list(s) for s in move.sets]
            after = _keep_order(before, after, list(move.set_numbers))
            for t in move.placed:
                rack.remove(t)
            step = Step(p, "play", before, after, laid=list(move.placed),
                        opening_points=move.points if not sim.opened[p] else None)
            sim.opened[p] = True
            sim.table = after
            steps.append(step)
            if not rack:
                break
        p = (p + 1) % players
    racks = {f"P{i + 1}": list(r) for i, r in enumerate(sim.racks)}
    result: dict[str, Any] = {"first_player": first}
    winner = next((k for k, v in racks.items() if not v), None)
    finished = winner is not None or not sim.pool
    # An unfinished (--max-turns) game has no score yet.
    result["score"] = score_game(racks, winner, sim.rules).to_dict() if finished else None
    return sim, steps, result


def _keep_order(before: list[list[Tile]], after: list[list[Tile]], numbers: list[int]) -> list[list[Tile]]:
    """The new table with old sets first in their old order (sets keep their place on the table)."""
    n_old = len(before)
    pairs = sorted(zip(numbers, after), key=lambda x: x[0]) if numbers else list(zip(range(1, len(after) + 1), after))
    out = [list(s) for num, s in pairs if num <= n_old] + [list(s) for num, s in pairs if num > n_old]
    return out


def _plant(sim: GameSim, p: int, kind: str, rng: Rng) -> Step | None:
    """A turn breaking a rule of kind ``kind`` (see :data:`PLANTED`), or None if it can't be set up."""
    rack = sim.racks[p]
    before = [list(s) for s in sim.table]
    count = _counts(before)
    if kind == "table_tile_removed":
        # An end tile of a long set goes back to the rack; the set left behind stays valid.
        cands = [(i, s) for i, s in enumerate(before) if len(s) >= 4 and not s[-1].is_joker and check_set(s[:-1]).valid]
        if not cands:
            return None
        i, s = cands[int(rng.integers(len(cands)))]
        after = [list(x) for x in before]
        taken = after[i].pop()
        sim.racks[p].append(taken)
        return Step(p, "play", before, after, missing=[taken], planted=kind)
    if kind == "invalid_set":
        # Three tiles of one colour with a gap (R4 R5 R7), worth 30 or more so that an unopened
        # player breaks only this rule.
        for _ in range(40):
            colour = ALL_NUMBERED[int(rng.integers(4)) * 13].colour
            a = int(rng.integers(8, 11))
            tiles = [Tile(colour, a), Tile(colour, a + 1), Tile(colour, a + 3)]
            if _take_for_plant(sim, rack, tiles, count):
                after = [list(x) for x in before] + [tiles]
                return Step(p, "play", before, after, laid=tiles, planted=kind)
        return None
    if kind == "opening_below_minimum":
        if sim.opened[p]:
            return None
        for _ in range(40):
            colour = ALL_NUMBERED[int(rng.integers(4)) * 13].colour
            a = int(rng.integers(1, 8))
            run = [Tile(colour, a + k) for k in range(3)]  # at most 8 9 10 = 27 points
            if _take_for_plant(sim, rack, run, count):
                after = [list(x) for x in before] + [run]
                return Step(p, "play", before, after, laid=run, planted=kind,
                            opening_points=sum(x.number or 0 for x in run))
        return None
    if kind == "joker_kept":
        if not sim.opened[p]:
            return None
        for i, s in enumerate(before):
            if JOKER not in s:
                continue
            verdict = check_set(s)
            if not verdict.valid:
                continue
            for tile in verdict.readings[0].jokers:
                # The tile the joker stands for comes from the pool when the rack lacks it (the
                # player drew it earlier); at most two copies in play.
                if count[tile] >= 2:
                    continue
                if tile not in rack:
                    if tile not in sim.pool:
                        continue
                    sim.pool.remove(tile)
                    rack.append(tile)
                after = [list(x) for x in before]
                j = after[i].index(JOKER)
                after[i][j] = tile
                rack.remove(tile)
                rack.append(JOKER)
                return Step(p, "play", before, after, laid=[tile], missing=[JOKER], planted=kind)
        return None
    raise ValueError(f"unknown planted violation {kind!r}: choose one of {', '.join(PLANTED)}")


def _take_for_plant(sim: GameSim, rack: list[Tile], tiles: list[Tile], on_table: Counter) -> bool:
    """Take ``tiles`` off the rack for a planted turn; tiles the rack lacks come from the pool (the
    player drew them earlier). False, with nothing taken, when the game has no such tiles left."""
    need = Counter(tiles)
    have = Counter(rack)
    pool = Counter(sim.pool)
    for t, n in need.items():
        if on_table[t] + n > 2 or have[t] + pool[t] < n:
            return False
    for t, n in need.items():
        for _ in range(max(0, n - have[t])):
            sim.pool.remove(t)
            rack.append(t)
        for _ in range(n):
            rack.remove(t)
    return True


# --------------------------------------------------------------------------- layout on the table

class Layout:
    """Where each set lies on the table: rows of sets; unchanged sets never move."""

    def __init__(self) -> None:
        self.places: list[tuple[int, float, list[Tile]]] = []  # (row, x start, tiles)

    @staticmethod
    def width(n: int) -> float:
        return n * TILE_W + (n - 1) * GAP_IN

    def _fits(self, row: int, x: float, n: int, taken: list[tuple[int, float, list[Tile]]]) -> bool:
        x0, x1, _, _ = SETS_AREA
        end = x + self.width(n)
        if x < x0 or end > x1:
            return False
        for r, sx, tiles in taken:
            if r == row and not (end + GAP_SETS <= sx or x >= sx + self.width(len(tiles)) + GAP_SETS):
                return False
        return True

    def _first_fit(self, n: int, taken: list[tuple[int, float, list[Tile]]]) -> tuple[int, float] | None:
        x0, x1, y0, y1 = SETS_AREA
        rows = int((y1 - y0) // ROW_PITCH)
        for row in range(rows):
            starts = [x0] + sorted(sx + self.width(len(t)) + GAP_SETS for r, sx, t in taken if r == row)
            for x in starts:
                if self._fits(row, x, n, taken):
                    return row, x
        return None

    def update(self, table: list[list[Tile]]) -> None:
        """Place ``table``: sets equal to a set already down keep their place; others go to the
        first free gap (a changed set tries its old place first); if nothing fits, re-lay all."""
        old = list(self.places)
        taken: list[tuple[int, float, list[Tile]]] = []
        pending: list[tuple[int, list[Tile]]] = []
        used = [False] * len(old)
        for si, s in enumerate(table):
            hit = next((k for k, (_, _, t) in enumerate(old) if not used[k] and t == s), None)
            if hit is not None:
                used[hit] = True
                taken.append((old[hit][0], old[hit][1], list(s)))
            else:
                pending.append((si, list(s)))
        for si, s in pending:
            # A grown or shrunk set stays where its old self lay when it still fits there.
            home = next((k for k, (_, _, t) in enumerate(old) if not used[k] and Counter(t) & Counter(s)), None)
            if home is not None and self._fits(old[home][0], old[home][1], len(s), taken):
                used[home] = True
                taken.append((old[home][0], old[home][1], s))
                continue
            spot = self._first_fit(len(s), taken)
            if spot is None:  # the table is full: tidy it up, every set anew
                self.places = []
                taken = []
                for s2 in table:
                    spot2 = self._first_fit(len(s2), taken)
                    if spot2 is None:
                        raise RuntimeError("the table area is too small for this game")
                    taken.append((spot2[0], spot2[1], list(s2)))
                self.places = taken
                return
            taken.append((spot[0], spot[1], s))
        self.places = taken

    def tile_positions(self, rng: Rng) -> list[tuple[Tile, float, float, float, int]]:
        """(tile, x, y, angle, set number) of every tile, with a little hand-placed jitter."""
        _, _, _, y1 = SETS_AREA
        out = []
        for k, (row, sx, tiles) in enumerate(self.places):
            y = y1 - TILE_H / 2 - row * ROW_PITCH
            for i, t in enumerate(tiles):
                x = sx + TILE_W / 2 + i * (TILE_W + GAP_IN)
                out.append((t, x + rng.normal(0, 0.25), y + rng.normal(0, 0.3), rng.normal(0, 0.006), k))
        return out


# --------------------------------------------------------------------------- drawing

class GameFilm:
    """Draws the states of one game from a fixed camera, then the frames between them."""

    def __init__(self, rng: Rng, width: int, height: int) -> None:
        self.rng = rng
        self.W, self.H = width, height
        self.style = held_out_look(rng)
        self.light = Lighting(np.array([0.35, -0.25, 0.9]) / np.linalg.norm([0.35, -0.25, 0.9]), 0.55)
        px_per_mm = 1.6
        self.px_per_mm = px_per_mm
        self.cloth = quilted_cloth(1100, 1400, rng, px_per_mm)
        self.backdrop = np.full((64, 64, 3), (60, 70, 80), np.uint8)
        self.faces: dict[str, np.ndarray] = {}
        self.back = render_back(self.style)
        self.set_camera(0.0, 0.0, 0.0)

    def set_camera(self, dx: float, dy: float, droll: float) -> None:
        """The camera over the table, moved by ``dx, dy`` mm and turned by ``droll`` degrees (a bump)."""
        fov = 62.0
        width_mm = 820.0
        distance = (width_mm / 2) / math.tan(math.radians(fov / 2))
        self.cam: Camera = look_at(self.W, self.H, fov, np.array([dx, dy, 0.0]), 9.0, -90.0, distance, droll)
        self.ground, _ = render_ground(self.cam, self.cloth, self.px_per_mm, (-700.0, -550.0), self.backdrop,
                                       far_mm=5000.0)

    def _face(self, t: Tile) -> np.ndarray:
        if t.code not in self.faces:
            self.faces[t.code] = render_face(t, self.style, self.rng, "red" if len(self.faces) % 2 else "black")
        return self.faces[t.code]

    def draw_state(self, tiles: list[tuple[Tile, float, float, float, int]], pool: int) -> tuple[np.ndarray, list[dict]]:
        """The table with ``tiles`` face up and ``pool`` tiles face down; the image and each tile's box."""
        img = self.ground.copy()
        # Soft contact shadows under every tile, then the tiles themselves.
        shadow = np.zeros((self.H, self.W), np.float32)
        slabs: list[tuple[Slab, dict | None]] = []
        t_h = TILE_H * self.style.thickness
        for k in range(pool):
            row, col = k % len(POOL_ROWS_Y), k // len(POOL_ROWS_Y)
            x = -370.0 + col * (TILE_W + 3.0) + TILE_W / 2
            u, v = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
            slabs.append((Slab(np.array([x, POOL_ROWS_Y[row], t_h]), u, v, TILE_W, TILE_H, t_h, self.style.body,
                               self.back), None))
        records = []
        for t, x, y, ang, k in tiles:
            c, s = math.cos(ang), math.sin(ang)
            u, v = np.array([c, s, 0.0]), np.array([-s, c, 0.0])
            rec = {"code": t.code, "set": k}
            slabs.append((Slab(np.array([x, y, t_h]), u, v, TILE_W, TILE_H, t_h, self.style.body, self._face(t)), rec))
            records.append(rec)
        for slab, _ in slabs:
            uv, _z = self.cam.project(slab.corners()[:4] - np.array([-3.0, 3.0, slab.centre[2]]))
            cv2.fillConvexPoly(shadow, np.round(uv).astype(np.int32), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 3.0) * 0.35
        img = (img.astype(np.float32) * (1 - shadow[..., None])).astype(np.uint8)
        # Far to near, so nearer slabs cover the sides of farther ones.
        order = sorted(range(len(slabs)), key=lambda i: -float(self.cam.project(slabs[i][0].centre[None, :])[1][0]))
        for i in order:
            slab, rec = slabs[i]
            poly = draw_slab(img, self.cam, slab, self.light)
            if rec is not None and poly is not None:
                rec["box"] = [round(float(poly[:, 0].min()), 1), round(float(poly[:, 1].min()), 1),
                              round(float(poly[:, 0].max()), 1), round(float(poly[:, 1].max()), 1)]
        return img, records

    def arm(self, img: np.ndarray, side: str, reach: tuple[float, float], progress: float, blur: float,
            skin: int) -> np.ndarray:
        """An arm from the ``side`` edge ("bottom", "top", "left", "right") reaching ``progress`` of
        the way to ``reach`` (image fractions), with its shadow; ``blur`` px of motion along it."""
        H, W = img.shape[:2]
        tx, ty = reach[0] * W, reach[1] * H
        start = {"bottom": (tx * 0.7 + 0.15 * W, H * 1.15), "top": (tx * 0.7 + 0.15 * W, -0.15 * H),
                 "left": (-0.15 * W, ty * 0.7 + 0.15 * H), "right": (1.15 * W, ty * 0.7 + 0.15 * H)}[side]
        ex = start[0] + (tx - start[0]) * progress
        ey = start[1] + (ty - start[1]) * progress
        layer = np.zeros((H, W), np.float32)
        width = 0.085 * W
        cv2.line(layer, (int(start[0]), int(start[1])), (int(ex), int(ey)), 1.0, int(width))
        d = np.array([ex - start[0], ey - start[1]])
        d = d / max(np.linalg.norm(d), 1e-6)
        hx, hy = ex + d[0] * width * 0.5, ey + d[1] * width * 0.5
        ang = math.degrees(math.atan2(d[1], d[0]))
        cv2.ellipse(layer, (int(hx), int(hy)), (int(width * 0.75), int(width * 0.55)), ang, 0, 360, 1.0, -1)
        for f in (-0.3, 0.0, 0.3):  # fingers
            fx = hx + d[0] * width * 0.7 - d[1] * width * f
            fy = hy + d[1] * width * 0.7 + d[0] * width * f
            cv2.ellipse(layer, (int(fx), int(fy)), (int(width * 0.35), int(width * 0.1)), ang, 0, 360, 1.0, -1)
        if blur > 1:
            k = np.zeros((int(blur) | 1, int(blur) | 1), np.float32)
            k[k.shape[0] // 2, :] = 1.0
            M = cv2.getRotationMatrix2D((k.shape[1] / 2 - 0.5, k.shape[0] / 2 - 0.5), -ang, 1.0)
            k = cv2.warpAffine(k, M, k.shape[::-1])
            layer = cv2.filter2D(layer, -1, k / max(float(k.sum()), 1e-6))
        layer = cv2.GaussianBlur(layer, (0, 0), 1.2)
        shadow = cv2.GaussianBlur(np.roll(layer, (int(0.03 * H), int(0.04 * W)), (0, 1)), (0, 0), 12) * 0.45
        f = img.astype(np.float32) * (1 - shadow[..., None])
        colour = np.array(SKIN[skin], np.float32)
        shade = 0.85 + 0.15 * (np.linspace(0, 1, W, dtype=np.float32)[None, :])
        f = f * (1 - layer[..., None]) + (colour[None, None, :] * shade[..., None]) * layer[..., None]
        return np.clip(f, 0, 255).astype(np.uint8)


def relight(img: np.ndarray, gain: float, tilt: tuple[float, float], rng: Rng, noise: float = 2.5) -> np.ndarray:
    """Overall light ``gain``, a gradient ``tilt`` (x, y) across the picture, sensor noise."""
    H, W = img.shape[:2]
    xx = np.linspace(-0.5, 0.5, W, dtype=np.float32)[None, :]
    yy = np.linspace(-0.5, 0.5, H, dtype=np.float32)[:, None]
    g = gain * (1 + tilt[0] * xx + tilt[1] * yy)
    f = img.astype(np.float32) * g[..., None] + rng.normal(0, noise, img.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def passing_shadow(img: np.ndarray, cx: float, cy: float, strength: float) -> np.ndarray:
    """A soft shadow (a hand or arm passing) centred at (``cx``, ``cy``), fractions of the frame."""
    H, W = img.shape[:2]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    blob = np.exp(-(((xx - cx * W) / (0.22 * W)) ** 2 + ((yy - cy * H) / (0.3 * H)) ** 2))
    return np.clip(img.astype(np.float32) * (1 - strength * blob)[..., None], 0, 255).astype(np.uint8)


SIDES = {2: ("bottom", "top"), 3: ("bottom", "right", "top"), 4: ("bottom", "right", "top", "left")}


def render_game(out: Path, players: int, seed: int, size: int = 960, fps: float = 2.0, max_turns: int | None = None,
                p_violation: float = 0.15, quality: int = 85, progress: bool = False, long_turn: bool = True) -> dict[str, Any]:
    """Play a game, film it into ``out/frames`` and write ``out/game.json``; return the record.

    ``long_turn`` False leaves out the 55-second think (short test material)."""
    sim, steps, result = play_game(players, seed, max_turns, p_violation)
    rng = np.random.default_rng([seed, 18])
    W, H = size, int(round(size * 3 / 4 / 2)) * 2
    film = GameFilm(rng, W, H)
    frames_dir = out / "frames"
    frames_dir.mkdir(parents=True, exist_ok=True)
    for old in frames_dir.glob("*.jpg"):
        old.unlink()
    names = [f"P{i + 1}" for i in range(players)]
    sides = SIDES[players]
    events: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    frame_no = 0
    light_phase = rng.uniform(0, 2 * math.pi)
    dimmed = 1.0
    n_steps = len(steps)
    bump_at = int(rng.integers(max(1, n_steps // 4), max(2, 3 * n_steps // 4))) if n_steps > 2 else -1
    dim_at = int(rng.integers(1, max(2, n_steps))) if n_steps > 1 else -1
    shadow_at = int(rng.integers(0, max(1, n_steps)))
    rest_hand_at = int(rng.integers(0, max(1, n_steps)))
    long_turn_at = int(rng.integers(0, max(1, n_steps))) if long_turn else -1

    def emit(img: np.ndarray, covered: bool = False) -> None:
        nonlocal frame_no
        t = frame_no / fps
        gain = dimmed * (1 + 0.08 * math.sin(2 * math.pi * t / 90.0 + light_phase))
        tilt = (0.12 * math.sin(2 * math.pi * t / 130.0), 0.1 * math.cos(2 * math.pi * t / 170.0 + light_phase))
        frame = relight(img, gain, tilt, rng)
        cv2.imwrite(str(frames_dir / f"{frame_no:05d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        frame_no += 1

    layout = Layout()
    layout.update([])
    pool = len(sim.pool) + sum(len(s.laid) for s in steps if s.kind == "play" and s.planted is None)  # at the start
    pool = 106 - 14 * players
    state_img, _ = film.draw_state([], pool)
    for _ in range(4):
        emit(state_img)
    for si, step in enumerate(steps):
        side = sides[step.player]
        think = int(rng.integers(3, 7))
        if si == long_turn_at:
            think = int(55 * fps)  # a long think: the one-minute timer's warning must sound
            events.append({"frame": frame_no, "kind": "long_turn"})
        if si == rest_hand_at:
            # A hand rests at the table's edge for a while, then goes: no turn.
            events.append({"frame": frame_no, "kind": "hand_rests"})
            for k in range(6):
                emit(film.arm(state_img, side, (0.5, 0.78 if side == "bottom" else 0.3), 0.45 if k in (0, 5) else 0.55,
                              6 if k in (0, 5) else 0, int(rng.integers(len(SKIN)))), covered=True)
            for _ in range(2):
                emit(state_img)
        if si == shadow_at:
            events.append({"frame": frame_no, "kind": "shadow"})
            for k in range(3):
                emit(passing_shadow(state_img, 0.3 + 0.2 * k, 0.5, 0.35))
        for _ in range(think):
            emit(state_img)
        if si == dim_at:
            dimmed = 0.8
            events.append({"frame": frame_no, "kind": "light_dimmed"})
        # The action: the arm reaches in, lays in two steps (or takes from the pool), leaves.
        skin = int(rng.integers(len(SKIN)))
        if step.kind == "draw":
            pool_left = max(0, pool - 1)
            k = pool - 1
            col = k // len(POOL_ROWS_Y)
            reach = (float(np.clip((40 + col * (TILE_W + 3.0)) / 820.0, 0.05, 0.95)), 0.88)
            mid_img = state_img
            new_tiles = layout.tile_positions(np.random.default_rng([seed, si, 1]))
            new_img, records = film.draw_state(new_tiles, pool_left)
            pool = pool_left
        else:
            layout.update([list(s) for s in step.after])
            new_tiles = layout.tile_positions(np.random.default_rng([seed, si, 1]))
            new_img, records = film.draw_state(new_tiles, pool)
            changed = [r for r in records if "box" in r]
            before_codes = Counter(t for s in step.before for t in s)
            # The arm reaches for a tile that is new (or for the middle of the table).
            fresh = [r for r in changed if before_codes[Tile.parse(r["code"])] < sum(1 for s in step.after for t in s if t.code == r["code"])]
            target = fresh[0]["box"] if fresh else [W * 0.45, H * 0.4, W * 0.55, H * 0.5]
            reach = ((target[0] + target[2]) / 2 / W, (target[1] + target[3]) / 2 / H)
            half = [(t, x, y, a, k) for (t, x, y, a, k) in new_tiles][: max(0, len(new_tiles) - max(1, len(step.laid)) // 2)]
            mid_img, _ = film.draw_state(half, pool)
        emit(film.arm(state_img, side, reach, 0.5, 18, skin), covered=True)
        emit(film.arm(mid_img, side, reach, 0.95, 8, skin), covered=True)
        emit(film.arm(mid_img, side, reach, 1.0, 0, skin), covered=True)
        if si == bump_at:
            film.set_camera(float(rng.uniform(8, 14)), float(rng.uniform(-10, -5)), float(rng.uniform(1.0, 2.0)))
            events.append({"frame": frame_no, "kind": "camera_moved"})
            new_img, records = film.draw_state(new_tiles, pool)
        emit(film.arm(new_img, side, reach, 0.6, 16, skin), covered=True)
        end_frame = frame_no
        state_img = new_img
        turn = {
            "number": len(turns) + 1, "player": names[step.player], "kind": step.kind, "end_frame": end_frame,
            "end_s": end_frame / fps, "laid": [t.code for t in step.laid], "missing": [t.code for t in step.missing],
            "table": format_table(step.after), "before": format_table(step.before), "planted": step.planted,
            "expect_codes": list(EXPECT[step.planted]) if step.planted else [],
            "opening_points": step.opening_points, "tiles": records,
        }
        turns.append(turn)
        if step.planted:
            # The referee speaks; the table is put back as it was (the rule book's consequence).
            for _ in range(int(rng.integers(4, 8))):
                emit(state_img)
            layout.update([list(s) for s in step.before])
            restored = layout.tile_positions(np.random.default_rng([seed, si, 2]))
            pool = max(0, pool - 3)
            state_img, _ = film.draw_state(restored, pool)
            emit(film.arm(new_img, side, reach, 0.9, 12, skin), covered=True)
            emit(film.arm(state_img, side, reach, 1.0, 0, skin), covered=True)
            emit(film.arm(state_img, side, reach, 0.5, 16, skin), covered=True)
            events.append({"frame": frame_no, "kind": "restored", "turn": turn["number"]})
        if progress:
            print(f"turn {si + 1}/{n_steps} frame {frame_no}", file=sys.stderr)
    for _ in range(4):
        emit(state_img)
    final = format_table(steps[-1].before if steps and steps[-1].planted else (steps[-1].after if steps else []))
    record = {
        "players": names, "seed": seed, "fps": fps, "width": W, "height": H, "frames": frame_no,
        "look": {"cloth": "quilted_teal", "edition": film.style.edition, "font": Path(film.style.font).name,
                 "light": "warm lamp, drifting, dimmed once"},
        "first_player": names[result["first_player"]],
        "turns": turns, "events": events, "final_table": final,
        "final_racks": {names[i]: [t.code for t in r] for i, r in enumerate(sim.racks)},
        "score": result.get("score"),
    }
    (out / "game.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m datasets.render_game", description="Film a whole rendered Rummikub game.")
    p.add_argument("--out", type=Path, required=True, help="output folder (frames/ and game.json)")
    p.add_argument("--players", type=int, default=3, help="players, 2 to 4 (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the game and the film (default 0)")
    p.add_argument("--size", type=int, default=960, help="frame width in pixels, height 3/4 of it (default 960)")
    p.add_argument("--fps", type=float, default=2.0, help="frames per second of game time (default 2)")
    p.add_argument("--max-turns", type=int, default=None, help="stop after this many turns (default: play to the end)")
    p.add_argument("--violations", type=float, default=0.15, help="chance that a turn carries a planted violation (default 0.15)")
    p.add_argument("--no-long-turn", action="store_true", help="leave out the 55-second think (short material)")
    p.add_argument("--progress", action="store_true", help="print a line per turn")
    args = p.parse_args(argv)
    if not 2 <= args.players <= 4:
        p.error(f"--players must be 2 to 4, not {args.players}")
    if args.size < 320:
        p.error(f"--size must be at least 320 pixels, not {args.size}")
    if args.fps <= 0:
        p.error(f"--fps must be positive, not {args.fps}")
    rec = render_game(args.out, args.players, args.seed, args.size, args.fps, args.max_turns, args.violations,
                      progress=args.progress, long_turn=not args.no_long_turn)
    print(f"{len(rec['turns'])} turns, {rec['frames']} frames -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
