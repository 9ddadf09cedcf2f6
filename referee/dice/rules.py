"""The Rummikub Dice scoring rules in force, and the error for bad Dice input (docs/rules.md section 8)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.i18n import _
from referee.tiles import Colour

__all__ = ["DICE", "FACES_PER_DIE", "BONUS_CHAIN", "BONUS_TWO_RUNS", "BONUS_THREE_GROUPS", "BONUS_ONE_RUN",
           "ALL_DICE", "COLOURS", "BIT", "MAX_PER_SET", "DiceError", "DiceRules", "DEFAULT_RULES"]

DICE = 9
"""Dice in the game (docs/rules.md section 8)."""
FACES_PER_DIE = 6

BONUS_CHAIN = "chain_of_nine"
"""Rule 3: all 9 dice in one chain."""
BONUS_TWO_RUNS = "two_runs"
"""Rule 4: all 9 dice as two runs."""
BONUS_THREE_GROUPS = "three_groups"
"""Rule 5: all 9 dice as three groups."""
BONUS_ONE_RUN = "one_run"
"""Rule 6: all 9 dice in one run."""

ALL_DICE = (1 << DICE) - 1
"""Bit mask of all nine dice."""
COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)  # index order of Colour.index
BIT = tuple(1 << i for i in range(DICE))
# The most a die can count by rules 1-2 is 2 (one run and one group), so 18 per turn.
MAX_PER_SET = 2 * DICE


class DiceError(ValueError):
    """Bad Rummikub Dice input: wrong number of faces, an impossible roll, a bad face layout, a bad
    score-sheet entry. The message says what was wrong."""


@dataclass(frozen=True)
class DiceRules:
    """The Rummikub Dice scoring rules in force (docs/rules.md section 8); defaults are seed 002."""

    chain_bonus: int = 15
    """Rule 3: all 9 dice in one chain."""
    two_runs_bonus: int = 20
    """Rule 4: all 9 dice as two runs."""
    three_groups_bonus: int = 20
    """Rule 5: all 9 dice as three groups."""
    one_run_bonus: int = 30
    """Rule 6: all 9 dice in one run (some other editions give 25)."""
    two_runs_one_colour: bool = False
    """Rule 4 read strictly: both runs must be of the same colour (default: each run one colour)."""
    joker_at_crossing: bool = True
    """A joker may be the die a run and a group share (the rule book is silent; docs/rules.md section 8)."""
    turns: int = 6
    """Turns each player plays in a standard game (the players may agree on another number)."""

    def __post_init__(self) -> None:
        for name in ("chain_bonus", "two_runs_bonus", "three_groups_bonus", "one_run_bonus"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
                raise DiceError(
                    _("{field} must be a whole number from 0 to 1000, not {value!r}").format(field=name, value=value)
                )
        for name in ("two_runs_one_colour", "joker_at_crossing"):
            if not isinstance(getattr(self, name), bool):
                raise DiceError(_("{field} must be true or false").format(field=name))
        if not isinstance(self.turns, int) or isinstance(self.turns, bool) or not 1 <= self.turns <= 100:
            raise DiceError(_("turns must be a whole number from 1 to 100, not {value!r}").format(value=self.turns))

    @property
    def max_turn_score(self) -> int:
        """The most one turn can score under these rules."""
        return max(MAX_PER_SET, self.chain_bonus, self.two_runs_bonus, self.three_groups_bonus, self.one_run_bonus)

    def bonus_points(self, bonus: str) -> int:
        """Points of a bonus rule by name (``BONUS_*``)."""
        return {
            BONUS_CHAIN: self.chain_bonus,
            BONUS_TWO_RUNS: self.two_runs_bonus,
            BONUS_THREE_GROUPS: self.three_groups_bonus,
            BONUS_ONE_RUN: self.one_run_bonus,
        }[bonus]


DEFAULT_RULES = DiceRules()
"""The rules of the rule book (002), used when none are given."""
