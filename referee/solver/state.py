"""The programme's state as one int (per-colour run states, jokers, per-number scratch), the ids
of per-colour run states, the packed score, and what a solve returns (:class:`Plan`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from referee.i18n import _
from referee.solver.inputs import SolverError


# Score packing: primary objective, then table disturbance kept (higher = less disturbed), then
# the other objective, in one int so the programme compares with one ">".
P_SHIFT = 22


X_SHIFT = 11

NP_MASK = (1 << P_SHIFT) - 1  # the tie-break parts of a score


class _StateIds:
    """Small int ids for per-colour run states (sorted tuples of run codes)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, ...], int] = {(): 0}
        self.states: list[tuple[int, ...]] = [()]
        self.closed: list[bool] = [True]
        """closed[sid]: every run of the state is 3 or more long (it may end here)."""
        self.lock = threading.Lock()

    def id(self, state: tuple[int, ...]) -> int:
        sid = self.ids.get(state)
        if sid is None:
            with self.lock:  # (solves may run in several threads)
                sid = self.ids.get(state)
                if sid is None:
                    if len(self.states) > CM:  # never seen in practice: ~60 states classic, ~300 XP
                        raise SolverError(_("too many run patterns for the solver's state keys"))
                    self.states.append(state)
                    self.closed.append(all(x == 3 for x in state))
                    sid = self.ids[state] = len(self.states) - 1
        return sid


IDS = _StateIds()

CLOSED = IDS.closed  # CLOSED[sid]: every open run of the state may end here


# Key layout (one int): colour states in bits 0-39 (10 each), joker state 40-47, opening value
# 48-59, then per-number scratch: jokers put in runs 60-63, most tiles of one colour in groups
# 64-67, tiles in groups 68 and up.
CB = 10


CM = (1 << CB) - 1

JS_SHIFT = 40

V_SHIFT = 48

PEND_SHIFT = 60

MAXG_SHIFT = 64

S_SHIFT = 68

KEEP_MASK = (1 << PEND_SHIFT) - 1


# LEAN_JG[key >> MAXG_SHIFT]: jokers the fewest groups of one number need (lean mode).
LEAN_JG = [max(0, 3 * max(f & 15, -(-(f >> 4) // 4)) - (f >> 4)) if f >> 4 else 0 for f in range(17 * 16)]


# GROW[key >> MAXG_SHIFT][g]: the group scratch bits after g more tiles go to groups.
# At most 4 copies of a tile (RuleSet.copies) and 4 colours: at most 16 tiles in one number's groups.
GROW = [[(max(f & 15, g) | ((f >> 4) + g) << 4) << MAXG_SHIFT for g in range(5)] for f in range(17 * 16)]


G0_SHIFT = 40
"""Where the joker-free search (which has no joker counts) keeps the group scratch."""

GROW0 = [[(max(f & 15, g) | ((f >> 4) + g) << 4) << G0_SHIFT for g in range(5)] for f in range(17 * 16)]
"""GROW for the joker-free search's keys (group scratch at ``G0_SHIFT``)."""

VJS_CLEAR = ~(((1 << (PEND_SHIFT - JS_SHIFT)) - 1) << JS_SHIFT) & KEEP_MASK

IDLE = (0, (), 0, 0, 0, 0, 0, 0, 0, 0)
"""Option detail of a colour that does nothing at a number."""


class OutOfBudget(Exception):
    """The depth-first search gave up (the breadth-first programme takes over)."""


class Found(Exception):
    """The depth-first search found a plan good enough to stop at."""


@dataclass
class Plan:
    """What the programme chose: per number, per colour the option detail, groups' jokers."""

    score: int
    details: list[list[tuple[Any, ...]]]  # [n-1][c]
    group_jokers: list[int]  # [n-1]
    rack_jokers: list[int]  # [n-1] jokers from the rack placed at number n
