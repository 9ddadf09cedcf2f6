"""Public functions of the solver: :func:`best_move`, :func:`arrange` and the :class:`Move` they
return, with the opening and the exact tie-break."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.i18n import _, ngettext
from referee.ruleset import RuleSet
from referee.solver.inputs import (
    SolverError,
    TableInput,
    check_counts,
    coerce_tile,
    tile_counts,
    tile_indices,
    read_rack,
    read_table,
)
from referee.solver.passes import solve_plan, solve_points
from referee.solver.steps import Outcome, describe_change
from referee.solver.values import set_value
from referee.tiles import Tile, format_tiles, parse_tiles


OBJECTIVES = ("tiles", "points")
"""What :func:`best_move` maximises: rack tiles laid, or the points of the rack tiles laid."""

TIEBREAKS = ("estimate", "exact")
"""How :func:`best_move` chooses among moves laying as many tiles: "estimate" (the default, part
of the fast search) or "exact" (an integer programme afterwards, see :mod:`referee.solver.least`)."""


@dataclass(frozen=True)
class Move:
    """A best move: the whole new table and how to get there from the table as it lies."""

    count: int
    """Rack tiles laid (jokers from the rack included)."""
    points: int
    """Points of the rack tiles laid; a joker counts as the tile it stands for (RULES.md section 1).
    Before the opening this is the value of the initial meld."""
    placed: tuple[Tile, ...]
    """The rack tiles laid, sorted (colour K, B, O, R, then number; jokers last)."""
    sets: tuple[tuple[Tile, ...], ...]
    """The whole new table, one tuple per set, runs low to high, groups in colour order with
    jokers last. Set ``i`` here is numbered ``set_numbers[i]`` in :attr:`steps`."""
    steps: list[str]
    """What to do by hand, as sentences: table tiles moved between sets (old sets keep their
    numbers 1..n as given), then rack tiles added; new sets are numbered after the old ones."""
    moved: tuple[Tile, ...] = ()
    """Table tiles that end in a different set than the one they were in (empty when the table
    was given as a bare multiset, which has no sets to move between)."""
    set_numbers: tuple[int, ...] = ()
    """The number each set of :attr:`sets` goes by in :attr:`steps`."""
    objective: str = "tiles"
    """What was maximised: "tiles" or "points"."""
    opening: bool = False
    """True when this is an initial meld (player not yet opened): the table is untouched."""
    proven: bool = True
    """False only for the points objective on a table where trying every joker placement took
    too long: then this is the most-tiles move with its jokers where they are worth most, and
    a move worth more points may exist. The tiles objective is always exact."""
    least_moved: bool = False
    """True when no move laying as many rack tiles moves fewer table tiles: proven by the exact
    tie-break (``tiebreak="exact"``), or nothing moves. False: :attr:`moved` comes from the
    default tie-break's estimate and may not be the least (see ``referee/SOLVER.md``)."""
    tiebreak: str = "estimate"
    """The tie-break asked for: "estimate" or "exact" (see :func:`best_move`)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: count, points, placed (codes), sets (lists of codes), steps, moved,
        set_numbers, objective, opening, proven, least_moved, tiebreak."""
        return {
            "count": self.count,
            "points": self.points,
            "placed": [t.code for t in self.placed],
            "sets": [[t.code for t in s] for s in self.sets],
            "steps": list(self.steps),
            "moved": [t.code for t in self.moved],
            "set_numbers": list(self.set_numbers),
            "objective": self.objective,
            "opening": self.opening,
            "proven": self.proven,
            "least_moved": self.least_moved,
            "tiebreak": self.tiebreak,
        }

    def describe(self) -> str:
        """A few lines a player can read: what is laid, the steps, the new table."""
        lines = [
            ngettext(
                "Lay {count} tile from the rack ({points} points): {tiles}",
                "Lay {count} tiles from the rack ({points} points): {tiles}",
                self.count,
            ).format(count=self.count, points=self.points, tiles=format_tiles(self.placed))
        ]
        if self.tiebreak == "exact" and self.moved:
            lines.append(
                _("No move laying as many tiles moves fewer table tiles.") if self.least_moved
                else _("Not proven in time to move the fewest table tiles: this is the quick estimate.")
            )
        lines.extend(f"- {step}" for step in self.steps)
        lines.append(_("New table:"))
        for number, tiles in zip(self.set_numbers, self.sets):
            lines.append(_("set {number}: {tiles}").format(number=number, tiles=format_tiles(tiles)))
        return "\n".join(lines)


def best_move(
    table: TableInput,
    rack: Sequence[Tile] | str,
    rules: RuleSet = RuleSet.classic(),
    opened: bool = True,
    objective: str = "tiles",
    tiebreak: str = "estimate",
    time_limit: float = 10.0,
) -> Move | None:
    """The move that lays the most rack tiles (``objective="tiles"``) or the most points
    (``"points"``), or None when nothing can be laid.

    ``table``: the sets on the table (``[[R1, R2, R3], [K5, B5, O5]]`` or ``"R1 R2 R3 | K5 B5
    O5"``), or a bare multiset of tiles when the set boundaries are unknown. ``rack``: the
    player's tiles. Tiles may be :class:`Tile` values or codes.

    After the opening (RULES.md sections 4-5) the whole table may be rearranged; every table
    tile, jokers included, stays on the table; at least one rack tile must be laid. Before it
    (``opened=False``) only sets made from the rack count, together worth at least
    ``rules.opening_minimum``, jokers only if ``rules.jokers_in_opening``; the table is untouched.
    Among equally good moves the solver prefers one that moves few table tiles to another set
    (``Move.moved`` lists the tiles that do move). ``tiebreak="estimate"`` (the default) decides
    it inside the fast search, on an estimate (the depth-first searches try the choices that
    keep the table as it lies first, and a move laying every usable rack tile gets a short
    branch and bound on it): often the least, not always (figures in ``referee/SOLVER.md``).
    ``tiebreak="exact"`` (the default of the command line and the web app) then finds the
    move laying as many tiles (or points) that moves fewest, by the integer programme of
    :mod:`referee.solver.least` (highspy; figures in ``referee/SOLVER.md``); ``Move.least_moved`` says whether it was proven within ``time_limit``
    seconds (otherwise the estimate's move is returned). With the points objective that
    programme first looks for the most points and the fewest moved at once; where its branch
    and bound runs long, HiGHS's MIP solver takes it on a full table (40 tiles or more, with a
    rack joker), on a smaller one the same programme with the most-tiles move known, and otherwise the
    fast points search and the tie-break after it decide. With
    the estimate, the points search has a small budget (``_FAST_POINTS_BUDGET``) and where it
    runs out that same programme decides: the move is then proven and moves fewest.

    Raises :class:`SolverError` for more copies of a tile or more jokers than ``rules`` has, an
    unknown objective or tie-break, a table (after
    the opening) that no arrangement can make valid, with or without rack tiles (the message
    names the sets that are not valid as they lie), or something that is not a tile
    (:class:`~referee.tiles.TileError`).
    """
    if objective not in OBJECTIVES:
        raise SolverError(_('unknown objective "{objective}": choose "tiles" or "points"').format(objective=objective))
    if tiebreak not in TIEBREAKS:
        raise SolverError(_('unknown tie-break "{tiebreak}": choose "estimate" or "exact"').format(tiebreak=tiebreak))
    if not time_limit > 0:
        raise SolverError(_("the time limit must be a positive number of seconds, not {value}").format(value=time_limit))
    if not isinstance(rules, RuleSet):
        raise SolverError(_("rules must be a RuleSet, not {kind}").format(kind=type(rules).__name__))
    old_sets, table_tiles = read_table(table)
    rack_tiles = read_rack(rack)
    table_count = tile_counts(tile_indices(table_tiles))
    rack_count = tile_counts(tile_indices(rack_tiles))
    check_counts([a + b for a, b in zip(table_count, rack_count)], rules)
    if not opened:
        return _opening(old_sets, table_tiles, rack_count, rules, objective, tiebreak) if rack_tiles else None
    proven = True
    new_sets = None
    if rack_tiles and objective == "points" and tiebreak == "exact" and old_sets is not None:
        move = _most_points_least_moved(old_sets, table_tiles, rack_tiles, rules, time_limit)
        if move is not None:
            return move
    if rack_tiles and objective == "points":
        # The estimate's fast points search gets a small budget where the integer programme can
        # take over (the sets are known): a full table with rack jokers can keep it busy for
        # seconds, and the programme proves the most points (and the fewest moved) in a few
        # hundred milliseconds (referee/SOLVER.md, session 17).
        fallback = tiebreak == "estimate" and old_sets is not None
        solved_points = solve_points(table_count, rack_count, rules, old_sets,
                                     budget=_FAST_POINTS_BUDGET if fallback else None)
        if solved_points is not None:
            new_sets, _score, proven = solved_points
            if not proven and fallback:
                move = _most_points_least_moved(old_sets, table_tiles, rack_tiles, rules, time_limit)
                if move is not None:
                    return replace(move, tiebreak=tiebreak)
    elif rack_tiles:
        # (With the exact tie-break to follow, the estimate's own tie-break search is skipped.)
        exact = tiebreak == "exact" and old_sets is not None
        solved = solve_plan(table_count, rack_count, rules, objective, None, old_sets, need_move=True, improve=not exact)
        if solved is not None:
            new_sets, _score = solved
    if new_sets is None:
        _check_table_stands(old_sets, table_tiles, rules)  # no move, unless the table itself is wrong
        return None
    out = describe_change(old_sets, table_tiles, new_sets, rack_jokers_high=objective == "points")
    if not out.placed:
        return None
    least = not out.moved
    if tiebreak == "exact" and not least and old_sets is not None:
        out, least = _fewest_moved(out, old_sets, table_tiles, rack_tiles, rules, time_limit, objective)
    return _move(out, objective, proven, least, tiebreak)


def _move(out: Outcome, objective: str, proven: bool, least_moved: bool, tiebreak: str) -> Move:
    """The :class:`Move` that lays ``out`` (what :func:`describe_change` found)."""
    return Move(
        count=len(out.placed),
        points=out.points,
        placed=tuple(out.placed),
        sets=tuple(tuple(s) for s in out.sets),
        steps=out.steps,
        moved=tuple(out.moved),
        set_numbers=tuple(out.numbers),
        objective=objective,
        proven=proven,
        least_moved=least_moved,
        tiebreak=tiebreak,
    )


_FAST_POINTS_BUDGET = 50_000
"""States each programme of the estimate's points search may expand when the integer programme
can take over (see :func:`best_move`): about a tenth of a second here. Measured (session 17, the
joker positions of the shared set and 48 random ones, CPU time under load): the full budget
(400,000) worst 4.0 s (large-J-013), 100,000 worst 0.88 s, 50,000 worst 0.76 s and 25,000 0.62 s,
the programme giving the same or more points (it is exact) wherever the search ran out."""

_MOST_POINTS_RELAXATIONS = 24
"""Relaxations the points objective's one integer programme may solve (see
:func:`_most_points_least_moved`), counting the two a branching looks at, before the solver
takes the other way."""

_MOST_POINTS_RELAXATIONS_KNOWN = 60
"""The same on a full table (``_FIRST_MOVE_FROM`` tiles or more, the most-tiles move known from the
start). There the search starts again with ``least.CUT_ROUNDS_NO_POINT`` rounds of cuts after
``least.CUT_AFTER_KNOWN`` relaxations and the budget counts afresh from there, where a relaxation
closes in a few pivots, while the next try (HiGHS's MIP) costs seconds where 24 fall short. (Not
on the retry of smaller tables, ``_RETRY_WITH_MOVE``: there 60 rescued one position in 14 and
cost 50-350 ms on the others.) See ``referee/SOLVER.md``, session 20."""

_FIRST_MOVE_FROM = 40
"""Table tiles from which the points objective's programme starts from the most-tiles move
(with a rack joker). Measured (session 7, the benchmark's mid and mid_r24 positions with
jokers): without it medians 34 and 64 ms, with it 37 and 71 ms."""


_FULL_RESERVE_FROM = 4
"""On a full table (``_FIRST_MOVE_FROM`` tiles or more, the most-tiles move known: a rack joker, or
jokers on the table only, see ``least._TABLE_JOKERS_SET_BY_SET``), the most-points programme starts
without every set with a joker of this many tiles or more (groups of four and runs of four and five
with a joker too, not only the long runs of ``least._RESERVE_FROM``), each brought in where the root's
duals say it could help or the bound after the search cannot rule it out (``least._places_search``):
the same answers from a relaxation about a third the size. Measured (session 24, the random full
tables with jokers of seeds 11-16, 360 positions, one process, both ways per position in turn, CPU,
load about 4): HiGHS's simplex iterations 427,238 -> 273,984, runs 2,134 -> 2,211; sums 54.7 -> 35.7
s, over 300 ms 29 -> 8, worst 1,236 -> 401 ms; the same points, tiles moved and proofs on every
position. With 5, iterations -17% on seed 11 (-34% with 4); with 3, +19%. Not on the mid tables:
there the search runs past its relaxations more often (random-mid_r24-J-002 of seed 13 0.14 -> 3.1 s
and not proven). See ``referee/SOLVER.md``, session 24."""

_MID_FIRST_MOVE_FROM = 20
"""Table tiles from which the points objective's programme starts from the most-tiles move on a
table under ``_FIRST_MOVE_FROM`` tiles too (a cut-off, the sets priced in, the full tables' cut
point and rounds; its ``_MOST_POINTS_RELAXATIONS``, then the fast points search decides, without
HiGHS's MIP), instead of trying first without it (``_RETRY_WITH_MOVE``, which stays for smaller
tables). Measured (session 22, the mid and mid_r24 tables with jokers of the benchmark and of
random seeds 11-13, 434 positions, one process, both ways in turn): HiGHS's simplex iterations
402,473 -> 348,021 (-14%), over 300 ms 13 -> 9; mid-J-018 442 -> 140-158 ms. The small tables
(9-12 tiles) stay as they were: there the move costs more than it saves (97 positions with jokers:
runs + 25 iterations a run, geometric mean +4%; 0.8 -> 0.9 s). See ``referee/SOLVER.md``."""

_FIRST_MOVE_TABLE_JOKERS = True
"""Whether the points objective's programme starts from the most-tiles move on a table of
``_FIRST_MOVE_FROM`` tiles or more also where the jokers all lie on the table (none on the rack:
the programme without joker places, its branch and bound with a cut-off, cuts after
``least.CUT_AFTER_KNOWN`` relaxations). Measured (session 19, the large tables with jokers of the
benchmark and of random seed 11 without a rack joker, paired): random ones worst 440-641 ms ->
210-266 ms (random-large-J-030), sums -10 to -14%; the benchmark's 11 within the noise (the move
found without the fast mode's tie-break search: 1-2 ms; with it their sum was 10% higher). See
``referee/SOLVER.md``."""


_RETRY_WITH_MOVE = True
"""Whether the points objective's programme, where its branch and bound runs long on a table of
fewer than ``_MID_FIRST_MOVE_FROM`` tiles (no move known; sessions 20-21: under ``_FIRST_MOVE_FROM``),
tries again with the most-tiles move known (its cut-off: the programme's sets priced in, cuts after ``least.CUT_AFTER_KNOWN`` relaxations,
``least.CUT_ROUNDS_NO_POINT`` rounds where no better point is found) before the fast points search
decides; False: again with every joker place and no move known (sessions 8-19). A third try with
both rescued 1 position in 7 and cost 80-370 ms on the others. See ``referee/SOLVER.md``, session 20."""


def _most_points_least_moved(
    old_sets: list[list[Tile]], table_tiles: list[Tile], rack: list[Tile], rules: RuleSet, time_limit: float
) -> Move | None:
    """The points objective with the exact tie-break in one integer programme: the most points,
    then the fewest table tiles moved (:func:`~referee.solver.least.least_arrangement` with
    ``most_points``), both proven. With a rack joker, where its branch and bound needs more than
    ``_MOST_POINTS_RELAXATIONS`` relaxations, a second try: HiGHS's MIP solver on a table of
    ``_FIRST_MOVE_FROM`` tiles or more (the most-tiles move its cut-off); none on a table of
    ``_MID_FIRST_MOVE_FROM`` tiles or more (the most-tiles move known from the start there too); on
    a smaller one our branch and bound again with the most-tiles move known (``_RETRY_WITH_MOVE``;
    every joker place without it). None when that runs long too, or nothing is laid:
    then the fast points search and the tie-break after it decide. Measured on the large tables with jokers (the rack's
    jokers make the fast points search slow there): see ``referee/SOLVER.md``."""
    from referee.solver.least import least_arrangement  # highspy, only when asked for

    # With a joker on the rack and a table of 20 tiles or more, the most-tiles move (a few
    # milliseconds) is a first move for the programme: every node that cannot score more, or as
    # much keeping more, is closed at once. (Without a rack joker the programme is small and
    # rarely branches. On tables of 28-33 tiles it cost 10% at the medians in session 7, see
    # _FIRST_MOVE_FROM; since session 22 it pays there too, see _MID_FIRST_MOVE_FROM.)
    rack_joker = any(t.is_joker for t in rack)
    # (Also with jokers on the table only, see _FIRST_MOVE_TABLE_JOKERS.)
    table_joker = _FIRST_MOVE_TABLE_JOKERS and any(t.is_joker for t in table_tiles)

    def most_tiles_move() -> Outcome | None:
        table_count = tile_counts(tile_indices(table_tiles))
        rack_count = tile_counts(tile_indices(rack))
        # (With the jokers on the table only, without the fast mode's tie-break search: 1-2 ms
        # instead of 2-30 on a first solve, see _FIRST_MOVE_TABLE_JOKERS.)
        solved = solve_plan(
            table_count, rack_count, rules, "tiles", None, old_sets, need_move=True, improve=rack_joker,
        )
        move = None if solved is None else describe_change(old_sets, table_tiles, solved[0], rack_jokers_high=True)
        return move if move is not None and move.placed else None

    # (Also on the mid tables, see _MID_FIRST_MOVE_FROM; past its relaxations the fast points
    # search decides there, not HiGHS's MIP.)
    from_tiles = min(_FIRST_MOVE_FROM, _MID_FIRST_MOVE_FROM)
    first = most_tiles_move() if (rack_joker or table_joker) and len(table_tiles) >= from_tiles else None
    full = first is not None and len(table_tiles) >= _FIRST_MOVE_FROM  # (a full table)
    start = time.perf_counter()
    # Our branch and bound on a set's joker places worth most first. Where it runs long: on a
    # full table (the most-tiles move known, a cut-off) HiGHS's MIP solver on the same
    # programme (its root cuts close the gap our branching cannot: large-J-014 934 -> 501 ms,
    # session 8); on the mid tables (the move known from the start too) nothing more; on smaller
    # tables (no move known) the same programme again with the most-tiles move known (its
    # cut-off, the sets priced in, the full tables' cut point and rounds: see _RETRY_WITH_MOVE),
    # then with every joker place too (the same optimum, and the searches run long on different
    # tables).
    if not rack_joker:
        tries = [(False, False, False)]
    elif full:
        tries = [(False, False, False), (True, False, False)]
    elif first is not None:
        tries = [(False, False, False)]
    elif _RETRY_WITH_MOVE:
        tries = [(False, False, False), (False, False, True)]
    else:
        tries = [(False, False, False), (False, True, False)]
    found = None
    for mip, every_place, with_move in tries:
        if with_move and first is None:
            first = most_tiles_move()
            if first is None:
                break
        found = least_arrangement(
            old_sets, rack, rules, most_points=True, time_limit=time_limit - (time.perf_counter() - start),
            relaxations=_MOST_POINTS_RELAXATIONS_KNOWN if full else _MOST_POINTS_RELAXATIONS,
            every_place=every_place, mip=mip,
            known=None if first is None else len(table_tiles) - len(first.moved),
            known_points=None if first is None else first.points,
            reserve_from=_FULL_RESERVE_FROM if full else None,
        )
        if found is not None:
            break
    if found is not None and not found.sets and first is not None and found.points == first.points:
        return _move(first, "points", proven=True, least_moved=True, tiebreak="exact")  # nothing does better
    if found is None or not found.sets or not found.count:
        return None
    out = describe_change(old_sets, table_tiles, [list(s) for s in found.sets], rack_jokers_high=True)
    if not out.placed or out.points != found.points or len(out.moved) != found.moved:
        return None  # (never seen: the move's own reading disagrees; the other way decides)
    return _move(out, "points", proven=True, least_moved=True, tiebreak="exact")


def _fewest_moved(
    out: Outcome, old_sets: list[list[Tile]], table_tiles: list[Tile], rack: list[Tile], rules: RuleSet,
    time_limit: float, objective: str,
) -> tuple[Outcome, bool]:
    """The exact tie-break: the arrangement laying as many rack tiles as ``out`` (or as many
    points, for the points objective) that moves fewest table tiles, and whether that is proven
    (False when HiGHS ran out of time: then ``out`` as it was)."""
    from referee.solver.least import least_arrangement  # highspy, only when asked for

    pts = objective == "points"
    # The fast search's move keeps this many tiles in their set: nodes that cannot keep more
    # are closed at once. For points too: the programme may put the rack's jokers on any joker
    # places that give the move's points, the places describe_change gives them among them,
    # so it counts at least as many kept for this move as the move does.
    known = len(table_tiles) - len(out.moved)
    if pts:
        found = least_arrangement(old_sets, rack, rules, points=out.points, time_limit=time_limit, known=known)
    else:
        found = least_arrangement(old_sets, rack, rules, count=len(out.placed), time_limit=time_limit, known=known)
    if found is None:
        return out, False
    if found.moved < len(out.moved):
        exact = describe_change(old_sets, table_tiles, [list(s) for s in found.sets], rack_jokers_high=pts)
        # (For points the programme holds the points, counted as the move counts them; a move
        # worth more than one not proven best is left alone, not mixed into the tie-break.)
        if len(exact.moved) < len(out.moved) and (not pts or exact.points == out.points):
            out = exact
    return out, len(out.moved) == found.moved


def _check_table_stands(old_sets: list[list[Tile]] | None, table_tiles: list[Tile], rules: RuleSet) -> None:
    """When no move lays a rack tile: raise :class:`SolverError` if the table itself cannot be
    arranged into valid sets (then no rack tile can mend it either, or there would be a move),
    naming the sets that are not valid as they lie; "no move" would hide that the table is wrong."""
    if not table_tiles or arrange(table_tiles, rules) is not None:
        return
    message = _("the table cannot be made valid: no arrangement of its tiles, with or without tiles from the rack, "
                "is made of valid sets only")
    if old_sets is not None:
        from referee.sets import check_sets  # only on this error path

        _verdicts, problems = check_sets(old_sets, rules)
        if problems:
            message += " (" + "; ".join(p.message for p in problems) + ")"
    raise SolverError(message)


def _opening(
    old_sets: list[list[Tile]] | None, table_tiles: list[Tile], rack: list[int], rules: RuleSet, objective: str,
    tiebreak: str,
) -> Move | None:
    """Initial meld (RULES.md section 4): sets from the rack alone, worth the minimum together."""
    if not rules.jokers_in_opening:
        rack = [*rack[:52], 0]  # variant 003: no joker in the initial meld
    # The opening minimum needs every joker placement (a joker's worth depends on where it lies).
    solved = solve_plan([0] * 53, rack, rules, objective, max(rules.opening_minimum, 1), None, need_move=True)
    if solved is None:
        return None
    meld, _score = solved
    if old_sets is None:
        arranged = arrange(table_tiles, rules) if table_tiles else []
        if arranged is None:
            raise SolverError(
                _("the table tiles {tiles} cannot be arranged into valid sets").format(tiles=format_tiles(sorted(table_tiles)))
            )
        old_sets = arranged
    old = [list(s) for s in old_sets]
    numbers = list(range(1, len(old) + len(meld) + 1))
    steps = [
        _("add {tiles} from the rack to set {target}").format(tiles=format_tiles(s), target=len(old) + i + 1)
        for i, s in enumerate(meld)
    ]
    placed = sorted(t for s in meld for t in s)
    return Move(
        count=len(placed),
        points=sum(set_value(s) for s in meld),
        placed=tuple(placed),
        sets=tuple(tuple(s) for s in old + meld),
        steps=steps,
        moved=(),
        set_numbers=tuple(numbers),
        objective=objective,
        opening=True,
        least_moved=True,  # the table is untouched
        tiebreak=tiebreak,
    )


def arrange(tiles: Sequence[Tile] | str, rules: RuleSet = RuleSet.classic()) -> list[list[Tile]] | None:
    """Can these tiles, all of them, be laid as valid sets (RULES.md section 2)? One such
    arrangement, or None. Jokers must be used too. Raises :class:`SolverError` for more copies
    of a tile or more jokers than ``rules`` has."""
    items = parse_tiles(tiles) if isinstance(tiles, str) else [coerce_tile(t) for t in tiles]
    counts = tile_counts(tile_indices(items))
    check_counts(counts, rules)
    if not items:
        return []
    solved = solve_plan(counts, [0] * 53, rules, "tiles", None, None, need_move=False)
    if solved is None:
        return None
    return solved[0]
