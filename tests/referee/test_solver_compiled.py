"""The search loops' compiled twin (referee/solver/_search0.c) against their pure-Python
specification (referee/solver/search0.py), and the guard that keeps a stale build out."""

from __future__ import annotations

import os
import re
import sys
import warnings
from pathlib import Path

import pytest

from referee.ruleset import RuleSet
from referee.solver import best_move, compiled
from referee.solver.inputs import tile_counts, tile_indices
from referee.solver.options import NEG, group_joker_floor
from referee.solver.programme import Programme
from referee.solver.search0 import need_tables, search0, search_jokers
from referee.solver.state import CLOSED, GROW0, IDLE, LEAN_JG
from referee.tiles import parse_tiles
from referee.tools.bench import load_positions, random_positions


def _built():
    """The compiled module when it is built and current (whatever RUMMIKUB_SOLVER_PURE says), else None."""
    saved = os.environ.pop("RUMMIKUB_SOLVER_PURE", None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loop, _jokers, _needs, _which = compiled._load()
    finally:
        if saved is not None:
            os.environ["RUMMIKUB_SOLVER_PURE"] = saved
    return None if loop is search0 else sys.modules["referee.solver._search0"]


def test_c_source_carries_the_twins_digest() -> None:
    """search0.py changed without _search0.c (or the other way): write the change into both and
    the new digest (``compiled.twin_digest()``) into the C file."""
    text = compiled.C_SOURCE.read_text(encoding="utf-8")
    found = re.search(r'#define TWIN_SHA256 "([0-9a-f]{64})"', text)
    assert found, "no TWIN_SHA256 in _search0.c"
    assert found.group(1) == compiled.twin_digest()


def _joker_free(positions: list[dict]) -> list[dict]:
    return [p for p in positions if not any("J" in s for s in p["table_melds"]) and "J" not in p["rack"]]


@pytest.mark.skipif(_built() is None, reason="the compiled loop is not built here (no C compiler): the twin runs")
def test_compiled_loop_matches_the_twin_step_for_step() -> None:
    """Same answer (how it ended, steps left, score, details) for every slack, stop and budget,
    budgets cutting the search at many points, on shared and random joker-free positions."""
    fast = _built().search0
    rules = RuleSet.classic()
    positions = _joker_free(load_positions())[::4] + _joker_free(random_positions(4, 31))
    checked = 0
    for p in positions:
        table = [parse_tiles(s) for s in p["table_melds"]]
        prog = Programme(
            tile_counts(tile_indices([t for s in table for t in s])), tile_counts(tile_indices(parse_tiles(p["rack"]))),
            rules, "tiles", None, table,
        )
        hb = prog.bounds()
        top = sum(hb[c][0].get(0, NEG) for c in range(4))
        for budget in (1, 7, 40, 20000):
            for slack, stop in ((top - 1, 0), (top - 1, top - 1), (1, 0)):
                args = (prog.idle, LEAN_JG, GROW0, CLOSED, prog._options, hb, group_joker_floor, prog.rest_avail, IDLE,
                        slack, stop, budget)
                assert fast(*args) == search0(*args), (p["id"], budget, slack, stop)
                checked += 1
    assert checked >= 300


@pytest.mark.skipif(_built() is None, reason="the compiled loop is not built here (no C compiler): the twin runs")
def test_compiled_joker_loop_matches_the_twin_step_for_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """With jokers: the same answer and the same dead ends left in the programme's table, for
    searches with and without the joker needs, one after the other on one programme (the later
    ones read the earlier ones' dead ends), budgets cutting them at many points."""
    import referee.solver.depth as depth

    fast = _built().search_jokers
    checked = []

    def both(*args):
        dead = args[13]
        mine, theirs = dict(dead), dict(dead)
        got = search_jokers(*args[:13], mine, *args[14:])
        assert fast(*args[:13], theirs, *args[14:]) == got
        assert mine == theirs
        dead.update(mine)
        checked.append(1)
        return got

    monkeypatch.setattr(depth, "SEARCH_JOKERS", both)
    rules = RuleSet.classic()
    with_jokers = [p for p in load_positions()[::6] + random_positions(2, 37) if p not in _joker_free([p])]
    for p in with_jokers:
        table = [parse_tiles(s) for s in p["table_melds"]]
        counts = tile_counts(tile_indices([t for s in table for t in s])), tile_counts(tile_indices(parse_tiles(p["rack"])))
        for budget in (1, 9, 60, 20000):
            prog = Programme(*counts, rules, "tiles", None, table)
            bound = prog.ub[1] + prog.lean_bonus
            prog.search(bound - 1, budget)
            prog.joker_needs(bound - 1)
            prog.search(bound - 1, budget, stop=0)
            prog.search(1, budget, stop=0)
    assert len(checked) >= 300


@pytest.mark.skipif(_built() is None, reason="the compiled loop is not built here (no C compiler): the twin runs")
def test_compiled_joker_needs_match_the_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The joker needs' tables alike, classic and XP (up to four jokers), each side computing
    cells new to the shared tables in turn (the compiled side first every other time)."""
    import referee.solver.bounds as bounds

    fast = _built().need_tables
    calls = []

    def both(*args):
        calls.append(1)
        if len(calls) % 2:
            theirs = fast(*args)
            mine = need_tables(*args)
        else:
            mine = need_tables(*args)
            theirs = fast(*args)
        assert theirs == mine
        return mine

    monkeypatch.setattr(bounds, "NEED_TABLES", both)
    for p in load_positions()[::3] + random_positions(3, 41):
        best_move([parse_tiles(s) for s in p["table_melds"]], parse_tiles(p["rack"]), rules=RuleSet.classic())
    xp = RuleSet.xp()
    for table, rack in (
        ("R1 R2 R3 | K5 B5 O5 | B9 B10 B11 B12", "J J J R4 K6 O9 O13"),
        ("K1 K2 K3 K4 | O7 R7 B7", "J J J J B1 B2 R5 R6 O12"),
        ("", "J J K3 K4 B3 B4 R11 R12 R13"),
    ):
        best_move(table, rack, rules=xp)
    assert len(calls) >= 40


@pytest.mark.skipif(_built() is None, reason="the compiled loop is not built here (no C compiler): the twin runs")
def test_best_move_is_the_same_with_either_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.solver.depth as depth

    rules = RuleSet.classic()
    positions = random_positions(3, 47)
    got = []
    import referee.solver.bounds as bounds

    built = _built()
    for loops in ((search0, search_jokers, need_tables), (built.search0, built.search_jokers, built.need_tables)):
        monkeypatch.setattr(depth, "SEARCH0", loops[0])
        monkeypatch.setattr(depth, "SEARCH_JOKERS", loops[1])
        monkeypatch.setattr(bounds, "NEED_TABLES", loops[2])
        got.append([
            best_move([parse_tiles(s) for s in p["table_melds"]], parse_tiles(p["rack"]), rules=rules) for p in positions
        ])
    assert got[0] == got[1]


def test_stale_builds_are_not_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A build for another twin, for other constants, or older than its C source, falls back to
    the twin, saying so; so does RUMMIKUB_SOLVER_PURE."""
    monkeypatch.delenv("RUMMIKUB_SOLVER_PURE", raising=False)
    built = _built()
    if built is None:
        loop, _jokers, _needs, _which = compiled._load()
        assert loop is search0
    else:
        with monkeypatch.context() as m:
            m.setattr(compiled, "twin_digest", lambda: "0" * 64)
            with pytest.warns(RuntimeWarning, match="another version"):
                loop, _jokers, _needs, which = compiled._load()
            assert loop is search0 and "stale" in which
        with monkeypatch.context() as m:
            other = {**compiled.constants(), "P_SHIFT": 23}
            m.setattr(compiled, "constants", lambda: other)
            with pytest.warns(RuntimeWarning, match="constants"):
                loop, _jokers, _needs, which = compiled._load()
            assert loop is search0 and "constants" in which
        newer = tmp_path / "_search0.c"
        newer.write_text("/* edited */\n")
        so_time = os.stat(built.__file__).st_mtime
        os.utime(newer, (so_time + 60, so_time + 60))
        with monkeypatch.context() as m:
            m.setattr(compiled, "C_SOURCE", newer)
            with pytest.warns(RuntimeWarning, match="older than"):
                loop, _jokers, _needs, which = compiled._load()
            assert loop is search0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            loop, _jokers, _needs, which = compiled._load()
        assert loop is built.search0 and which.startswith("compiled")
    monkeypatch.setenv("RUMMIKUB_SOLVER_PURE", "1")
    loop, _jokers, _needs, which = compiled._load()
    assert loop is search0 and "RUMMIKUB_SOLVER_PURE" in which
