"""One solve's programme: the table and rack as counts per colour and number, which rack tiles
can be laid at all, where jokers may start runs, the tie-break weights of the old sets, and the
cells' options. The searches and bounds are its mixins (:mod:`.depth`, :mod:`.breadth`,
:mod:`.bounds`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.ruleset import RuleSet
from referee.solver.bounds import Bounds
from referee.solver.breadth import BreadthFirst
from referee.solver.build import old_layout
from referee.solver.depth import DepthFirst
from referee.solver.inputs import tile_indices
from referee.solver.options import (
    CELLS,
    CELLS_LOCK,
    CELLS_MAX,
    CELL_ARGS,
    FULL,
    LEAN,
    SCORED,
    SHARED_MAX,
    TAILS,
    scored_options,
)
from referee.solver.state import CB
from referee.tiles import Tile


class Programme(Bounds, DepthFirst, BreadthFirst):
    """One solve: table tiles all used, rack tiles optional, jokers as RULES.md section 5."""

    def __init__(
        self,
        table: Sequence[int],
        rack: Sequence[int],
        rules: RuleSet,
        objective: str,
        minimum: int | None,
        old_sets: list[list[Tile]] | None,
        lean: bool = True,
        tails: bool = False,
    ) -> None:
        self.objective = objective
        self.minimum = minimum
        self.jt = table[52]
        self.jr = rack[52]
        self.jtot = self.jt + self.jr
        self.table_size = sum(table)
        # Lean jokers (tiles objective, no opening minimum): a joker whose set stays valid
        # without it (end of a run of 4+, fourth of a group) is taken off; the programme only
        # places jokers a set needs, and the rest are laid afterwards on any set with room
        # (``build.lay_spare_jokers``). Exact: any arrangement becomes such a lean one plus spare
        # jokers, and spare jokers count the same wherever they lie. Points and the opening
        # minimum depend on where a joker lies, so they keep every joker placement.
        self.lean = lean and minimum is None
        # Tails mode (points objective, not lean): jokers where a set needs them, or at the top
        # of a run, or fourth in a group, or leading a run that ends at 13. Exact for points: a
        # joker a set could do without is worth at least as much moved to the top of the run
        # it leaves (or kept in its group of 4), so some best arrangement has only such jokers.
        self.tails = tails and not self.lean
        self.mode = LEAN if self.lean else TAILS if self.tails else FULL
        # Lean mode lays every rack joker (spare ones afterwards): with the tiles objective
        # they count as a constant; with points (a floor for the exact points programme) the
        # programme scores numbered tiles only and the jokers' worth is added afterwards.
        self.lean_bonus = self.jr if self.lean and objective == "tiles" else 0
        self.jmax = min(self.jtot, 4)
        # t[c][n], r[c][n]: copies of colour c, number n on the table, on the rack.
        t = [[0, *table[13 * c : 13 * c + 13], 0] for c in range(4)]
        r = [[0, *rack[13 * c : 13 * c + 13], 0] for c in range(4)]
        self._prefilter(t, r)
        self.t, self.r = t, r
        # A joker may start a run only where the run can still reach 13 (see module docstring).
        # Lean mode: only a run of exactly 3 ending at 13 needs a leading joker (J K12 K13,
        # J J K13), so runs start with a joker only at 11.
        jt, lean = self.jtot, self.lean
        self.jstart = jstart = [[False] * 15 for _ in range(4)]
        if jt:
            for c in range(4):
                gaps = 0
                tc, rc, row = t[c], r[c], jstart[c]
                for n in range(13, 0, -1):
                    row[n] = jt >= 1 + gaps and (n == 11 or not lean)
                    if not (tc[n] or rc[n]):
                        gaps += 1
        # Cells where a colour with no open run stays as it is (no tile, no joker start).
        self.idle = [
            [not (tc[n] or rc[n] or js[n]) for n in range(15)] for tc, rc, js in zip(t, r, jstart)
        ]
        # rest_avail[n][c]: the most tiles each colour after c can add to number n's groups.
        self.rest_avail = []
        for n in range(15):
            a = (t[0][n] + r[0][n], t[1][n] + r[1][n], t[2][n] + r[2][n], t[3][n] + r[3][n])
            self.rest_avail.append([a[1:], a[2:], a[3:], ()])
        # Upper bound on what rack tiles at numbers >= n can still add (primary units).
        pts = objective == "points"
        self.ub = ub = [0] * 16
        for n in range(13, 0, -1):
            ub[n] = ub[n + 1] + (r[0][n] + r[1][n] + r[2][n] + r[3][n]) * (n if pts else 1)
        self.junit = 13 if pts else 1
        self.old_idx = [tile_indices(s) for s in old_sets] if old_sets is not None else None
        self.layout = old_layout(self.old_idx)
        self._proxy()
        self._cell_ids = [[-1] * 15 for _c in range(4)]
        self._cells: dict[int, dict[int, list[tuple[int, int, int, tuple[Any, ...]]]]] = {}
        self._dead: dict[int, int] = {}  # depth-first dead ends (node key) -> slack
        self._dfs_cache: dict[int, Any] = {}
        self._hdead: dict[int, int] = {}
        self._hcache: dict[int, Any] = {}
        self._hb: list[Any] | None = None
        self._need: list[Any] | None = None
        self._need_most = -1
        self._need_others: list[Any] = []
        self.improve_ties = True
        """Whether the passes run the tie-break branch and bound (:meth:`improve`) on a plan
        laying every usable tile."""
        self.steps = 0
        """Steps the last :meth:`search` took."""
        self.search_complete = False
        """True when the last :meth:`search` ruled out every plan within its slack."""

    def _prefilter(self, t: list[list[int]], r: list[list[int]]) -> None:
        """Drop rack tiles that fit in no set at all, even with every tile and joker available:
        they cannot be laid, and without them the bound is tighter and the search smaller.
        A tile fits in a group when two more colours (or jokers) are there at its number, in
        a run when some three numbers around it miss no more tiles of its colour than there
        are jokers. (Dropping one tile can leave another with no set: repeat until none
        drops; the tiles left do not depend on the order.)"""
        j = self.jtot
        if j >= 2:
            return  # (two jokers make a set with any tile)
        # (Tiles are looked at one by one, the colours present counted only for rack tiles and
        # the windows written out without a joker: the former counts for every number and a
        # sum per window were 8% of a small joker-free solve's instructions, session 10.)
        t0, t1, t2, t3 = t
        r0, r1, r2, r3 = r
        changed = True
        while changed:
            changed = False
            for c in range(4):
                tc, rc = t[c], r[c]
                for n in range(1, 14):
                    if not rc[n]:
                        continue
                    # Colours with a tile at n (table or rack): a group needs three.
                    if (
                        (1 if t0[n] or r0[n] else 0) + (1 if t1[n] or r1[n] else 0)
                        + (1 if t2[n] or r2[n] else 0) + (1 if t3[n] or r3[n] else 0) + j >= 3
                    ):
                        continue
                    if j == 0:
                        # A run of three through n: n-2 n-1 n, n-1 n n+1 or n n+1 n+2 (the
                        # rows' zero ends at 0 and 14, and at 14 again as index -1, stop runs
                        # from leaving 1..13).
                        if (tc[n - 1] or rc[n - 1]) and (tc[n - 2] or rc[n - 2] or tc[n + 1] or rc[n + 1]):
                            continue
                        if n < 13 and (tc[n + 1] or rc[n + 1]) and (tc[n + 2] or rc[n + 2]):
                            continue
                    else:
                        for a in range(max(1, n - 2), min(n, 11) + 1):
                            missing = sum(1 for m in range(a, a + 3) if m != n and not (tc[m] or rc[m]))
                            if missing <= j:
                                break
                        else:
                            rc[n] = 0
                            changed = True
                        continue
                    rc[n] = 0
                    changed = True

    def _proxy(self) -> None:
        """Tie-break weights for keeping the table as it lies: a kept joint of an old run at
        (colour, n) is worth the tiles a break there would move; a kept place in an old group
        is worth 1."""
        zero = (0,)
        self.adjw: list[list[tuple[int, ...]]] = [[zero] * 15 for _c in range(4)]
        self.startw: list[list[tuple[int, ...]]] = [[zero] * 15 for _c in range(4)]
        self.grpw = [[0] * 15 for _c in range(4)]
        if not self.old_idx:
            return
        joints: dict[int, list[int]] = {}  # by colour * 16 + n
        starts: dict[int, list[int]] = {}
        runs, groups = self.layout
        for c, spans in runs.items():
            for _i, lo, hi in spans:
                # A run starting where an old run starts keeps that run apart (joining two old
                # runs into one moves the tiles of one of them).
                starts.setdefault(c * 16 + lo, []).append(hi - lo + 1)
                for n in range(lo + 1, hi + 1):
                    w = n - lo if n - lo < hi - n + 1 else hi - n + 1
                    got = joints.get(c * 16 + n)
                    if got is None:
                        joints[c * 16 + n] = [w]
                    else:
                        got.append(w)
        grpw = self.grpw
        for n, olds in groups.items():
            for i, _cols, _j in olds:
                for x in self.old_idx[i]:
                    if x != 52:
                        grpw[x // 13][n] += 1
        for src, dst in ((joints, self.adjw), (starts, self.startw)):
            for cn, ws in src.items():
                if len(ws) == 1:
                    dst[cn >> 4][cn & 15] = (0, ws[0])
                    continue
                acc = [0]
                for w in sorted(ws, reverse=True):
                    acc.append(acc[-1] + w)
                dst[cn >> 4][cn & 15] = tuple(acc)

    def _cell_options(self, c: int, n: int, simple: bool) -> dict[int, Any]:
        """Per-cell caches of the hot loops: options ready to add to a key."""
        return self._cells.setdefault(c * 16 + n + (0 if simple else 1000), {})

    def _cell_id(self, c: int, n: int) -> int:
        """A small int naming everything about cell (c, n) that its options depend on, shared
        between solves (most cells of most tables look alike), so the shared option tables
        are found by one int rather than by a tuple of arguments; -1 once the tables are full
        (then the cell's options are computed afresh)."""
        cid = self._cell_ids[c][n]
        if cid < 0:
            args = self._cell_args(c, n)
            cid = CELLS.get(args, -1)
            if cid < 0 and len(CELL_ARGS) < CELLS_MAX:
                with CELLS_LOCK:
                    cid = CELLS.get(args, -1)
                    if cid < 0:
                        cid = len(CELL_ARGS)
                        CELL_ARGS.append(args)
                        CELLS[args] = cid
            self._cell_ids[c][n] = cid
        return cid

    def _cell_args(self, c: int, n: int) -> tuple[Any, ...]:
        return (
            self.t[c][n], self.r[c][n], self.jstart[c][n], self.jmax, self.mode, n,
            self.objective == "points", self.adjw[c][n], self.grpw[c][n], self.startw[c][n],
        )

    def _options(self, c: int, n: int, sid: int, jrem: int) -> list[tuple[int, int, int, int, int, tuple[Any, ...]]]:
        cid = self._cell_id(c, n)
        key = ((cid << CB | sid) << 4) | jrem
        got = SCORED.get(key) if cid >= 0 else None
        if got is None:
            t, r, jstart, jmax, mode, n, pts, adj, grp, sw = CELL_ARGS[cid] if cid >= 0 else self._cell_args(c, n)
            got = scored_options(sid, t, r, jrem, jstart and jrem > 0, jmax, mode, n, pts, adj, grp, sw)
            if cid >= 0 and len(SCORED) < SHARED_MAX:
                SCORED[key] = got  # (the same list whichever thread computes it)
        return got
