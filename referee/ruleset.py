"""Rule sets: the classic and XP presets and every variant docs/rules.md names.

A :class:`RuleSet` is a frozen, validated value. Build one from a preset and change fields with
:meth:`RuleSet.replace`; a bad setting raises :class:`RuleSetError` naming the field and the
allowed values.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from referee.i18n import _

__all__ = ["RuleSet", "RuleSetError", "TimeoutPenalty", "MatchScoring", "PRESETS"]


class RuleSetError(ValueError):
    """A rule-set field set to a value outside its allowed range; the message names both."""


class TimeoutPenalty(enum.Enum):
    """What an unfinished manipulation costs when the turn's time runs out (docs/rules.md section 6)."""

    DRAW_THREE = "draw_three"
    """000, 001, 003: table restored, played tiles back to the rack, draw 3 tiles."""
    RETURN_TO_POOL = "return_to_pool"
    """004: table restored, no penalty draw; tiles left over go to the bottom of the pool."""
    DRAW_LEFTOVERS = "draw_leftovers"
    """001 strict tournament variant: draw as many tiles as were left over."""


class MatchScoring(enum.Enum):
    """How a match is decided (docs/rules.md section 7)."""

    GAMES_WON = "games_won"
    """000, 001: most games won over all rounds; a tie is broken by the higher total score."""
    TARGET_POINTS = "target_points"
    """004: the winner of each game collects the opponents' rack points; first to the target wins."""


@dataclass(frozen=True)
class RuleSet:
    """Everything the referee needs to know about the rules in force.

    Defaults are the current Lemada rule books (seeds 000 and 001), classic edition.
    """

    name: str = "classic"
    """Preset the rule set came from ("classic" or "xp"); informative only."""
    copies: int = 2
    """Copies of each numbered tile: 2 classic (106 tiles), 3 XP (160 tiles) (docs/rules.md section 1)."""
    jokers: int = 2
    """Jokers in the game: 2 classic, 4 XP."""
    min_players: int = 2
    max_players: int = 4
    rack_size: int = 14
    """Tiles each player takes at the start (docs/rules.md section 3)."""
    opening_minimum: int = 30
    """Points the initial meld must reach (docs/rules.md section 4); may be raised, e.g. to 50."""
    jokers_in_opening: bool = True
    """False: variant 003, no joker in the initial meld."""
    joker_from_table_tile: bool = True
    """True: a table joker may be replaced by a tile from the rack or from elsewhere on the table
    (000, 001). False: variant 004, the replacing tile must come from the player's rack."""
    timeout_penalty: TimeoutPenalty = TimeoutPenalty.DRAW_THREE
    timeout_draw: int = 3
    """Tiles drawn for an unfinished manipulation under :attr:`TimeoutPenalty.DRAW_THREE`."""
    turn_seconds: int = 60
    """Time per turn (docs/rules.md section 6): one minute in every rule book."""
    match_scoring: MatchScoring = MatchScoring.GAMES_WON
    target_points: int = 1000
    """Target of :attr:`MatchScoring.TARGET_POINTS` (004: 1000, or an agreed number)."""
    joker_rack_penalty: int = 30
    """A joker left on a rack at the end of a game counts 30 (docs/rules.md section 1)."""

    def __post_init__(self) -> None:
        _check_int(self, "copies", 1, 4)
        _check_int(self, "jokers", 0, 8)
        _check_int(self, "min_players", 1, 8)
        _check_int(self, "max_players", self.min_players, 8)
        _check_int(self, "rack_size", 1, 30)
        _check_int(self, "opening_minimum", 0, 300)
        _check_int(self, "timeout_draw", 0, 14)
        _check_int(self, "turn_seconds", 5, 3600)
        _check_int(self, "target_points", 1, 100_000)
        _check_int(self, "joker_rack_penalty", 0, 100)
        for field, kind in (("jokers_in_opening", bool), ("joker_from_table_tile", bool)):
            if not isinstance(getattr(self, field), kind):
                raise RuleSetError(
                    _("{field} must be true or false, not {value!r}").format(field=field, value=getattr(self, field))
                )
        for field, enum_type in (("timeout_penalty", TimeoutPenalty), ("match_scoring", MatchScoring)):
            value = getattr(self, field)
            if not isinstance(value, enum_type):
                try:
                    object.__setattr__(self, field, enum_type(value))
                except ValueError:
                    allowed = ", ".join(m.value for m in enum_type)
                    raise RuleSetError(
                        _("{field} must be one of {allowed}, not {value!r}").format(field=field, allowed=allowed, value=value)
                    ) from None
        if self.max_players * self.rack_size > self.total_tiles:
            raise RuleSetError(
                _("max_players={players} with rack_size={rack} needs more than the {total} tiles of this set").format(
                    players=self.max_players, rack=self.rack_size, total=self.total_tiles
                )
            )

    @property
    def total_tiles(self) -> int:
        """All tiles in the game: 4 colours x 13 numbers x copies + jokers."""
        return 52 * self.copies + self.jokers

    @classmethod
    def classic(cls, **changes: Any) -> RuleSet:
        """106 tiles (2 copies, 2 jokers), 2-4 players (000, 001, 003, 004)."""
        return cls(**changes)

    @classmethod
    def xp(cls, **changes: Any) -> RuleSet:
        """160 tiles (3 copies, 4 jokers), 5-6 players (001)."""
        base: dict[str, Any] = dict(name="xp", copies=3, jokers=4, min_players=5, max_players=6)
        base.update(changes)
        return cls(**base)

    @classmethod
    def preset(cls, name: str, **changes: Any) -> RuleSet:
        """A preset by name ("classic" or "xp") with optional field changes."""
        try:
            factory = PRESETS[name.lower()]
        except KeyError:
            raise RuleSetError(
                _('unknown rule set "{name}": choose one of {presets}').format(name=name, presets=", ".join(PRESETS))
            ) from None
        return factory(**changes)

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (validated again). Unknown fields raise RuleSetError."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise RuleSetError(
                _("unknown rule-set field {field!r}: fields are {fields}").format(
                    field=unknown[0], fields=", ".join(sorted(names))
                )
            )
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (enums as their values)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, enum.Enum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Inverse of :meth:`to_dict`; a "name" selects the preset the other fields change."""
        data = dict(data)
        name = str(data.pop("name", "classic"))
        return cls.preset(name).replace(**data) if data else cls.preset(name)


def _check_int(rules: RuleSet, field: str, low: int, high: int) -> None:
    value = getattr(rules, field)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleSetError(
            _("{field} must be a whole number from {low} to {high}, not {value!r}").format(
                field=field, low=low, high=high, value=value
            )
        )


PRESETS = {"classic": RuleSet.classic, "xp": RuleSet.xp}
