"""The passes that settle a position: which searches run in which order (joker-free, with jokers,
points), their budgets, and the fall-back to every joker placement."""

from __future__ import annotations

from collections.abc import Sequence

from referee.ruleset import RuleSet
from referee.solver.build import build_sets, lay_spare_jokers
from referee.solver.inputs import tile_counts, tile_indices
from referee.solver.options import NEG
from referee.solver.programme import Programme
from referee.solver.state import P_SHIFT, OutOfBudget, Plan
from referee.solver.values import joker_values
from referee.tiles import Tile


def solve_plan(
    table: Sequence[int], rack: Sequence[int], rules: RuleSet, objective: str, minimum: int | None,
    old_sets: list[list[Tile]] | None, need_move: bool, floor: int = 0, budget: int | None = None,
    improve: bool = True,
) -> tuple[list[list[Tile]], int] | None:
    """Best new arrangement of table + some rack tiles, and its primary score; None if none
    (or, with ``floor``, none scoring at least that much). ``improve=False`` leaves out the
    tie-break branch and bound (the exact tie-break follows and decides instead)."""
    prog = Programme(table, rack, rules, objective, minimum, old_sets)
    prog.improve_ties = improve
    plan = _run_passes(prog, need_move, floor, budget)
    if plan is not None and prog.lean:
        sets = build_sets(prog, plan, old_sets)
        placed_j = sum(t.colour is None for s in sets for t in s) if prog.jtot else 0
        if lay_spare_jokers(sets, prog.jtot - placed_j, old_sets if objective == "tiles" else None):
            return sets, plan.score >> P_SHIFT
        if objective == "points":
            return None  # solve_points takes another way
        # No set has room for a spare joker: solve again with every joker placement.
        prog = Programme(table, rack, rules, objective, minimum, old_sets, lean=False)
        plan = _run_passes(prog, need_move)
    if plan is None:
        return None
    return build_sets(prog, plan, old_sets), plan.score >> P_SHIFT


_IMPROVE_FROM = 30
"""The branch and bound for keeping more of the table may spend 0.6 * (table tiles - this)^2
steps on a position with jokers: nothing on tables of 30 tiles or fewer, about 1,000 on a large
table of 70; none on joker-free positions, nor when the exact tie-break follows (it finds the
least either way). Why these numbers: referee/SOLVER.md, "Tie-break" and "Methods measured and
dropped"."""


def _improve_budget(prog: Programme) -> int:
    """Steps of tie-break branch and bound for this programme's table (see _IMPROVE_FROM)."""
    if not prog.improve_ties or not prog.jtot:
        return 0
    over = max(0, prog.table_size - _IMPROVE_FROM)
    return over * over * 3 // 5


_NEED_FIRST_FROM, _NEED_FIRST_BELOW = 16, 64
"""Positions with jokers of this many tiles (table tiles, usable rack tiles and rack jokers) get
the joker needs before the first plan; smaller and larger ones the first plan first (measured:
referee/SOLVER.md, "Joker needs first")."""

_RELAXED_BUDGET = 20000
"""Steps the depth-first passes against the relaxed bound may take in all (joker-free
positions) before the breadth-first programme settles the position."""

_CLIMB_BUDGET = 20000
"""Steps a depth-first search may take while climbing (measured: 5,000 and 50,000 both slower)."""


def _points_value(sets: list[list[Tile]], table: Sequence[int], rack: Sequence[int]) -> int:
    """Points of the rack tiles in ``sets``, the rack's jokers at the joker places worth most
    (the points programme's own measure)."""
    laid = tile_counts(tile_indices(t for s in sets for t in s))
    value = sum((laid[x] - table[x]) * (x % 13 + 1) for x in range(52))
    jokers = sorted((v for s in sets for v in joker_values(s)), reverse=True)
    return value + sum(jokers[: max(0, laid[52] - table[52])])


_POINTS_BUDGET = 400_000
"""States each points programme may expand (a second or so here) before it settles."""


def solve_points(
    table: Sequence[int], rack: Sequence[int], rules: RuleSet, old_sets: list[list[Tile]] | None,
    budget: int | None = None,
) -> tuple[list[list[Tile]], int, bool] | None:
    """Most points (RULES.md section 1: a joker is worth the tile it stands for).

    First with lean jokers (fast): rack jokers a set needs score what they stand for, spare ones
    13 each, the most they can be worth, so the programme's best is an upper bound; laying the
    spare jokers where they are worth most gives a move and a floor. Lean arrangements lose
    nothing for points (a joker a set can do without is worth at least as much at the top of the
    run it leaves, or stays fourth in its group), so when floor and bound meet the move is the
    best. Otherwise the programme in tails mode (every such joker place) looks only for better,
    within a budget (``budget`` states each programme may expand; default ``_POINTS_BUDGET``).

    Returns (sets, points, proven); proven is False when a programme ran out of budget and the
    floor's move is returned."""
    budget = _POINTS_BUDGET if budget is None else budget
    # The most-tiles move (fast) is a lean arrangement worth at least its points to the lean
    # programme: a target that prunes it hard.
    tiles_move = solve_plan(table, rack, rules, "tiles", None, old_sets, need_move=True)
    start = _points_value(tiles_move[0], table, rack) if tiles_move is not None else 0
    # Every usable rack tile laid and every rack joker worth 13: nothing can do better.
    usable = Programme(table, rack, rules, "points", None, None)
    most = usable.ub[1] + 13 * rack[52]
    if tiles_move is not None and start >= most:
        return tiles_move[0], start, True
    laid_all = tiles_move is not None and tiles_move[1] >= sum(map(sum, usable.r)) + rack[52]
    try:
        # Aiming at that best first prunes hardest, and on a full table it is usually met.
        if laid_all:  # (if a rack tile cannot be laid, neither can that best)
            top = solve_plan(table, rack, rules, "points", None, old_sets, need_move=True, floor=most, budget=budget)
            if top is not None and _points_value(top[0], table, rack) >= most:
                return top[0], most, True
        floor_move = solve_plan(
            table, rack, rules, "points", None, old_sets, need_move=True, floor=start, budget=budget
        )
    except OutOfBudget:
        return (tiles_move[0], start, False) if tiles_move is not None else None
    if floor_move is None:  # only jokers fit, or no room for a spare joker
        floor_move = tiles_move
        bound = None
    else:
        bound = floor_move[1]
    floor = _points_value(floor_move[0], table, rack) if floor_move is not None else 0
    if floor_move is not None and bound is not None and floor >= bound:
        return floor_move[0], floor, True
    prog = Programme(table, rack, rules, "points", None, old_sets, lean=False, tails=True)
    try:
        plan = prog.solve(floor + 1, budget=budget)
    except OutOfBudget:
        # Every joker place on a big table with jokers can take seconds: settle for the floor,
        # said so in Move.proven.
        return (floor_move[0], floor, False) if floor_move is not None else None
    if plan is not None:
        return build_sets(prog, plan, old_sets), plan.score >> P_SHIFT, True
    return (floor_move[0], floor, True) if floor_move is not None else None


def _run_passes(prog: Programme, need_move: bool, floor: int = 0, budget: int | None = None) -> Plan | None:
    """The optimum plan (see the module docstring for the passes)."""
    low = 1 if need_move else 0
    if not prog.lean or prog.objective == "points":
        return prog.solve(max(low, floor), budget=budget)
    if not prog.jtot:
        return _joker_free_passes(prog, low)
    bound = prog.ub[1] + prog.lean_bonus
    # With jokers: one depth-first search, branch and bound, from a first plan (its option
    # order makes it a good one) to ever better ones, pruned by the joker needs; the first
    # target it cannot reach is settled exactly by it running out of options or, past its
    # budget, by the breadth-first programme pruned to that target. On most positions the
    # joker needs come first (a fraction of a millisecond, and the first plan is rarely the
    # best); on a big table, and on a tiny position, the first plan comes first, without them
    # (see _NEED_FIRST_FROM).
    best, value = None, low - 1
    if not _NEED_FIRST_FROM <= prog.table_size + bound < _NEED_FIRST_BELOW:
        best = prog.search(bound - low, _CLIMB_BUDGET)
        if best is not None:
            value = best.score >> P_SHIFT
        elif prog.search_complete:
            return None
    if value < bound:
        need = prog.joker_needs(bound - low)
        # Leaving out k tiles in all leaves out at most k of each colour: where even that
        # needs more jokers than there are, no plan leaves out k or fewer.
        k = 0
        while k <= bound - low and sum(need[c][0][0][k] for c in range(4)) > 2 * prog.jtot:
            k += 1
        if value < bound - k:
            found = prog.search(bound - value - 1, _CLIMB_BUDGET, stop=k)
            if found is not None:
                best, value = found, found.score >> P_SHIFT
            if not prog.search_complete:
                exact = prog.solve(value + 1)
                if exact is not None:
                    best, value = exact, exact.score >> P_SHIFT
    if best is not None and value == bound and _improve_budget(prog):
        # Every usable rack tile laid: a short branch and bound for a plan that keeps more
        # of the table as it lies.
        best = prog.improve(best, _improve_budget(prog))
    return best if best is not None and (best.score >> P_SHIFT) >= low else None


def _joker_free_passes(prog: Programme, low: int) -> Plan | None:
    """Joker-free positions: one depth-first search, branch and bound, with misses measured
    against the relaxed bound (:meth:`Programme.bounds`): a first plan (options that lose
    least against the bound tried first, so on a full table this is usually already the plan
    laying every usable tile), then on from there to plans leaving out fewer tiles than the
    last, until the options run out (the last plan found is the best) or a plan meets the
    bound. (No tie-break branch and bound here: see _IMPROVE_FROM.)"""
    hb = prog.bounds()
    top = sum(hb[c][0].get(0, NEG) for c in range(4))
    if top < low:
        return None
    best = prog.search(top - low, _RELAXED_BUDGET, relaxed=True, stop=0)
    if not prog.search_complete:
        # Past the budget: the breadth-first programme, pruned by the relaxed bound.
        return prog.solve(low if best is None else best.score >> P_SHIFT, use_h=True)
    return best
