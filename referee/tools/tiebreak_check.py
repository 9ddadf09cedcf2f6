"""Exact reference for the solver's tie-break: the fewest table tiles moved among the best moves.

    python -m referee.tools.tiebreak_check [--positions PATH] [--only TEXT] [--time-limit 20] [--json]

:func:`referee.solver.best_move` breaks ties between moves laying as many rack tiles towards the
one that disturbs the table least, by default on an estimate (see ``referee/SOLVER.md``), so its
``Move.moved`` is not proven to be the least. This module measures that estimate against the
exact least, found by the integer programme of :mod:`referee.solver.least` (every valid set, the way
rummikub-solver models the game, plus the matching of new sets to old ones; HiGHS through
highspy), which never calls the solver. highspy is imported only when a position is solved, and
``import referee`` never loads this module.

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
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.assignment import best_assignment
from referee.tools.bench import DEFAULT_POSITIONS, load_positions
from referee.solver.least import LeastArrangement, candidate_sets, least_arrangement, shared, tally
from referee.ruleset import RuleSet
from referee.tiles import Tile, parse_tiles

__all__ = ["LeastMoved", "candidate_sets", "least_moved", "moved_with_best_matching", "compare", "main"]


@dataclass(frozen=True)
class LeastMoved(LeastArrangement):
    """The exact answer for one position (:class:`~referee.solver.least.LeastArrangement`: ``count``
    is the most rack tiles that can be laid, which the solver's ``Move.count`` must equal)."""

    solver_moved: int = 0
    """Tiles moved by ``sets`` as the solver's step description counts them (equal to
    ``moved``: a check that both count alike)."""


def moved_with_best_matching(old_sets: Sequence[Sequence[Tile]], new_sets: Sequence[Sequence[Tile]]) -> int:
    """Table tiles moved from ``old_sets`` to ``new_sets`` when every new set is matched to the
    old set that lets the most tiles stay: a maximum-weight matching by the Hungarian algorithm
    (:func:`referee.assignment.best_assignment`, itself checked against SciPy's), not the
    solver's own matching (greedy, proven or redone), which this checks."""
    old = [tally([t.index for t in s]) for s in old_sets]
    new = [tally([t.index for t in s]) for s in new_sets]
    total = sum(len(s) for s in old_sets)
    if not old or not new:
        return total
    weights = [[shared(o, s) for s in new] for o in old]
    if len(old) > len(new):
        weights = [list(col) for col in zip(*weights)]
    return total - sum(weights[r][c] for r, c in enumerate(best_assignment(weights)))


def least_moved(
    table: Sequence[Sequence[Tile]], rack: Sequence[Tile], rules: RuleSet = RuleSet.classic(), time_limit: float = 20.0
) -> LeastMoved | None:
    """The most rack tiles that can be laid after the opening, and the fewest table tiles moved
    to another set among the arrangements laying that many (exact: the integer programme of
    :func:`referee.solver.least.least_arrangement`, which does not use the solver). None when HiGHS
    does not prove it within ``time_limit`` seconds. Nothing laid counts 0 (the solver returns
    no move then). The arrangement found is also passed through the solver's step description
    (``solver_moved``), a check that both count moved tiles alike."""
    from referee.solver.steps import describe_change

    found = least_arrangement(table, rack, rules, time_limit=time_limit)
    if found is None:
        return None
    table_tiles = [t for s in table for t in s]
    counted = len(describe_change([list(s) for s in table], table_tiles, [list(s) for s in found.sets]).moved)
    return LeastMoved(found.count, found.moved, found.sets, found.seconds, solver_moved=counted)


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
    parser = argparse.ArgumentParser(prog="python -m referee.tools.tiebreak_check", description=__doc__.split("\n\n")[0])
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
