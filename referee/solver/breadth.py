"""The breadth-first programme: every state of each layer kept (dominated ones dropped), exact
for every objective; used for points, the opening minimum, every joker placement, and where a
depth-first search ran past its budget."""

from __future__ import annotations

from typing import Any

from referee.solver.options import NEG, group_joker_counts, up_states
from referee.solver.state import (
    CB,
    CM,
    GROW,
    IDLE,
    IDS,
    JS_SHIFT,
    KEEP_MASK,
    LEAN_JG,
    MAXG_SHIFT,
    PEND_SHIFT,
    P_SHIFT,
    S_SHIFT,
    VJS_CLEAR,
    V_SHIFT,
    OutOfBudget,
    Plan,
)


_DOMINANCE_MIN = 64
"""Layers bigger than this are cleared of dominated states (measured: smaller ones gain less
than the check costs)."""


def _drop_dominated(layer: dict[int, int], sh: int) -> None:
    """Drop states of ``layer`` made useless by another differing only in the colour at bit
    ``sh``: a longer open run can do all a shorter one can (go on, and more: end), and an extra
    run of 3 or more can simply end, so a state whose runs there are at least as long, with at
    least the score, does at least as well."""
    dead = []
    clear = ~(CM << sh)
    for key, sc in layer.items():
        ups = up_states((key >> sh) & CM)
        if ups:
            base = key & clear
            for up in ups:
                if layer.get(base | up << sh, -1) >= sc:
                    dead.append(key)
                    break
    for key in dead:
        del layer[key]


def _drop_more_jokers(layer: dict[int, int], jt: int, jr: int) -> None:
    """Lean points: drop states beaten by one with no more table and rack jokers placed and at
    least the score, unplaced rack jokers counted at 13 (their most, as spares)."""
    jw = jr + 1
    unit = 1 << JS_SHIFT
    spare = 13 << P_SHIFT
    dead = []
    for key, sc in layer.items():
        js = (key >> JS_SHIFT) & 255
        if not js:
            continue
        tj, rj = divmod(js, jw)
        mine = sc + (jr - rj) * spare
        base = key - js * unit
        if any(
            (t2, r2) != (tj, rj) and layer.get(base + (t2 * jw + r2) * unit, -(1 << 62)) + (jr - r2) * spare >= mine
            for t2 in range(tj + 1)
            for r2 in range(rj + 1)
        ):
            dead.append(key)
    for key in dead:
        del layer[key]


class BreadthFirst:
    """The breadth-first programme of :class:`~referee.solver.programme.Programme` (its state is set up there)."""

    def solve(self, target: int, joker_cap: int | None = None, budget: int | None = None, use_h: bool = False) -> Plan | None:
        """Best plan whose primary objective reaches ``target`` (None if there is none).

        ``joker_cap`` (lean mode only): at most this many jokers placed by the programme itself
        (the rest are spare and laid afterwards). ``budget``: raise :class:`OutOfBudget` once
        this many states have been expanded. ``use_h`` (lean tiles, no jokers): prune with the
        relaxed bound of :meth:`bounds` rather than "every remaining rack tile"."""
        lean = self.lean
        pts = self.objective == "points"
        # Lean tiles: every joker is placed as if from the table (no score): the rack jokers all
        # end on the table (spare ones laid afterwards) and count as a constant. Lean points:
        # rack jokers a set needs score what they stand for; spare ones are counted as 13, the
        # most they can be worth, so the result is an upper bound (see passes.solve_points).
        lean_tiles = lean and not pts
        jt, jr = (self.jtot, 0) if lean_tiles else (self.jt, self.jr)
        if lean:
            target -= self.lean_bonus
        jw = jr + 1
        minimum = self.minimum if self.minimum is not None else 0
        ub, junit = self.ub, self.junit
        # Joker state js = tj * (jr + 1) + rj: table jokers placed, rack jokers placed.
        jrem_of = [(jt - js // jw) + (jr - js % jw) for js in range(jw * (jt + 1))]
        if lean_tiles and joker_cap is not None:
            jrem_of = [max(0, min(joker_cap, jt) - js) for js in range(jt + 1)]
        cur: dict[int, int] = {0: 0}
        hb = self.bounds() if use_h and lean_tiles and not self.jtot else None
        if hb is not None:
            hb0, hb1, hb2, hb3 = hb
        backs: list[dict[int, tuple[int, Any]]] = []
        simple = not self.jtot and not minimum
        expanded = 0
        for n in range(1, 14):
            for c in range(4):
                if budget is not None:
                    expanded += len(cur)
                    if expanded > budget:
                        raise OutOfBudget
                sh = CB * c
                if self.idle[c][n] and not any((key >> sh) & CM for key in cur):
                    # No tile of this colour and number, no run of it open: nothing changes.
                    backs.append(None)  # type: ignore[arg-type]
                    continue
                nxt: dict[int, int] = {}
                back: dict[int, tuple[int, Any]] = {}
                clear = ~(CM << sh) & KEEP_MASK
                cell = self._cell_options(c, n, simple)
                if simple:
                    # No jokers, no opening value: the hot loop of most positions.
                    for key, sc in cur.items():
                        sid = (key >> sh) & CM
                        opts = cell.get(sid)
                        if opts is None:
                            opts = cell[sid] = [(o[0] << sh, o[1], o[3], o[5]) for o in self._options(c, n, sid, 0)]
                        basek = key & clear
                        row = GROW[key >> MAXG_SHIFT]
                        for dk, g, dsc, detail in opts:
                            nk = basek | dk | row[g]
                            ns = sc + dsc
                            if ns > nxt.get(nk, -1):
                                nxt[nk] = ns
                                back[nk] = (key, detail)
                    backs.append(back)
                    cur = nxt
                    continue
                keep = ~(CM << sh) & ((1 << MAXG_SHIFT) - 1)  # keeps the jokers-in-runs count
                for key, sc in cur.items():
                    sid = (key >> sh) & CM
                    jrem = jrem_of[(key >> JS_SHIFT) & 255] - ((key >> PEND_SHIFT) & 15)
                    ck = sid << 4 | jrem
                    opts = cell.get(ck)
                    if opts is None:
                        opts = cell[ck] = [
                            (o[0] << sh | o[2] << PEND_SHIFT, o[1], o[3], o[4], o[5]) for o in self._options(c, n, sid, jrem)
                        ]
                    basek = key & keep
                    row = GROW[key >> MAXG_SHIFT]
                    if minimum:
                        v0 = (key >> V_SHIFT) & 4095
                        basek &= ~(4095 << V_SHIFT)
                        for dk, g, dsc, dval, detail in opts:
                            v = v0 + dval
                            nk = (basek + dk) | row[g] | ((v if v < minimum else minimum) << V_SHIFT)
                            ns = sc + dsc
                            if ns > nxt.get(nk, -1):
                                nxt[nk] = ns
                                back[nk] = (key, detail)
                        continue
                    for dk, g, dsc, _dval, detail in opts:
                        nk = (basek + dk) | row[g]
                        ns = sc + dsc
                        if ns > nxt.get(nk, -1):
                            nxt[nk] = ns
                            back[nk] = (key, detail)
                backs.append(back)
                cur = nxt
            # Close the number: form its groups, place its jokers, prune by the bound.
            nxt = {}
            back = {}
            rest = ub[n + 1]
            if lean_tiles:
                # One way to group (the fewest groups), jokers all "from the table".
                cap = jrem_of[0]
                need = target - rest
                for key, sc in cur.items():
                    if (sc >> P_SHIFT) < need:
                        continue
                    jg = LEAN_JG[key >> MAXG_SHIFT]
                    used = ((key >> JS_SHIFT) & 255) + ((key >> PEND_SHIFT) & 15) + jg
                    if used > cap:
                        continue
                    nk = (key & VJS_CLEAR) | (used << JS_SHIFT)
                    if hb is not None:
                        if (sc >> P_SHIFT) + hb0[n].get(nk & CM, NEG) + hb1[n].get((nk >> 10) & CM, NEG) + hb2[n].get((nk >> 20) & CM, NEG) + hb3[n].get((nk >> 30) & CM, NEG) < target:
                            continue
                    if sc > nxt.get(nk, -1):
                        nxt[nk] = sc
                        back[nk] = (key, (jg, 0))
                if len(nxt) > _DOMINANCE_MIN:  # worth it only on big layers
                    for c in range(4):
                        _drop_dominated(nxt, CB * c)
                if jt:
                    # A state with fewer jokers placed and at least the score is at least as
                    # good (unplaced jokers are spare, laid afterwards): drop the other.
                    unit = 1 << JS_SHIFT
                    for key in [k for k in nxt if (k >> JS_SHIFT) & 255]:
                        sc = nxt[key]
                        for d in range(1, ((key >> JS_SHIFT) & 255) + 1):
                            if nxt.get(key - d * unit, -1) >= sc:
                                del nxt[key]
                                break
                backs.append(back)
                cur = nxt
                if not cur:
                    return None
                continue
            for key, sc in cur.items():
                pend = (key >> PEND_SHIFT) & 15
                maxg = (key >> MAXG_SHIFT) & 15
                tot = key >> S_SHIFT
                js = (key >> JS_SHIFT) & 255
                tj, rj = divmod(js, jw)
                jrem = jrem_of[js] - pend
                base = key & VJS_CLEAR
                v0 = (key >> V_SHIFT) & 4095
                for jg in group_joker_counts(maxg, tot, 8, lean):
                    if jg > jrem:
                        break
                    k = pend + jg
                    lo = max(0, k - (jt - tj))
                    hi = lo if not pts else min(k, jr - rj)
                    if lo > jr - rj:
                        continue
                    for x in range(lo, hi + 1):
                        ntj, nrj = tj + k - x, rj + x
                        if pts:
                            add = ((x * n) << P_SHIFT) + x
                        else:
                            add = (x << P_SHIFT) + x * n
                        ns = sc + add
                        if (ns >> P_SHIFT) + rest + (jr - nrj) * junit < target:
                            continue
                        nk = base | ((ntj * jw + nrj) << JS_SHIFT)
                        if minimum:
                            v = v0 + jg * n
                            nk |= (v if v < minimum else minimum) << V_SHIFT
                        else:
                            nk |= v0 << V_SHIFT
                        if ns > nxt.get(nk, -1):
                            nxt[nk] = ns
                            back[nk] = (key, (jg, x))
            if lean and jt + jr and len(nxt) > 1:
                # Lean points: a state with no more jokers placed (of either kind) and at least
                # the score counting unplaced rack jokers as spares at 13 is at least as good.
                _drop_more_jokers(nxt, jt, jr)
            if len(nxt) > _DOMINANCE_MIN:
                for c in range(4):
                    _drop_dominated(nxt, CB * c)
            backs.append(back)
            cur = nxt
            if not cur:
                return None
        # Every open run must be complete (length 3 or more), every table joker placed, the
        # opening minimum reached.
        best_key, best = -1, -1
        for key, sc in cur.items():
            if not lean and ((key >> JS_SHIFT) & 255) // jw != jt:
                continue
            if lean and pts:
                sc += ((jr - ((key >> JS_SHIFT) & 255) % jw) * 13) << P_SHIFT  # spare rack jokers
            if minimum and ((key >> V_SHIFT) & 4095) < minimum:
                continue
            if any(code != 3 and code != 5 for c in range(4) for code in IDS.states[(key >> (CB * c)) & CM]):
                continue
            if sc > best:
                best_key, best = key, sc
        if best_key < 0 or (best >> P_SHIFT) < target:
            return None
        if lean:
            best += (self.lean_bonus << P_SHIFT)
        details: list[list[tuple[Any, ...]]] = [[() for _c in range(4)] for _n in range(13)]
        group_jokers = [0] * 13
        rack_jokers = [0] * 13
        key = best_key
        i = len(backs) - 1
        for n in range(13, 0, -1):
            key, (jg, x) = backs[i][key]
            group_jokers[n - 1], rack_jokers[n - 1] = jg, x
            i -= 1
            for c in range(3, -1, -1):
                if backs[i] is None:
                    details[n - 1][c] = IDLE
                else:
                    key, detail = backs[i][key]
                    details[n - 1][c] = detail
                i -= 1
        return Plan(best, details, group_jokers, rack_jokers)
