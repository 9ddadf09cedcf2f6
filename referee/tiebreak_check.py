"""Exact reference for the solver's tie-break: the fewest table tiles moved among the best moves.

    python -m referee.tiebreak_check [--positions PATH] [--only TEXT] [--time-limit 20] [--json]

:func:`referee.solver.best_move` breaks ties between moves laying as many rack tiles towards the
one that disturbs the table least, but within a step budget (see ``referee/SOLVER.md``), so its
``Move.moved`` is not proven to be the least. This module finds the least exactly, by an integer
programme over every valid set (the way rummikub-solver models the game, plus the matching of
new sets to old ones), solved by HiGHS through SciPy. It is a benchmark-side tool: SciPy comes
with the benchmark extra (``pip install .[bench]``), is imported only when a position is solved,
and ``import referee`` never loads this module.

"Moved" is what the solver reports (``Move.moved``): each new set is matched to at most one old
set and keeps the tiles it shares with it, the matching keeping most tiles; every other table
tile counts as moved, so moved = table tiles - tiles kept. The programme takes the same best
matching, so its least is exactly the least the solver could report; as a check, the
arrangement it finds is also passed through the solver's own step description
(:attr:`LeastMoved.solver_moved`, equal to :attr:`LeastMoved.moved` on all 206 benchmark
positions).

Sets are multisets (RULES.md section 2): a group is 3-4 tiles of one number in distinct colours,
a run 3-13 tiles of one colour with consecutive numbers; jokers stand for any tile (section 5),
and a set of only jokers is not a set. Every table tile, jokers included, stays on the table;
rack tiles may be laid (section 4).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bench import DEFAULT_POSITIONS, load_positions
from referee.ruleset import RuleSet
from referee.tiles import ALL_NUMBERED, JOKER, Tile, parse_tiles

__all__ = ["LeastMoved", "candidate_sets", "least_moved", "moved_with_best_matching", "compare", "main"]

_JOKER = 52  # Tile.index of the joker


@dataclass(frozen=True)
class LeastMoved:
    """The exact answer for one position."""

    count: int
    """Most rack tiles that can be laid (the solver's ``Move.count`` must equal it)."""
    moved: int
    """Fewest table tiles moved to another set among the arrangements laying ``count`` tiles
    (best matching of new sets to old ones)."""
    sets: tuple[tuple[Tile, ...], ...]
    """One arrangement reaching both: runs low to high with their jokers in the gaps (then above
    the top, then below the bottom), groups in colour order with their jokers last."""
    solver_moved: int
    """Tiles moved by ``sets`` as the solver's step description counts them (equal to
    ``moved``: a check that both count alike)."""
    seconds: float
    """Time HiGHS took."""


_BY_INDEX = [*ALL_NUMBERED, JOKER]  # Tile.index -> tile


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
    from itertools import combinations

    for k in range(0, min(extra, len(tiles) - 1) + 1):
        for out in combinations(range(len(tiles)), k):
            kept = [x for i, x in enumerate(tiles) if i not in out]
            found.add((*kept, *[_JOKER] * (base + k)))


def _tally(xs: Sequence[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def _shared(a: dict[int, int], b: dict[int, int]) -> int:
    return sum(min(k, b[x]) for x, k in a.items() if x in b)


def moved_with_best_matching(old_sets: Sequence[Sequence[Tile]], new_sets: Sequence[Sequence[Tile]]) -> int:
    """Table tiles moved from ``old_sets`` to ``new_sets`` when every new set is matched to the
    old set that lets the most tiles stay (a maximum-weight matching; the solver matches
    greedily, which can keep fewer)."""
    from scipy.optimize import linear_sum_assignment

    old = [_tally([t.index for t in s]) for s in old_sets]
    new = [_tally([t.index for t in s]) for s in new_sets]
    total = sum(len(s) for s in old_sets)
    if not old or not new:
        return total
    weights = [[_shared(o, s) for s in new] for o in old]
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return total - sum(weights[i][j] for i, j in zip(rows, cols))


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


def least_moved(
    table: Sequence[Sequence[Tile]], rack: Sequence[Tile], rules: RuleSet = RuleSet.classic(), time_limit: float = 20.0
) -> LeastMoved | None:
    """The most rack tiles that can be laid after the opening, and the fewest table tiles moved
    to another set among the arrangements laying that many (exact; see the module docstring).
    None when HiGHS does not prove it within ``time_limit`` seconds. Nothing laid counts 0
    (the solver returns no move then).

    One integer programme: x_s copies of each candidate set s (every table tile used, rack tiles
    at most as many as there are), y_si how much of new set s is matched to old set i (each old
    set to at most one new set, a new set's copies to as many old sets). Maximise
    (T + 1) * tiles laid + tiles kept, T = table tiles: the most tiles first, then the most kept.
    y may be fractional: for integer x the matching constraints are those of a bipartite
    b-matching, whose polytope has integer corners, so the optimum is the same as with integer y.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    old = [[t.index for t in s] for s in table]
    table_count = [0] * 53
    rack_count = [0] * 53
    for s in old:
        for x in s:
            table_count[x] += 1
    for t in rack:
        rack_count[t.index] += 1
    if any(table_count[x] + rack_count[x] > (rules.jokers if x == _JOKER else rules.copies) for x in range(53)):
        raise ValueError("more copies of a tile than the rule set has")
    avail = [a + b for a, b in zip(table_count, rack_count)]
    sets = candidate_sets(avail)
    total = sum(table_count)
    old_tallies = [_tally(s) for s in old]
    tallies = [_tally(s) for s in sets]
    nx = len(sets)
    pairs = [(j, i, w) for j, st in enumerate(tallies) for i, ot in enumerate(old_tallies) if (w := _shared(st, ot))]
    ny = len(pairs)
    big = total + 1
    cost = [float(-big * len(s)) for s in sets] + [float(-w) for _j, _i, w in pairs]
    upper = [min(avail[x] // k for x, k in t.items()) for t in tallies] + [1] * ny
    rows, cols, vals = [], [], []
    lo_b, hi_b = [], []
    r = 0
    # Tiles: every table copy used, rack copies at most all of them (RULES.md section 4).
    for x in range(53):
        if not avail[x]:
            continue
        for j, t in enumerate(tallies):
            if x in t:
                rows.append(r)
                cols.append(j)
                vals.append(t[x])
        lo_b.append(table_count[x])
        hi_b.append(avail[x])
        r += 1
    # Matching: each old set to at most one new set; each new set's copies to as many old sets.
    for i in range(len(old)):
        for k, (_j, i2, _w) in enumerate(pairs):
            if i2 == i:
                rows.append(r)
                cols.append(nx + k)
                vals.append(1)
        lo_b.append(0)
        hi_b.append(1)
        r += 1
    by_set: dict[int, list[int]] = {}
    for k, (j, _i, _w) in enumerate(pairs):
        by_set.setdefault(j, []).append(k)
    for j, ks in by_set.items():
        for k in ks:
            rows.append(r)
            cols.append(nx + k)
            vals.append(1)
        rows.append(r)
        cols.append(j)
        vals.append(-1)
        lo_b.append(-math.inf)
        hi_b.append(0)
        r += 1
    matrix = coo_matrix((vals, (rows, cols)), shape=(r, nx + ny)).tocsr()
    integrality = [1] * nx + [0] * ny
    start = time.perf_counter()
    result = milp(
        cost,
        constraints=LinearConstraint(matrix, lo_b, hi_b),
        integrality=integrality,
        bounds=Bounds([0.0] * (nx + ny), [float(u) for u in upper]),
        options={"time_limit": time_limit, "mip_rel_gap": 0.0},
    )
    seconds = time.perf_counter() - start
    if result.status != 0 or result.x is None:
        return None
    copies = [round(v) for v in result.x[:nx]]
    kept = round(-result.fun) % big
    laid = round(-result.fun) // big - total
    new_sets = [_readable(sets[j]) for j, k in enumerate(copies) for _ in range(k)]
    from referee.solver import _describe_change

    table_tiles = [t for s in table for t in s]
    counted = len(_describe_change([list(s) for s in table], table_tiles, [list(s) for s in new_sets]).moved)
    return LeastMoved(laid, total - kept, tuple(new_sets), counted, seconds)


def compare(position: dict[str, Any], time_limit: float = 20.0) -> dict[str, Any]:
    """One benchmark position: the solver's move against the exact least (keys ``id``,
    ``size_class``, ``count``, ``ours_count``, ``ours_moved``, ``ours_best_matching``,
    ``least_moved``, ``least_solver_moved``, ``excess``, ``seconds``; the exact figures are None
    when HiGHS ran out of time)."""
    from referee.solver import best_move

    table = [parse_tiles(m) for m in position["table_melds"]]
    rack = parse_tiles(position["rack"])
    move = best_move(table, rack)
    exact = least_moved(table, rack, time_limit=time_limit)
    row: dict[str, Any] = {
        "id": position["id"],
        "size_class": position["size_class"],
        "ours_count": move.count if move else 0,
        "ours_moved": len(move.moved) if move else 0,
        "ours_best_matching": moved_with_best_matching(table, move.sets) if move else 0,
        "count": None,
        "least_moved": None,
        "least_solver_moved": None,
        "excess": None,
        "seconds": None,
    }
    if exact is not None:
        row.update(count=exact.count, least_moved=exact.moved, least_solver_moved=exact.solver_moved, seconds=exact.seconds)
        if exact.count > 0:
            row["excess"] = row["ours_moved"] - exact.moved
        else:
            row["excess"] = 0  # nothing can be laid: no move, nothing moved
            row["least_moved"] = row["least_solver_moved"] = 0
    return row


def _summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for cls in dict.fromkeys(r["size_class"] for r in rows):
        sub = [r for r in rows if r["size_class"] == cls]
        done = [r for r in sub if r["excess"] is not None]
        excess = [r["excess"] for r in done]
        out[cls] = {
            "positions": len(sub),
            "solved": len(done),
            "least": sum(e == 0 for e in excess),
            "mean_excess": statistics.mean(excess) if excess else None,
            "max_excess": max(excess) if excess else None,
            "ours_moved_mean": statistics.mean(r["ours_moved"] for r in done) if done else None,
            "least_moved_mean": statistics.mean(r["least_moved"] for r in done) if done else None,
            "counts_agree": sum(r["count"] == r["ours_count"] for r in done),
            "solver_counts_least_alike": sum(r["least_solver_moved"] == r["least_moved"] for r in done),
            "ours_is_best_matching": sum(r["ours_best_matching"] == r["ours_moved"] for r in done),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: compare the solver with the exact least on the benchmark positions; exit
    status 1 if the two disagree on a count, or the solver moves fewer than the least."""
    parser = argparse.ArgumentParser(prog="python -m referee.tiebreak_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=Path, default=DEFAULT_POSITIONS, help="positions JSON")
    parser.add_argument("--only", default="", help="only positions whose id contains this text")
    parser.add_argument("--time-limit", type=float, default=20.0, help="seconds HiGHS may spend on one position")
    parser.add_argument("--json", action="store_true", help="print every position and the summary as JSON")
    args = parser.parse_args(argv)
    if not args.positions.exists():
        print(f"positions file not found: {args.positions}", file=sys.stderr)
        return 2
    positions = [p for p in load_positions(args.positions) if args.only in p["id"]]
    rows = []
    for p in positions:
        row = compare(p, args.time_limit)
        rows.append(row)
        if not args.json:
            print(
                f"{row['id']:<16} laid {row['ours_count']:>2} moved {row['ours_moved']:>2}"
                f" least {row['least_moved'] if row['least_moved'] is not None else '?':>2}"
                f" ({row['seconds'] or 0:.2f} s)",
                flush=True,
            )
    summary = _summary(rows)
    if args.json:
        print(json.dumps({"summary": summary, "positions": rows}, indent=1))
    else:
        print()
        print(f"{'class':<10} {'n':>3} {'solved':>6} {'least':>6} {'mean excess':>11} {'max':>4} {'ours mean':>9} {'least mean':>10}")
        for cls, e in summary.items():
            if not e["solved"]:
                print(f"{cls:<10} {e['positions']:>3} {0:>6}")
                continue
            print(
                f"{cls:<10} {e['positions']:>3} {e['solved']:>6} {e['least']:>6} {e['mean_excess']:>11.2f}"
                f" {e['max_excess']:>4} {e['ours_moved_mean']:>9.2f} {e['least_moved_mean']:>10.2f}"
            )
    skipped = [r["id"] for r in rows if r["excess"] is None]
    if skipped:
        print(f"not proven within {args.time_limit:g} s: " + ", ".join(skipped))
    # A count that differs, a solver move below the least or the two countings apart is a bug
    # on one side or the other.
    bad = [
        r["id"] for r in rows if r["excess"] is not None
        and (r["count"] != r["ours_count"] or r["excess"] < 0 or r["least_solver_moved"] != r["least_moved"])
    ]
    if bad:
        print("solver and reference disagree: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
