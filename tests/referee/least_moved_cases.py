"""Positions whose exact tie-break is known: the most rack tiles, and the fewest table tiles any
move laying that many moves to another set (docs/rules.md sections 2, 4, 5). Each least was found by
``referee.tools.tiebreak_check`` (an integer programme over every valid set) and is checked again
against it in ``test_tiebreak_check.py`` when SciPy is there; ``test_solver.py`` pins the solver
to it.

Rows: (table, rack, tiles laid, least moved, why the row is here).
"""

from __future__ import annotations

SOLVER_REACHES_LEAST = [
    ("R1 R2 R3 | R4 R5 R6 | K5 B5 O5", "R7 R5", 2, 0, "extend two runs instead of rebuilding"),
    ("K1 K2 K3 K4 K5 K6 K7", "B4 O4", 2, 4, "K4 to a group: one end of the run moves too"),
    ("R1 R2 R3 R4 R5 R6 | R4 R5 R6 R7 R8", "R9 R10", 2, 0, "no cut through an old run held whole"),
    ("O9 O10 O11 O12 | B5 K5 R5 J", "O13 R10", 1, 0, "a spare joker goes back to its group"),
    ("K3 K4 K5 K6 K7 K8 | K3 K4 K5 K6 | B5 O5 R5", "K2 O4 O6", 3, 4, "best matching, not greedy"),
    ("K3 K4 K5 | R7 K7 B7 J", "K6 O3", 2, 2, "K3 and the joker leave for K3 O3 J"),
    ("R3 R4 J R6 | R1 K1 O1", "K3 B3", 2, 1, "R3 leaves its run for a group"),
    ("B8 B9 B10 J | K1 R1 B1", "B2 R2", 2, 1, "the run's spare joker makes B2 R2 J"),
    ("O5 O6 O7 | K6 K7 K8 K9", "O4 K7 J", 3, 1, "O7 leaves its run for K7 O7 J"),
    ("O9 O10 O11 | K5 K6 K7 K8 K9", "K7 O7", 1, 2, "a second K7 cuts the run in two: K8 K9 move"),
    ("K6 K7 K8 K9 K10 K11 K12 | K5 B5 O5 R5", "K3 K4 K9 K10 K11", 5, 1, "K3-K12 then cut at K6: that run keeps K12"),
]
"""Positions where :func:`referee.solver.best_move` moves exactly the least."""

SOLVER_MISSES_LEAST = [
    ("B5 R5 O5 | O3 O4 J", "O4 R3 O3 O6", 1, 0, "lean jokers: a joker never stands for a tile in a group"),
    ("R12 J K12 O12 | J K3 K4 K5", "R10 R10 K1", 1, 0, "joker groups tried before joker runs, no tie-break search"),
]
"""Positions where the solver's tie-break (bounded, on an estimate) moves more than the least;
see "Least disturbance: how close" in ``referee/SOLVER.md``."""
