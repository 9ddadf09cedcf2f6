"""The joker-free depth-first loop of :meth:`DepthFirst.search` (``rec0``), as a plain function.

Positions without jokers (the common case) spend most of a solve here, so the loop has a
compiled twin, ``_search0.c`` (C, built by ``pip install``, optional): :func:`search0` below is
its pure-Python fall-back and its specification. The two take the same arguments and give the
same answer, step for step. ``_search0.c`` holds the SHA-256 of this file (``TWIN_SHA256``); an
extension built from a C file that does not match this file, or older than its C file, is not
used (see :mod:`referee.solver.compiled`), and the tests check the digest and compare the two.
A change here must be made in ``_search0.c`` too, with the new digest
(``referee.solver.compiled.twin_digest()``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.solver.options import NEG
from referee.solver.state import CB, CM, G0_SHIFT, P_SHIFT, Found, OutOfBudget


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
