"""Benchmark of the best-move solver against rummikub-solver (den Hertog & Hulshof's integer
programme): both our modes and the peer, on the same positions, in the same run.

    python -m referee.tools.bench [--positions PATH] [--random 12] [--seed 2026] [--source all]
                                  [--objective tiles|points] [--repeat 1] [--clock wall|cpu]
                                  [--only TEXT] [--no-peer] [--no-exact] [--json]

Positions: the shared ones (``--positions``, by default ``tests/fixtures/solver_positions.json``:
206 positions with their optimum) and ``--random`` new positions per size
class and joker kind, dealt from a seeded generator as the shared ones were (see
:func:`random_positions`).

Each solver runs in a process of its own: our fast mode (``tiebreak="estimate"``), our exact
tie-break (``tiebreak="exact"``) and the peer. Each process first solves warm-up positions that
are never measured (so caches, imports and the peer's programme are warm on other positions),
then every position once, the three processes taking turns position by position (the order
rotating). So no position is ever warm from an earlier solve of itself: our solver memoises in
process-global tables, the peer has nothing like that. ``--repeat N`` (N > 1) adds a second,
labelled figure: the fastest of N solves of each position in a row, warm from itself.

Prints the versions of the peer's packages and which of our search loops ran (compiled or the
pure-Python twins, :mod:`referee.solver.compiled`), then median, 90th percentile and max
milliseconds per size class, split into positions with and without a joker, for the three, and
the ratio of the peer's median to each of ours. Checks our count against the recorded optimum
(shared positions), the exact mode's count against the fast mode's, and reports where the peer
disagrees. Exit status 1 if we miss an optimum or our modes disagree.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "load_positions", "random_positions", "run"]

DEFAULT_POSITIONS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "solver_positions.json"

SIZE_CLASSES: dict[str, tuple[int, int, int]] = {
    "small": (9, 12, 14),
    "mid": (29, 33, 14),
    "large": (62, 80, 14),
    "mid_r24": (28, 33, 24),
}
"""Size class -> (fewest table tiles, most table tiles, rack tiles), as in the shared positions."""

MODES = ("fast", "exact", "peer")
"""The three solvers measured: our default (estimate tie-break), our exact tie-break, the peer."""


def load_positions(path: Path = DEFAULT_POSITIONS) -> list[dict[str, Any]]:
    """The benchmark positions (each with ``id``, ``size_class``, ``table_melds``, ``rack``,
    ``optimum_tiles``)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return list(data["positions"])


_COLOURS = "KBOR"


def _random_set(rng: random.Random) -> list[str]:
    """A run of 3-5 or a group of 3-4, as codes."""
    if rng.random() < 0.5:
        c, lo, size = rng.choice(_COLOURS), rng.randint(1, 11), rng.randint(3, 5)
        return [f"{c}{n}" for n in range(lo, min(13, lo + size - 1) + 1)]
    n = rng.randint(1, 13)
    return [f"{c}{n}" for c in rng.sample(_COLOURS, rng.choice((3, 4)))]


def _random_position(rng: random.Random, size_class: str, jokers: bool, ident: str) -> dict[str, Any]:
    """One position of ``size_class``: a table of valid sets dealt from a classic box (two copies
    of each tile) until it holds the class's number of tiles, then the rack from what is left.
    With ``jokers``, the two jokers are split at random between the table (each standing for a
    tile of a different set, that tile going back to the box) and the rack, as in the shared
    positions (two jokers in play in every position with jokers)."""
    lo, hi, rack_size = SIZE_CLASSES[size_class]
    while True:
        box = Counter({f"{c}{n}": 2 for c in _COLOURS for n in range(1, 14)})
        target = rng.randint(lo, hi)
        table: list[list[str]] = []
        size = 0
        for _try in range(1000):
            if size >= target:
                break
            s = _random_set(rng)
            need = Counter(s)
            if size + len(s) <= hi and not need - box:
                box.subtract(need)
                table.append(s)
                size += len(s)
        if not lo <= size <= hi:
            continue
        on_table = rng.randint(0, 2) if jokers else 0
        for i in rng.sample(range(len(table)), min(on_table, len(table))):
            k = rng.randrange(len(table[i]))
            box[table[i][k]] += 1
            table[i][k] = "J"
        in_rack = (2 - on_table) if jokers else 0
        rack = rng.sample(sorted(box.elements()), rack_size - in_rack) + ["J"] * in_rack
        kind = "J" if jokers else "nJ"
        return {"id": ident or f"{size_class}-{kind}", "size_class": size_class, "table_melds": table,
                "rack": rack, "optimum_tiles": None}


def random_positions(per_kind: int, seed: int) -> list[dict[str, Any]]:
    """``per_kind`` new positions per size class and joker kind (with and without), dealt by a
    generator seeded with ``seed``; ids ``random-<class>-<J|nJ>-<k>``, no recorded optimum."""
    rng = random.Random(seed)
    out = []
    for size_class in SIZE_CLASSES:
        for jokers in (False, True):
            kind = "J" if jokers else "nJ"
            for k in range(per_kind):
                ident = f"random-{size_class}-{kind}-{k:03d}"
                out.append(_random_position(rng, size_class, jokers, ident))
    return out


# --------------------------------------------------------------------------------------------
# The worker processes


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""wall: elapsed time; cpu: CPU time of the solving process (its threads included)."""


def _solver(mode: str, objective: str) -> Callable[[list[list[Any]], list[Any]], dict[str, Any]]:
    """The function a worker times: one position in, its count (and our moves' figures) out."""
    from referee.ruleset import RuleSet

    rules = RuleSet.classic()
    if mode in ("fast", "exact"):
        from referee.solver import best_move

        tiebreak = "estimate" if mode == "fast" else "exact"

        def ours(table: list[list[Any]], rack: list[Any]) -> dict[str, Any]:
            move = best_move(table, rack, rules=rules, objective=objective, tiebreak=tiebreak)
            if move is None:
                return {"count": 0, "points": 0, "moved": 0, "least": True}
            return {"count": move.count, "points": move.points, "moved": len(move.moved), "least": move.least_moved}

        return ours
    import rummikub_solver as rs  # benchmark-only extra

    ruleset = rs.RuleSet()
    tiles = ruleset.tiles  # colour-major: black, blue, orange, red (1-13 each), then the joker
    peer_mode = rs.SolverMode.TILE_COUNT if objective == "tiles" else rs.SolverMode.TOTAL_VALUE

    def peer(table: list[list[Any]], rack: list[Any]) -> dict[str, Any]:
        state = ruleset.new_game()
        state.add_table(*(tiles[-1] if t.is_joker else tiles[t.index] for s in table for t in s))
        state.add_rack(*(tiles[-1] if t.is_joker else tiles[t.index] for t in rack))
        state.initial = False
        solution = ruleset.solve(state, peer_mode)
        return {"count": len(solution.tiles) if solution else 0}

    return peer


def _worker(mode: str, objective: str, clock: str, repeat: int, warm: list[dict[str, Any]], conn: Any) -> None:
    """A solver's process: warm up on ``warm``, then answer positions sent on ``conn`` (None
    ends), each solved once and timed (then ``repeat - 1`` more times for the best-of figure)."""
    from referee.tiles import parse_tiles

    # What a solver's libraries print (the peer's HiGHS writes its banner from C) goes to standard
    # error: this process answers on ``conn``, and the parent's standard output is the report.
    sys.stdout.flush()
    os.dup2(2, 1)
    try:
        solve = _solver(mode, objective)
    except ImportError as exc:
        conn.send({"error": str(exc)})
        return
    tick = CLOCKS[clock]
    for p in warm:
        solve([parse_tiles(m) for m in p["table_melds"]], parse_tiles(p["rack"]))
    conn.send({"ready": True})
    while True:
        p = conn.recv()
        if p is None:
            return
        table, rack = [parse_tiles(m) for m in p["table_melds"]], parse_tiles(p["rack"])
        start = tick()
        result = solve(table, rack)
        result["ms"] = (tick() - start) * 1000
        best = result["ms"]
        for _ in range(repeat - 1):
            start = tick()
            solve(table, rack)
            best = min(best, (tick() - start) * 1000)
        result["best_ms"] = best
        conn.send(result)


def _warm_positions(seed: int) -> list[dict[str, Any]]:
    """Positions only for warming up (one per size class and joker kind, a seed of their own)."""
    return random_positions(1, seed + 7919)


# --------------------------------------------------------------------------------------------
# The run


def run(
    positions: Sequence[dict[str, Any]], repeat: int = 1, peer: bool = True, clock: str = "wall",
    exact: bool = True, objective: str = "tiles", seed: int = 2026,
) -> dict[str, Any]:
    """Solve every position once in each solver's warm process (see the module docstring) and
    return per-position and per-class figures."""
    modes = ["fast"] + (["exact"] if exact else []) + (["peer"] if peer else [])
    ctx = mp.get_context("spawn")
    warm = _warm_positions(seed)
    procs, conns = {}, {}
    for mode in modes:
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(mode, objective, clock, repeat, warm, theirs), daemon=True)
        proc.start()
        procs[mode], conns[mode] = proc, mine
    missing = []
    for mode in list(modes):
        hello = conns[mode].recv()
        if "error" in hello:
            missing.append(f"{mode}: {hello['error']}")
            modes.remove(mode)
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    rows = []
    try:
        for i, p in enumerate(positions):
            order = modes[i % len(modes):] + modes[: i % len(modes)]  # who goes first rotates
            got: dict[str, dict[str, Any]] = {}
            for mode in order:
                conns[mode].send(p)
                got[mode] = conns[mode].recv()
            jokers = sum(t == "J" for s in p["table_melds"] for t in s) + sum(t == "J" for t in p["rack"])
            row: dict[str, Any] = {
                "id": p["id"], "size_class": p["size_class"], "jokers": jokers, "optimum": p.get("optimum_tiles"),
                "source": "random" if p["id"].startswith("random-") else "shared",
            }
            for mode, result in got.items():
                row[mode] = result
            rows.append(row)
    finally:
        for mode in modes:
            conns[mode].send(None)
        for proc in procs.values():
            proc.join(timeout=30)
    names = list(dict.fromkeys(r["size_class"] for r in rows))
    groups: list[tuple[str, Callable[[dict[str, Any]], bool]]] = []
    for cls in names:
        groups.append((cls, lambda r, c=cls: r["size_class"] == c))
        for kind, with_jokers in (("no joker", False), ("jokers", True)):
            groups.append((f"{cls}, {kind}", lambda r, c=cls, j=with_jokers: r["size_class"] == c and (r["jokers"] > 0) == j))
    machine = {
        "versions": _versions(),
        "loops": _loops(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": load_before,
        "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    return {
        "machine": machine, "repeat": repeat, "clock": clock, "objective": objective, "modes": modes,
        "missing": missing, "classes": _summarise(rows, groups, modes, objective), "positions": rows,
    }


_PEER_PACKAGES = ("rummikub-solver", "cvxpy-base", "cvxpy", "scipy", "numpy", "highspy")
"""The peer and what its speed depends on (its modelling layer and solvers), and highspy (our
exact tie-break), whose versions the report names: session 15 measured the peer's joker-free
medians 10-65% above session 8's on a machine set up anew, versions then unrecorded
(referee/SOLVER.md)."""


def _versions() -> dict[str, str]:
    """Installed versions of :data:`_PEER_PACKAGES` (those installed)."""
    from importlib import metadata

    out = {}
    for name in _PEER_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def _loops() -> str:
    """Which search loops our solver runs: compiled or the pure-Python twins (and why)."""
    from referee.solver.compiled import WHICH

    return WHICH


def _agree_objective(row: dict[str, Any], objective: str) -> bool:
    """Our two modes reached the same objective value."""
    key = "count" if objective == "tiles" else "points"
    return bool(row["exact"][key] == row["fast"][key])


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _summarise(
    rows: list[dict[str, Any]], groups: list[tuple[str, Callable[[dict[str, Any]], bool]]], modes: list[str],
    objective: str,
) -> dict[str, dict[str, Any]]:
    """Per group of rows: median, 90th percentile and max milliseconds of each mode (first
    solves, and best of the repeats), counts checked, ratios of the peer's median to ours."""
    out: dict[str, dict[str, Any]] = {}
    for name, member in groups:
        sub = [r for r in rows if member(r)]
        if not sub:
            continue
        entry: dict[str, Any] = {"positions": len(sub)}
        for mode in modes:
            ms = [r[mode]["ms"] for r in sub]
            best = [r[mode]["best_ms"] for r in sub]
            entry[mode] = {
                "median_ms": statistics.median(ms), "p90_ms": _percentile(ms, 0.9), "max_ms": max(ms),
                "best_median_ms": statistics.median(best),
            }
        with_optimum = [r for r in sub if r["optimum"] is not None]
        if objective != "tiles":
            with_optimum = []  # (the recorded optimum counts tiles)
        entry["optimum_known"] = len(with_optimum)
        entry["fast_at_optimum"] = sum(r["fast"]["count"] == r["optimum"] for r in with_optimum)
        if "exact" in modes:
            entry["exact_agrees"] = sum(_agree_objective(r, objective) for r in sub)
            entry["exact_proven"] = sum(bool(r["exact"]["least"]) for r in sub)
            entry["moved_fast_mean"] = statistics.mean(r["fast"]["moved"] for r in sub)
            entry["moved_exact_mean"] = statistics.mean(r["exact"]["moved"] for r in sub)
        if "peer" in modes:
            entry["peer_agrees"] = sum(r["peer"]["count"] == r["fast"]["count"] for r in sub)
            peer_median = entry["peer"]["median_ms"]
            for mode in ("fast", "exact"):
                if mode in modes:
                    entry[f"ratio_{mode}"] = peer_median / entry[mode]["median_ms"]
                    entry[f"best_ratio_{mode}"] = entry["peer"]["best_median_ms"] / entry[mode]["best_median_ms"]
        out[name] = entry
    return out


def _print(report: dict[str, Any]) -> None:
    m = report["machine"]

    def loads(x: Any) -> str:
        return ", ".join(f"{v:.2f}" for v in x) if x else "unknown"

    print(f"machine: {m['processor']}, {m['cpus']} cores, Python {m['python']}, "
          f"load average {loads(m['load_average'])} before, {loads(m['load_average_after'])} after")
    print("packages: " + (", ".join(f"{k} {v}" for k, v in m["versions"].items()) or "none of the peer's"))
    print(f"our search loops: {m['loops']}")
    modes = report["modes"]
    print(f"objective {report['objective']}; each position solved once in each solver's warm process; "
          f"milliseconds of {report['clock']} time; ratio = peer median / ours")
    head = f"{'class':<20} {'n':>3}"
    for mode in modes:
        head += f" {mode + ' med':>10} {'p90':>7} {'max':>8}"
    if "peer" in modes:
        head += "".join(f" {'x ' + mode:>8}" for mode in modes if mode != "peer")
    head += f" {'checks':>10}"
    print()
    print(head)
    for name, e in report["classes"].items():
        line = f"{name:<20} {e['positions']:>3}"
        for mode in modes:
            line += f" {e[mode]['median_ms']:>10.2f} {e[mode]['p90_ms']:>7.1f} {e[mode]['max_ms']:>8.1f}"
        if "peer" in modes:
            line += "".join(f" {e['ratio_' + mode]:>7.1f}x" for mode in modes if mode != "peer")
        checks = f"{e['fast_at_optimum']}/{e['optimum_known']} opt" if e["optimum_known"] else "-"
        line += f" {checks:>10}"
        if "exact" in modes and e["exact_agrees"] != e["positions"]:
            line += f" exact count differs on {e['positions'] - e['exact_agrees']}"
        if "peer" in modes and e["peer_agrees"] != e["positions"]:
            line += f" peer differs on {e['positions'] - e['peer_agrees']}"
        print(line)
    if report["repeat"] > 1 and "peer" in modes:
        print()
        print(f"second figure: fastest of {report['repeat']} solves in a row of each position (warm from itself)")
        for name, e in report["classes"].items():
            line = f"{name:<20} {e['positions']:>3}"
            for mode in modes:
                line += f" {e[mode]['best_median_ms']:>10.2f}"
            line += "".join(f" {e['best_ratio_' + mode]:>7.1f}x" for mode in modes if mode != "peer")
            print(line)
    if "exact" in modes:
        print()
        print("tiles moved, mean per class (fast / exact), exact proven:")
        for name, e in report["classes"].items():
            if ", " not in name:
                print(f"  {name:<10} {e['moved_fast_mean']:.2f} / {e['moved_exact_mean']:.2f}, {e['exact_proven']}/{e['positions']}")
    for note in report["missing"]:
        print(f"not measured: {note} (the peer: pip install .[bench])")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; exit status 1 if our solver missed an optimum or its modes disagree."""
    parser = argparse.ArgumentParser(prog="python -m referee.tools.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=Path, default=DEFAULT_POSITIONS, help="shared positions JSON")
    parser.add_argument("--random", type=int, default=12, help="new random positions per size class and joker kind")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the random positions")
    parser.add_argument("--source", choices=("all", "shared", "random"), default="all", help="which positions")
    parser.add_argument("--objective", choices=("tiles", "points"), default="tiles", help="what both solvers maximise")
    parser.add_argument("--repeat", type=int, default=1, help="N > 1: also the fastest of N solves in a row (second figure)")
    parser.add_argument("--no-peer", action="store_true", help="measure only our solver")
    parser.add_argument("--no-exact", action="store_true", help="leave out our exact tie-break")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall (default) or cpu time")
    parser.add_argument("--only", default="", help="only positions whose id contains this text")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args(argv)
    positions: list[dict[str, Any]] = []
    if args.source in ("all", "shared"):
        if not args.positions.exists():
            print(f"positions file not found: {args.positions}", file=sys.stderr)
            return 2
        positions += load_positions(args.positions)
    if args.source in ("all", "random"):
        positions += random_positions(max(0, args.random), args.seed)
    positions = [p for p in positions if args.only in p["id"]]
    report = run(positions, repeat=max(1, args.repeat), peer=not args.no_peer, clock=args.clock,
                 exact=not args.no_exact, objective=args.objective, seed=args.seed)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print(report)
    bad = [r["id"] for r in report["positions"] if r["optimum"] is not None and args.objective == "tiles"
           and r["fast"]["count"] != r["optimum"]]
    bad += [r["id"] for r in report["positions"] if "exact" in r and not _agree_objective(r, args.objective)]
    if bad:
        print("missed the optimum or modes disagree: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
