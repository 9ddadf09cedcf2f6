"""Verdicts: what the referee answers (docs/design.md, "Referee answers are data, not exceptions").

A check never raises for a rule broken on the table; it returns a :class:`Verdict` listing every
:class:`Violation` found, each with a stable ``code`` (for programs and tests), the tiles and set
indices concerned and a ``message`` a player understands (translated with ``_()``). Bad notation
is different: it is bad *input*, and still raises :class:`referee.tiles.TileError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.tiles import Tile, parse_table, parse_tiles

__all__ = ["Violation", "Verdict", "as_sets", "as_tiles"]


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    ``sets`` holds 0-based indices of the sets concerned; which table they index (the table after
    the turn, the table before it, the sets of an initial meld) is stated by the check that
    produced the violation. Messages number sets from 1, as players do.
    """

    code: str
    """Stable identifier such as ``"not_consecutive"`` or ``"loose_tile"``; never translated."""
    message: str
    """A sentence a player understands, in the current language."""
    tiles: tuple[Tile, ...] = ()
    """The tiles concerned, if any."""
    sets: tuple[int, ...] = ()
    """0-based indices of the sets concerned, if any."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"code", "message", "tiles": [codes], "sets": [indices]}``."""
        return {
            "code": self.code,
            "message": self.message,
            "tiles": [t.code for t in self.tiles],
            "sets": list(self.sets),
        }


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """Base of every referee answer: the violations found; ``ok`` when there are none."""

    violations: tuple[Violation, ...] = ()

    @property
    def ok(self) -> bool:
        """True when no rule is broken."""
        return not self.violations

    @property
    def codes(self) -> tuple[str, ...]:
        """The violation codes, in the order found (handy in tests and logs)."""
        return tuple(v.code for v in self.violations)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"ok": bool, "violations": [...]}``; subclasses add their fields."""
        return {"ok": self.ok, "violations": [v.to_dict() for v in self.violations]}


def as_tiles(tiles: str | Iterable[Tile | str]) -> tuple[Tile, ...]:
    """Tiles given as Tile objects, tokens or one notation string (``"R1 R2 J"``), as a tuple."""
    if isinstance(tiles, str):
        return tuple(parse_tiles(tiles))
    out = []
    for t in tiles:
        out.append(t if isinstance(t, Tile) else parse_tiles([t])[0])
    return tuple(out)


def as_sets(sets: str | Iterable[Sequence[Tile | str] | str]) -> tuple[tuple[Tile, ...], ...]:
    """Sets given as sequences of tiles or as a table in notation (``"R1 R2 R3 | K5 B5 O5"``).

    Unlike :func:`referee.tiles.parse_table`, empty sets given as sequences are kept, so that set
    indices in violations match the caller's list (an empty set is reported as too short).
    """
    if isinstance(sets, str):
        return tuple(tuple(s) for s in parse_table(sets))
    return tuple(as_tiles(s) for s in sets)
