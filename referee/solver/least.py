"""Exact least disturbance: the arrangement laying the most rack tiles that moves fewest table
tiles to another set, as an integer programme solved by HiGHS through SciPy.

The depth-first solver (:mod:`referee.solver`) breaks ties between equally good moves with an
estimate (see ``referee/SOLVER.md``, "Least disturbance"); proving the least that way in pure
Python costs seconds to minutes on a full table. This programme proves it in milliseconds on
small tables and about half a second (seven at worst) on full ones, so it is used when asked
for (``best_move(..., tiebreak="exact")``) and by :mod:`referee.tools.tiebreak_check`, the reference
the solver's estimate is measured against. SciPy is imported on the first call, never by
``import referee``.

"Moved" is what the solver reports (``Move.moved``): each new set is matched to at most one old
set and keeps the tiles it shares with it, the matching keeping most tiles; every other table
tile counts as moved, so moved = table tiles - tiles kept. Sets are multisets (RULES.md
section 2): a group is 3-4 tiles of one number in distinct colours, a run 3-13 tiles of one
colour with consecutive numbers; jokers stand for any tile (section 5), and a set of only jokers
is not a set. Every table tile, jokers included, stays on the table; rack tiles may be laid
(section 4).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from referee.i18n import _
from referee.ruleset import RuleSet
from referee.tiles import ALL_NUMBERED, JOKER, Tile

__all__ = ["LeastArrangement", "candidate_sets", "least_arrangement"]

_JOKER = 52  # Tile.index of the joker
_BY_INDEX = [*ALL_NUMBERED, JOKER]  # Tile.index -> tile


@dataclass(frozen=True)
class LeastArrangement:
    """The exact answer for one position."""

    count: int
    """Rack tiles laid: the most that can be (or the count asked for)."""
    moved: int
    """Fewest table tiles moved to another set among the arrangements laying ``count`` tiles
    (best matching of new sets to old ones)."""
    sets: tuple[tuple[Tile, ...], ...]
    """One arrangement reaching both: runs low to high with their jokers in the gaps (then above
    the top, then below the bottom), groups in colour order with their jokers last."""
    seconds: float
    """Time it took (building the programme and HiGHS)."""


def candidate_sets(avail: Sequence[int]) -> list[tuple[int, ...]]:
    """Every valid set (RULES.md section 2 and 5) that the tiles ``avail`` could make, as a sorted
    tuple of tile indices (jokers 52 last); ``avail[x]`` = copies of tile index x available
    (table and rack), ``avail[52]`` = jokers. Each multiset once, however many ways the jokers
    can be read in it."""
    jokers = avail[_JOKER]
    found: set[tuple[int, ...]] = set()
    for c in range(4):
        for lo in range(1, 12):
            for hi in range(lo + 2, 14):
                numbers = range(lo, hi + 1)
                have = [n for n in numbers if avail[13 * c + n - 1]]
                forced = (hi - lo + 1) - len(have)  # places only a joker can fill
                if forced > jokers or not have:
                    continue
                # Any further available places may be jokers too (the tile left out).
                _choose(found, [13 * c + n - 1 for n in have], forced, jokers - forced)
    for n in range(1, 14):
        colours = [13 * c + n - 1 for c in range(4) if avail[13 * c + n - 1]]
        for mask in range(1, 1 << len(colours)):
            tiles = [x for i, x in enumerate(colours) if mask >> i & 1]
            for k in range(0, jokers + 1):
                if 3 <= len(tiles) + k <= 4:
                    found.add((*tiles, *[_JOKER] * k))
    return sorted(found)


def _choose(found: set[tuple[int, ...]], tiles: list[int], base: int, extra: int) -> None:
    """Add the run multisets made from ``tiles`` with ``base`` jokers, up to ``extra`` of the
    tiles replaced by jokers too (at least one numbered tile stays)."""
    for k in range(0, min(extra, len(tiles) - 1) + 1):
        for out in combinations(range(len(tiles)), k):
            kept = [x for i, x in enumerate(tiles) if i not in out]
            found.add((*kept, *[_JOKER] * (base + k)))


def tally(xs: Sequence[int]) -> dict[int, int]:
    """Copies of each tile index in ``xs``."""
    out: dict[int, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def shared(a: dict[int, int], b: dict[int, int]) -> int:
    """Tiles two tallies have in common (multiset intersection)."""
    return sum(min(k, b[x]) for x, k in a.items() if x in b)


def _readable(s: tuple[int, ...]) -> tuple[Tile, ...]:
    """A candidate set (sorted indices, jokers last) as tiles in an order :func:`check_set`
    reads: a group in colour order with its jokers last, a run low to high with its jokers in
    the gaps, then above its top, then below its bottom where the top is 13."""
    numbered = [x for x in s if x != _JOKER]
    jokers = len(s) - len(numbered)
    if len({x % 13 for x in numbered}) == 1 and len(s) <= 4:
        return tuple(_BY_INDEX[x] for x in s)  # a group (one numbered tile and jokers: either)
    c = numbered[0] // 13
    have = {x % 13 + 1 for x in numbered}
    lo, hi = min(have), max(have)
    spare = jokers - ((hi - lo + 1) - len(have))
    top = min(13, hi + spare)
    lo -= spare - (top - hi)
    return tuple(_BY_INDEX[13 * c + n - 1] if n in have else JOKER for n in range(lo, top + 1))


class _Rows:
    """The programme's constraints as a sparse matrix in triplets, one row at a time."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.count = 0

    def add(self, entries: Iterable[tuple[int, float]], lo: float, hi: float) -> None:
        """One row: lo <= sum of value x column over ``entries`` (column, value) <= hi."""
        for col, value in entries:
            self.rows.append(self.count)
            self.cols.append(col)
            self.vals.append(value)
        self.lo.append(lo)
        self.hi.append(hi)
        self.count += 1


def least_arrangement(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    rules: RuleSet = RuleSet.classic(),
    count: int | None = None,
    time_limit: float = 20.0,
    points: int | None = None,
) -> LeastArrangement | None:
    """The arrangement of the table's sets ``table`` and some of ``rack`` (after the opening)
    laying the most rack tiles, or exactly ``count`` of them, or rack tiles worth exactly
    ``points`` (a joker worth the tile it stands for, RULES.md section 1), that moves fewest
    table tiles to another set. None when it is not proven within ``time_limit`` seconds (building the programme
    included), or when no arrangement lays ``count`` tiles. Nothing laid is an answer too (count 0).

    One integer programme: x_s copies of each candidate set s (every table tile used, rack tiles
    at most as many as there are), y_si how much of new set s is matched to old set i (each old
    set to at most one new set, a new set's copies to as many old sets). Maximise
    (T + 1) * tiles laid + tiles kept, T = table tiles: the most tiles first, then the most kept
    (with ``count`` or ``points`` given: that fixed, tiles kept maximised). y may be fractional:
    for integer x the matching constraints are those of a bipartite b-matching, whose polytope
    has integer corners, so the optimum is the same as with integer y. For ``points``, integer
    z_sq says how many copies of set s have a rack joker at joker place q (its value read as the
    referee reads the set): the rack tiles' points are the numbered tiles' values laid plus those
    places, so when ``points`` is the most a move can score, z meets it only where the rack's
    jokers take the places worth most, as the points are counted.

    Raises :class:`~referee.solver.SolverError` when SciPy is not installed, or for more copies
    of a tile than ``rules`` has.
    """
    from referee.solver import SolverError  # (every caller has the solver loaded already)

    start = time.perf_counter()
    try:
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix
    except ImportError as exc:
        raise SolverError(_("the exact tie-break needs SciPy ({error})").format(error=exc)) from exc
    old = [[t.index for t in s] for s in table]
    table_count = [0] * 53
    rack_count = [0] * 53
    for s in old:
        for x in s:
            table_count[x] += 1
    for t in rack:
        rack_count[t.index] += 1
    if any(table_count[x] + rack_count[x] > (rules.jokers if x == _JOKER else rules.copies) for x in range(53)):
        raise SolverError(_("more copies of a tile than the rule set has"))
    avail = [a + b for a, b in zip(table_count, rack_count)]
    sets = candidate_sets(avail)
    total = sum(table_count)
    old_tallies = [tally(s) for s in old]
    tallies = [tally(s) for s in sets]
    nx = len(sets)
    holders: list[set[int]] = [set() for _x in range(53)]  # old sets holding each tile
    for i, ot in enumerate(old_tallies):
        for x in ot:
            holders[x].add(i)
    pairs = [
        (j, i, shared(st, old_tallies[i]))
        for j, st in enumerate(tallies)
        for i in sorted(set().union(*(holders[x] for x in st)))
    ]
    ny = len(pairs)
    big = 0 if count is not None or points is not None else total + 1
    cost = [float(-big * len(s)) for s in sets] + [float(-w) for _j, _i, w in pairs]
    upper = [min(avail[x] // k for x, k in t.items()) for t in tallies] + [1] * ny
    places: list[tuple[int, int]] = []  # (set, value of one of its joker places): the z columns
    joker_pairs: list[int] = []  # pairs sharing jokers: the k columns (points only, see below)
    if points is not None:
        from referee.solver.values import _joker_values

        places = [(j, v) for j, st in enumerate(sets) if _JOKER in st for v in _joker_values(_readable(st))]
        # A rack joker is not a table joker kept in its set: the pairs' joker part moves to k
        # columns, which share each set's jokers with the rack jokers sitting there (z).
        joker_pairs = [k for k, (j, i, _w) in enumerate(pairs) if _JOKER in tallies[j] and _JOKER in old_tallies[i]]
        for k in joker_pairs:
            j, i, _w = pairs[k]
            cost[nx + k] += float(min(tallies[j][_JOKER], old_tallies[i][_JOKER]))
        cost += [0.0] * len(places) + [-1.0] * len(joker_pairs)
        upper += [upper[j] for j, _v in places]
        upper += [min(tallies[pairs[k][0]][_JOKER], old_tallies[pairs[k][1]][_JOKER]) for k in joker_pairs]
    nz = len(places)
    nk = len(joker_pairs)
    rows = _Rows()
    # Tiles: every table copy used, rack copies at most all of them (RULES.md section 4).
    by_tile: list[list[tuple[int, int]]] = [[] for _x in range(53)]
    for j, t in enumerate(tallies):
        for x, k in t.items():
            by_tile[x].append((j, k))
    for x in range(53):
        if avail[x]:
            rows.add(by_tile[x], table_count[x], avail[x])
    if count is not None:
        # Exactly `count` rack tiles laid: the sets hold the table's tiles and `count` more.
        rows.add([(j, len(st)) for j, st in enumerate(sets)], total + count, total + count)
    if points is not None:
        # Points of the rack tiles laid: numbered ones at face value, rack jokers at their places.
        zc, kc = nx + ny, nx + ny + nz
        table_points = sum(x % 13 + 1 for s_ in old for x in s_ if x != _JOKER)
        rows.add(
            [(j, sum(x % 13 + 1 for x in st if x != _JOKER)) for j, st in enumerate(sets)]
            + [(zc + q, v) for q, (_j, v) in enumerate(places)],
            table_points + points, table_points + points,
        )
        # The rack's jokers laid are the jokers on the table after the move less the table's.
        rows.add(
            [(j, -st.count(_JOKER)) for j, st in enumerate(sets) if _JOKER in st] + [(zc + q, 1) for q in range(nz)],
            -table_count[_JOKER], -table_count[_JOKER],
        )
        # A place holds a rack joker only on copies of its set that are laid.
        for q, (j, _v) in enumerate(places):
            rows.add([(zc + q, 1), (j, -1)], -math.inf, 0)
        # Table jokers kept: only through a matched pair, at most the jokers both sets hold, and
        # with the rack's jokers in the set, no more than the set's jokers.
        for n_, k in enumerate(joker_pairs):
            j, i, _w = pairs[k]
            rows.add([(kc + n_, 1), (nx + k, -min(tallies[j][_JOKER], old_tallies[i][_JOKER]))], -math.inf, 0)
        by_set_k: dict[int, list[int]] = {}
        for n_, k in enumerate(joker_pairs):
            by_set_k.setdefault(pairs[k][0], []).append(kc + n_)
        by_set_z: dict[int, list[int]] = {}
        for q, (j, _v) in enumerate(places):
            by_set_z.setdefault(j, []).append(zc + q)
        for j, kcols in by_set_k.items():
            rows.add([(col, 1) for col in kcols + by_set_z.get(j, [])] + [(j, -tallies[j][_JOKER])], -math.inf, 0)
    # Matching: each old set to at most one new set; each new set's copies to as many old sets.
    by_old: list[list[tuple[int, int]]] = [[] for _i in old]
    by_set: dict[int, list[tuple[int, int]]] = {}
    for k, (j, i, _w) in enumerate(pairs):
        by_old[i].append((nx + k, 1))
        by_set.setdefault(j, []).append((nx + k, 1))
    for entries in by_old:
        rows.add(entries, 0, 1)
    for j, entries in by_set.items():
        rows.add(entries + [(j, -1)], -math.inf, 0)
    if not nx:
        return LeastArrangement(0, 0, (), 0.0) if not total and not count else None
    matrix = coo_matrix((rows.vals, (rows.rows, rows.cols)), shape=(rows.count, nx + ny + nz + nk)).tocsr()
    left = time_limit - (time.perf_counter() - start)  # the limit covers building the programme too
    if left <= 0:
        return None
    # Without presolve HiGHS keeps to the time limit (with it, presolve alone took 3 s of a 1 s
    # limit on a full table with two jokers, and 109 s on an XP one with four) and it was faster
    # on the slowest benchmark position (large-J-011: 2.5 s against 6.3 s).
    result = milp(
        cost,
        constraints=LinearConstraint(matrix, rows.lo, rows.hi),
        integrality=[1] * nx + [0] * ny + [1] * (nz + nk),
        bounds=Bounds([0.0] * (nx + ny + nz + nk), [float(u) for u in upper]),
        options={"time_limit": left, "mip_rel_gap": 0.0, "presolve": False},
    )
    seconds = time.perf_counter() - start
    if result.status != 0 or result.x is None:
        return None
    copies = [round(v) for v in result.x[:nx]]
    new_sets = tuple(_readable(sets[j]) for j, k in enumerate(copies) for _copy in range(k))
    laid = sum(len(s) for s in new_sets) - total
    kept = round(-result.fun) - big * (laid + total)
    return LeastArrangement(laid, total - kept, new_sets, seconds)
