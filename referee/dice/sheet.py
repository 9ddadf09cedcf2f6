"""The Rummikub Dice score sheet (docs/rules.md section 8)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from referee.dice.arrangement import DiceArrangement
from referee.dice.rules import DEFAULT_RULES, DiceError, DiceRules
from referee.i18n import _

__all__ = ["DiceSheet"]


class DiceSheet:
    """A Rummikub Dice score sheet (docs/rules.md section 8): 1-8 players, ``turns`` turns each
    (standard game 6), per-turn scores and running totals; the highest total after the last turn
    wins (several names on a tie).
    """

    def __init__(self, players: Sequence[str], turns: int | None = None, rules: DiceRules | None = None) -> None:
        self.rules = rules or DEFAULT_RULES
        self.turns = self.rules.turns if turns is None else turns
        if not isinstance(self.turns, int) or isinstance(self.turns, bool) or not 1 <= self.turns <= 100:
            raise DiceError(_("turns must be a whole number from 1 to 100, not {value!r}").format(value=self.turns))
        if isinstance(players, str):
            raise DiceError(_("Give the players as a list of names."))
        names = [p.strip() if isinstance(p, str) else p for p in players]
        if not 1 <= len(names) <= 8:
            raise DiceError(_("Rummikub Dice is for 1 to 8 players, not {count}.").format(count=len(names)))
        for name in names:
            if not isinstance(name, str) or not name:
                raise DiceError(_("A player's name must be non-empty text, not {name!r}.").format(name=name))
        if len(set(names)) != len(names):
            raise DiceError(_("Each player needs a different name."))
        self.players: tuple[str, ...] = tuple(names)
        self._scores: dict[str, list[int]] = {p: [] for p in self.players}

    def _player(self, player: str) -> str:
        name = player.strip() if isinstance(player, str) else player
        if name not in self._scores:
            raise DiceError(
                _("{player} is not on this score sheet (players: {players}).").format(
                    player=player, players=", ".join(self.players)
                )
            )
        return name

    def record(self, player: str, score: int | DiceArrangement) -> int:
        """Write a player's next turn (a score or a scored arrangement); returns the turn number (1-based)."""
        name = self._player(player)
        points = score.score if isinstance(score, DiceArrangement) else score
        if not isinstance(points, int) or isinstance(points, bool):
            raise DiceError(_("A turn's score is a whole number, not {value!r}.").format(value=points))
        if not 0 <= points <= self.rules.max_turn_score:
            raise DiceError(
                _("A turn scores from 0 to {most} points, not {value}.").format(
                    most=self.rules.max_turn_score, value=points
                )
            )
        row = self._scores[name]
        if len(row) >= self.turns:
            raise DiceError(
                _("{player} has already played all {turns} turns.").format(player=name, turns=self.turns)
            )
        row.append(points)
        return len(row)

    def scores(self, player: str) -> tuple[int, ...]:
        """The player's turn scores so far."""
        return tuple(self._scores[self._player(player)])

    def running_totals(self, player: str) -> tuple[int, ...]:
        """The running total after each of the player's turns (the shaded column of the sheet)."""
        return tuple(itertools.accumulate(self._scores[self._player(player)]))

    def total(self, player: str) -> int:
        return sum(self._scores[self._player(player)])

    def totals(self) -> dict[str, int]:
        return {p: sum(s) for p, s in self._scores.items()}

    @property
    def is_complete(self) -> bool:
        """Has every player played every turn?"""
        return all(len(s) == self.turns for s in self._scores.values())

    def leaders(self) -> tuple[str, ...]:
        """The players with the highest total so far."""
        totals = self.totals()
        best = max(totals.values())
        return tuple(p for p in self.players if totals[p] == best)

    def winners(self) -> tuple[str, ...]:
        """The winner(s) once the game is over (highest total after the last turn); empty before."""
        return self.leaders() if self.is_complete else ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "turns": self.turns,
            "scores": {p: list(s) for p, s in self._scores.items()},
            "totals": self.totals(),
            "complete": self.is_complete,
            "winners": list(self.winners()),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], rules: DiceRules | None = None) -> DiceSheet:
        """Rebuild a sheet from :meth:`to_dict` (derived keys are recomputed, not trusted)."""
        if not isinstance(data, Mapping) or "players" not in data:
            raise DiceError(_('A dice score sheet needs a "players" list.'))
        sheet = cls(data["players"], data.get("turns"), rules)
        scores = data.get("scores", {})
        if not isinstance(scores, Mapping):
            raise DiceError(_('"scores" must map each player to a list of turn scores.'))
        for player, row in scores.items():
            if not isinstance(row, list):
                raise DiceError(_('"scores" must map each player to a list of turn scores.'))
            for points in row:
                sheet.record(player, points)
        return sheet

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DiceSheet):
            return NotImplemented
        return (self.players, self.turns, self._scores) == (other.players, other.turns, other._scores)

    def __repr__(self) -> str:
        return f"DiceSheet(players={list(self.players)!r}, turns={self.turns}, totals={self.totals()!r})"
