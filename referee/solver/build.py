"""Set building: the new table's sets from a plan (runs cut at old starts where that keeps most,
groups like the old ones, spare jokers laid back where they were), and joker values."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from referee.assignment import best_assignment
from referee.solver.inputs import COLOUR_ID, TILE, tile_indices, tile_tally
from referee.solver.state import Plan
from referee.solver.steps import match_sets
from referee.solver.values import run_bounds
from referee.tiles import JOKER, Tile

if TYPE_CHECKING:  # (annotations only: importing it here would be circular)
    from referee.solver.programme import Programme


@lru_cache(maxsize=1 << 12)
def _shape(xs: tuple[int, ...]) -> tuple[str, int, int, int] | None:
    """Rough reading of an old set (tile indices) for the tie-break: ("run", colour, lo, hi) or
    ("group", -1, number, number)."""
    numbered = [x for x in xs if x != 52]
    if not numbered:
        return None
    c = numbered[0] // 13
    numbers = [x % 13 + 1 for x in numbered]
    if (len(numbered) > 1 and all(x // 13 == c for x in numbered) and len(set(numbers)) == len(numbers)) or (
        len(numbered) == 1 and len(xs) >= 4
    ):
        first = next(i for i, x in enumerate(xs) if x != 52)
        ascending = len(numbered) < 2 or numbers[0] < numbers[1]
        lo = numbers[0] - first if ascending else numbers[0] - (len(xs) - 1 - first)
        lo = max(1, lo)
        return ("run", c, lo, min(13, lo + len(xs) - 1))
    if len(set(numbers)) == 1:
        return ("group", -1, numbers[0], numbers[0])
    return None


@dataclass(slots=True)
class _Run:
    colour: int
    tiles: list[Tile]
    code: int  # as in _colour_options
    label: int = -1  # old set this run follows (-1: none), to keep the table as it lies


_Layout = tuple[dict[int, list[tuple[int, int, int]]], dict[int, list[tuple[int, frozenset[int], int]]]]


def old_layout(old_idx: list[list[int]] | None) -> _Layout:
    """Old runs by colour: (index, lo, hi); old groups by number: (index, colours, jokers)."""
    runs: dict[int, list[tuple[int, int, int]]] = {}
    groups: dict[int, list[tuple[int, frozenset[int], int]]] = {}
    for i, xs in enumerate(old_idx or ()):
        shape = _shape(tuple(xs))
        if shape is None:
            continue
        kind, c, lo, hi = shape
        if kind == "run":
            runs.setdefault(c, []).append((i, lo, hi))
        else:
            groups.setdefault(lo, []).append((i, frozenset(x // 13 for x in xs if x != 52), xs.count(52)))
    return runs, groups


def build_sets(prog: Programme, plan: Plan, old_sets: list[list[Tile]] | None) -> list[list[Tile]]:
    """Turn the plan's per-number choices back into sets (runs low to high, groups)."""
    old_runs, old_groups = prog.layout
    open_runs: list[list[_Run]] = [[] for _ in range(4)]
    done: list[list[Tile]] = []
    lean = prog.lean
    group_jokers = plan.group_jokers
    for n in range(1, 14):
        row = plan.details[n - 1]
        pool = [row[0][7], row[1][7], row[2][7], row[3][7]]
        for c in range(4):
            m, ys, x12, x3, x4, s, sj, g, x3g, z5 = row[c]
            runs = open_runs[c]
            if not runs and not s and not sj:
                continue  # nothing of this colour in runs here (the common case)
            nxt: list[_Run] = []
            if runs:
                by: list[list[_Run]] = [[], [], [], [], [], []]  # by code 1-5
                joker_only = []
                for r in runs:
                    if r.code > 0:
                        by[r.code].append(r)
                    else:
                        joker_only.append(r)
                # Of the runs of 3 or more, go on with those whose old run goes on here.
                threes = by[3]
                if len(threes) > 1:
                    covers = {i for i, lo, hi in old_runs.get(c, ()) if lo <= n <= hi}
                    threes = sorted(threes, key=lambda r: r.label not in covers)
                keep3 = threes[:m]
                for r in threes[m:]:
                    done.append(r.tiles)
                if by[5]:
                    for r in by[5][z5:]:
                        done.append(r.tiles)
                    for r in by[5][:z5]:  # tails take one more joker
                        r.tiles.append(JOKER)
                        nxt.append(r)
                tile = TILE[c][n]
                for i, r in enumerate(by[1] + by[2] if by[1] else by[2]):
                    r.tiles.append(JOKER if i < x12 else tile)
                    r.code += 1
                    nxt.append(r)
                for i, r in enumerate(keep3):
                    if i < x3:
                        r.tiles.append(JOKER)
                        r.code = 4 if i < x3g else (5 if prog.tails else 3)
                    else:
                        r.tiles.append(tile)
                    nxt.append(r)
                for i, r in enumerate(by[4]):
                    if i < x4:
                        r.tiles.append(JOKER)
                    else:
                        r.tiles.append(tile)
                        r.code = 3
                    nxt.append(r)
                if joker_only:
                    jclasses = sorted({-r.code for r in joker_only})
                    for k, y in zip(jclasses, ys):
                        members = [r for r in joker_only if r.code == -k]
                        for idx, r in enumerate(members):
                            if idx < y:
                                r.tiles.append(JOKER)
                                r.code = -(k + 1)
                            else:
                                r.tiles.append(tile)
                                r.code = min(k + 1, 3)
                            nxt.append(r)
            if nxt and c in old_runs:
                # A run going on into an old run that no run follows yet (one starting here
                # first) follows it from now on: it is the one to go on where runs part.
                here = [(lo != n, i) for i, lo, hi in old_runs[c] if lo <= n <= hi]
                strays = [r for r in nxt if all(r.label != i for _s, i in here)] if here else None
                if strays:
                    taken = {r.label for r in nxt}
                    free = sorted(h for h in here if h[1] not in taken)  # old runs starting here first
                    for r, (_s, i) in zip(strays, free):
                        r.label = i
            if s:
                spans = old_runs.get(c, ())
                taken = {r.label for r in nxt}
                free = sorted((i for i, lo, hi in spans if lo <= n <= hi and i not in taken),
                              key=lambda i: next(lo for j, lo, _hi in spans if j == i) != n)
                for _k in range(s):
                    label = free.pop(0) if free else -1
                    nxt.append(_Run(c, [TILE[c][n]], 1, label))
            for _k in range(sj):
                nxt.append(_Run(c, [JOKER], -1))
            open_runs[c] = nxt
        if pool[0] or pool[1] or pool[2] or pool[3]:
            done.extend(_groups_at(n, pool, group_jokers[n - 1], old_groups.get(n, []), lean))
    for c in range(4):
        for r in open_runs[c]:
            done.append(r.tiles)
    # The programme never ends a run and starts another of its colour at one number (one
    # longer run does the same); split such runs again where an old run started, so that the
    # old runs stay apart.
    if not old_runs:
        return done
    return _split_at_old_starts(done, old_runs)


def _split_at_old_starts(sets: list[list[Tile]], old_runs: dict[int, list[tuple[int, int, int]]]) -> list[list[Tile]]:
    """Cut runs of 6 or more where old runs of their colour start (pieces of 3 or more, each with
    a numbered tile). Of the ways to cut a colour's runs there, the one whose runs, matched one
    to one with that colour's old runs, keep most tiles in their old run; among equals the most
    cuts. (Cutting at every old start can break an old run that one run holds whole: R1-R6 and
    R4-R8 on the table, R9 R10 laid, R1-R6 stays whole beside R4-R10.)"""
    choices: dict[int, list[tuple[int, list[list[list[Tile]]]]]] = {}  # colour -> (set, ways)
    out_pieces: dict[int, list[list[Tile]]] = {}  # set -> its pieces
    for k, tiles in enumerate(sets):
        if len(tiles) < 6:
            continue
        bounds = run_bounds(tiles)
        numbered = [t for t in tiles if t.colour is not None]
        if bounds is None or len({t.number for t in numbered}) != len(numbered):
            continue
        c = COLOUR_ID[id(numbered[0].colour)]
        lo = bounds[0]
        cuts = sorted({start - lo for _i, start, _hi in old_runs.get(c, ()) if 3 <= start - lo <= len(tiles) - 3})
        if not cuts:
            continue
        ways = []
        for count in range(len(cuts), -1, -1):  # most cuts first: kept among equals
            for chosen in itertools.combinations(cuts, count):
                edges = (0, *chosen, len(tiles))
                pieces = [tiles[x:y] for x, y in zip(edges, edges[1:])]
                if all(len(piece) >= 3 and any(t.colour is not None for t in piece) for piece in pieces):
                    ways.append(pieces)
        if len(ways) > 1:
            choices.setdefault(c, []).append((k, ways))
        elif ways:
            out_pieces[k] = ways[0]
    for c, runs in choices.items():
        spans = old_runs[c]
        cut_sets = {k for k, _ways in runs}
        # The colour's other runs count in the matching too (they may hold an old run better).
        others = [
            _numbers(p) for k, s in enumerate(sets) if k not in cut_sets and _run_colour(s) == c
            for p in out_pieces.get(k, (s,))
        ]
        combos = list(itertools.islice(itertools.product(*[ways for _k, ways in runs]), 64))
        best, best_kept = combos[0], -1
        for combo in combos:
            kept = _kept_in_runs([*others, *(_numbers(p) for pieces in combo for p in pieces)], spans)
            if kept > best_kept:
                best, best_kept = combo, kept
        for (k, _ways), pieces in zip(runs, best):
            out_pieces[k] = pieces
    out: list[list[Tile]] = []
    for k, tiles in enumerate(sets):
        if k in out_pieces:
            out.extend(out_pieces[k])
        else:
            out.append(tiles)
    return out


def _numbers(tiles: Sequence[Tile]) -> list[int]:
    """The numbers of a run's tiles, 0 for a joker."""
    return [t.number if t.colour is not None else 0 for t in tiles]  # type: ignore[misc]


def _run_colour(tiles: Sequence[Tile]) -> int:
    """Colour index of a run of two or more numbered tiles, -1 for anything else."""
    numbered = [t for t in tiles if t.colour is not None]
    if len(numbered) < 2 or numbered[0].colour is not numbered[1].colour or numbered[0].number == numbered[1].number:
        return -1
    return COLOUR_ID[id(numbered[0].colour)]


def _kept_in_runs(runs: list[list[int]], spans: Sequence[tuple[int, int, int]]) -> int:
    """Most tiles that runs of one colour (their numbers, 0 for a joker) keep in that colour's
    old runs ``spans``, each run matched to at most one old run and the other way."""
    weights = [[sum(1 for x in run if a <= x <= b) for _i, a, b in spans] for run in runs]
    if len(runs) > len(spans):
        weights = [list(col) for col in zip(*weights)]
    return sum(weights[r][c] for r, c in enumerate(best_assignment(weights)))


def _groups_at(n: int, pool: list[int], jokers: int, old: list[tuple[int, frozenset[int], int]], lean: bool) -> list[list[Tile]]:
    """Partition one number's group tiles (``pool[c]`` of colour c, ``jokers``) into groups,
    rebuilding the old groups of that number first where the tiles allow it."""
    total = pool[0] + pool[1] + pool[2] + pool[3]
    if total == 0:
        return []
    maxg = max(pool)
    if lean:
        count = max(maxg, -(-total // 4))
    else:
        count = next(g for g in range(max(maxg, 1), total + 1) if 3 * g - total <= jokers <= 4 * g - total)
    attempt = _groups_like_old(n, pool, jokers, old, count)
    if attempt is not None:
        return attempt
    # Round-robin by colour: each colour's copies land in different groups, sizes differ by 1.
    sets: list[list[Tile]] = [[] for _ in range(count)]
    i = 0
    for c in range(4):
        for _k in range(pool[c]):
            sets[i % count].append(TILE[c][n])
            i += 1
    _fill_jokers(sets, jokers)
    return sets


def _groups_like_old(n: int, pool: list[int], jokers: int, old: list[tuple[int, frozenset[int], int]], count: int) -> list[list[Tile]] | None:
    left = list(pool)
    sets: list[list[int]] = []
    if old:
        for _i, cols, _j in sorted(old, key=lambda o: -len(o[1])):
            if len(sets) < count and cols and all(left[c] > 0 for c in cols):
                sets.append(sorted(cols))
                for c in cols:
                    left[c] -= 1
    for c in range(4):
        while left[c]:
            # The shortest set (the first made, among equals) without this colour and with room.
            spot = None
            for s in sets:
                if c not in s and len(s) < 4 and (spot is None or len(s) < len(spot)):
                    spot = s
            if spot is None:
                if len(sets) >= count:
                    return None
                spot = []
                sets.append(spot)
            spot.append(c)
            left[c] -= 1
    if len(sets) != count:
        return None
    row = [TILE[0][n], TILE[1][n], TILE[2][n], TILE[3][n]]
    tiles = [[row[c] for c in sorted(s)] for s in sets]
    if not _fill_jokers(tiles, jokers):
        return None
    return tiles


def _fill_jokers(sets: list[list[Tile]], jokers: int) -> bool:
    """Bring every group up to 3 with jokers, then put spare jokers where a group has room."""
    for s in sets:
        while len(s) < 3 and jokers:
            s.append(JOKER)
            jokers -= 1
    for s in sets:
        while len(s) < 4 and jokers:
            s.append(JOKER)
            jokers -= 1
    return jokers == 0 and all(3 <= len(s) <= 4 for s in sets)


def _spare_slot(s: list[Tile]) -> tuple[int, bool] | None:
    """Where one more joker fits in the valid set ``s``: (what it would stand for, at the
    start?), or None if the set is full (a group of 4, a run 1-13)."""
    numbered = [t for t in s if t.colour is not None]
    numbers = {t.number for t in numbered}
    if len(numbers) == 1 and len(numbered) >= 2:
        return (numbered[0].number, False) if len(s) == 3 else None  # type: ignore[return-value]
    bounds = run_bounds(s)
    if bounds is not None and bounds[1] <= 13 and bounds[1] - bounds[0] + 1 < 13:
        return (bounds[1] + 1, False) if bounds[1] < 13 else (bounds[0] - 1, True)
    if len(numbered) == 1 and len(s) == 3:  # X J J read as a group: a fourth
        return (numbered[0].number, False)  # type: ignore[return-value]
    return None


def lay_spare_jokers(sets: list[list[Tile]], spare: int, old_sets: list[list[Tile]] | None = None) -> bool:
    """Lay jokers the programme left over where they are worth most: the top of a run (its
    bottom if it ends at 13), or a group of 3. With ``old_sets`` (tiles objective, where the
    table as it lies counts before points), first back in a set whose old set held more jokers
    than it holds now: there the joker stays in its set (O9-O12 and B5 K5 R5 J on the table, O13
    laid: the spare joker goes back to the group, not on top of the run). False if no set has
    room (then the full programme runs)."""
    owed: dict[int, int] = {}  # new set -> jokers its old set held beyond its own
    if spare and old_sets:
        old_tallies = [tile_tally(tile_indices(s)) for s in old_sets]
        if any(52 in t for t in old_tallies):
            new_tallies = [tile_tally(tile_indices(s)) for s in sets]
            for j, i in match_sets(old_tallies, new_tallies).items():
                extra = old_tallies[i].get(52, 0) - new_tallies[j].get(52, 0)
                if extra > 0:
                    owed[j] = extra
    for _k in range(spare):
        best: tuple[bool, int, int, bool] | None = None
        for i, s in enumerate(sets):
            slot = _spare_slot(s)
            if slot is not None:
                key = (owed.get(i, 0) > 0, slot[0], i, slot[1])
                if best is None or key[:2] > best[:2]:
                    best = key
        if best is None:
            return False
        _home, _value, i, at_start = best
        if i in owed:
            owed[i] -= 1
        if at_start:
            sets[i].insert(0, JOKER)
        else:
            sets[i].append(JOKER)
    return True
