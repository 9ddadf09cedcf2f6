"""The referee: a pure-Python Rummikub rules engine (docs/rules.md).

Everything here is standard library only and quick to import; the vision code and the web app
build on it, never the other way round. Checks return data (:class:`Verdict` with
:class:`Violation` items), never exceptions, for rules broken on the table; bad notation raises
:class:`TileError`.

>>> from referee import check_set, parse_tiles
>>> check_set(parse_tiles("R1 R2 J")).points
6

The best-move solver (``referee.solver.best_move``) and Rummikub Dice scoring
(``referee.dice.best_arrangement``) are imported only when first used. The one exception to the
standard library is the solver's opt-in exact tie-break (``tiebreak="exact"``, :mod:`referee.solver.least`),
which imports highspy (HiGHS) when it runs.
"""

from __future__ import annotations

from typing import Any

from referee.meld import OpeningVerdict, check_opening
from referee.penalties import Penalty, penalty_for_timeout
from referee.ruleset import PRESETS, MatchScoring, RuleSet, RuleSetError, TimeoutPenalty
from referee.scoring import GameScore, MatchSheet, ScoringError, rack_value, score_game
from referee.sets import SetKind, SetReading, SetVerdict, check_set
from referee.table import TableVerdict, check_table
from referee.tiles import (
    ALL_NUMBERED,
    JOKER,
    Colour,
    Tile,
    TileError,
    format_table,
    format_tiles,
    parse_table,
    parse_tile,
    parse_tiles,
)
from referee.turn import TurnVerdict, check_turn
from referee.verdict import Verdict, Violation

__all__ = [
    # tiles and notation (docs/rules.md section 1)
    "Colour",
    "Tile",
    "TileError",
    "JOKER",
    "ALL_NUMBERED",
    "parse_tile",
    "parse_tiles",
    "parse_table",
    "format_tiles",
    "format_table",
    # rule sets and variants
    "RuleSet",
    "RuleSetError",
    "TimeoutPenalty",
    "MatchScoring",
    "PRESETS",
    # verdicts
    "Verdict",
    "Violation",
    # sets and tables (section 2)
    "SetKind",
    "SetReading",
    "SetVerdict",
    "check_set",
    "TableVerdict",
    "check_table",
    # turns (sections 4, 5)
    "OpeningVerdict",
    "check_opening",
    "TurnVerdict",
    "check_turn",
    # time limit (section 6)
    "Penalty",
    "penalty_for_timeout",
    # scoring (section 7)
    "ScoringError",
    "GameScore",
    "MatchSheet",
    "score_game",
    "rack_value",
]
# Also available, imported on first use: ``best_move`` (referee.solver) and ``best_arrangement``
# (referee.dice). They are left out of __all__ so that ``from referee import *`` stays light.

_LAZY = {"best_move": "referee.solver", "best_arrangement": "referee.dice"}


def __getattr__(name: str) -> Any:
    # Module-level __getattr__ (PEP 562): the solver and the dice scorer load on first use, so
    # ``import referee`` stays fast.
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
