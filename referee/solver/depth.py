"""Depth-first branch and bound over the programme's states: the count search (:meth:`search`,
joker-free and with jokers) and the tie-break search among plans laying as many (:meth:`improve`)."""

from __future__ import annotations

from typing import Any

from referee.solver.compiled import SEARCH0, SEARCH_JOKERS
from referee.solver.options import DFS_ORDER, DFS_SORTED, NEG, NO_CELLS, SCORED, SHARED_MAX, group_joker_floor
from referee.solver.state import (
    CB,
    CLOSED,
    CM,
    GROW,
    IDLE,
    IDS,
    JS_SHIFT,
    KEEP_MASK,
    LEAN_JG,
    MAXG_SHIFT,
    NP_MASK,
    PEND_SHIFT,
    P_SHIFT,
    S_SHIFT,
    VJS_CLEAR,
    X_SHIFT,
    GROW0,
    OutOfBudget,
    Plan,
)
from referee.solver.search0 import OUT_OF_BUDGET


class DepthFirst:
    """Depth-first searches of :class:`~referee.solver.programme.Programme` (its state is set up there)."""

    def search(self, slack: int = 0, budget: int = 20000, relaxed: bool = False, stop: int | None = None) -> Plan | None:
        """Lean mode: the plan leaving out fewest usable rack tiles, at most ``slack``, found
        depth first, the options that leave out fewest and keep the table as it lies tried
        first; the search ends early at a plan leaving out ``stop`` or fewer (by default
        ``slack``: the first plan found).

        Branch and bound: each plan found lowers the slack for the rest of the search to one
        less than it left out, so the search goes on from where it is instead of starting
        again for the next target. The plan returned is the first in the search order among
        those leaving out fewest (as a climb of first-plan searches, one target at a time,
        would find it).

        ``relaxed`` (joker-free positions): tiles left out are counted against the relaxed bound
        of :meth:`bounds` rather than against every usable rack tile, so ``slack`` is how far
        below that bound the plan may fall. With jokers, once :meth:`joker_needs` has been
        built, searches within its slack turn back where the colours need more jokers than are
        left. Where such a plan exists this takes a few hundred steps where the breadth-first
        programme builds every partial arrangement. Dead ends are remembered with the slack
        they failed under, across calls (by the joker-free loop, :mod:`.search0`, within its
        call). :attr:`search_complete` is True when the search ran out of options or reached
        ``stop`` (the plan returned, or None, is then the answer); False when it took more than
        ``budget`` steps (then the best plan found so far, or None)."""
        assert self.lean
        jcap = self.jtot
        if relaxed:
            self.bounds()
            dead = self._hdead
        else:
            dead = self._dead
        if stop is None:
            stop = slack
        cache = self._hcache if relaxed else self._dfs_cache
        options = self._hdfs_options if relaxed else self._dfs_options
        # Options in the search order: shared between solves (found by the cell id) unless
        # measured against this table's relaxed bound.
        shared, cids = (DFS_SORTED, self._cell_ids) if not relaxed else (cache, NO_CELLS)
        # The joker needs hold for searches leaving out no more than the table was made for.
        need = self._need if self._need is not None and slack <= self._need_most else None
        idle, lean_jg, closed = self.idle, LEAN_JG, CLOSED
        group_floor, rest_avail = group_joker_floor, self.rest_avail
        self.search_complete = False
        if relaxed and not jcap:
            # Without jokers: the joker-free loop, which packs its keys lower (no joker counts):
            # colour states in bits 0-39, the group scratch from bit 40 (``GROW0``), the cell
            # from bit 50, so node keys stay within two 30-bit digits of a Python int. The loop
            # with jokers gives the same plans there (jcap 0: no joker needs, floor[g] > 0) but
            # is slower on joker-free positions (referee/SOLVER.md, "Methods measured and
            # dropped"). A change to one must be made to the other.
            how, left_steps, score, got = SEARCH0(
                idle, lean_jg, GROW0, closed, self._options, self._hb, group_floor, rest_avail, IDLE, slack, stop, budget
            )
            group_jokers = [0] * 13
        else:
            how, left_steps, score, got, group_jokers = SEARCH_JOKERS(
                idle, lean_jg, GROW, closed, jcap, shared, cids, cache, options, group_floor, rest_avail, need,
                self._need_others, dead, IDLE, slack, stop, budget,
            )
        self.search_complete = how != OUT_OF_BUDGET
        self.steps = budget - left_steps
        if got is None:
            return None
        return Plan(score + (self.lean_bonus << P_SHIFT), got, group_jokers, [0] * 13)

    def _dfs_options(self, c: int, n: int, sid: int, jrem: int) -> list[tuple[int, int, int, int, int, tuple[Any, ...]]]:
        """Options of a cell for the depth-first searches, as (miss, -score, new sid, g, jokers in
        runs, detail): fewest rack tiles left out first, then fewest jokers (spare jokers go where
        they are worth most), then the best score."""
        cid = self._cell_ids[c][n]
        if cid < 0:
            cid = self._cell_id(c, n)
        key = ((cid << CB | sid) << 4) | jrem
        got = DFS_SORTED.get(key) if cid >= 0 else None
        if got is None:
            want = self.r[c][n] * (n if self.objective == "points" else 1)
            got = [(want - (o[3] >> P_SHIFT), -o[3], o[0], o[1], o[2], o[5]) for o in self._options(c, n, sid, jrem)]
            got.sort(key=DFS_ORDER)
            if cid >= 0 and len(DFS_SORTED) < SHARED_MAX:
                DFS_SORTED[key] = got
        self._dfs_cache[(((c << 4 | n) << CB | sid) << 4) | jrem] = got
        return got

    def _hdfs_options(self, c: int, n: int, sid: int, jrem: int) -> list[tuple[int, int, int, int, int, tuple[Any, ...]]]:
        """As :meth:`_dfs_options`, with the miss measured against the relaxed bound: how much the
        option lowers the most this colour could still lay (options that cannot finish dropped)."""
        hb = self._hb[c]  # type: ignore[index]
        h0 = hb[n - 1].get(sid, NEG)
        after = hb[n]
        got = []
        if h0 >= 0:
            cid = self._cell_ids[c][n]
            opts = SCORED.get(((cid << CB | sid) << 4) | jrem) if cid >= 0 else None
            if opts is None:
                opts = self._options(c, n, sid, jrem)
            for o in opts:
                h1 = after.get(o[0], NEG)
                if h1 >= 0:
                    got.append((h0 - (o[3] >> P_SHIFT) - h1, -o[3], o[0], o[1], o[2], o[5]))
        if len(got) > 1:
            got.sort(key=DFS_ORDER)
        self._hcache[(((c << 4 | n) << CB | sid) << 4) | jrem] = got
        return got

    def improve(self, plan: Plan, budget: int = 3000, slack: int = 0, relaxed: bool = False) -> Plan:
        """Lean mode, after :meth:`search` found ``plan`` with ``slack`` (and ``relaxed``), the
        best there is: look, for at most ``budget`` more steps, for another plan as good that
        keeps more of the table as it lies (a better tie-break score). Branch and bound: a
        partial plan is dropped when even keeping every old joint and group place from here on
        could not beat the best. Every plan within that slack lays as many tiles as ``plan``
        (no plan lays more), so only the tie-break parts of the scores are compared."""
        cache = self._hcache if relaxed else self._dfs_cache
        dead = self._hdead if relaxed else self._dead
        options = self._hdfs_options if relaxed else self._dfs_options
        idle = self.idle
        jcap = self.jtot
        pts = self.objective == "points"
        # Most tie-break score each cell could still add (all old joints, starts, group places,
        # and the tertiary score of every usable rack tile).
        rest = [[0] * 5 for _n in range(15)]  # rest[n][c]: most from cell (n, c) on
        acc = 0
        for n in range(13, 0, -1):
            for c in range(3, -1, -1):
                acc += ((self.adjw[c][n][-1] + self.startw[c][n][-1] + self.grpw[c][n]) << X_SHIFT) + self.r[c][n] * (
                    1 if pts else n
                )
                rest[n][c] = acc
            rest[n][4] = rest[n + 1][0] if n < 13 else 0
        primary = plan.score >> P_SHIFT
        best = [plan.score & NP_MASK]
        path: list[list[tuple[Any, ...]]] = [list(row) for row in plan.details]
        jokers = list(plan.group_jokers)
        found: list[Any] = [None]
        steps = [0]
        cell_shift = S_SHIFT + 8

        def rec(n: int, c: int, key: int, sc: int, left: int) -> None:
            if sc + rest[n][c] <= best[0]:
                return
            if c == 4:
                jg = LEAN_JG[key >> MAXG_SHIFT]
                used = ((key >> JS_SHIFT) & 255) + ((key >> PEND_SHIFT) & 15) + jg
                if used > jcap:
                    return
                nk = (key & VJS_CLEAR) | (used << JS_SHIFT)
                jokers[n - 1] = jg
                if n == 13:
                    if all(code == 3 for cc in range(4) for code in IDS.states[(nk >> (CB * cc)) & CM]):
                        best[0] = sc
                        found[0] = ([list(row) for row in path], list(jokers))
                    return
                if dead.get(nk | ((n + 1) << 3) << cell_shift, -1) >= left:
                    return
                rec(n + 1, 0, nk, sc, left)
                return
            while c < 4 and idle[c][n] and not (key >> (CB * c)) & CM:
                path[n - 1][c] = IDLE
                c += 1
            if c == 4:
                rec(n, 4, key, sc, left)
                return
            sh = CB * c
            sid = (key >> sh) & CM
            pend = (key >> PEND_SHIFT) & 15
            jrem = jcap - ((key >> JS_SHIFT) & 255) - pend
            opts = cache.get((((c << 4 | n) << CB | sid) << 4) | jrem)
            if opts is None:
                opts = options(c, n, sid, jrem)
            basek = key & ~(CM << sh) & KEEP_MASK
            row = GROW[key >> MAXG_SHIFT]
            floor = group_joker_floor(key >> MAXG_SHIFT, self.rest_avail[n][c])
            cell = ((n << 3) | (c + 1)) << cell_shift
            for miss, neg, nsid, g, jrun, detail in opts:
                if miss > left:
                    break  # options come fewest misses first
                if floor[g] > jrem - jrun:
                    continue
                steps[0] += 1
                if steps[0] > budget:
                    raise OutOfBudget
                nk = basek | (nsid << sh) | ((pend + jrun) << PEND_SHIFT) | row[g]
                if dead.get(nk | cell, -1) >= left - miss:
                    continue
                path[n - 1][c] = detail
                rec(n, c + 1, nk, sc + ((-neg) & NP_MASK), left - miss)

        try:
            rec(1, 0, 0, 0, slack)
        except OutOfBudget:
            pass
        rec = None  # type: ignore[assignment]  # (the closure's cycle, as in search)
        if found[0] is None:
            return plan
        details, group_jokers = found[0]
        return Plan((primary << P_SHIFT) + best[0], details, group_jokers, [0] * 13)
