"""Benchmark of the best-move solver against rummikub-solver (den Hertog & Hulshof's integer
programme), on the same positions in the same run.

    python -m referee.tools.bench [--positions PATH] [--repeat 3] [--clock wall|cpu] [--only TEXT]
                            [--no-peer] [--json]

Positions default to ``../shared/bench/solver_positions.json`` beside the repository (206
positions with their optimum). Every position is solved by both solvers in turn, ``--repeat``
times each, and the fastest time of each is kept (the least disturbed by other work on the
machine). Prints median and max milliseconds per size class for both, the ratio of medians (also
per class split into positions with and without a joker), and checks that our count equals the
recorded optimum. The peer is an optional extra (``pip install .[bench]``); without it only our
figures are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from referee.ruleset import RuleSet
from referee.solver import best_move
from referee.tiles import Tile, parse_tiles

__all__ = ["main", "load_positions", "run"]

DEFAULT_POSITIONS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "solver_positions.json"


def load_positions(path: Path = DEFAULT_POSITIONS) -> list[dict[str, Any]]:
    """The benchmark positions (each with ``id``, ``size_class``, ``table_melds``, ``rack``,
    ``optimum_tiles``)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return list(data["positions"])


def _peer_solver() -> Callable[[list[list[Tile]], list[Tile]], int] | None:
    """A function running rummikub-solver on one position (tiles laid), or None if absent."""
    try:
        import rummikub_solver as rs  # benchmark-only extra
    except ImportError:
        return None
    ruleset = rs.RuleSet()
    tiles = ruleset.tiles  # colour-major: black, blue, orange, red (1-13 each), then the joker

    def convert(tile: Tile) -> Any:
        return tiles[-1] if tile.is_joker else tiles[tile.index]

    def solve(table: list[list[Tile]], rack: list[Tile]) -> int:
        state = ruleset.new_game()
        state.add_table(*(convert(t) for s in table for t in s))
        state.add_rack(*(convert(t) for t in rack))
        state.initial = False
        solution = ruleset.solve(state)
        return len(solution.tiles) if solution else 0

    return solve


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""wall: elapsed time; cpu: CPU time of this process (all its threads), steadier on a busy machine."""


def _time(fn: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = clock()
        result = fn()
        best = min(best, (clock() - start) * 1000)
    return best, result


def run(positions: Sequence[dict[str, Any]], repeat: int = 3, peer: bool = True, clock: str = "wall") -> dict[str, Any]:
    """Solve every position with ours (and the peer), return per-position and per-class figures."""
    tick = CLOCKS[clock]
    rules = RuleSet.classic()
    peer_fn = _peer_solver() if peer else None
    rows = []
    parsed = [([parse_tiles(m) for m in p["table_melds"]], parse_tiles(p["rack"])) for p in positions]
    # Warm-up: first calls fill caches (ours) and build the integer programme (peer).
    if parsed:
        best_move(*parsed[0], rules=rules)
        if peer_fn is not None:
            peer_fn(*parsed[0])
    for p, (table, rack) in zip(positions, parsed):
        ours_ms, move = _time(lambda: best_move(table, rack, rules=rules), repeat, tick)
        count = move.count if move else 0
        jokers = sum(t.is_joker for s in table for t in s) + sum(t.is_joker for t in rack)
        row = {
            "id": p["id"],
            "size_class": p["size_class"],
            "jokers": jokers,
            "optimum": p["optimum_tiles"],
            "ours": count,
            "ours_ms": ours_ms,
        }
        if peer_fn is not None:
            peer_ms, peer_count = _time(lambda: peer_fn(table, rack), repeat, tick)
            row.update(peer=peer_count, peer_ms=peer_ms)
        rows.append(row)
    names = dict.fromkeys(r["size_class"] for r in rows)
    classes = _summarise(rows, [(cls, lambda r, c=cls: r["size_class"] == c) for cls in names], peer_fn is not None)
    # The same classes split by jokers (table or rack): the two halves differ in kind.
    split = _summarise(
        rows,
        [
            (f"{cls}, {kind}", lambda r, c=cls, j=with_jokers: r["size_class"] == c and (r["jokers"] > 0) == j)
            for cls in classes
            for kind, with_jokers in (("no joker", False), ("jokers", True))
        ],
        peer_fn is not None,
    )
    machine = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    return {
        "machine": machine,
        "repeat": repeat,
        "clock": clock,
        "peer": peer_fn is not None,
        "classes": classes,
        "split": split,
        "positions": rows,
    }


def _summarise(
    rows: list[dict[str, Any]], groups: list[tuple[str, Callable[[dict[str, Any]], bool]]], peer: bool
) -> dict[str, dict[str, Any]]:
    """Median and max milliseconds, exact counts and the ratio of medians per group of rows
    (groups with no rows are left out)."""
    classes: dict[str, dict[str, Any]] = {}
    for cls, member in groups:
        sub = [r for r in rows if member(r)]
        if not sub:
            continue
        entry: dict[str, Any] = {
            "positions": len(sub),
            "ours_median_ms": statistics.median(r["ours_ms"] for r in sub),
            "ours_max_ms": max(r["ours_ms"] for r in sub),
            "ours_exact": sum(r["ours"] == r["optimum"] for r in sub),
        }
        if peer:
            entry.update(
                peer_median_ms=statistics.median(r["peer_ms"] for r in sub),
                peer_max_ms=max(r["peer_ms"] for r in sub),
                peer_exact=sum(r["peer"] == r["optimum"] for r in sub),
            )
            entry["ratio_median"] = entry["peer_median_ms"] / entry["ours_median_ms"]
        classes[cls] = entry
    return classes


def _print(report: dict[str, Any]) -> None:
    m = report["machine"]
    load = ", ".join(f"{x:.2f}" for x in m["load_average"]) if m["load_average"] else "unknown"
    print(f"machine: {m['processor']}, {m['cpus']} cores, Python {m['python']}, load average {load}")
    print(f"fastest of {report['repeat']} runs per position, milliseconds of {report['clock']} time")
    for title, table in (("class", report["classes"]), ("class, jokers", report["split"])):
        head = f"{title:<20} {'n':>3} {'ours med':>9} {'ours max':>9} {'exact':>6}"
        if report["peer"]:
            head += f" {'peer med':>9} {'peer max':>9} {'exact':>6} {'ratio':>7}"
        print()
        print(head)
        for cls, e in table.items():
            line = f"{cls:<20} {e['positions']:>3} {e['ours_median_ms']:>9.2f} {e['ours_max_ms']:>9.2f} {e['ours_exact']:>6}"
            if report["peer"]:
                line += f" {e['peer_median_ms']:>9.2f} {e['peer_max_ms']:>9.2f} {e['peer_exact']:>6} {e['ratio_median']:>6.1f}x"
            print(line)
    if not report["peer"]:
        print("peer not measured (--no-peer given, or rummikub-solver not installed: pip install .[bench])")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; exit status 1 if our solver missed an optimum."""
    parser = argparse.ArgumentParser(prog="python -m referee.tools.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=Path, default=DEFAULT_POSITIONS, help="positions JSON")
    parser.add_argument("--repeat", type=int, default=3, help="runs per position and solver (fastest kept)")
    parser.add_argument("--no-peer", action="store_true", help="measure only our solver")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall (default) or cpu time")
    parser.add_argument("--only", default="", help="only positions whose id contains this text")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args(argv)
    if not args.positions.exists():
        print(f"positions file not found: {args.positions}", file=sys.stderr)
        return 2
    positions = [p for p in load_positions(args.positions) if args.only in p["id"]]
    report = run(positions, repeat=max(1, args.repeat), peer=not args.no_peer, clock=args.clock)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print(report)
    missed = [r["id"] for r in report["positions"] if r["ours"] != r["optimum"]]
    if missed:
        print("missed the optimum: " + ", ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
