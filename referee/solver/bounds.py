"""Bounds for the depth-first searches: the relaxed per-colour bound (joker-free positions) and
the fewest jokers each colour still needs (positions with jokers)."""

from __future__ import annotations

from typing import Any

from referee.solver.options import (
    CELLS_LOCK,
    CELLS_MAX,
    IDLE_STEP,
    NEED_CELLS,
    NEED_STEPS,
    NEG,
    RELAXED,
    RELAXED_ROWS,
    SHARED_MAX,
    group_caps,
    group_deficits,
    need_steps,
    relaxed_steps,
)
from referee.solver.compiled import NEED_TABLES
from referee.solver.state import CB, CLOSED


_ONLY_EMPTY = frozenset((0,))
"""Run states reached when nothing is open (the state with no run)."""

_NOTHING: frozenset[int] = frozenset()
"""No run state reached (the colour cannot go on)."""

_IDLE_ROW = [(0, IDLE_STEP)]
"""Relaxed steps of a cell with no tile and nothing open: stay with nothing open (read only)."""


class Bounds:
    """Bounds of :class:`~referee.solver.programme.Programme` (its state is set up there)."""

    def bounds(self) -> list[list[dict[int, int]]]:
        """Joker-free positions: ``hb[c][n][sid]``, the most rack tiles of colour c at numbers
        above n that can still be laid from run state sid after number n, with the other colours
        relaxed (runs of colour c exact, its groups only counted). Missing or negative: no way on.

        Colour c may put y tiles of number n into groups only if the other colours can fill
        those y groups: each group needs two more tiles, at most one of each colour, so
        sum over d != c of min(a_d, y) >= 2y, a_d the tiles of colour d at n. Every real
        arrangement passes this test, so the bound never cuts one."""
        if self._hb is not None:
            return self._hb
        t, r = self.t, self.r
        caps = [group_caps(t[0][n] + r[0][n], t[1][n] + r[1][n], t[2][n] + r[2][n], t[3][n] + r[3][n]) for n in range(15)]
        hb: list[list[dict[int, int]]] = []
        shared, rows = RELAXED, RELAXED_ROWS
        for c in range(4):
            tc, rc = t[c], r[c]
            steps: list[Any] = [None]
            reach: frozenset[int] = _ONLY_EMPTY
            for n in range(1, 14):
                if tc[n] or rc[n]:
                    gc = caps[n][c]
                    base = ((tc[n] << 3 | rc[n]) << 3 | gc) << CB
                    # The cell's steps from the run states that reach it, and the states they
                    # reach, found at once by the cell and that set of states (shared).
                    got = rows.get((base, reach))
                    if got is None:
                        row = []
                        nxt = set()
                        for sid in reach:
                            st = shared.get(base | sid)
                            if st is None:
                                st = relaxed_steps(sid, tc[n], rc[n], gc)
                                if len(shared) < SHARED_MAX:
                                    shared[base | sid] = st
                            row.append((sid, st))
                            for x in st:
                                nxt.add(x[0])
                        got = (row, frozenset(nxt))
                        if len(rows) < SHARED_MAX:
                            rows[(base, reach)] = got
                    row, reach = got
                elif reach is _ONLY_EMPTY or (len(reach) == 1 and 0 in reach):  # type: ignore[arg-type]
                    row = _IDLE_ROW  # (nothing open and no tile: the usual empty cell)
                    reach = _ONLY_EMPTY
                else:
                    # No tile: runs of 3 or more end, shorter ones die.
                    row = [(sid, IDLE_STEP if CLOSED[sid] else ()) for sid in reach]
                    reach = _ONLY_EMPTY if any(st for _sid, st in row) else _NOTHING
                steps.append(row)
            val = {sid: 0 if CLOSED[sid] else NEG for sid in reach}
            vals: list[dict[int, int]] = [val]
            for n in range(13, 0, -1):
                row = steps[n]
                if row is _IDLE_ROW:
                    val = {0: val[0]}
                    vals.append(val)
                    continue
                cur = {}
                for sid, st in row:
                    best = NEG
                    for nsid, placed in st:
                        v = placed + val[nsid]
                        if v > best:
                            best = v
                    cur[sid] = best
                val = cur
                vals.append(val)
            vals.reverse()
            hb.append(vals)
        self._hb = hb
        return hb

    def joker_needs(self, most: int) -> list[list[dict[int, list[int]]]]:
        """Positions with jokers: ``need[c][n][sid][k]``, the fewest joker halves colour c needs
        to go on from run state sid after number n, leaving out at most k (<= ``most``) of its
        rack tiles above n (a missing state: no way on with the jokers there are). Searches
        leaving out at most ``most`` tiles use it.

        A joker in a run counts two halves. A joker in a group counts one half for each
        colour in that group, and a lean group with jokers has exactly three tiles, so it
        too counts two halves per joker; colour c alone needs at least 2y - sum over d != c
        of min(a_d, y) joker places for y groups holding a tile of it. So any arrangement
        spends at least the sum over the colours of their needs, in halves, and at most two
        per joker: a plan is impossible where that sum is more than twice the jokers left.
        Needs of more than twice the jokers there are read as no way on (``NEED_INF``): no
        plan could meet them either way."""
        if self._need is not None:
            return self._need
        t, r = self.t, self.r
        jt = self.jtot
        defs = [group_deficits(t[0][n] + r[0][n], t[1][n] + r[1][n], t[2][n] + r[2][n], t[3][n] + r[3][n]) for n in range(15)]
        jmax, mode, jstart = self.jmax, self.mode, self.jstart
        # Each cell's steps are shared between solves, found by a small int naming the cell's
        # arguments (all but the run state) and the state.
        cells = [[-1] * 15 for _c in range(4)]
        for c in range(4):
            tc, rc, row = t[c], r[c], cells[c]
            for n in range(1, 14):
                args = (tc[n], rc[n], jt, jstart[c][n], jmax, mode, defs[n][c])
                cid = NEED_CELLS.get(args, -1)
                if cid < 0 and len(NEED_CELLS) < CELLS_MAX:
                    with CELLS_LOCK:
                        cid = NEED_CELLS.setdefault(args, len(NEED_CELLS))
                row[n] = cid

        def fresh(c: int, n: int, sid: int) -> tuple[tuple[int, int, int], ...]:
            # A cell's steps not in the shared table yet.
            st = need_steps(sid, t[c][n], r[c][n], jt, jstart[c][n], jmax, mode, defs[n][c])
            cid = cells[c][n]
            if cid >= 0 and len(NEED_STEPS) < SHARED_MAX:
                NEED_STEPS[(cid << CB) | sid] = st
            return st

        need = NEED_TABLES(cells, self.idle, NEED_STEPS, fresh, CLOSED, jt, most)
        self._need = need
        self._need_most = most
        # For the searches: at (number, colour), the other colours' tables, from before the
        # number for the colours after this one and from after it for those before, with
        # where their states lie in the key.
        self._need_others = [
            [[(d, need[d][n if d < c else n - 1], CB * d) for d in range(4) if d != c] for c in range(4)] if n else []
            for n in range(14)
        ]
        return need
