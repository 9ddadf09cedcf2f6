"""Exact least disturbance: the arrangement laying the most rack tiles that moves fewest table
tiles to another set, as an integer programme solved by branch and bound on HiGHS (highspy).

The depth-first solver (:mod:`referee.solver`) breaks ties between equally good moves with an
estimate (see ``referee/SOLVER.md``, "Least disturbance"); proving the least that way in pure
Python costs seconds to minutes on a full table. This programme proves it in milliseconds to
tens of milliseconds (figures in ``referee/SOLVER.md``), so it is used when asked for
(``best_move(..., tiebreak="exact")``, the default of the command line and the web app) and by
:mod:`referee.tools.tiebreak_check`, the reference the solver's estimate is measured against.
highspy is imported on the first call, never by ``import referee``.

What makes it fast: runs of 6 places or more pair with an old set only where no cut in two
runs does as well (:func:`_pairs`), which leaves out most of the thousands of long runs with
jokers; the linear relaxation is usually integral already; and where it is not, the branch and
bound re-solves each node from the last simplex basis and closes nodes by the integrality of
the objective and by the fast search's own move (``known``); where it runs long, it starts
again from the root with Gomory cuts added there (:func:`_gomory_cuts`), which close most of
the relaxation's gap on the points programme. On a full table with a rack joker the most-points
programme leaves the long runs with a joker out until the duals say they could help, and a
bound from the root proves the rest useless (:func:`_places_search`).

"Moved" is what the solver reports (``Move.moved``): each new set is matched to at most one old
set and keeps the tiles it shares with it, the matching keeping most tiles; every other table
tile counts as moved, so moved = table tiles - tiles kept. Sets are multisets (RULES.md
section 2): a group is 3-4 tiles of one number in distinct colours, a run 3-13 tiles of one
colour with consecutive numbers; jokers stand for any tile (section 5), and a set of only jokers
is not a set. Every table tile, jokers included, stays on the table; rack tiles may be laid
(section 4).
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, wraps
from array import array
from itertools import chain, combinations, compress, repeat
from operator import mod
from typing import Any

from referee.i18n import _
from referee.ruleset import RuleSet
from referee.solver.inputs import BY_INDEX
from referee.tiles import JOKER, Tile

__all__ = ["LeastArrangement", "candidate_sets", "least_arrangement"]

_JOKER = 52  # Tile.index of the joker


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
    points: int | None = None
    """With ``most_points``: the points of the rack tiles laid, the most any move scores."""


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
        mask = sum(1 << c for c in range(4) if avail[13 * c + n - 1])
        found.update(_number_groups(n, mask, jokers))
    return sorted(found)


_COLOUR_CACHE = 48
"""Entries kept of the per-colour run tables: one colour with every number there and two jokers
holds about 1.3 MB (its runs, readings and cuts), so at most some 60 MB."""


@lru_cache(maxsize=_COLOUR_CACHE)
def _colour_runs(c: int, mask: int, jokers: int) -> tuple[tuple[tuple[int, ...], int, tuple[int, ...]], ...]:
    """The runs of :func:`candidate_sets` in colour ``c`` whose tiles there are (bit n - 1 of
    ``mask``: some copy of number n), with ``jokers`` jokers: (sorted multiset, lowest number of
    the reading, one reading: tile indices by place, 52 a joker). Shared between calls (it
    depends on nothing else)."""
    found: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
    for lo in range(1, 12):
        for hi in range(lo + 2, 14):
            have = [n for n in range(lo, hi + 1) if mask >> (n - 1) & 1]
            forced = (hi - lo + 1) - len(have)
            if forced > jokers or not have:
                continue
            for k in range(0, min(jokers - forced, len(have) - 1) + 1):
                for out in combinations(have, k):
                    kept = [13 * c + n - 1 for n in have if n not in out]
                    key = (*kept, *[_JOKER] * (forced + k))
                    if key not in found:
                        found[key] = (lo, tuple(
                            13 * c + n - 1 if (mask >> (n - 1) & 1 and n not in out) else _JOKER for n in range(lo, hi + 1)
                        ))
    return tuple((key, lo, reading) for key, (lo, reading) in found.items())


@lru_cache(maxsize=1 << 12)
def _number_groups(n: int, mask: int, jokers: int) -> tuple[tuple[int, ...], ...]:
    """The groups of :func:`candidate_sets` of number ``n`` (bit c of ``mask``: colour c there)."""
    colours = [13 * c + n - 1 for c in range(4) if mask >> c & 1]
    found = []
    for m in range(1, 1 << len(colours)):
        tiles = [x for i, x in enumerate(colours) if m >> i & 1]
        for k in range(0, jokers + 1):
            if 3 <= len(tiles) + k <= 4:
                found.append((*tiles, *[_JOKER] * k))
    return tuple(found)


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


def readable_set(s: tuple[int, ...]) -> tuple[Tile, ...]:
    """A candidate set (sorted indices, jokers last) as tiles in an order :func:`check_set`
    reads: a group in colour order with its jokers last, a run low to high with its jokers in
    the gaps, then above its top, then below its bottom where the top is 13."""
    numbered = [x for x in s if x != _JOKER]
    jokers = len(s) - len(numbered)
    if len({x % 13 for x in numbered}) == 1 and len(s) <= 4:
        return tuple(BY_INDEX[x] for x in s)  # a group (one numbered tile and jokers: either)
    c = numbered[0] // 13
    have = {x % 13 + 1 for x in numbered}
    lo, hi = min(have), max(have)
    spare = jokers - ((hi - lo + 1) - len(have))
    top = min(13, hi + spare)
    lo -= spare - (top - hi)
    return tuple(BY_INDEX[13 * c + n - 1] if n in have else JOKER for n in range(lo, top + 1))


def _cuts(reading: Sequence[int]) -> tuple[int, ...]:
    """Where a run read as ``reading`` (tile indices by place, 52 a joker) can be cut in two
    valid runs: each piece 3 places or more, with a numbered tile (RULES.md sections 2, 5)."""
    size = len(reading)
    numbered = [0]
    for x in reading:
        numbered.append(numbered[-1] + (x != _JOKER))
    return tuple(p for p in range(3, size - 2) if numbered[p] and numbered[size] - numbered[p])


def _referee_reading(key: tuple[int, ...]) -> tuple[int, ...]:
    """The run ``key`` (sorted tile indices, jokers last) read as the referee reads it (the order
    of :func:`readable_set`): tile indices by place, its jokers in the gaps, then above its top,
    then below its bottom where the top is 13."""
    numbered = [x for x in key if x != _JOKER]
    c = numbered[0] // 13
    have = {x % 13 + 1 for x in numbered}
    lo, hi = min(have), max(have)
    spare = len(key) - len(numbered) - ((hi - lo + 1) - len(have))
    top = min(13, hi + spare)
    lo -= spare - (top - hi)
    return tuple(13 * c + n - 1 if n in have else _JOKER for n in range(lo, top + 1))


@lru_cache(maxsize=1 << 15)
def _points_cuts(reading: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The points objective's cuts (of :func:`_cuts`) of the run read as ``reading`` (a joker worth the tile it
    stands for, as the referee reads each piece alone): those after which the rack's jokers,
    however many, can score at least as much in the two pieces as in the whole run (each
    piece's jokers take its places worth most: for every z, the z places worth most of the
    pieces add up to at least the whole run's z places worth most), and for each such cut the
    most table jokers the first piece, then the second, can keep for an old set (held by
    jokers on that piece's places worth least) with that still true for the rest (see
    :func:`_survives`). Read the referee's way the pieces of a run never score less (a joker at
    a piece's bottom reads above its top), so every cut of that reading passes with none kept.
    Shared between calls: it depends on the run alone (some 10,000 runs of 6 or more with one
    or two jokers in a classic box), as the per-colour tables do."""
    whole = sorted(_set_joker_values(tuple(sorted(reading))), reverse=True)

    def enough(places: list[int]) -> bool:
        places = sorted(places, reverse=True)
        got = need = 0
        for a, b in zip(places, whole):
            got, need = got + a, need + b
            if got < need:
                return False
        return True

    kept_cuts: list[int] = []
    firsts: list[int] = []
    seconds: list[int] = []
    for p in _cuts(reading):
        a = sorted(_set_joker_values(tuple(sorted(reading[:p]))))
        b = sorted(_set_joker_values(tuple(sorted(reading[p:]))))
        if not enough(a + b):
            continue
        most = []
        for piece, other in ((a, b), (b, a)):
            w = 0
            while w < len(piece) and enough(piece[w + 1:] + other):
                w += 1
            most.append(w)
        kept_cuts.append(p)
        firsts.append(most[0])
        seconds.append(most[1])
    return tuple(kept_cuts), tuple(firsts), tuple(seconds)


@lru_cache(maxsize=1 << 16)
def _set_joker_values(s: tuple[int, ...]) -> tuple[int, ...]:
    """What the jokers of the candidate set ``s`` (sorted tile indices, jokers last) stand for,
    sorted: what :func:`~referee.solver.values.joker_values` gives for :func:`readable_set` of
    ``s``, worked out on the indices (it was most of the time of the points programme's
    build: thousands of long runs with jokers and their cuts read as tiles). The reading is
    the referee's: a group when every numbered tile has one number and the set has 4 tiles or
    fewer, unless it is one tile and jokers that read as a run from it up (worth more); otherwise a run with its
    jokers in the gaps, then above its top, then below its bottom where the top is 13."""
    numbers = [x % 13 + 1 for x in s if x != _JOKER]
    jokers = len(s) - len(numbers)
    if not jokers or not numbers:
        return ()
    lo, hi = numbers[0], numbers[-1]
    if lo == hi and len(s) <= 4:
        # A group; one numbered tile reads from it up as a run where that fits (worth more).
        if len(numbers) == 1 and lo + len(s) - 1 <= 13:
            return tuple(range(lo + 1, lo + len(s)))
        return (lo,) * jokers
    have = set(numbers)
    gaps = [v for v in range(lo, hi + 1) if v not in have]
    spare = jokers - len(gaps)
    top = min(13, hi + spare)
    bottom = lo - (spare - (top - hi))
    return tuple(sorted([*gaps, *range(hi + 1, top + 1), *range(bottom, lo)]))


_LongRun = tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...], dict[int, int], tuple[int, ...], tuple[int, ...], tuple[int, ...]
]
"""A run of 6 places or more: (multiset, reading, cuts, place of each numbered tile, jokers in
the reading before each place, and per cut the most table jokers its first piece, then its
second, may keep for an old set in the run's stead)."""


@lru_cache(maxsize=_COLOUR_CACHE)
def _colour_tables(
    c: int, mask: int, jokers: int, points: bool
) -> tuple[
    tuple[tuple[int, ...], ...],
    list[tuple[int, int, int, list[_LongRun], list[tuple[tuple[int, int], list[tuple[int, ...]]]]]],
    list[_LongRun],
]:
    """The runs of colour ``c`` (see :func:`_colour_runs`) sorted for :func:`_pairs`: those that
    pair with every old set they share a tile with (runs of 3-5, and long runs with no cut);
    the long runs with a cut by span, as (lowest number, latest first cut, earliest last cut,
    runs, and the runs' multisets by the numbers they hold before their first cut and from
    their last, as bits); and the long runs with a joker. For ``points``, a run with a joker is cut as the
    referee reads it, and only where the pieces score as much (:func:`_points_cuts`)."""
    short: list[tuple[int, ...]] = []
    by_span: dict[tuple[int, int], list[_LongRun]] = {}
    with_joker: list[_LongRun] = []
    long_run = _long_run if _SHARED_LONG_RUNS else _long_run.__wrapped__
    for key, lo, reading in _colour_runs(c, mask, jokers):
        got = long_run(key, lo, reading, points) if len(reading) >= 6 else None
        if got is None:
            short.append(key)  # (a run of 3-5, or a long one with no cut)
            continue
        lo, entry = got
        by_span.setdefault((lo, lo + len(entry[1]) - 1), []).append(entry)
        if entry[4][-1]:
            with_joker.append(entry)
    spans = []
    for (lo, _hi), entries in sorted(by_span.items()):
        # Without a table joker to keep, a pair survives only with an old set holding a tile of
        # the run before its first cut and one from its last (see _survives): by the bits of
        # the numbers there (bit n - 1 for number n), the runs alike in both kept together.
        ends: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        for key, reading, cuts, _place, _prefix, _firsts, _seconds in entries:
            head = tail = 0
            for k, x in enumerate(reading):
                if x != _JOKER:
                    if k < cuts[0]:
                        head |= 1 << x % 13
                    if k >= cuts[-1]:
                        tail |= 1 << x % 13
            ends.setdefault((head, tail), []).append(key)
        spans.append((lo, max(e[2][0] for e in entries), min(e[2][-1] for e in entries), entries, list(ends.items())))
    return tuple(short), spans, with_joker


_SHARED_LONG_RUNS = True
"""Whether :func:`_colour_tables` takes each long run's entry from :func:`_long_run`'s cache (shared
between the tables of every mask of its colour) rather than working it out again per table.
Measured (session 21): see ``referee/SOLVER.md``."""


@lru_cache(maxsize=1 << 14)
def _long_run(key: tuple[int, ...], lo: int, reading: tuple[int, ...], points: bool) -> tuple[int, _LongRun] | None:
    """The entry of :func:`_colour_tables` for the run ``key`` of 6 places or more, read as
    ``reading`` from the number ``lo`` (as :func:`_colour_runs` gives it): (the lowest number of the
    reading used, the entry), or None when it has no cut (it pairs with every old set). It depends
    on the run alone, not on the other tiles of its colour, so a run is worked out once for the
    tables of every mask that holds it (a full table's colour has some 5,000 runs, most of them
    long, and most of them in the tables of many masks). For ``points``, a run with a joker is
    read as the referee reads it and cut only where the pieces score as much."""
    if points and key[-1] == _JOKER:
        reading = _referee_reading(key)
        lo = _lowest(reading)
    cuts = _cuts(reading)
    prefix = [0]
    for x in reading:
        prefix.append(prefix[-1] + (x == _JOKER))
    if cuts and points and prefix[-1]:
        cuts, firsts, seconds = _points_cuts(reading)
    else:
        firsts = tuple(prefix[p] for p in cuts)
        seconds = tuple(prefix[-1] - prefix[p] for p in cuts)
    if not cuts:
        return None
    return lo, (key, reading, cuts, {x: k for k, x in enumerate(reading) if x != _JOKER}, tuple(prefix), firsts, seconds)


@lru_cache(maxsize=_COLOUR_CACHE)
def _joker_run_groups(
    c: int, mask: int, jokers: int, points: bool
) -> tuple[tuple[tuple[int, int], tuple[tuple[int, ...], ...]], ...]:
    """The long runs with a joker of :func:`_colour_tables` grouped by (the most table jokers
    a piece of a cut may keep, the run's jokers): with an old set holding no tile of the
    colour, :func:`_survives` is ``most < min(the run's jokers, the old set's)`` (session 10:
    a call per run and old set with a joker was most of the long runs' pairs on a full table)."""
    groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for key, _reading, _cuts, _place, prefix, firsts, seconds in _colour_tables(c, mask, jokers, points)[2]:
        groups.setdefault((max((*firsts, *seconds)), prefix[-1]), []).append(key)
    return tuple((k, tuple(v)) for k, v in groups.items())


def _lowest(reading: Sequence[int]) -> int:
    """The number of a run reading's first place (tile indices by place, 52 a joker)."""
    k, x = next((k, x) for k, x in enumerate(reading) if x != _JOKER)
    return x % 13 + 1 - k


def _survives(entry: _LongRun, old: dict[int, int]) -> bool:
    """Whether the long run ``entry`` must keep its pair with the old set ``old``: no cut leaves
    one piece sharing with it all that the whole run does (its numbered tiles are each once in
    the run; jokers by count, as many as that piece may keep, see :func:`_colour_tables`)."""
    _key, reading, cuts, place, prefix, firsts, seconds = entry
    places = [place[x] for x in old if x in place]
    first = min(places) if places else len(reading)
    last = max(places) if places else -1
    want = min(prefix[-1], old.get(_JOKER, 0))
    if not want:
        return not (last < cuts[-1] or first >= cuts[0])
    for k, p in enumerate(cuts):
        if (last < p and firsts[k] >= want) or (first >= p and seconds[k] >= want):
            return False
    return True


def _pairs(
    avail: Sequence[int], old_tallies: list[dict[int, int]], points: bool
) -> tuple[list[tuple[int, ...]], list[dict[int, int]], list[tuple[int, int, int]]]:
    """The candidate sets the programme needs (of :func:`candidate_sets`) and the pairs (new set,
    old set, tiles shared) it may match.

    A run of 6 places or more is left out of a pair with an old set when it can be cut in two
    valid runs one of which shares with that old set all the run does: an arrangement matching
    the run there keeps as many tiles with the two pieces instead (the piece matched, the other
    not), laying the same tiles (for points, only cuts that keep the jokers' values). A long run
    with no pair left and such a cut is left out altogether (used unmatched, its two pieces do
    as well). By induction on the length, the pieces are always there. Without a joker shared,
    a pair stays only with an old set holding tiles of the run in its first and its last piece,
    so only old sets with two tiles or more of its colour are looked at (by span). On a full
    table with two jokers this leaves out most of the thousands of long runs and nine pairs in
    ten, without changing the optimum."""
    jokers = avail[_JOKER]
    holders: list[list[int]] = [[] for _x in range(53)]  # old sets holding each tile
    for i, ot in enumerate(old_tallies):
        for x in ot:
            holders[x].append(i)
    found: list[tuple[int, ...]] = []
    keep: dict[tuple[int, ...], set[int]] = {}  # long run -> the old sets it keeps a pair with
    joker_olds = [i for i, ot in enumerate(old_tallies) if _JOKER in ot]
    for c in range(4):
        mask = sum(1 << (n - 1) for n in range(1, 14) if avail[13 * c + n - 1])
        short, by_span, with_joker = _colour_tables(c, mask, jokers, points)
        found.extend(short)
        for i, ot in enumerate(old_tallies):
            numbers = [x % 13 + 1 for x in ot if x != _JOKER and x // 13 == c]
            if len(numbers) < 2:
                continue
            a, b = min(numbers), max(numbers)
            bits = sum(1 << (n - 1) for n in set(numbers))
            joker = _JOKER in ot
            for lo, first_cut, last_cut, entries, ends in by_span:
                if a >= lo + first_cut or b < lo + last_cut:
                    continue  # (no tile of it in the first piece, or none in the last, whatever the cut)
                if joker:
                    for entry in entries:
                        if _survives(entry, ot):
                            keep.setdefault(entry[0], set()).add(i)
                    continue
                for (head, tail), keys in ends:
                    if bits & head and bits & tail:
                        for key in keys:
                            keep.setdefault(key, set()).add(i)
        for i in joker_olds:
            ot = old_tallies[i]
            if any(x != _JOKER and x // 13 == c for x in ot):
                for entry in with_joker:
                    if _survives(entry, ot):
                        keep.setdefault(entry[0], set()).add(i)
                continue
            # No tile of this colour in it: a run keeps its pair only where no piece may keep
            # as many of its jokers (what _survives decides with no place shared), by groups.
            for (most, held), keys in _joker_run_groups(c, mask, jokers, points):
                if most < min(held, ot[_JOKER]):
                    for key in keys:
                        keep.setdefault(key, set()).add(i)
    for n in range(1, 14):
        mask = sum(1 << c for c in range(4) if avail[13 * c + n - 1])
        found.extend(_number_groups(n, mask, jokers))
    sets: list[tuple[int, ...]] = []
    tallies: list[dict[int, int]] = []
    pairs: list[tuple[int, int, int]] = []
    if _PAIRS_BY_TILE:
        # Each set's tiles shared with every old set, summed tile by tile over the old sets
        # holding that tile (with their copies of it): the old sets summed are those it shares
        # a tile with, each looked at once per tile instead of once per tile of the union.
        held = [[(i, old_tallies[i][x]) for i in holders[x]] for x in range(53)]
        tally_of = _shared_tally if _SHARED_TALLIES else tally
        for s in sorted(set(found) | keep.keys()):
            st = tally_of(s)
            k = len(sets)
            sets.append(s)
            tallies.append(st)
            common: dict[int, int] = {}
            get = common.get
            for x, n in st.items():
                for i, c in held[x]:
                    common[i] = get(i, 0) + (n if n < c else c)
            olds = keep.get(s)
            if olds is None:
                pairs.extend([(k, i, common[i]) for i in sorted(common)])
            else:
                pairs.extend([(k, i, get(i, 0)) for i in sorted(olds)])
        return sets, tallies, pairs
    for s in sorted(set(found) | keep.keys()):
        olds = keep.get(s)
        if olds is None:
            olds = set()
            for x in set(s):
                olds.update(holders[x])
        st = tally(s)
        k = len(sets)
        sets.append(s)
        tallies.append(st)
        items = st.items()
        for i in sorted(olds):
            ot = old_tallies[i]
            pairs.append((k, i, sum(n if n < ot[x] else ot[x] for x, n in items if x in ot)))
    return sets, tallies, pairs


_PAIRS_BY_TILE = True
"""Whether :func:`_pairs` counts each set's tiles shared with the old sets tile by tile, over the old
sets holding each tile, instead of over the union of those old sets, a sum per pair: the same sets,
tallies and pairs in the same order. Measured (session 25, the 360 random full tables with jokers
of seeds 11-16, warm colour tables): 11.4 -> 9.3 ms a call at the median. See ``referee/SOLVER.md``."""

_SHARED_TALLIES = True
"""Whether :func:`_pairs` (with ``_PAIRS_BY_TILE``) takes each candidate set's tally from a cache
shared between calls (:func:`_shared_tally`): the same sets recur from table to table (the runs
and groups of each colour and number). Nothing writes to a programme's tallies."""


@lru_cache(maxsize=1 << 15)
def _shared_tally(s: tuple[int, ...]) -> dict[int, int]:
    """:func:`tally` of the candidate set ``s``, shared between calls: read only."""
    return tally(s)


class _Rows:
    """The programme's constraints as a sparse matrix by rows, one row at a time."""

    def __init__(self) -> None:
        self.starts: list[int] = [0]
        """Where each row's entries begin in ``cols`` and ``vals`` (and, last, their end)."""
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.count = 0

    def add(self, entries: Iterable[tuple[int, float]], lo: float, hi: float) -> None:
        """One row: lo <= sum of value x column over ``entries`` (column, value) <= hi."""
        entries = list(entries)
        cols, vals = zip(*entries) if entries else ((), ())
        self.add_lists(cols, vals, lo, hi)

    def add_lists(self, cols: Iterable[int], vals: Iterable[float], lo: float, hi: float) -> None:
        """One row given as its columns and their values (no tuple per entry: tens of thousands
        of them on a full table, each one for the cyclic garbage collector to walk)."""
        self.cols.extend(cols)
        self.vals.extend(vals)
        self.starts.append(len(self.cols))
        self.lo.append(lo)
        self.hi.append(hi)
        self.count += 1


_PAUSE_LOCK = threading.Lock()
_PAUSED = [0, False]  # solves under way with the collector paused, and whether it was on before


def _collector_paused(solve: Callable[..., Any]) -> Callable[..., Any]:
    """``solve`` with Python's cyclic garbage collector paused while it runs. Building a full
    table's programme allocates some 10,000-60,000 containers that live until the call ends
    (tallies, pairs, rows) and form no cycles, so they are freed as the call returns; while
    they live, they trigger collections that walk every object of the process, the shared
    tables' too: measured (session 10, one process, the points objective on the large tables
    with jokers) up to 89-111 ms of a 250-440 ms solve, 3-4 ms at the median. The first solve
    in pauses it (if it was on), the last one out turns it back on, under a lock, so threads
    solving at once never leave it off."""

    @wraps(solve)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with _PAUSE_LOCK:
            if not _PAUSED[0]:
                _PAUSED[1] = gc.isenabled()
                gc.disable()
            _PAUSED[0] += 1
        try:
            return solve(*args, **kwargs)
        finally:
            with _PAUSE_LOCK:
                _PAUSED[0] -= 1
                if not _PAUSED[0] and _PAUSED[1]:
                    gc.enable()

    return paused


@_collector_paused
def least_arrangement(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    rules: RuleSet = RuleSet.classic(),
    count: int | None = None,
    time_limit: float = 20.0,
    points: int | None = None,
    known: int | None = None,
    most_points: bool = False,
    relaxations: int | None = None,
    known_points: int | None = None,
    every_place: bool = False,
    mip: bool = False,
    reserve_from: int | None = None,
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
    has integer corners, so the optimum is the same as with integer y. With ``count`` given and
    no joker places (the tiles objective's tie-break), each pair's column is instead a copy of
    its set matched to its old set, the set's own column its copies laid unmatched (see
    ``_SPLIT``): the same relaxation without a row per set. For ``points``, integer
    z_sq says how many copies of set s have a rack joker at joker place q (its value read as the
    referee reads the set): the rack tiles' points are the numbered tiles' values laid plus those
    places, so when ``points`` is the most a move can score, z meets it only where the rack's
    jokers take the places worth most, as the points are counted.

    ``known``: tiles kept by an arrangement already known to lay as much (the fast search's move,
    with ``count`` or ``points`` given): when nothing keeps more, the answer is that value with
    no sets (``sets == ()``), the known arrangement being a least one.

    ``most_points``: instead of a count or points given, the most points first (the
    objective (T + 1) * points + tiles kept, points as above), then the fewest moved; the
    answer's :attr:`LeastArrangement.points` says how many; ``known`` and ``known_points``
    together are then a move known (the tiles it keeps and the points it scores, its rack
    jokers at the joker places worth most): when nothing scores more, or as much keeping more,
    the answer is that value with no sets. ``every_place``: a column for every joker place of a
    set, not only its places worth most (the same optimum, another branch and bound: where
    one runs long the other may not). ``relaxations``: the most linear
    relaxations the branch and bound may solve; past them, None (as past ``time_limit``).
    ``mip``: HiGHS's own MIP solver instead of that branch and bound (its root cuts close
    gaps the branching does not; ``relaxations`` is then not used). ``reserve_from``: with the most
    points asked for and a move known, the sets with a joker of that many tiles or more (or of
    ``_RESERVE_FROM``, whichever is fewer) are left out of the programme until the duals say they
    could help (see :func:`_places_search`), also with the jokers on the table only (the programme
    then set by set without joker places, ``_TABLE_JOKERS_SET_BY_SET``); the same answer whatever it is.

    Raises :class:`~referee.solver.SolverError` when highspy is not installed, or for more copies
    of a tile than ``rules`` has.
    """
    from referee.solver import SolverError  # (every caller has the solver loaded already)

    start = time.perf_counter()
    try:
        import highspy  # noqa: F401  (HiGHS, the exact tie-break's only dependency)
    except ImportError as exc:
        raise SolverError(_("the exact tie-break needs highspy ({error})").format(error=exc)) from exc
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
    total = sum(table_count)
    old_tallies = [tally(s) for s in old]
    # Points with no joker on the rack: the points are the numbered rack tiles', wherever the
    # jokers stand, so the programme is the tiles one with a points row (no joker places).
    scored = points is not None or most_points  # points counted: fixed, or maximised first
    places_count = scored and avail[_JOKER] > table_count[_JOKER]
    sets, tallies, pairs = _pairs(avail, old_tallies, places_count)
    nx = len(sets)
    if not nx:
        return LeastArrangement(0, 0, (), 0.0) if not total and not count else None
    big = 0 if count is not None or scored else total + 1
    heavy = total + 1 if most_points else 0  # a point laid outweighs every tile kept
    table_points = sum(x % 13 + 1 for s_ in old for x in s_ if x != _JOKER)
    if most_points:
        # (A move known counts in the objective's own units: its points, then its tiles kept.)
        known = None if known is None or known_points is None else heavy * (table_points + known_points) + known
    # With the jokers on the table only, the most points asked for, a move known and
    # reserve_from given (the full tables), the programme is built set by set too, without joker
    # places: its sets with a joker come in as they do with a rack joker (session 24).
    set_by_set = places_count or (
        _TABLE_JOKERS_SET_BY_SET and most_points and known is not None and reserve_from is not None
        and avail[_JOKER] > 0
    )
    if set_by_set:
        # The rack's jokers on the sets' joker places: the programme is built set by set, the
        # long runs with a joker only where the duals say they could help (see _PlacesProgramme).
        programme = _PlacesProgramme(
            sets, tallies, pairs, old_tallies, avail, table_count, count, points, heavy, table_points, every_place,
        )
        found, copies = _places_search(
            programme, time_limit - (time.perf_counter() - start), known, relaxations, mip,
            _RESERVE_FROM if reserve_from is None else min(reserve_from, _RESERVE_FROM),
            math.inf if reserve_from is None else _TIED_SHARE,
        )
    else:
        rows, cost, upper, whole, of_set = _plain_programme(
            sets, tallies, pairs, old_tallies, avail, table_count, count, points, big, heavy, table_points,
        )
        if mip:
            found = _mip(rows, cost, upper, whole, time_limit - (time.perf_counter() - start), known)
        else:
            # (Where it runs long, Gomory cuts at its root close most of the relaxation's gap: see
            # _gomory_cuts. Every row's coefficients and bounds are integers, as they need.)
            found = _branch_and_bound(
                rows, cost, upper, whole, time_limit - (time.perf_counter() - start), known, relaxations,
                cut_rounds=CUT_ROUNDS, copies=of_set,
            )
        # (Split: a set's copies are its columns together, integral where each need not be.)
        copies = None if found is None or found[1] is None else [
            round(found[1][j] + sum(found[1][c] for c in of_set[j])) if of_set is not None else round(found[1][j])
            for j in range(nx)
        ]
    seconds = time.perf_counter() - start
    if found is None:
        return None
    value, x = found
    if x is None:  # nothing better than the arrangement known
        if most_points:
            return LeastArrangement(0, total - value % heavy, (), seconds, value // heavy - table_points)
        return LeastArrangement(count if count is not None else 0, total - value, (), seconds)
    assert copies is not None
    most = None
    if most_points:  # (the points part is a multiple of heavy; what is left is the tiles kept)
        most = value // heavy - table_points
        value %= heavy
    new_sets = tuple(readable_set(sets[j]) for j, k in enumerate(copies) for _copy in range(k))
    laid = sum(len(s) for s in new_sets) - total
    kept = value - big * (laid + total)
    return LeastArrangement(laid, total - kept, new_sets, seconds, most)


def _plain_programme(
    sets: list[tuple[int, ...]], tallies: list[dict[int, int]], pairs: list[tuple[int, int, int]],
    old_tallies: list[dict[int, int]], avail: Sequence[int], table_count: Sequence[int], count: int | None,
    points: int | None, big: int, heavy: int, table_points: int,
) -> tuple[_Rows, list[float], list[int], int, list[list[int]] | None]:
    """The programme of :func:`least_arrangement` without joker places (no rack joker, or no
    points counted): its rows, costs (minimised), column upper bounds, how many columns from
    the first must be integral, and with pairs as copies of their set (``_SPLIT``) the pair
    columns of each set (otherwise None). Columns: a set's copies x_s, then a pair's y_si."""
    nx = len(sets)
    ny = len(pairs)
    total = sum(table_count)
    cost = [float(-big * len(s)) for s in sets] + [float(-w) for _j, _i, w in pairs]
    upper = [min(avail[x] // k for x, k in t.items()) for t in tallies] + [1] * ny
    # Without joker places, a pair's column is itself a copy of its set matched to its old set
    # (x_s = the column of s, its copies laid unmatched, plus its pairs' columns): the same
    # relaxation as y_si <= x_s, without a row per set (see _SPLIT).
    split = _SPLIT and count is not None
    of_set: list[list[int]] = [[] for _j in sets]  # the pair columns of each set (split only)
    if split:
        for k, (j, _i, _w) in enumerate(pairs):
            of_set[j].append(nx + k)
    rows = _Rows()
    # Tiles: every table copy used, rack copies at most all of them (RULES.md section 4). (Rows
    # as lists of columns and values: see _Rows.add_lists.)
    tile_cols: list[list[int]] = [[] for _x in range(53)]
    tile_vals: list[list[int]] = [[] for _x in range(53)]
    for j, t in enumerate(tallies):
        cols_j = [j, *of_set[j]]
        for x, k in t.items():
            tile_cols[x] += cols_j
            tile_vals[x] += [k] * len(cols_j)
    for x in range(53):
        if avail[x]:
            rows.add_lists(tile_cols[x], tile_vals[x], table_count[x], avail[x])
    if count is not None:
        # Exactly `count` rack tiles laid: the sets hold the table's tiles and `count` more.
        cols_c: list[int] = []
        vals_c: list[int] = []
        for j, st in enumerate(sets):
            cols_c.append(j)
            cols_c += of_set[j]
            vals_c += [len(st)] * (1 + len(of_set[j]))
        rows.add_lists(cols_c, vals_c, total + count, total + count)
    if heavy:
        # The points of the rack tiles laid first (the table's own points are a constant).
        for j, st in enumerate(sets):
            cost[j] -= heavy * sum(x % 13 + 1 for x in st if x != _JOKER)
    if points is not None:
        # Points of the rack tiles laid (no rack joker: the numbered ones at face value).
        rows.add(
            [(col, v) for j, st in enumerate(sets) for v in (sum(x % 13 + 1 for x in st if x != _JOKER),)
             for col in (j, *of_set[j])],
            table_points + points, table_points + points,
        )
    # Matching: each old set to at most one new set; each new set's copies to as many old sets.
    by_old: list[list[int]] = [[] for _i in old_tallies]
    for k, (_j, i, _w) in enumerate(pairs):
        by_old[i].append(nx + k)
    for cols_o in by_old:
        rows.add_lists(cols_o, [1] * len(cols_o), 0, 1)
    if split:
        for k, (j, _i, _w) in enumerate(pairs):
            cost[nx + k] += cost[j]  # (a matched copy of s is a copy of s: its tiles, points and weight)
    else:
        by_set: dict[int, list[int]] = {}
        for k, (j, _i, _w) in enumerate(pairs):
            by_set.setdefault(j, []).append(nx + k)
        for j, cols_s in by_set.items():
            rows.add_lists([*cols_s, j], [1] * len(cols_s) + [-1], -math.inf, 0)
    # The columns that must be integral (split: a pair's column is a copy; otherwise y may be
    # fractional, see least_arrangement).
    return rows, cost, upper, nx + ny if split else nx, of_set if split else None


class _PlacesProgramme:
    """The programme of :func:`least_arrangement` with joker places (the points counted and a
    joker on the rack), built set by set so that its sets can come in as they are needed.

    Per set s: x_s its copies, y_si per pair, z_sq per
    joker place (how many copies have a rack joker there, the place's value read as the referee
    reads the set; only a set's places worth most, as many as the rack has jokers, unless
    ``every_place``: a rack joker on a lower place of a set, a higher one free, scores less than
    the move it is part of can, never the most points), and k per pair sharing jokers (table
    jokers kept: a rack joker is not a table joker kept in its set). Rows shared by every set:
    a row per tile (every table copy used, rack copies at most all of them, RULES.md section 4),
    the count or the points given, the rack's jokers laid (the jokers on the table after the
    move less the table's own) and one per old set (matched to one new set at most). Each set's
    own rows: z_sq <= x_s (a place holds a rack joker only on copies laid), k <= the jokers both
    sets hold times y_si, its k and z together at most its jokers times x_s, and its y at most
    x_s. Its own rows have a right-hand side of 0, so a set left out of the programme changes no
    bound there: whether it could help is a question of the shared rows' duals alone (see
    :meth:`pricing`)."""

    def __init__(
        self, sets: list[tuple[int, ...]], tallies: list[dict[int, int]], pairs: list[tuple[int, int, int]],
        old_tallies: list[dict[int, int]], avail: Sequence[int], table_count: Sequence[int], count: int | None,
        points: int | None, heavy: int, table_points: int, every_place: bool,
    ) -> None:
        self.sets = sets
        self.tallies = tallies
        self.avail = avail
        self.heavy = heavy
        rack_jokers = avail[_JOKER] - table_count[_JOKER]
        # (No rack joker: no joker places, and a table joker a pair shares counts in its tiles
        # with no k of its own, as in the plain programme: _TABLE_JOKERS_SET_BY_SET.)
        self.places = [
            _set_joker_values(st)[0 if every_place else -rack_jokers:] if _JOKER in st and rack_jokers else ()
            for st in sets
        ]
        self.points = [sum(x % 13 + 1 for x in st if x != _JOKER) for st in sets]
        self.bound = [min(avail[x] // k for x, k in t.items()) for t in tallies]  # (most copies the tiles allow)
        # Each set's pairs: (old set, tiles shared, table jokers both hold: 0 for none).
        self.pairs_of: list[list[tuple[int, int, int]]] = [[] for _j in sets]
        for j, i, w in pairs:
            both = (
                min(tallies[j][_JOKER], old_tallies[i][_JOKER])
                if rack_jokers and _JOKER in tallies[j] and _JOKER in old_tallies[i] else 0
            )
            self.pairs_of[j].append((i, w, both))
        # Every row in HiGHS's order (bounds, and their entries as sets come in).
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.cols: list[list[int]] = []
        self.vals: list[list[int]] = []
        self.tile_row = [-1] * 53
        total = sum(table_count)
        for x in range(53):
            if avail[x]:
                self.tile_row[x] = self._row(table_count[x], avail[x])
        self.count_row = -1 if count is None else self._row(total + count, total + count)
        self.points_row = -1 if points is None else self._row(table_points + points, table_points + points)
        self.joker_row = self._row(-table_count[_JOKER], -table_count[_JOKER])
        self.old_row: list[int] = []  # (written by start, after the first sets' own rows)
        self.old_count = len(old_tallies)
        self.cost: list[float] = []
        self.upper: list[int] = []
        self.column = [-1] * len(sets)  # x_s's column, -1 while s is left out

    def _row(self, lo: float, hi: float, cols: list[int] | None = None, vals: list[int] | None = None) -> int:
        """A new row (last), its index."""
        self.lo.append(lo)
        self.hi.append(hi)
        self.cols.append([] if cols is None else cols)
        self.vals.append([] if vals is None else vals)
        return len(self.lo) - 1

    def _column(self, cost: float, upper: int, entries: Iterable[tuple[int, int]]) -> int:
        """A new column (last) with ``entries`` (row, value) in rows there already, its index."""
        col = len(self.cost)
        for r, v in entries:
            self.cols[r].append(col)
            self.vals[r].append(v)
        self.cost.append(cost)
        self.upper.append(upper)
        return col

    def _x_entries(self, j: int) -> list[tuple[int, int]]:
        """Set ``j``'s x in the shared rows: its tiles, its size or points, its jokers."""
        st = self.tallies[j]
        entries = [(self.tile_row[x], k) for x, k in st.items()]
        if self.count_row >= 0:
            entries.append((self.count_row, len(self.sets[j])))
        if self.points_row >= 0:
            entries.append((self.points_row, self.points[j]))
        if _JOKER in st:
            entries.append((self.joker_row, -st[_JOKER]))
        return entries

    def _z_entries(self, v: int) -> list[tuple[int, int]]:
        """A joker place worth ``v`` in the shared rows: a rack joker laid, its points."""
        return [(self.joker_row, 1)] + ([(self.points_row, v)] if self.points_row >= 0 else [])

    def start(self, js: Iterable[int]) -> None:
        """The first sets ``js``, written as the whole programme was before sets could come in
        later (session 18): every set's x, then the pairs' y, the places' z and the joker pairs'
        k; rows for the places, the joker pairs and each set's k and z, then one per old set,
        then each set's y. (Its relaxation has several optimal vertices; the branch and bound's
        trees follow the one HiGHS reaches, so another order gives other trees.)"""
        js = sorted(js)
        cost, upper, cols, vals, heavy = self.cost, self.upper, self.cols, self.vals, self.heavy
        tile_row, joker_row, count_row, points_row = self.tile_row, self.joker_row, self.count_row, self.points_row
        # (Written out, not through _column: a full table's programme has 10,000 columns or more.)
        x: list[int] = []
        for j in js:
            col = len(cost)
            x.append(col)
            self.column[j] = col
            st = self.tallies[j]
            for t, k in st.items():
                cols[tile_row[t]].append(col)
                vals[tile_row[t]].append(k)
            if count_row >= 0:
                cols[count_row].append(col)
                vals[count_row].append(len(self.sets[j]))
            if points_row >= 0:
                cols[points_row].append(col)
                vals[points_row].append(self.points[j])
            if _JOKER in st:
                cols[joker_row].append(col)
                vals[joker_row].append(-st[_JOKER])
            cost.append(float(-heavy * self.points[j]))
            upper.append(self.bound[j])
        y: list[list[int]] = []
        for j in js:
            pairs = self.pairs_of[j]
            y.append(list(range(len(cost), len(cost) + len(pairs))))
            cost.extend(float(both - w) for _i, w, both in pairs)
            upper.extend([1] * len(pairs))
        z: list[list[int]] = []
        for j in js:
            z.append([])
            for v in self.places[j]:
                col = len(cost)
                z[-1].append(col)
                cols[joker_row].append(col)
                vals[joker_row].append(1)
                if points_row >= 0:
                    cols[points_row].append(col)
                    vals[points_row].append(v)
                cost.append(float(-heavy * v))
                upper.append(self.bound[j])
        k: list[list[int]] = []
        for j in js:
            k.append([])
            for _i, _w, both in self.pairs_of[j]:
                k[-1].append(len(cost) if both else -1)
                if both:
                    cost.append(-1.0)
                    upper.append(both)
        lo, hi = self.lo, self.hi
        own_cols: list[list[int]] = []
        own_vals: list[list[int]] = []
        for n, j in enumerate(js):
            for col in z[n]:
                own_cols.append([col, x[n]])
                own_vals.append([1, -1])
        for n, j in enumerate(js):
            for (_i, _w, both), y_col, k_col in zip(self.pairs_of[j], y[n], k[n]):
                if both:
                    own_cols.append([k_col, y_col])
                    own_vals.append([1, -both])
        for n, j in enumerate(js):
            k_cols = [c for c in k[n] if c >= 0]
            if k_cols:
                own_cols.append([*k_cols, *z[n], x[n]])
                own_vals.append([1] * (len(k_cols) + len(z[n])) + [-self.tallies[j][_JOKER]])
        by_old: list[list[int]] = [[] for _i in range(self.old_count)]
        for n, j in enumerate(js):
            for (i, _w, _both), col in zip(self.pairs_of[j], y[n]):
                by_old[i].append(col)
        first = len(lo)
        self.old_row = list(range(first + len(own_cols), first + len(own_cols) + len(by_old)))
        own_cols += by_old
        own_vals += [[1] * len(c) for c in by_old]
        for n, j in enumerate(js):
            if y[n]:
                own_cols.append([*y[n], x[n]])
                own_vals.append([1] * len(y[n]) + [-1])
        cols += own_cols
        vals += own_vals
        lo += [-math.inf] * len(own_cols)
        hi += [0] * len(own_cols)
        for r in self.old_row:
            lo[r], hi[r] = 0, 1

    def add(self, js: Iterable[int]) -> tuple[list[int], list[int], list[float]]:
        """Add the sets ``js`` after :meth:`start` (each set's columns together, then its own
        rows at the end); returns the new columns' entries in the rows there before, by column
        (starts, rows, values), for HiGHS's ``addCols``."""
        first = len(self.cost)
        for j in js:
            u = self.bound[j]
            x_col = self.column[j] = self._column(float(-self.heavy * self.points[j]), u, self._x_entries(j))
            y_cols: list[int] = []
            k_cols: list[int] = []
            for i, w, both in self.pairs_of[j]:
                # (The pair's joker part moves to its k column.)
                y_cols.append(self._column(float(both - w), 1, [(self.old_row[i], 1)]))
                if both:
                    k_cols.append(self._column(-1.0, both, ()))
                    self._row(-math.inf, 0, [k_cols[-1], y_cols[-1]], [1, -both])
            z_cols = []
            for v in self.places[j]:
                z_cols.append(self._column(float(-self.heavy * v), u, self._z_entries(v)))
                self._row(-math.inf, 0, [z_cols[-1], x_col], [1, -1])
            if k_cols:
                self._row(-math.inf, 0, [*k_cols, *z_cols, x_col], [1] * (len(k_cols) + len(z_cols)) + [-self.tallies[j][_JOKER]])
            if y_cols:
                self._row(-math.inf, 0, [*y_cols, x_col], [1] * len(y_cols) + [-1])
        # (The new columns' entries in the rows there before: the shared rows, read back.)
        new_at: list[list[tuple[int, int]]] = [[] for _c in range(len(self.cost) - first)]
        for r in [*(r for r in self.tile_row if r >= 0), self.count_row, self.points_row, self.joker_row, *self.old_row]:
            if r < 0:
                continue
            cols, vals = self.cols[r], self.vals[r]
            for n in range(len(cols) - 1, -1, -1):
                if cols[n] < first:
                    break
                new_at[cols[n] - first].append((r, vals[n]))
        starts, at, by = [], [], []
        for entries in new_at:
            starts.append(len(at))
            for r, v in entries:
                at.append(r)
                by.append(v)
        starts.append(len(at))
        return starts, at, by

    def rows(self) -> _Rows:
        """The whole programme as rows, in HiGHS's order."""
        rows = _Rows()
        starts = rows.starts
        for c in self.cols:
            starts.append(starts[-1] + len(c))
        rows.cols = list(chain.from_iterable(self.cols))
        rows.vals = list(chain.from_iterable(self.vals))
        rows.lo, rows.hi, rows.count = list(self.lo), list(self.hi), len(self.lo)
        return rows

    def pricing(
        self, js: Iterable[int], dual: Sequence[float],
        extra: Sequence[tuple[float, list[float], list[float]]] | None = None,
    ) -> list[float]:
        """For each set of ``js`` (left out), a lower bound on its reduced cost (minimising) at the
        shared rows' duals ``dual`` (HiGHS's row duals: a column's reduced cost is its cost less
        its entries times them), its own rows given the duals that suit it best: its x's reduced
        cost plus, with x_s = 1, the most its z, y and k can take off (each z alone, the best y
        with its k; the cap on its k and z together left out, which only lowers the bound).
        None below 0 means: with the set in, the relaxation keeps its value (its own rows' right-hand
        sides are 0, and duals there exist that make every one of its columns' reduced costs
        nonnegative), and by those duals a point laying a copy of it is worth at most the
        relaxation's value less the bound (see :func:`_places_search`). ``extra``: per set of ``js``,
        what other rows (cuts') add to its x's, each of its y's (by pair) and each of its z's (by
        place) reduced costs (their k's are in no such row)."""
        heavy = self.heavy
        tile = [dual[r] if r >= 0 else 0.0 for r in self.tile_row]
        count = dual[self.count_row] if self.count_row >= 0 else 0.0
        pts = dual[self.points_row] if self.points_row >= 0 else 0.0
        joker = dual[self.joker_row]
        old = [dual[r] for r in self.old_row]
        out = []
        for n, j in enumerate(js):
            st = self.tallies[j]
            p = self.points[j]
            d = -heavy * p - sum(k * tile[x] for x, k in st.items()) - len(self.sets[j]) * count - p * pts
            d += st.get(_JOKER, 0) * joker
            ex, ey, ez = extra[n] if extra is not None else (0.0, None, None)
            d += ex
            for q, v in enumerate(self.places[j]):
                dz = -heavy * v - v * pts - joker + (ez[q] if ez is not None else 0.0)
                if dz < 0:
                    d += dz
            best = 0.0
            for q, (i, w, _both) in enumerate(self.pairs_of[j]):
                dy = -w - old[i]  # (y's cost both - w, less its k's: both at -1)
                if ey is not None:
                    dy += ey[q]
                if dy < best:
                    best = dy
            out.append(d + best)
        return out

    def shared_entries(self, js: Sequence[int]) -> tuple[list[int], list[int], list[float], list[tuple[int, int, int]]]:
        """The columns the sets ``js`` (left out) would have in the shared rows, by column (starts,
        rows, values, as :meth:`add` gives them): per set its x, its y's (by pair) and its z's
        (by place); and per set where they begin (x, first y, first z). Their k's are in none."""
        starts: list[int] = []
        at: list[int] = []
        by: list[float] = []
        where: list[tuple[int, int, int]] = []
        for j in js:
            first = len(starts)
            starts.append(len(at))
            for r, v in self._x_entries(j):
                at.append(r)
                by.append(v)
            for i, _w, _both in self.pairs_of[j]:
                starts.append(len(at))
                at.append(self.old_row[i])
                by.append(1.0)
            first_z = len(starts)
            for v in self.places[j]:
                starts.append(len(at))
                for r, e in self._z_entries(v):
                    at.append(r)
                    by.append(e)
            where.append((first, first + 1, first_z))
        starts.append(len(at))
        return starts, at, by, where


_TABLE_JOKERS_SET_BY_SET = True
"""Whether the most-points programme with the jokers on the table only (none on the rack), a move known
and ``reserve_from`` given (the full tables, see ``api._FULL_RESERVE_FROM``) is built set by set
(:class:`_PlacesProgramme` without joker places) so that its sets with a joker come in as needed,
instead of whole (:func:`_plain_programme`, its matching columns continuous). Session 19 measured
that form with only the long runs left out (and a column and a row per pair sharing a joker) as
slower at the root (random-large-J-044 64 -> 283 ms); without them, and with the sets of 4 tiles or
more left out, it is faster. Measured (session 24, the random full tables with jokers of seeds 11-16,
one process, both ways per position in turn, on top of ``api._FULL_RESERVE_FROM``): HiGHS's simplex
iterations 273,984 -> 236,143, sums 35.7 -> 29.9 s, over 300 ms 8 -> 3; random-large-J-001 of seed 15
295-318 -> 43 ms in HiGHS; the same points, tiles moved and proofs. See ``referee/SOLVER.md``."""

_RESERVE_FROM = 6
"""Sets with a joker and this many tiles or more are left out of the most-points programme with
a move known until the duals say they could help (:func:`_places_search`): on the full tables
with a rack joker, the long runs with a joker: about half of its rows and columns. (Fewer where
:func:`least_arrangement` is given ``reserve_from``: the full tables, see ``api._FULL_RESERVE_FROM``.)"""


def _places_search(
    programme: _PlacesProgramme, time_limit: float, known: int | None, relaxations: int | None, mip: bool,
    reserve_from: int = _RESERVE_FROM, tied_share: float = math.inf,
) -> tuple[tuple[int, list[float] | None] | None, list[int] | None]:
    """What :func:`_branch_and_bound` (or with ``mip`` :func:`_mip`) returns for the programme with
    joker places, and each set's copies in the point found (None with no point).

    With the most points asked for and a move known (``known``: the full tables, where the fast
    search's most-tiles move is the cut-off), column generation at the root and reduced-cost fixing
    below it. The programme starts without the long runs with a joker (``reserve_from`` tiles or more,
    ``_RESERVE_FROM`` by default: a third to three fifths of the sets and about half of the rows on a
    full table with a rack joker, in the root's optimum one at most, see ``referee/SOLVER.md``; on the
    full tables every set with a joker of 4 tiles or more since session 24). After its relaxation, each left-out set
    is priced (:meth:`_PlacesProgramme.pricing`); those that could raise its value come in and it is
    solved again, until none could: its value is then the whole programme's. The search runs on the
    programme without the others. A point laying a copy of a set left out is worth at most the
    relaxation's value less the set's bound, so a set whose bound leaves no room above the best
    point found (or above ``known``, when nothing beats it) is proven useless; the others come in
    (those priced at 0 before the search, ``_TIED``, unless more than ``tied_share`` of the sets
    still left out are: ``_TIED_SHARE`` on the full tables), and a second search looks only at points
    laying one of them (a row: their copies at least 1), from the root's basis (the Gomory cuts of
    the first search hold only without them), the best found known. The other sets stay useless: the
    best only grows. Where the first search added cuts, the sets the bound lets in are first priced
    again at the duals of its root with the cuts, lifted to their columns: where that rules them
    all out, no second search (``_LATE_BY_CUTS``, :func:`_late_ruled_out`).

    Otherwise (no move known: the tables under 40 tiles, whose searches are longer and follow
    the relaxation's vertex, see ``referee/SOLVER.md``, session 18) every set is in, in the
    order the programme always had, so their searches are as before."""
    import highspy

    start = time.perf_counter()
    sets = programme.sets
    reserve = [] if known is None or not programme.heavy else [
        j for j, s in enumerate(sets) if _JOKER in s and len(s) >= reserve_from
    ]
    if not reserve:
        programme.start(range(len(sets)))
        rows, n = programme.rows(), len(programme.cost)
        if mip:
            found = _mip(rows, programme.cost, programme.upper, n, time_limit, known)
        else:
            found = _branch_and_bound(
                rows, programme.cost, programme.upper, n, time_limit, known, relaxations, cut_rounds=CUT_ROUNDS,
                rounds_no_point=_rounds_no_point(programme, known),
                lazy_before_cuts=_LAZY_CHILD_KNOWN and known is not None,
                mip_from_gap=_TIE_MIP_GAP if programme.points_row >= 0 else None,  # (the points tie-break)
            )
        return found, _set_copies(programme, found)
    left_out = set(reserve)
    programme.start(j for j in range(len(sets)) if j not in left_out)
    h = _highs(programme.rows(), programme.cost, programme.upper)
    kinds = highspy.HighsModelStatus
    while True:
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            return None, None
        h.setOptionValue("time_limit", left)
        h.run()
        status = h.getModelStatus()
        if status != kinds.kOptimal:
            if status == kinds.kTimeLimit or not reserve:
                return None, None
            # (No point without them: every set in.)
            _add_to(h, programme, reserve)
            reserve = []
            continue
        bounds = programme.pricing(reserve, h.getSolution().row_dual)
        wanted = [j for j, b in zip(reserve, bounds) if b < -_PRICE_TOLERANCE]
        if not wanted:
            break
        _add_to(h, programme, wanted)
        reserve, bounds = _without(reserve, bounds, wanted)
    root = -h.getInfo().objective_function_value  # (the whole programme's relaxation)
    # The sets the duals price at 0 (alternatives the relaxation is indifferent to) come in
    # now: where the best point lies a unit below the relaxation, the bound cannot rule them
    # out, and the search again for them cost more than having them in (see _TIED).
    tied = [j for j, b in zip(reserve, bounds) if b < _TIED]
    if len(tied) > tied_share * len(reserve):
        # (Unless, on the full tables, the duals price most of the sets still left out at 0:
        # they then tell nothing, and bringing those in is the whole programme again; see
        # _TIED_SHARE.)
        tied = []
    if tied:
        _add_to(h, programme, tied)
        reserve, bounds = _without(reserve, bounds, tied)
        h.run()  # (no pivot: their reduced costs are 0, the basis stays optimal)
    basis = h.getBasis()
    rows = programme.rows()

    def search(
        rows: _Rows, known: int | None, h: Any, record: dict[str, Any] | None = None,
    ) -> tuple[int, list[float] | None] | None:
        left = time_limit - (time.perf_counter() - start)
        n = len(programme.cost)
        if mip:
            return _mip(rows, programme.cost, programme.upper, n, left, known)
        return _branch_and_bound(
            rows, programme.cost, programme.upper, n, left, known, relaxations, CUT_ROUNDS, h=h,
            rounds_no_point=_rounds_no_point(programme, known),
            lazy_before_cuts=_LAZY_CHILD_KNOWN and known is not None, cuts_record=record,
        )

    record: dict[str, Any] | None = {} if _LATE_BY_CUTS and not mip else None
    found = search(rows, known, h, record)
    if found is None:
        return None, None
    # A point laying a set left out is worth at most root - its bound (an integer).
    late = [j for j, b in zip(reserve, bounds) if math.floor(root - b + 1e-6) > found[0]]
    if not late:
        return found, _set_copies(programme, found)
    if record and _late_ruled_out(programme, record, late, found[0]):
        return found, _set_copies(programme, found)
    # Those sets in, and the search again for points laying one of them at least (the best of
    # the others is found already): from the root's basis (the cuts of the first search may
    # not hold with them), the best found known. The other sets left out stay useless: their
    # bounds were no higher than what was found, and the best only grows.
    h = _highs(rows, programme.cost, programme.upper)
    h.setBasis(basis)
    _add_to(h, programme, late)
    cols = [programme.column[j] for j in late]
    programme._row(1, math.inf, cols, [1] * len(cols))
    h.addRow(1, math.inf, len(cols), cols, [1.0] * len(cols))
    again = search(programme.rows(), found[0], h)
    if again is None:
        return None, None
    best = again if again[1] is not None else found
    return best, _set_copies(programme, best)


_TIE_MIP_GAP: int | None = 3
"""The points tie-break's programme (the points given, a rack joker: joker places): where the
root's relaxation with its cut rounds is still this many units or more above the best found (the
move known), :func:`_branch_and_bound` leaves the search to HiGHS's MIP solver on the programme
(its root cuts and conflict analysis close such a gap where our branching takes hundreds of
relaxations); None: never. Not on the programme without joker places, where a relaxation costs a
dozen pivots and the MIP's start more than the search. Measured (session 25, second pass, the 48
fall-backs of the random mid tables of seeds 11-16 and the mid tables with jokers of seeds 17-22,
one process, both ways per position in turn): 4 change, seed 12's random-mid_r24-J-059 5.6-5.8 s
and not proven -> 1.4-1.6 s, proven (399 runs and 53,290 iterations to prove it before, at 7-9 s),
seed 20's random-mid_r24-J-041 5.7 -> 1.35 s, seed 18's random-mid_r24-J-056 3.2 -> 1.6 s, seed
17's random-mid_r24-J-016 1.5 -> 2.4 s; iterations 259,026 -> 208,460; the same answers. With 2,
three more slower by 0.1-1.2 s. See ``referee/SOLVER.md``."""


_LATE_BY_CUTS = True
"""Whether :func:`_places_search` prices the sets its bound lets in after the first search again at
the duals of the root with that search's Gomory cuts (the cuts lifted to their columns,
:func:`_lift_cuts`), and leaves out the second search where that rules them all out
(:func:`_late_ruled_out`). Measured (session 25, one process, both ways per position in turn): on
the random full tables with jokers of seeds 11-16, 10 of 360 reach it (0.1-1.0 ms a call), 4 are
ruled out (seed 14's random-large-J-054 41 -> 21 HiGHS runs, 1,956 -> 605 iterations); on seeds
11-13's 720 mid tables 23 change, on the benchmark's 206 positions 8 (mid_r24-J-022 33 -> 21 runs),
each with fewer runs and iterations; the same answers on all. See ``referee/SOLVER.md``."""


def _late_ruled_out(programme: _PlacesProgramme, record: dict[str, Any], late: list[int], best: int) -> bool:
    """Whether no point laying a copy of a set of ``late`` (left out of the first search) is worth
    more than ``best``, by the relaxation of the first search's root with its Gomory cuts
    (``record``, :func:`_branch_and_bound`'s ``cuts_record``): its value z and row duals y.

    With the sets' columns in and the cuts lifted to them (:func:`_lift_cuts`: valid for every
    integral point of the programme with them), for any point x (minimising cost c, rows A with
    the cuts' rows, the programme's columns and the sets'), c.x = y.(A x) + d.x, d = c - A'y the
    reduced costs; y.(A x) is at least y's value on the rows' bounds (at an optimal basis y is of
    the sign of the bound a row is at), the programme's columns add at least what they add at
    that basis (those at their upper bound), so c.x >= -z + (the sets' columns' d.x). By the
    sets' own rows (right-hand sides 0), a copy of set s adds at least its
    :meth:`_PlacesProgramme.pricing` bound b_s (with the cuts' duals in its columns' reduced
    costs), so a point laying copies c_s of them is worth at most z - sum c_s b_s: at most
    z - (the sum of copies' bounds b_s < 0, every copy its tiles allow) where one is below 0,
    z - min b_s otherwise. The other sets left out are no help whatever these are (their bounds
    at the root were no higher than ``best``). Past HiGHS's tolerances the same margin (1e-6)
    as the root's bound."""
    if "dual" not in record or not record.get("cuts") or record["whole"] != len(programme.cost):
        return False
    m0 = record["m0"]
    if m0 != len(programme.lo) or len(record["dual"]) != m0 + len(record["cuts"]):
        return False
    dual = record["dual"]
    starts, at, by, where = programme.shared_entries(late)
    if len(starts) - 1 > _LIFT_MOST_COLUMNS:
        return False
    # What the cuts add to each column's reduced cost: minus the cut's dual times its coefficient
    # (the cuts with a dual: those not basic at that root).
    cut_dual = {c: dual[m0 + c] for c in range(len(record["cuts"])) if dual[m0 + c]}
    lifted = _lift_cuts(record, starts, at, by, cut_dual)
    if lifted is None:
        return False
    add = [0.0] * (len(starts) - 1)
    for c, y_c in cut_dual.items():
        for col, v in lifted[c].items():
            add[col] -= y_c * v
    extra = []
    for n, j in enumerate(late):
        x_col, y_col, z_col = where[n]
        n_y = len(programme.pairs_of[j])
        extra.append((add[x_col], add[y_col:y_col + n_y], add[z_col:z_col + len(programme.places[j])]))
    bounds = programme.pricing(late, dual, extra)
    below = sum(b * programme.bound[j] for j, b in zip(late, bounds) if b < 0)
    most = record["value"] - (below if below < 0 else min(bounds))
    return math.floor(most + 1e-6) <= best


def _lift_cuts(
    record: dict[str, Any], starts: list[int], at: list[int], by: list[float], wanted: Iterable[int],
) -> dict[int, dict[int, float]] | None:
    """The coefficients of columns not in the programme when :func:`_gomory_cuts` ran (``record``'s
    rounds) in its cuts ``wanted`` (and, on the way, in the earlier cuts they were made from), by
    cut: the columns given by their entries in the programme's rows then (``starts``, ``at``,
    ``by``: by column, indices from 0; rows of their own are in no cut).

    Each cut is the Gomory mixed-integer cut of a tableau row: the basis-inverse row ``brow`` (over
    the programme's rows and the cuts of earlier rounds; 0 at every basic row, the row's basic
    variable being a column) times the matrix. With the new columns in, that combination of the
    same rows is still an equation at every point, each new column in it nonbasic at 0 with the
    entry ``brow`` times its column (the earlier cuts' rows holding its lifted coefficients). The
    cut from it with the same weights on the same rows has the new columns' coefficients from those
    entries as any integral column at its lower bound (every column is integral: ``whole`` is all
    of them) plus the weighted rows' entries, and the rest of it as it was: valid for the programme
    with the new columns, and the same cut where they are 0. Only the rows holding a new column and
    the cuts' rows not basic then are read. None where the record does not fit (never seen: then
    nothing is ruled out by it)."""
    m0 = record["m0"]
    n_new = len(starts) - 1
    touched: dict[int, list[tuple[int, float]]] = {}  # programme row -> (new column, entry)
    for c in range(n_new):
        for k in range(starts[c], starts[c + 1]):
            touched.setdefault(at[k], []).append((c, by[k]))
    made: list[tuple[bytes, Any, float, int]] = []  # per cut: row sides, brow, fraction, cuts before
    for row_side, cuts in record["rounds"]:
        before = len(made)
        made.extend((row_side, brow, f0, before) for brow, f0 in cuts)
    if len(made) != len(record["cuts"]):
        return None
    lifted: dict[int, dict[int, float] | None] = {}
    floor = math.floor

    def lift(t: int) -> dict[int, float] | None:
        if t in lifted:
            return lifted[t]
        side, brow, f0, before = made[t]
        b = brow.tolist() if hasattr(brow, "tolist") else list(brow)
        if len(b) != m0 + before or len(side) != len(b):
            return None
        g0 = 1.0 - f0
        a: dict[int, float] = {}  # the new columns' tableau entries
        coef: dict[int, float] = {}
        for r, entries in touched.items():
            bv = b[r]
            if not bv:
                continue
            for c, v in entries:
                a[c] = a.get(c, 0.0) + bv * v
            s_r = side[r]
            if not s_r:
                continue
            ar = bv if s_r == 2 else -bv  # (u = hi - r at hi, r - lo at lo)
            fr = ar - floor(ar)
            if fr < 1e-9 or fr > 1 - 1e-9:
                continue
            if s_r not in (1, 2):
                return None  # (a row between its bounds: no cut was made from it)
            w = fr / f0 if fr <= f0 else (1.0 - fr) / g0
            sign = -w if s_r == 2 else w
            for c, v in entries:
                coef[c] = coef.get(c, 0.0) + sign * v
        for k in range(before):
            bv = b[m0 + k]
            if not bv:
                continue
            earlier = lift(k)
            if earlier is None:
                return None
            w = 0.0
            if side[m0 + k] == 4:  # (a cut's row, continuous, at its lower bound)
                rc = -bv
                w = rc / f0 if rc > 0 else -rc / g0
            for c, v in earlier.items():
                a[c] = a.get(c, 0.0) + bv * v
                if w:
                    coef[c] = coef.get(c, 0.0) + w * v
        for c, v in a.items():
            fa = v - floor(v)
            if 1e-9 <= fa <= 1 - 1e-9:
                coef[c] = coef.get(c, 0.0) + (fa / f0 if fa <= f0 else (1.0 - fa) / g0)
        lifted[t] = out = {c: v for c, v in coef.items() if v}
        return out

    got: dict[int, dict[int, float]] = {}
    for t in wanted:
        one = lift(t)
        if one is None:
            return None
        got[t] = one
    return got


_LIFT_MOST_COLUMNS = 2000
"""Most columns :func:`_late_ruled_out` lifts the cuts to (past them it leaves the sets to the second
search: the lifting reads each new column once a cut)."""


_PRICE_TOLERANCE = 1e-7
"""A left-out set comes in when its reduced cost's bound is below minus this (HiGHS's dual
feasibility tolerance)."""

_TIED = 1e-6
"""A left-out set whose bound is below this once the root is priced (0: the relaxation is
indifferent to it) comes in before the search. Measured (session 18, the large tables with
jokers of the benchmark, old and new code alternating in one sitting): without it worst 401 ms
(random-large-J-004: the best point a unit below the relaxation, five such sets, and a second
search of 292 ms for them), with it 214 ms; bringing in the sets below one tile kept instead
(1.0): worst 471 ms (large-J-016, a longer search)."""


_TIED_SHARE = 0.5
"""On the full tables (``least_arrangement`` given ``reserve_from``), where more than this share of
the sets still left out after pricing price at 0 (``_TIED``), none of them comes in before the
search: the duals are then indifferent to almost every set (all 1,100 of seed 11's
random-large-J-059; in, they took its searched programme from 721 rows and 1,736 columns back to
3,590 and 7,304), and the bound after the search lets them in only where the best found lies a unit or
more below the relaxation (the second search, exact as before: on -059 one HiGHS run). On the
random full tables with jokers of seeds 11-16 the share is 1-9% or 69-100%, nothing between.
Measured (session 24, second pass, seeds 11-16, 360 positions, one process, both ways per position
in turn, CPU): 9 positions change (all those above half), each with fewer HiGHS runs and no more
iterations (-059 27 -> 7 runs, 1,658 -> 689 iterations, 330-456 -> 115-136 ms; -020 22 -> 5 runs);
runs 2,567 -> 2,523, iterations 236,143 -> 232,954; the same points, tiles moved and proofs on all
360. Only on the full tables: on seeds 11-13's 540 smaller tables with jokers it changed nothing
measurable (none but seed 12's random-mid_r24-J-059, whose fall-back the clock cuts: its counts
vary from run to run either way), so their path stays as it was. See ``referee/SOLVER.md``."""


def _rounds_no_point(programme: _PlacesProgramme, known: int | None) -> int:
    """Rounds of cuts for :func:`_branch_and_bound` where it reaches its cut point without a point
    better than ``known``: ``CUT_ROUNDS_NO_POINT`` on the most-points programme with a move known
    (the full tables), ``CUT_ROUNDS`` otherwise."""
    return CUT_ROUNDS_NO_POINT if known is not None and programme.heavy else CUT_ROUNDS


def _without(reserve: list[int], bounds: list[float], taken: list[int]) -> tuple[list[int], list[float]]:
    """``reserve`` and its ``bounds`` without the sets ``taken``."""
    gone = set(taken)
    keep = [k for k, j in enumerate(reserve) if j not in gone]
    return [reserve[k] for k in keep], [bounds[k] for k in keep]


def _add_to(h: Any, programme: _PlacesProgramme, js: list[int]) -> None:
    """Add the sets ``js`` to ``programme`` and to the HiGHS instance ``h`` holding it (columns,
    then their own rows: the basis stays, the new columns at 0 and the new rows basic)."""
    first_col = len(programme.cost)
    first_row = len(programme.lo)
    starts, at, by = programme.add(js)
    n = len(programme.cost) - first_col
    h.addCols(n, programme.cost[first_col:], [0.0] * n, [float(u) for u in programme.upper[first_col:]],
              len(at), starts[:-1], at, by)
    own_cols = programme.cols[first_row:]
    starts = [0]
    for cols in own_cols:
        starts.append(starts[-1] + len(cols))
    h.addRows(len(own_cols), programme.lo[first_row:], programme.hi[first_row:], starts[-1], starts[:-1],
              [c for cols in own_cols for c in cols], [v for vals in programme.vals[first_row:] for v in vals])


def _set_copies(programme: _PlacesProgramme, found: tuple[int, list[float] | None] | None) -> list[int] | None:
    """Each set's copies in the point ``found`` (None without one)."""
    if found is None or found[1] is None:
        return None
    x = found[1]
    return [round(x[c]) if 0 <= c < len(x) else 0 for c in programme.column]  # (sets added since: none)


_SPLIT = True
"""With ``count`` given and no joker places, a pair's column is a copy of its set matched to its
old set (:func:`least_arrangement`): the rows y_si <= x_s (one per set with a pair, most of the
programme's rows: 2,654 -> about 75 on large-J-011) go, the tile rows take the pairs' columns
too. The same relaxation; a point whose sets' copies (their columns together) are integral is
as good as integral (the matching is a bipartite b-matching). Measured (session 10, one process,
old and new code alternating, tiles objective): HiGHS's time on the large tables with jokers
median 24 -> 15 ms, worst 150 -> 67 ms (large-J-011 150 -> 23 ms, one relaxation instead of 4);
on the points programmes without a rack joker the trees grew (large-J-010 4 -> 18 relaxations
with cuts, 100 -> 437 ms), so not there."""

CUT_ROUNDS = 2
"""Rounds of Gomory cuts :func:`_branch_and_bound` adds at its root where it runs long (see
``CUT_AFTER``); 0 for none. Measured (session 9, the points objective's exact tie-break on the
mid, mid_r24 and large positions with jokers, one process, with and without, interleaved):
1 round left mid_r24-J-001 at 0.79 s, 3 rounds or 40 cuts a round no better than 2 rounds of 20."""

CUT_ROUNDS_NO_POINT = 8
"""Rounds of cuts (at most: they stop where no cut is found) on the most-points programme with a
move known (the full tables) where the search reaches its cut point without a point better than
that move. Measured (session 19, the random large tables with jokers of seed 11): the search
after two rounds dived at the relaxation's value without reaching an integral point within its
budget, and HiGHS's MIP took over (1.2-1.9 s); after eight rounds the relaxation is at or within a
unit of the optimum and the search ends in 1-22 relaxations (paired, two runs, with the rest of
session 19: random-large-J-033 2.0-2.3 s -> 0.57-0.67 s, random-large-J-059 1.9-2.4 -> 0.58-0.61 s,
random-large-J-028 2.0-2.3 -> 1.35-1.40 s). See ``referee/SOLVER.md``."""

CUT_AFTER = 4
"""Relaxations :func:`_branch_and_bound` solves without cuts before it starts again from its root
with them, when no move is known (on the mid_r24 tables with jokers: 2 or 4 alike, 12 slower;
cuts at once slower at the median, 58 against 47 ms, the cut rounds costing 20-60 ms)."""

CUT_AFTER_KNOWN = 16
"""The same with a move known (a cut-off, as on the full tables, where a relaxation costs
10-20 ms and the search usually ends in 10-15 of them: after 4, large-J-013 127 -> 247 ms)."""

_CUTS_PER_ROUND = 20
"""Most cuts a round adds (from the basic columns whose value is nearest to half)."""

_MAX_DEPTH = 400
"""Deepest branch the branch and bound follows (each level one more bound on a column) before it
gives up as it does past its time limit (unproven): far below Python's recursion limit. The
shared benchmark positions with jokers need 17 relaxations at most (large-J-014), 1 at the median."""


def _quiet_highs(highspy: Any) -> Any:
    """A HiGHS instance that writes nothing. highspy 1.16's ``Highs()`` turns its callbacks on in
    its constructor, which writes HiGHS's banner to standard output before ``output_flag`` can be
    set (it broke ``python -m referee best-move --json``); its base class, with the flag set before
    anything else, is silent. (Where a highspy has no such base class, ``Highs()`` as before.)"""
    base = getattr(getattr(highspy, "_core", None), "_Highs", None)
    h = base() if base is not None else highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _highs(rows: _Rows, cost: list[float], upper: list[int], whole: int = 0) -> Any:
    """A HiGHS instance holding the programme ``rows`` (minimise ``cost``, columns 0 to
    ``upper``, the first ``whole`` integral), without presolve and quiet."""
    import highspy

    h = _quiet_highs(highspy)
    h.setOptionValue("presolve", "off")
    lp = highspy.HighsLp()
    n = len(cost)
    lp.num_col_ = n
    lp.num_row_ = rows.count
    lp.col_cost_ = cost
    lp.col_lower_ = [0.0] * n
    # (highspy takes ints and math.inf as they are: kHighsInf is math.inf.)
    lp.col_upper_ = upper
    lp.row_lower_ = rows.lo
    lp.row_upper_ = rows.hi
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = rows.starts
    lp.a_matrix_.index_ = rows.cols
    lp.a_matrix_.value_ = rows.vals
    if whole:
        kinds = highspy.HighsVarType
        lp.integrality_ = [kinds.kInteger] * whole + [kinds.kContinuous] * (n - whole)
    h.passModel(lp)
    return h


def _mip(
    rows: _Rows, cost: list[float], upper: list[int], whole: int, time_limit: float, known: int | None
) -> tuple[int, list[float] | None] | None:
    """What :func:`_branch_and_bound` returns, found by HiGHS's own MIP solver (no presolve: it
    does not watch the time limit, see ``referee/SOLVER.md``; no primal heuristics; the gap
    closed to under one unit, the objective being an integer at every integral point).
    ``known`` is a cut-off: only points worth more are looked for."""
    import highspy

    if time_limit <= 0:
        return None
    h = _highs(rows, cost, upper, whole)
    for name, value in _MIP_OPTIONS:
        h.setOptionValue(name, value)
    h.setOptionValue("time_limit", time_limit)
    if known is not None:
        h.setOptionValue("objective_bound", -known - 0.5)
    h.run()
    status = h.getModelStatus()
    kinds = highspy.HighsModelStatus
    if status == kinds.kOptimal:
        value = round(-h.getInfo().objective_function_value)
        if known is not None and value <= known:
            # (Past the cut-off HiGHS may still report a point worse than it as optimal, e.g.
            # 5 points against a move known of 17: the search proved nothing beats the move.)
            return known, None
        return value, list(h.getSolution().col_value)
    if status == kinds.kInfeasible:
        return (known, None) if known is not None else None
    return None


_MIP_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("mip_rel_gap", 0.0),
    ("mip_abs_gap", 0.999),
    ("mip_heuristic_effort", 0.0),
    ("mip_heuristic_run_feasibility_jump", False),
    ("mip_heuristic_run_rins", False),
    ("mip_heuristic_run_rens", False),
    ("mip_heuristic_run_root_reduced_cost", False),
)
"""HiGHS MIP options of :func:`_mip`."""


def _branch_and_bound(
    rows: _Rows, cost: list[float], upper: list[int], whole: int, time_limit: float, known: int | None,
    relaxations: int | None = None, cut_rounds: int = 0, copies: list[list[int]] | None = None,
    h: Any = None, rounds_no_point: int | None = None, lazy_before_cuts: bool = False,
    cuts_record: dict[str, Any] | None = None, mip_from_gap: int | None = None,
) -> tuple[int, list[float] | None] | None:
    """Maximise -cost over the programme ``rows`` (columns 0 to ``upper``), the first ``whole``
    columns integral, by branch and bound on HiGHS's dual simplex: each node changes one
    column's bounds and solves again from the last basis (a few dozen pivots, not a solve
    from scratch). The objective is an integer at every integral point (with x integral the
    matching columns are a bipartite b-matching, whose polytope has integer corners), so a
    node whose relaxation is below the best integer value found plus one is closed.
    ``known``: a value already reached (the fast search's move), closing nodes that cannot beat
    it. ``cut_rounds``: past ``CUT_AFTER`` relaxations (``CUT_AFTER_KNOWN`` with ``known``),
    start again from the root with that many rounds of :func:`_gomory_cuts` added there, the
    best found kept and ``relaxations`` counted afresh; ``rounds_no_point`` rounds instead where
    the search has found no point better than ``known`` by then (see ``CUT_ROUNDS_NO_POINT``).
    Where every column of a relaxation's point is near an integer, the point rounded is tried
    (see :func:`_rounded`). ``lazy_before_cuts``: a node's child below is left unsolved where the
    child above is worth the node's bound before the cuts too, not only after them (``_LAZY_CHILD``).
    ``cuts_record``: :func:`_gomory_cuts`'s ``record``, which also gets the root's relaxation with the
    cuts: its value (maximised, ``value``) and its row duals (``dual``). ``mip_from_gap``: where the
    root with the cuts, rounded down, is that many units or more above the best found, HiGHS's MIP
    solver (:func:`_mip`, on ``rows`` without the cuts, the best found its cut-off) decides instead.
    Returns (value, columns), (known, None) when nothing beats ``known``,
    or None past ``time_limit`` seconds or when there is no integral point."""
    import highspy

    start = time.perf_counter()
    if time_limit <= 0:
        return None
    if h is None:
        h = _highs(rows, cost, upper)
    n = len(cost)
    best = [known if known is not None else -(1 << 60)]
    solution: list[list[float] | None] = [None]
    lower = [0.0] * n
    top = [float(u) for u in upper]
    optimal = highspy.HighsModelStatus.kOptimal
    out_of_time = highspy.HighsModelStatus.kTimeLimit

    solved = [0]  # relaxations solved
    # With cut_rounds, the search first goes without cuts; past CUT_AFTER relaxations it starts
    # again from the root with Gomory cuts added there (the best found so far kept).
    cap = [(CUT_AFTER if known is None else CUT_AFTER_KNOWN) if cut_rounds else None]

    def node(depth: int) -> None:
        left = time_limit - (time.perf_counter() - start)
        if cap[0] is not None and solved[0] >= cap[0]:
            raise _CutNow
        if left <= 0 or depth > _MAX_DEPTH or (relaxations is not None and solved[0] >= relaxations):
            raise TimeoutError
        solved[0] += 1
        h.setOptionValue("time_limit", left)
        h.run()
        status = h.getModelStatus()
        if status != optimal:
            if status == out_of_time:
                raise TimeoutError
            return  # no point below here
        if not depth and cuts_record is not None and "rounds" in cuts_record and "dual" not in cuts_record:
            cuts_record["value"] = -h.getInfo().objective_function_value  # (the root with the cuts)
            cuts_record["dual"] = list(h.getSolution().row_dual)
        bound = math.floor(-h.getInfo().objective_function_value + 1e-6)
        if bound <= best[0]:
            return
        if not depth and mip_from_gap is not None and cap[0] is None and bound - best[0] >= mip_from_gap:
            raise _MipNow  # (the root with its cuts still that far above the best: HiGHS's MIP)
        x = list(h.getSolution().col_value)
        pick, frac = -1, 0.0
        if copies is None:
            off = 0.0  # (the farthest any column is from an integer)
            for j in range(whole):
                f = x[j] - math.floor(x[j])
                if 1e-6 < f < 1 - 1e-6:
                    if f > frac:  # (nearest to rounding up: dives to a solution)
                        pick, frac = j, f
                    if min(f, 1 - f) > off:
                        off = min(f, 1 - f)
            if pick >= 0 and off <= _ROUND_NEAR and whole == n and _ROUNDING:
                # Every column within a hair of an integer (after cuts, their rows' small
                # coefficients leave such points): the point rounded, if it holds every row, is
                # an integral point; worth the node's bound, it closes the node.
                point = _rounded(rows, cost, x)
                if point is not None and point[0] > best[0]:
                    best[0], solution[0] = point
                    if point[0] >= bound:
                        return
        else:
            # The copies of a set are its columns together; with every set's copies integral the
            # matching has an integral optimum of the same value (a bipartite b-matching), so
            # the point is as good as integral. Otherwise the set nearest to rounding up, and
            # of its columns the one with most of a fraction.
            for j, cols in enumerate(copies):
                t = x[j] + sum(x[c] for c in cols) if cols else x[j]
                f = t - math.floor(t)
                if 1e-6 < f < 1 - 1e-6 and f > frac:
                    pick, frac = j, f
            if pick >= 0:
                most = -1.0
                for c in (pick, *copies[pick]):
                    f = x[c] - math.floor(x[c])
                    if 1e-6 < f < 1 - 1e-6 and f > most:
                        pick, most = c, f
        if pick < 0:
            best[0] = bound
            solution[0] = x
            return
        v = x[pick]
        lo, hi = lower[pick], top[pick]
        children = [(float(math.ceil(v)), hi), (lo, float(math.floor(v)))]
        # Up first (a dive to a solution), unless the child below is worth more by a whole
        # unit (two more relaxations, a few pivots each): the dive up alone often went down a
        # branch a point short and spent the budget there (large-J-013: 3.1 s with the
        # fall-back, against 0.5 s). Down on a tie would dive ever deeper, one column at a time.
        worth: list[int | None] = []
        for new_lo, new_hi in children:
            if (
                worth and worth[0] is not None and worth[0] >= bound and _LAZY_CHILD
                and (cap[0] is None or lazy_before_cuts)
            ):
                # With the cuts in: the child above is worth the node's bound, which the child
                # below cannot pass, so up first whatever that one is worth, and it is solved
                # only if the search comes back to it (node solves it then). Counted as if solved
                # (the budget stays where it was). Before the cuts only with lazy_before_cuts (the
                # vertex the search leaves changes the cuts made, see _LAZY_CHILD and
                # _LAZY_CHILD_KNOWN).
                solved[0] += 1
                worth.append(bound)
                break
            h.changeColBounds(pick, new_lo, new_hi)
            solved[0] += 1
            h.run()
            status = h.getModelStatus()
            if status == out_of_time:
                raise TimeoutError
            worth.append(math.floor(-h.getInfo().objective_function_value + 1e-6) if status == optimal else None)
        h.changeColBounds(pick, lo, hi)
        low = -(1 << 62)
        if (low if worth[1] is None else worth[1]) > (low if worth[0] is None else worth[0]):
            children.reverse()
            worth.reverse()
        for (new_lo, new_hi), value in zip(children, worth):
            if value is None or value <= best[0]:
                continue  # (no point there, or none better than the best found since)
            h.changeColBounds(pick, new_lo, new_hi)
            lower[pick], top[pick] = new_lo, new_hi
            node(depth + 1)
            h.changeColBounds(pick, lo, hi)
            lower[pick], top[pick] = lo, hi

    try:
        try:
            node(0)
        except _CutNow:
            # Back to the root's bounds, cuts added there, and the search again from the top.
            for j in range(n):
                if lower[j] != 0.0 or top[j] != float(upper[j]):
                    h.changeColBounds(j, 0.0, float(upper[j]))
                    lower[j], top[j] = 0.0, float(upper[j])
            cap[0] = None
            solved[0] = 0  # (the budget counts the search with cuts)
            rounds = cut_rounds if rounds_no_point is None or solution[0] is not None else rounds_no_point
            _gomory_cuts(
                h, rows, upper, rounds, time_limit - (time.perf_counter() - start), whole, best[0], record=cuts_record,
            )
            node(0)
    except TimeoutError:
        return None
    except _MipNow:
        left = time_limit - (time.perf_counter() - start)
        got = _mip(rows, cost, upper, whole, left, best[0] if best[0] > -(1 << 59) else None)
        if got is None:
            return None
        if got[1] is not None:
            return got
    if solution[0] is None:
        return (known, None) if known is not None else None
    return best[0], solution[0]


_ROUNDING = True
"""Whether :func:`_branch_and_bound` tries the rounded point where every column is within
``_ROUND_NEAR`` of an integer (see :func:`_rounded`)."""

_ROUND_NEAR = 0.01
"""How far from an integer a column of a relaxation's point may be for the point to be rounded."""


def _rounded(rows: _Rows, cost: list[float], x: list[float]) -> tuple[int, list[float]] | None:
    """The point ``x`` (every column integral, each near an integer) rounded, with its value
    (-cost), where it holds every row of ``rows`` (integer coefficients and bounds, so exactly);
    None where it does not. Measured (session 19, random large tables with jokers, seed 11): after
    the cuts, the relaxation's point is often integral but for columns 1e-5 off (the cuts' rows
    have small coefficients), and the search went on branching on them one by one, each branch
    3-15 ms (random-large-J-015: five levels)."""
    r = [float(round(v)) for v in x]
    starts, cols, vals, lo, hi = rows.starts, rows.cols, rows.vals, rows.lo, rows.hi
    for i in range(rows.count):
        a = 0.0
        for k in range(starts[i], starts[i + 1]):
            a += vals[k] * r[cols[k]]
        if a < lo[i] - 0.5 or a > hi[i] + 0.5:
            return None
    return round(-sum(c * v for c, v in zip(cost, r) if v)), r


_LAZY_CHILD = True
"""After :func:`_branch_and_bound`'s cuts, a node's child below is not solved beforehand when the
child above is worth the node's bound (the child below is followed second then whatever it is
worth). Measured (session 18, fourth attempt, the 302 benchmark positions with the points
objective, alternating in one process): the searches after the cuts mostly dive at the root's
value, and each such child cost 3-25 ms (mid_r24-J-001: four, 62 ms). Also before the cuts it
was slower overall on the mid tables (no move known): the basis the search leaves at the cut point
changes the cuts, and on mid_r24-J-001 the weaker cuts ran it past its relaxation budget (350 ->
470-610 ms). With a move known it is done before the cuts too: see ``_LAZY_CHILD_KNOWN``."""


_LAZY_CHILD_KNOWN = True
"""Whether the programme with joker places and a move known (the full tables with a rack joker, the
smaller tables' retry with the most-tiles move, the points tie-break) leaves the child below
unsolved also before the cuts (``_LAZY_CHILD``; its ``lazy_before_cuts``). Measured (session 21,
the random full tables with jokers of seeds 11-16, 360 positions, paired in one warm process): sums
67.1 -> 50.7 s, geometric mean 0.90-0.98 per seed, over 300 ms 24 -> 21, the worst of each seed
lower in five of six (seed 15: 9.3 s -> 0.76 s; seed 13's random-large-J-003 2.5-3.3 s, with
HiGHS's MIP, -> 0.29 s); seed 12's worst higher (random-large-J-030 1.0 -> 1.5 s). The benchmark's
positions with jokers within the noise. See ``referee/SOLVER.md``."""


class _MipNow(Exception):
    """Raised inside :func:`_branch_and_bound`'s search where HiGHS's MIP solver takes over (its
    ``mip_from_gap``)."""


class _CutNow(Exception):
    """Raised inside :func:`_branch_and_bound`'s search when it is time to add cuts at the root."""


def _gmi_weight(a: float, f0: float, continuous: bool) -> float | None:
    """The Gomory mixed-integer cut's weight of a nonbasic variable (measured from its bound) whose
    tableau coefficient is ``a``, in a row whose basic variable has fractional part ``f0``; None
    when an integer variable's coefficient is integral (it drops out of the cut)."""
    if continuous:
        return a / f0 if a > 0 else -a / (1.0 - f0)
    fa = a - math.floor(a)
    if fa < 1e-9 or fa > 1 - 1e-9:
        return None
    return fa / f0 if fa <= f0 else (1.0 - fa) / (1.0 - f0)


def _gomory_cuts(
    h: Any, rows: _Rows, upper: list[int], rounds: int, time_limit: float, whole: int, best: int | None = None,
    record: dict[str, Any] | None = None,
) -> None:
    """Solve the root relaxation of ``h`` (the programme ``rows``, columns 0 to ``upper``, the
    first ``whole`` integral) and add up to ``rounds`` rounds of Gomory mixed-integer cuts to
    it, each from a row of the optimal simplex tableau whose basic column is integral and
    fractional there. Every row has integer coefficients and bounds, so the activity of a row
    of integral columns is an integer too; a row holding a continuous column (the matching's
    y, except on the points programme with a rack joker) and a cut's own row count as
    continuous. Measured on captures of the slowest positions (session 9): two rounds of 20
    close the relaxation's gap to the optimum, or nearly (mid_r24-J-001 11,279 -> 11,154, the
    optimum; mid_r24-J-000 13,877.3 -> 13,834, the optimum; see ``referee/SOLVER.md``). ``best``:
    the best value the search has (an integer); the rounds stop once the relaxation, rounded down,
    is no better (the root is closed then, whatever more cuts would add).

    Each cut is the weights of :func:`_gmi_weight` written out inline, with where each column and
    row sits (basic, at its lower or upper bound, between) read once a round instead of once a
    tableau entry: the same cuts, bit for bit, as the loop that called it per entry (session 19,
    second attempt; ``test_gomory_cuts_match_the_plain_loop``). Measured then: comparing
    ``getBasis``'s statuses cost 8 ms a round on a full table; this function's time (HiGHS's
    re-solves included) over 180 random mid to large positions with jokers 6.24 -> 5.32 s, the
    trees unchanged; random-large-J-028 (eight rounds) 2.10 and 1.84 -> 1.62 and 1.74 s in all.

    ``record``: where the rounds are kept for :func:`_lift_cuts` (each round's row sides and, per
    cut added, its basis-inverse row and fractional part; the cuts; ``m0``, ``n`` and ``whole``)."""
    import highspy

    start = time.perf_counter()
    n, m0 = len(upper), rows.count
    optimal = highspy.HighsModelStatus.kOptimal
    floor = math.floor
    spans: dict[int, tuple[list[int], list[float], bool, bool]] = {}  # row -> entries, continuous, all 1
    cut_rows: list[tuple[dict[int, float], float]] = []  # cuts added (rows m0 on): entries, lower bound
    if record is not None:
        record.update(m0=m0, n=n, whole=whole, rounds=[], cuts=cut_rows)
    compiled_cut = _compiled_gmi_cut()
    if compiled_cut is not None:  # (the programme's rows and the cuts' as C arrays, for _cuts0.gmi_cut)
        upper_a = array("d", upper)
        rows_a = (array("q", rows.starts), array("q", rows.cols), array("d", rows.vals), array("d", rows.lo),
                  array("d", rows.hi))
        cut_arrays = (array("q", [0]), array("q"), array("d"), array("d"))
    tableau = _compiled_tableau_row() if compiled_cut is not None else None
    for _round in range(rounds):
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            return
        h.setOptionValue("time_limit", left)
        h.run()
        if h.getModelStatus() != optimal:
            return
        if best is not None and math.floor(-h.getInfo().objective_function_value + 1e-6) <= best:
            return  # (the root is closed: no cut can open it again)
        solution = h.getSolution()
        x = list(solution.col_value)
        basic = h.getBasicVariables()[1].tolist()  # (a column's index, or -1 - a row's)
        picks = []
        for p, v in enumerate(basic):
            if 0 <= v < whole:
                f = x[v] - math.floor(x[v])
                if _CUT_FRACTION < f < 1 - _CUT_FRACTION:
                    picks.append((abs(f - 0.5), p, f))
        if not picks:
            return  # (integral: nothing to cut)
        picks.sort()
        # Where each column sits: 0 basic, 1 at 0, 2 at its upper bound, 3 between (no cut from a
        # row holding it); each row (r = A x): 0 basic, 1 at lo, 2 at hi, 3 between, 4 a cut's row.
        # (The basic ones from the basic variables: getBasis's statuses cost 8 ms a round to
        # compare on a full table.)
        col_side = [1] * n
        for j in compress(range(n), x):
            v, u = x[j], upper[j]
            col_side[j] = 2 if u > 0 and abs(v - u) < 1e-7 else 3 if abs(v) > 1e-7 else 1
        r_value = solution.row_value
        row_side = [
            1 if abs(v - lo) < 1e-7 else 2 if abs(v - hi) < 1e-7 else 3 for v, lo, hi in zip(r_value, rows.lo, rows.hi)
        ]
        row_side += [4] * (len(r_value) - m0)
        for v in basic:
            if v >= 0:
                col_side[v] = 0
            else:
                row_side[-1 - v] = 0
        # With every column integral and none between its bounds (the programme with joker places,
        # at a vertex), an entry that is an integer drops out of the cut (_gmi_weight), so only
        # the entries with a fraction are visited (x % 1.0, exact: 0 only for an integer), found
        # in C; the cuts' own rows (continuous, after the programme's) by their nonzero entries.
        # Otherwise every nonzero entry, as they come.
        sifted = whole == n and 3 not in col_side and 3 not in row_side
        found: list[tuple[dict[int, float], float]] = []
        made: list[tuple[Any, float]] = []  # (for record: each cut's basis-inverse row and fraction)
        if compiled_cut is not None:
            c_cols, c_rows, c_x = bytes(col_side), bytes(row_side), array("d", x)
        if tableau is not None:
            # The matrix column-wise (the cuts' rows after the programme's), once a round.
            nnz = len(rows_a[1]) + len(cut_arrays[1])
            by_col = array("q", bytes(8 * (n + 1))), array("q", bytes(8 * nnz)), array("d", bytes(8 * nnz))
            tableau[0](n, rows_a[0], rows_a[1], rows_a[2], cut_arrays[0], cut_arrays[1], cut_arrays[2], *by_col)
        for _half, p, f0 in picks[:_CUTS_PER_ROUND]:
            # The tableau row: trow . x - (B^-1 row) . r = 0 with r = A x (highspy's dense rows;
            # the tableau row computed here from the basis-inverse row where compiled, the same
            # bits as highspy's getReducedRow, without its second solve with the basis).
            brow_a = h.getBasisInverseRow(p)[1]
            trow_a = None
            if tableau is not None:
                trow_a = array("d", bytes(8 * n))
                try:
                    tableau[1](brow_a, *by_col, trow_a)
                except ValueError:  # (sizes that do not agree, never seen: highspy's row then)
                    trow_a = None
            if trow_a is None:
                trow_a = h.getReducedRow(p)[1]
            got = NotImplemented
            if compiled_cut is not None:
                got = compiled_cut(trow_a, brow_a, f0, sifted, n, m0, whole, c_cols, c_rows, upper_a, c_x, *rows_a, *cut_arrays)
                if got is not None and got is not NotImplemented:
                    got = dict(zip(got[0], got[1])), got[2]
            if got is NotImplemented:
                got = _gmi_cut(
                    trow_a.tolist(), brow_a.tolist(), f0, sifted, n, m0, whole, col_side, row_side, upper, x, rows,
                    spans, cut_rows,
                )
            if got is None:
                continue
            cut, rhs = got
            found.append((cut, rhs - 1e-6 * max(1.0, abs(rhs))))  # (a little slack for rounding)
            made.append((brow_a, f0))
        if not found:
            return
        if record is not None:
            record["rounds"].append((bytes(row_side), made))
        # (Added once the round is read: a row added invalidates the tableau being read.)
        if _BATCH_CUT_ROWS:
            starts, at, by = [], [], []
            for cut, _lo in found:
                starts.append(len(at))
                at.extend(cut.keys())
                by.extend(cut.values())
            h.addRows(len(found), [lo for _cut, lo in found], [highspy.kHighsInf] * len(found), len(at), starts, at, by)
        for cut, lo in found:
            if not _BATCH_CUT_ROWS:
                h.addRow(lo, highspy.kHighsInf, len(cut), list(cut.keys()), list(cut.values()))
            cut_rows.append((cut, lo))
            if compiled_cut is not None:
                cut_arrays[1].extend(cut.keys())
                cut_arrays[2].extend(cut.values())
                cut_arrays[0].append(len(cut_arrays[1]))
                cut_arrays[3].append(lo)


_BATCH_CUT_ROWS = True
"""Whether a round's cuts go to HiGHS in one ``addRows`` (False: one ``addRow`` a cut, as before
session 22). The same programme, rows and basis, and the same searches: every HiGHS run's
iterations and objective bit for bit on seed 11's 60 random full tables with jokers. Measured
(session 22, one process, both ways in turn, medians of six): each ``addRow`` rewrites HiGHS's
matrix; random-large-J-028, -033 and -059 spent 29, 26 and 22 ms adding their cuts one by one,
11, 12 and 9 ms a round at a time. See ``referee/SOLVER.md``."""


_COMPILED_CUTS = True
"""Whether :func:`_gomory_cuts` computes each cut with the compiled twin of :func:`_gmi_cut`
(``_cuts0.c``, where it is built and current: ``compiled.GMI_CUT``). The same cuts bit for bit.
Measured (session 21, second pass): see ``referee/SOLVER.md``."""


_C_TABLEAU_ROW = True
"""Whether :func:`_gomory_cuts` computes the tableau rows itself from highspy's basis-inverse rows,
in C (``_cuts0.tableau_row``, where the compiled cut is used), instead of asking highspy's
``getReducedRow`` (which solves with the basis again). The same rows bit for bit (the same sums in
the same order as HiGHS 1.16 on x86_64, where nothing is fused; compared on every cut of the
benchmark's 148 positions with jokers, of seed 11's 60 random full tables with jokers and of seeds
12-13's 240 random tables with jokers, 4,170 rows, and in the tests). Measured (session 22, one process, both ways in turn, medians of six):
highspy's rows 46, 31 and 18 ms on random-large-J-028, -033 and -059, these 12, 7 and 4 ms, and 8,
5 and 2 ms to write the matrix column-wise once a round. See ``referee/SOLVER.md``."""


def _compiled_tableau_row() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """``_cuts0.colwise`` and ``_cuts0.tableau_row`` where they are to be used, else None."""
    if not _C_TABLEAU_ROW:
        return None
    from referee.solver.compiled import TABLEAU_ROW

    return TABLEAU_ROW


def _compiled_gmi_cut() -> Callable[..., Any] | None:
    """The compiled cut (``_cuts0.gmi_cut``) where it is to be used, else None (the twin runs)."""
    if not _COMPILED_CUTS:
        return None
    from referee.solver.compiled import GMI_CUT

    return GMI_CUT


def _gmi_cut(
    trow: list[float], brow: list[float], f0: float, sifted: bool, n: int, m0: int, whole: int, col_side: list[int],
    row_side: list[int], upper: list[int], x: list[float], rows: _Rows,
    spans: dict[int, tuple[list[int], list[float], bool, bool]], cut_rows: list[tuple[dict[int, float], float]],
) -> tuple[dict[int, float], float] | None:
    """The Gomory mixed-integer cut of :func:`_gomory_cuts` from the tableau row ``trow`` (and the
    basis-inverse row ``brow``) of a basic column with fractional part ``f0``: (its entries, its
    right-hand side before the slack), or None (a column or row between its bounds, no entry, not
    finite, badly scaled, or not cutting the vertex ``x`` off). ``spans`` caches the rows' entries
    between calls. Compiled in ``_cuts0.c`` (``compiled.GMI_CUT``), the same answer bit for bit."""
    g0 = 1.0 - f0
    floor = math.floor
    coef = [0.0] * n
    rhs = 1.0
    valid = True
    for j in compress(range(n), map(mod, trow, repeat(1.0)) if sifted else trow):
        side = col_side[j]
        if side == 1:  # u = x, at 0
            a = trow[j]
        elif side == 2:  # u = upper - x, at its upper bound
            a = -trow[j]
        elif side:
            valid = False
            break
        else:
            continue
        if j < whole:
            fa = a - floor(a)
            if fa < 1e-9 or fa > 1 - 1e-9:
                continue
            w = fa / f0 if fa <= f0 else (1.0 - fa) / g0
        else:  # (a continuous column)
            w = a / f0 if a > 0 else -a / g0
        if side == 2:
            coef[j] -= w
            rhs -= w * upper[j]
        else:
            coef[j] += w
    if not valid:
        return None
    for r_ in (
        chain(compress(range(m0), map(mod, brow, repeat(1.0))), compress(range(m0, len(brow)), brow[m0:]))
        if sifted else compress(range(len(brow)), brow)
    ):
        side = row_side[r_]
        if not side:
            continue
        a = -brow[r_]  # (the row activity's coefficient in the tableau row)
        if side == 4:
            # A cut's row: continuous (fractional coefficients), at its lower bound.
            w = a / f0 if a > 0 else -a / g0
            entries, bound = cut_rows[r_ - m0]
            for c_, v_ in entries.items():
                coef[c_] += w * v_
            rhs += w * bound
            continue
        if side == 3:
            valid = False
            break
        # Its entries (the rows were written one after the other) and its bound.
        got = spans.get(r_)
        if got is None:
            begin, end = rows.starts[r_], rows.starts[r_ + 1]
            cols_r = rows.cols[begin:end]
            vals_r = rows.vals[begin:end]
            got = spans[r_] = (
                cols_r, vals_r, any(c_ >= whole for c_ in cols_r), all(v_ == 1 for v_ in vals_r),
            )
        cols_r, vals_r, continuous, ones = got
        if side == 2:
            a = -a
        if continuous:  # (a row holding a continuous column)
            w = a / f0 if a > 0 else -a / g0
        else:
            fa = a - floor(a)
            if fa < 1e-9 or fa > 1 - 1e-9:
                continue
            w = fa / f0 if fa <= f0 else (1.0 - fa) / g0
        # u = r - lo (at lo) or hi - r (at hi), r = A x.
        if side == 2:
            sign = -w
            rhs += sign * rows.hi[r_]
        else:
            sign = w
            rhs += sign * rows.lo[r_]
        if ones:  # (sign * 1.0 is sign)
            for c_ in cols_r:
                coef[c_] += sign
        else:
            for c_, v_ in zip(cols_r, vals_r):
                coef[c_] += sign * v_
    if not valid:
        return None
    cut = {c_: coef[c_] for c_ in compress(range(n), coef) if abs(coef[c_]) > 1e-9}
    if not cut or not math.isfinite(rhs):
        return None
    sizes = [abs(v_) for v_ in cut.values()]
    dot = 0.0  # (added in order, as sum() did up to Python 3.11 and the compiled twin does)
    for c_, v_ in cut.items():
        dot += v_ * x[c_]
    if max(sizes) > 1e6 * min(sizes) or dot > rhs - 1e-4:
        return None  # (badly scaled, or not cutting the vertex off)
    return cut, rhs


_CUT_FRACTION = 0.005
"""Basic columns nearer than this to an integer give no cut (badly scaled)."""
