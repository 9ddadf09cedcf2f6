"""The depth-first loops of :meth:`DepthFirst.search` as plain functions, joker-free
(:func:`search0`) and with jokers (:func:`search_jokers`), and the joker needs' passes
(:func:`need_tables`, for :meth:`Bounds.joker_needs`).

A solve spends much of its time here, so the loops have a compiled twin, ``_search0.c`` (C,
built by ``pip install``, optional): the functions below are its pure-Python fall-back and its
specification. The two take the same arguments and give the same answer, step for step, and
leave the same dead ends. ``_search0.c`` holds the SHA-256 of this file (``TWIN_SHA256``); an
extension built from a C file that does not match this file, or older than its C file, is not
used (see :mod:`referee.solver.compiled`), and the tests check the digest and compare the two.
A change here must be made in ``_search0.c`` too, with the new digest
(``referee.solver.compiled.twin_digest()``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.solver.options import IDLE_NEED, NEED_INF, NEG
from referee.solver.state import (
    CB,
    CM,
    G0_SHIFT,
    JS_SHIFT,
    KEEP_MASK,
    MAXG_SHIFT,
    P_SHIFT,
    PEND_SHIFT,
    S_SHIFT,
    VJS_CLEAR,
    Found,
    OutOfBudget,
)


DONE, FOUND, OUT_OF_BUDGET = 0, 1, 2
"""How :func:`search0` ended: out of options, at a plan meeting ``stop``, past its budget."""

SCORE_TOP = (1 << 30) - 1
"""Above any option's score here (tiles objective: at most 4 tiles placed, shifted by
``P_SHIFT``)."""


def cell_codes(base: Sequence[tuple[Any, ...]], h0: int, after: dict[int, int]) -> list[int]:
    """A cell's options in the search order, as one int each, sorted: ((miss + 64) << 30 |
    (2**30 - 1 - score)) << 12 | the option's index in ``base`` (fewest misses, then best score,
    then the options' own order), for the options that can finish. ``base``: the cell's options
    as :meth:`Programme._options` gives them, (nsid, g, jr, score, value, detail); ``h0`` the
    relaxed bound of the cell's run state before it, ``after`` the bounds by run state after it;
    an option's miss is how much it lowers its colour's bound. Ints rather than tuples: nothing
    new for the cyclic collector, and a plain sort."""
    codes = []
    if h0 >= 0:
        top = h0 + 64
        i = 0
        for nsid, _g, _jr, score, _v, _d in base:
            h1 = after.get(nsid, NEG)
            if h1 >= 0:
                codes.append(((top - (score >> P_SHIFT) - h1) << 30 | (SCORE_TOP - score)) << 12 | i)
            i += 1
        codes.sort()
    return codes


def search0(
    idle: Sequence[Sequence[bool]],
    lean_jg: Sequence[int],
    grow0: Sequence[Sequence[int]],
    closed: Sequence[bool],
    options: Callable[[int, int, int, int], list[tuple[Any, ...]]],
    hb: Sequence[Sequence[dict[int, int]]],
    group_floor: Callable[[int, tuple[int, ...]], tuple[int, ...]],
    rest_avail: Sequence[Sequence[tuple[int, ...]]],
    idle_detail: tuple[Any, ...],
    slack: int,
    stop: int,
    budget: int,
) -> tuple[int, int, int, list[list[tuple[Any, ...]]] | None]:
    """The joker-free search from number 1 with nothing open: every way on leaving out at most
    ``slack`` tiles against the relaxed bound, depth first, each plan found lowering the slack
    to one less than it left out, until the options run out or a plan leaves out ``stop`` or
    fewer. ``options(c, n, sid, 0)`` gives a cell's options (:meth:`Programme._options`),
    ordered by :func:`cell_codes` against the relaxed bound ``hb`` (:meth:`Programme.bounds`),
    ``group_floor(f, rest_avail[n][c])`` the group floor (:func:`group_joker_floor`); the
    other arguments are the programme's tables and the state module's. Dead ends are
    remembered with the slack they failed under (this call only).

    Returns ``(how, steps left, score, details)``: ``how`` one of ``DONE``, ``FOUND``,
    ``OUT_OF_BUDGET`` (then steps left is 0), the last plan found as its score and its option
    details per number and colour, or ``(how, steps left, 0, None)`` when none was."""
    cb, cm = CB, CM
    colours_mask = (1 << G0_SHIFT) - 1
    cell0 = G0_SHIFT + 10
    next_node = [(n + 1) << cell0 for n in range(14)]
    details: list[list[tuple[Any, ...]]] = [[() for _c in range(4)] for _n in range(13)]
    dead: dict[int, int] = {}
    cell_opts: list[list[dict[int, Any]]] = [[{} for _c in range(4)] for _n in range(15)]
    floors: dict[int, tuple[int, ...]] = {}
    left_steps = budget
    # limit: the most tiles a plan may still leave out (one less than the best plan found).
    limit = slack
    found: list[Any] = []

    def rec0(n: int, c: int, key: int, spent: int, sc: int) -> None:
        # No joker counts to keep, and a number's groups must complete on their own. The
        # number is closed in the loop below where its last colour is chosen (one call fewer
        # per number), or at the top where the colours after it are idle.
        nonlocal left_steps, limit
        while c < 4 and idle[c][n] and not (key >> (cb * c)) & cm:
            details[n - 1][c] = idle_detail
            c += 1
        if c == 4:
            if lean_jg[key >> G0_SHIFT]:
                return
            nk = key & colours_mask
            if n == 13:
                if not (closed[nk & cm] and closed[(nk >> cb) & cm] and closed[(nk >> 2 * cb) & cm] and closed[(nk >> 3 * cb) & cm]):
                    return
                found[:] = [sc, [list(row) for row in details]]
                limit = spent - 1
                if spent <= stop:
                    raise Found
                return
            node = nk | next_node[n]
            if dead.get(node, -1) >= limit - spent:
                return
            rec0(n + 1, 0, nk, spent, sc)
            dead[node] = limit - spent
            return
        sh = cb * c
        sid = (key >> sh) & cm
        mine = cell_opts[n][c]
        got = mine.get(sid)
        if got is None:
            base = options(c, n, sid, 0)
            got = mine[sid] = (cell_codes(base, hb[c][n - 1].get(sid, NEG), hb[c][n]), base)
        codes, base = got
        f = key >> G0_SHIFT
        fk = (f << 6) | (n << 2) | c
        floor = floors.get(fk)
        if floor is None:
            floor = floors[fk] = group_floor(f, rest_avail[n][c])
        basek = key & ~(cm << sh) & colours_mask
        row = grow0[f]
        here = details[n - 1]
        if c < 3:
            cell = ((n << 3) | (c + 1)) << cell0
            c1 = c + 1
            room = limit - spent
            for k in codes:
                miss = (k >> 42) - 64
                if miss > room:
                    break
                nsid, g, _jr, score, _v, detail = base[k & 4095]
                if floor[g]:
                    continue  # this number's groups could not be completed
                left_steps -= 1
                if left_steps < 0:
                    raise OutOfBudget
                nk = basek | (nsid << sh) | row[g]
                node = nk | cell
                if dead.get(node, -1) >= room - miss:
                    continue
                here[c] = detail
                rec0(n, c1, nk, spent + miss, sc + score)
                room = limit - spent
                dead[node] = room - miss
            return
        # The last colour of the number: each choice closes the number here. (No dead end is
        # kept for the choice itself: the closed number's node, its group scratch dropped, is
        # kept with the same slack and holds for every scratch.)
        room = limit - spent
        nxt = next_node[n]
        for k in codes:
            miss = (k >> 42) - 64
            if miss > room:
                break
            nsid, g, _jr, score, _v, detail = base[k & 4095]
            if floor[g]:
                continue  # this number's groups could not be completed
            left_steps -= 1
            if left_steps < 0:
                raise OutOfBudget
            nk = basek | (nsid << sh) | row[g]
            if lean_jg[nk >> G0_SHIFT]:
                continue
            here[3] = detail
            nk &= colours_mask
            spent2 = spent + miss
            if n == 13:
                if closed[nk & cm] and closed[(nk >> cb) & cm] and closed[(nk >> 2 * cb) & cm] and closed[(nk >> 3 * cb) & cm]:
                    found[:] = [sc + score, [list(cells) for cells in details]]
                    limit = spent2 - 1
                    room = limit - spent
                    if spent2 <= stop:
                        raise Found
                continue
            closing = nk | nxt
            if dead.get(closing, -1) < room - miss:
                rec0(n + 1, 0, nk, spent2, sc + score)
                room = limit - spent
                dead[closing] = room - miss

    how = DONE
    try:
        rec0(1, 0, 0, 0, 0)
    except Found:
        how = FOUND
    except OutOfBudget:
        how, left_steps = OUT_OF_BUDGET, 0
    # The closure calls itself through its cell: a reference cycle that would keep this
    # search's tables alive until the cyclic collector runs (its passes then cost the next
    # solves). Broken here, they go when the call returns.
    rec0 = None  # type: ignore[assignment]
    if not found:
        return how, left_steps, 0, None
    return how, left_steps, found[0], found[1]


def search_jokers(
    idle: Sequence[Sequence[bool]],
    lean_jg: Sequence[int],
    grow: Sequence[Sequence[int]],
    closed: Sequence[bool],
    jcap: int,
    shared: dict[int, list[tuple[Any, ...]]],
    cids: Sequence[Sequence[int]],
    cache: dict[int, list[tuple[Any, ...]]],
    options: Callable[[int, int, int, int], list[tuple[Any, ...]]],
    group_floor: Callable[[int, tuple[int, ...]], tuple[int, ...]],
    rest_avail: Sequence[Sequence[tuple[int, ...]]],
    need: list[list[dict[int, list[int]]]] | None,
    need_others: list[list[list[tuple[int, dict[int, list[int]], int]]]],
    dead: dict[int, int],
    idle_detail: tuple[Any, ...],
    slack: int,
    stop: int,
    budget: int,
) -> tuple[int, int, int, list[list[tuple[Any, ...]]] | None, list[int] | None]:
    """The depth-first loop of :meth:`DepthFirst.search` with jokers (lean mode), from number 1
    with nothing open: as :func:`search0`, with the programme's full keys (joker counts, the
    groups' jokers; ``grow`` is ``GROW``), ``jcap`` jokers, and a cell's options in the search
    order (:meth:`DepthFirst._dfs_options`: ``(miss, -score, nsid, g, jokers in runs, detail)``)
    found in ``shared`` by the cell id ``cids[c][n]``, else in ``cache``, else from
    ``options(c, n, sid, jokers left)``. With the joker needs ``need`` (and ``need_others``,
    :meth:`Bounds.joker_needs`) it turns back where the colours need more jokers than are
    left. ``dead`` (node key -> slack) is the programme's: read and added to.

    Returns ``(how, steps left, score, details, group jokers)`` of the last plan found, or
    ``(how, steps left, 0, None, None)``."""
    cb, cm, pend_shift, js_shift, maxg_shift = CB, CM, PEND_SHIFT, JS_SHIFT, MAXG_SHIFT
    keep_mask, vjs_clear = KEEP_MASK, VJS_CLEAR
    # Node keys: the programme key with the cell (n, c) in the bits above it.
    cell_shift = S_SHIFT + 8
    details: list[list[tuple[Any, ...]]] = [[() for _c in range(4)] for _n in range(13)]
    group_jokers = [0] * 13
    # Per search: the group floors by (group scratch, number, colour).
    floors: dict[int, tuple[int, ...]] = {}
    left_steps = budget
    # limit: the most tiles a plan may still leave out (one less than the best plan found).
    limit = slack
    found: list[Any] = []

    def rec(n: int, c: int, key: int, spent: int, sc: int) -> None:
        # Every way on from here leaving out at most limit - spent more tiles, in order;
        # ``sc`` is the score so far. A dead end is remembered with the slack it had.
        nonlocal left_steps, limit
        while c < 4 and idle[c][n] and not (key >> (cb * c)) & cm:
            details[n - 1][c] = idle_detail
            c += 1
        if c == 4:
            # Close the number: its groups' jokers, then on to the next.
            jg = lean_jg[key >> maxg_shift]
            used = ((key >> js_shift) & 255) + ((key >> pend_shift) & 15) + jg
            if used > jcap:
                return
            nk = (key & vjs_clear) | (used << js_shift)
            if n == 13:
                if not (closed[nk & cm] and closed[(nk >> cb) & cm] and closed[(nk >> 2 * cb) & cm] and closed[(nk >> 3 * cb) & cm]):
                    return
                group_jokers[12] = jg
                found[:] = [sc, [list(row) for row in details], list(group_jokers)]
                limit = spent - 1
                if spent <= stop:
                    raise Found
                return
            node = nk | ((n + 1) << 3) << cell_shift
            slack = limit - spent
            if dead.get(node, -1) >= slack:
                return
            if need is not None:
                # Too few jokers left for what the colours need (joker_needs), the slack
                # shared out among the colours as well as it can be.
                v0 = need[0][n].get(nk & cm)
                v1 = need[1][n].get((nk >> cb) & cm)
                v2 = need[2][n].get((nk >> 2 * cb) & cm)
                v3 = need[3][n].get((nk >> 3 * cb) & cm)
                if v0 is None or v1 is None or v2 is None or v3 is None:
                    dead[node] = slack
                    return
                if slack > 2:
                    # (Every colour given the whole slack: weaker, but no sharing out.)
                    least = v0[slack] + v1[slack] + v2[slack] + v3[slack]
                else:
                    least = v0[0] + v1[0] + v2[0] + v3[0]
                    if slack == 1:
                        least -= max(v0[0] - v0[1], v1[0] - v1[1], v2[0] - v2[1], v3[0] - v3[1])
                    elif slack == 2:
                        g1 = sorted((v0[0] - v0[1], v1[0] - v1[1], v2[0] - v2[1], v3[0] - v3[1]))
                        least -= max(v0[0] - v0[2], v1[0] - v1[2], v2[0] - v2[2], v3[0] - v3[2], g1[2] + g1[3])
                if least > 2 * (jcap - used):
                    dead[node] = slack
                    return
            group_jokers[n - 1] = jg
            rec(n + 1, 0, nk, spent, sc)
            dead[node] = limit - spent  # (a plan found below lowered the limit)
            return
        sh = cb * c
        sid = (key >> sh) & cm
        pend = (key >> pend_shift) & 15
        jrem = jcap - ((key >> js_shift) & 255) - pend
        cid = cids[c][n]
        opts = shared.get(((cid << cb | sid) << 4) | jrem) if cid >= 0 else None
        if opts is None:
            opts = cache.get((((c << 4 | n) << cb | sid) << 4) | jrem)
            if opts is None:
                opts = options(c, n, sid, jrem)
        f = key >> maxg_shift
        fk = (f << 6) | (n << 2) | c
        floor = floors.get(fk)
        if floor is None:
            floor = floors[fk] = group_floor(f, rest_avail[n][c])
        basek = key & ~(cm << sh) & keep_mask
        row = grow[f]
        cell = ((n << 3) | (c + 1)) << cell_shift
        here = details[n - 1]
        c1 = c + 1
        room = limit - spent
        if need is None:
            for miss, neg, nsid, g, jrun, detail in opts:
                if miss > room:
                    break
                if floor[g] > jrem - jrun:
                    continue  # this number's groups would need more jokers than are left
                left_steps -= 1
                if left_steps < 0:
                    raise OutOfBudget
                nk = basek | (nsid << sh) | ((pend + jrun) << pend_shift) | row[g]
                node = nk | cell
                if dead.get(node, -1) >= room - miss:
                    continue
                here[c] = detail
                rec(n, c1, nk, spent + miss, sc - neg)
                room = limit - spent
                dead[node] = room - miss
            return
        # The other colours' joker needs from here (each given the whole slack: a lower
        # bound for any share), the colours done at this number from after it.
        others = 2 * jrem
        for d, table, dsh in need_others[n][c]:
            v = table.get((key >> dsh) & cm)
            if v is None:
                return
            others -= v[room]
        mine = need[c][n]
        for miss, neg, nsid, g, jrun, detail in opts:
            if miss > room:
                break
            if floor[g] > jrem - jrun:
                continue  # this number's groups would need more jokers than are left
            v = mine.get(nsid)
            if v is None or v[room - miss] + 2 * jrun > others:
                continue  # this colour alone would need more jokers than are left
            left_steps -= 1
            if left_steps < 0:
                raise OutOfBudget
            nk = basek | (nsid << sh) | ((pend + jrun) << pend_shift) | row[g]
            node = nk | cell
            if dead.get(node, -1) >= room - miss:
                continue
            here[c] = detail
            rec(n, c1, nk, spent + miss, sc - neg)
            room = limit - spent
            dead[node] = room - miss

    how = DONE
    try:
        rec(1, 0, 0, 0, 0)
    except Found:
        how = FOUND
    except OutOfBudget:
        how, left_steps = OUT_OF_BUDGET, 0
    rec = None  # type: ignore[assignment]  # (the closure's cycle, as in search0)
    if not found:
        return how, left_steps, 0, None, None
    return how, left_steps, found[0], found[1], found[2]


def need_tables(
    cells: Sequence[Sequence[int]],
    idle: Sequence[Sequence[bool]],
    shared: dict[int, tuple[tuple[int, int, int], ...]],
    fresh: Callable[[int, int, int], tuple[tuple[int, int, int], ...]],
    closed: Sequence[bool],
    jt: int,
    most: int,
) -> list[list[dict[int, list[int]]]]:
    """The joker needs of :meth:`Bounds.joker_needs`: ``need[c][n][sid][k]``, the fewest joker
    halves colour c needs to go on from run state sid after number n, leaving out at most k (<=
    ``most``) of its rack tiles, with ``jt`` jokers. A cell's steps (:func:`need_steps`: (new
    sid, halves, shift) per way) are ``shared[cells[c][n] << CB | sid]`` where its cell id is
    not -1 and they are there, else ``fresh(c, n, sid)``; an ``idle`` cell (no tile, no joker
    start) lets the state with nothing open stay as it is."""
    inf = NEED_INF
    # Each colour's ways as bits: bit k * width + h of a state's number is set when the colour
    # can go on from it leaving out at most k rack tiles with at most h halves (h <= cap; a way
    # ending past cap only marks that nothing within it exists). A way adds its tiles left out
    # and halves by one shift; bits pushed past cap land in the pad between rows (cap + 1 to
    # 2 * cap) and are cleared. More halves than cap can never fit the jokers there are, so
    # they read as "no way" (the searches cut there either way).
    cap = 2 * jt
    width = 2 * cap + 1
    row_bits = (1 << (cap + 1)) - 1
    full = 0
    for k in range(most + 1):
        full |= row_bits << (k * width)
    lowest = [inf] + [(x & -x).bit_length() - 1 for x in range(1, row_bits + 1)]
    shifts = [k * width for k in range(most + 1)]
    read: dict[int, list[int]] = {}
    need: list[list[dict[int, list[int]]]] = []
    for c in range(4):
        steps: list[Any] = [None]
        # Forward, the fewest halves to reach each state: any real way there spends at most
        # two per joker, so states beyond twice the jokers are never reached.
        reach: dict[int, int] = {0: 0}
        for n in range(1, 14):
            cid = cells[c][n]
            still = idle[c][n]
            nxt: dict[int, int] = {}
            row = []
            for sid, spent in reach.items():
                if still and not sid:
                    st = IDLE_NEED  # (a cell with no tile still lets open runs go on with jokers)
                else:
                    st = shared.get((cid << CB) | sid) if cid >= 0 else None
                    if st is None:
                        st = fresh(c, n, sid)
                row.append((sid, st))
                for nsid, cost, _shift in st:
                    cost += spent
                    if cost <= cap and nxt.get(nsid, cap + 1) > cost:
                        nxt[nsid] = cost
            reach = nxt
            steps.append(row)
        val = {sid: full if closed[sid] else 0 for sid in reach}
        masks: list[dict[int, int]] = [val]
        for n in range(13, 0, -1):
            cur = {}
            for sid, st in steps[n]:
                m = 0
                for nsid, _cost, shift in st:
                    v = val.get(nsid)
                    if v:
                        m |= v << shift
                cur[sid] = m & full
            val = cur
            masks.append(val)
        masks.reverse()
        # As lists by tiles left out (few distinct tables: read once each).
        levels = []
        for level in masks:
            out = {}
            for sid, m in level.items():
                v = read.get(m)
                if v is None:
                    v = read[m] = [lowest[(m >> sh) & row_bits] for sh in shifts]
                out[sid] = v
            levels.append(out)
        need.append(levels)
    return need
