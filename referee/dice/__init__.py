"""Rummikub Dice (Rummikub Express, docs/rules.md section 8): the best arrangement of a roll of the
nine dice, its score, the player's own arrangement checked and scored, and the score sheet.

How the rule book's open points are read (which sets may share a die, jokers at a crossing,
bonus or total, the strategy example) is written down in docs/rules.md section 8.

- :mod:`referee.dice.rules`: the scoring rules in force (:class:`DiceRules`) and :class:`DiceError`;
- :mod:`referee.dice.arrangement`: what a roll makes (sets, chains, score) and :func:`parse_faces`;
- :mod:`referee.dice.search`: :func:`best_arrangement`, an exhaustive search;
- :mod:`referee.dice.scoring`: rules 1-6 applied to laid-out sets, and :func:`score_sets`;
- :mod:`referee.dice.text`: the sentences a player reads (:func:`format_arrangement`);
- :mod:`referee.dice.sheet`: :class:`DiceSheet`.
"""

from __future__ import annotations

from referee.dice.arrangement import DiceArrangement, DiceChain, DiceSet, SharedDie, parse_faces
from referee.dice.rules import (
    BONUS_CHAIN,
    BONUS_ONE_RUN,
    BONUS_THREE_GROUPS,
    BONUS_TWO_RUNS,
    DICE,
    FACES_PER_DIE,
    DiceError,
    DiceRules,
)
from referee.dice.scoring import score_sets
from referee.dice.search import best_arrangement
from referee.dice.sheet import DiceSheet
from referee.dice.text import format_arrangement

__all__ = [
    "DICE",
    "FACES_PER_DIE",
    "BONUS_CHAIN",
    "BONUS_TWO_RUNS",
    "BONUS_THREE_GROUPS",
    "BONUS_ONE_RUN",
    "DiceError",
    "DiceRules",
    "DiceSet",
    "SharedDie",
    "DiceChain",
    "DiceArrangement",
    "DiceSheet",
    "parse_faces",
    "best_arrangement",
    "score_sets",
    "format_arrangement",
]
