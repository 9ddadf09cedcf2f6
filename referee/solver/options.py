"""Option generation: every way one colour can go on at one number (:func:`_colour_options`),
scored for the tie-break, and the steps of the relaxed bound and of the joker needs; with the
tables shared between solves (found again by one int, bounded, safe across threads)."""

from __future__ import annotations

import itertools
import threading
from functools import lru_cache
from operator import itemgetter
from typing import Any

from referee.solver.state import IDS, LEAN_JG, P_SHIFT, X_SHIFT


FULL, LEAN, TAILS = 0, 1, 2
"""Joker modes of :func:`_colour_options`."""


@lru_cache(maxsize=None)
def _colour_options(
    state: tuple[int, ...], t: int, r: int, jb: int, jstart: bool, jmax: int, mode: int
) -> tuple[tuple[int, int, int, int, int, tuple[Any, ...]], ...]:
    """Every way one colour can go on at one number.

    ``state``: sorted run codes: 1, 2, 3 = an open run of that length (3 meaning 3 or more);
    4 = a run of 3 or more whose last tile is a joker, which must take another tile (lean and
    tails modes); 5 = a run of 3 or more ending in jokers that takes only jokers until it ends
    (tails mode); -k = a run of k jokers so far, which must still take a numbered tile.
    ``t`` table copies of the tile (all must be used), ``r`` usable rack copies, ``jb`` jokers
    still free, ``jstart``: a run may start with a joker here, ``jmax``: longest joker-only start.
    ``mode``: FULL every joker placement; LEAN jokers only where a set needs them (see
    :class:`Programme`); TAILS as lean, plus jokers at the top of a run (points objective).

    Returns ``(new_state_id, g, jr, u, cont, detail)``: ``g`` numbered tiles left for this number's
    groups, ``jr`` jokers put into runs, ``u`` numbered tiles used, ``cont`` runs that go on,
    ``detail`` = (m, ys, x12, x3, x4, s, sj, g, x3g, z5) for rebuilding the sets.
    """
    lean = mode == LEAN
    c1, c2, c3, c4 = state.count(1), state.count(2), state.count(3), state.count(4)
    c5 = state.count(5)
    jcls = [(k, state.count(-k)) for k in range(1, jmax + 1) if state.count(-k)]
    avail = t + r
    best: dict[tuple[tuple[int, ...], int, int], tuple[int, int, tuple[Any, ...]]] = {}
    # ys[i]: how many joker-only runs of class k take another joker (stay joker-only).
    y_ranges = [range(0, (cnt if k < jmax else 0) + 1) for k, cnt in jcls]
    jcont = sum(cnt for _k, cnt in jcls)
    c12 = c1 + c2
    # (x3g, z5) pairs: of the x3 jokers on runs of 3+, how many open a gap (code 4, the rest are
    # tails, code 5); how many tail runs take one more joker (the others end).
    for m, z5 in itertools.product(range(c3 + 1), range(c5 + 1)):
        ended = c3 - m  # tail runs ending do not count: a run may start after one (see TAILS)
        nc = c12 + m + c4
        cont = nc + jcont + z5
        for ys in itertools.product(*y_ranges):
            jy = sum(ys) + z5  # jokers taken by joker-only runs and by tail runs
            if jy > jb:
                continue
            jreal = jcont - sum(ys)  # joker-only runs taking a numbered tile
            jbase = [2] * c1 + [3] * c2 + [5] * z5
            for (k, cnt), y in zip(jcls, ys):
                jbase += [-(k + 1)] * y + [min(k + 1, 3)] * (cnt - y)
            for x12 in range(min(c12, jb - jy) + 1):
                for x3 in range(min(m, jb - jy - x12) + 1):
                    for x4 in range(min(c4, jb - jy - x12 - x3) + 1):
                        xn = x12 + x3 + x4
                        run_real = nc - xn + jreal
                        if run_real > avail:
                            continue
                        # A joker after a run of 3 or more is needed only if the run goes on
                        # (a gap); at its end it could be taken off and laid later. In tails
                        # mode it may also stay as the run's top (worth the most there).
                        base = jbase + [3] * (m - x3) + [4] * x4 + [3] * (c4 - x4)
                        splits = range(x3 + 1) if mode == TAILS else (x3 if mode == LEAN else 0,)
                        # A run that ends here and a new one of the same colour starting here
                        # are one longer run: never end and start in one colour at one number.
                        max_s = avail - run_real if ended == 0 else 0
                        jleft = jb - jy - xn
                        max_sj = jleft if (jstart and ended == 0) else 0
                        for x3g, s in itertools.product(splits, range(max_s + 1)):
                            ur = run_real + s
                            gapped = base + [4] * x3g + [5 if mode == TAILS else 3] * (x3 - x3g)
                            for sj in range(max_sj + 1):
                                new = tuple(sorted(gapped + [1] * s + [-1] * sj))
                                jr = xn + jy + sj
                                for g in range(max(0, t - ur), avail - ur + 1):
                                    if lean and jr and (g or ur < avail):
                                        # A joker standing for this tile while a copy of it
                                        # is left on the rack, or sits in a group, can swap
                                        # with that copy: as many tiles, and the joker spare.
                                        continue
                                    key = (new, g, jr)
                                    old = best.get(key)
                                    if old is None or cont > old[0]:
                                        best[key] = (cont, ur + g, (m, ys, x12, x3, x4, s, sj, g, x3g, z5))
    return tuple((IDS.id(k[0]), k[1], k[2], v[1], v[0], v[2]) for k, v in best.items())


def scored_options(
    sid: int, t: int, r: int, jrem: int, jstart: bool, jmax: int, mode: int, n: int, pts: bool,
    adj: tuple[int, ...], grp: int, sw: tuple[int, ...],
) -> list[tuple[int, int, int, int, int, tuple[Any, ...]]]:
    """:func:`_colour_options` with each option's score: (new sid, g, jr, score, value, detail).
    Shared between solves through ``SCORED`` (most cells of most tables look alike)."""
    top = len(adj) - 1
    stop = len(sw) - 1
    out = []
    for nsid, g, jr, u, cont, detail in _colour_options(IDS.states[sid], t, r, jrem, jstart, jmax, mode):
        placed = u - t
        primary, other = (placed * n, placed) if pts else (placed, placed * n)
        # A run that goes on through an old start can be split there afterwards.
        proxy = adj[min(cont, top)] + min(grp, g) + sw[min(detail[0] + detail[5] + detail[6], stop)]
        score = (primary << P_SHIFT) + (proxy << X_SHIFT) + other
        out.append((nsid, g, jr, score, (u + jr) * n, detail))
    return out


NEG = -(1 << 20)
"""Relaxed bound of a state from which a colour cannot finish."""


@lru_cache(maxsize=1 << 16)
def relaxed_steps(sid: int, t: int, r: int, gcap: int) -> tuple[tuple[int, int], ...]:
    """One colour at one number, no jokers, at most ``gcap`` tiles to groups: (new sid, most rack
    tiles laid) per new sid."""
    best: dict[int, int] = {}
    for nsid, g, _jr, u, _cont, _d in _colour_options(IDS.states[sid], t, r, 0, False, 0, LEAN):
        if g <= gcap and best.get(nsid, -1) < u - t:
            best[nsid] = u - t
    return tuple(best.items())


RELAXED: dict[int, tuple[tuple[int, int], ...]] = {}
"""Shared between solves: (table copies, rack copies, group cap, sid) packed in one int ->
:func:`relaxed_steps`."""

RELAXED_ROWS: dict[tuple[int, frozenset[int]], tuple[list[tuple[int, tuple[tuple[int, int], ...]]], frozenset[int]]] = {}
"""Shared between solves: (a cell's packed arguments as in ``RELAXED``, the run states reaching
it) -> (each state's :func:`relaxed_steps`, the states they reach); read only once stored."""

IDLE_STEP = ((0, 0),)
"""Relaxed step of a colour with nothing open at a number without its tiles."""


@lru_cache(maxsize=1 << 12)
def group_caps(*avail: int) -> tuple[int, ...]:
    """Per colour, the most of its tiles one number's groups can take given ``avail[d]`` tiles of
    each colour d at that number: y groups with a tile of colour c need 2y more tiles, at most
    one of each other colour per group (RULES.md section 2)."""
    caps = []
    for c, a in enumerate(avail):
        y = 0
        while y < a and sum(min(x, y + 1) for d, x in enumerate(avail) if d != c) >= 2 * (y + 1):
            y += 1
        caps.append(y)
    return tuple(caps)


CELLS: dict[tuple[Any, ...], int] = {}
"""Shared between solves: cell arguments (see :meth:`Programme._cell_id`) -> cell id. Ids are
never reused (no clearing), so a solve running in another thread never reads a stale one."""

CELL_ARGS: list[tuple[Any, ...]] = []

CELLS_LOCK = threading.Lock()
"""Guards the registration of a new cell id (solves may run in several threads)."""

SCORED: dict[int, list[tuple[int, int, int, int, int, tuple[Any, ...]]]] = {}
"""(cell id, sid, jokers left) -> :func:`scored_options`."""

DFS_SORTED: dict[int, list[tuple[int, int, int, int, int, tuple[Any, ...]]]] = {}
"""(cell id, sid, jokers left) -> options in the depth-first order (:meth:`Programme._dfs_options`)."""

CELLS_MAX = 1 << 15

SHARED_MAX = 1 << 16
"""Past this many cells (or option lists) the shared tables take no more: later cells are
computed afresh each time (memory stays bounded; entries are never removed)."""

NO_CELLS = [[-1] * 15 for _c in range(4)]
"""Cell ids of a search whose options are not shared (never written)."""

DFS_ORDER = itemgetter(0, 4, 1)
"""Depth-first order of options: fewest misses, then fewest jokers in runs, then best score."""

NEED_INF = 1 << 12
"""Joker need of a way that cannot finish."""

IDLE_NEED = ((0, 0, 0),)
"""Joker-need step of a colour with nothing open at a number without its tiles."""


def need_steps(
    sid: int, t: int, r: int, jb: int, jstart: bool, jmax: int, mode: int, deficit: tuple[int, ...]
) -> tuple[tuple[int, int, int], ...]:
    """One colour at one number for :meth:`Programme.joker_needs`: (new sid, fewest joker
    halves, shift) per new sid and rack tiles left out, leaving out those a way to the same new
    sid with no more left out and no more halves does at least as well. ``shift`` places the
    way in the bit table of :meth:`Programme.joker_needs`: left out * (4 * jb + 1) + halves."""
    best: dict[tuple[int, int], int] = {}
    for nsid, g, jr, u, _cont, _d in _colour_options(IDS.states[sid], t, r, jb, jstart, jmax, mode):
        cost = 2 * jr + deficit[g]
        if cost <= 2 * jb:
            k = (nsid, r + t - u)
            if best.get(k, NEED_INF) > cost:
                best[k] = cost
    width = 4 * jb + 1
    return tuple(
        (nsid, cost, miss * width + cost)
        for (nsid, miss), cost in best.items()
        if not any(m2 <= miss and c2 <= cost and (m2, c2) != (miss, cost) for (n2, m2), c2 in best.items() if n2 == nsid)
    )


NEED_CELLS: dict[tuple[Any, ...], int] = {}
"""Shared between solves: the arguments of :func:`need_steps` but the run state -> a small
int (ids never reused, registered under ``CELLS_LOCK``)."""

NEED_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}
"""(need cell id, sid) -> :func:`need_steps`."""


@lru_cache(maxsize=1 << 12)
def group_deficits(*avail: int) -> tuple[tuple[int, ...], ...]:
    """Per colour c and y (0-4): the fewest joker places y groups of one number holding a tile
    of colour c need, given ``avail[d]`` tiles of each colour d there (each group needs two
    more tiles, at most one of each other colour)."""
    return tuple(
        tuple(max(0, 2 * y - sum(min(x, y) for d, x in enumerate(avail) if d != c)) for y in range(5)) for c in range(4)
    )


@lru_cache(maxsize=None)
def group_joker_counts(maxg: int, total: int, jmax: int, lean: bool) -> tuple[int, ...]:
    """Joker counts that let ``total`` numbered tiles of one number (at most ``maxg`` of a colour)
    form groups of 3-4 distinct colours, each with a numbered tile (RULES.md section 2).

    With G groups the tiles are dealt round-robin by colour (so colours stay distinct and sizes
    differ by at most one); G groups need 3G-4G tiles in all and at least one numbered tile each.
    """
    if total == 0:
        return (0,)
    if lean:
        # Fewest groups that can hold the tiles; jokers only to bring groups up to 3. Any
        # other grouping can be regrouped this way with jokers to spare (laid afterwards).
        groups = max(maxg, -(-total // 4))
        return (max(0, 3 * groups - total),)
    ok = set()
    for groups in range(max(maxg, 1), total + 1):
        for j in range(max(0, 3 * groups - total), min(jmax, 4 * groups - total) + 1):
            ok.add(j)
    return tuple(sorted(ok))


@lru_cache(maxsize=None)
def up_states(sid: int) -> tuple[int, ...]:
    """Run states one step "better" than ``sid``: one open run longer (1->2, 2->3, and 3 for a
    3-with-a-joker-last, which must go on), or one more run of 3."""
    state = IDS.states[sid]
    ups = set()
    for i, code in enumerate(state):
        better = {1: 2, 2: 3, 4: 3}.get(code)
        if better is not None:
            ups.add(tuple(sorted(state[:i] + (better,) + state[i + 1 :])))
    if len(state) < 4:
        ups.add(tuple(sorted(state + (3,))))
    return tuple(IDS.id(u) for u in sorted(ups))


@lru_cache(maxsize=1 << 14)
def group_joker_floor(f: int, rest: tuple[int, ...]) -> tuple[int, ...]:
    """Lean mode, one number's groups: given the group scratch ``f`` so far (most tiles of one
    colour | tiles << 4) and, for each g (0-4) tiles the current colour adds, the fewest jokers
    those groups will need whatever the colours after it add (at most ``rest[i]`` each; 99
    when no completion can be grouped). Lets the depth-first search drop a choice as soon as
    the jokers left cannot cover it, rather than when the number closes."""

    def least(f2: int, i: int) -> int:
        if (f2 >> 4) > 16:
            return 99
        if i == len(rest):
            return LEAN_JG[f2]
        return min(least(max(f2 & 15, e) | ((f2 >> 4) + e) << 4, i + 1) for e in range(rest[i] + 1))

    return tuple(least(max(f & 15, g) | ((f >> 4) + g) << 4, 0) for g in range(5))
