"""What a roll of the nine dice makes: its sets, the chains they form, its score (value types), and
the roll itself read from notation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.dice.rules import DICE, DiceError
from referee.i18n import _
from referee.tiles import Tile, parse_tile, parse_tiles

__all__ = ["DiceSet", "SharedDie", "DiceChain", "DiceArrangement", "parse_faces"]


@dataclass(frozen=True)
class DiceSet:
    """One completed run or group on the board."""

    kind: str
    """``"run"`` or ``"group"``."""
    dice: tuple[int, ...]
    """Indices (0-8) into the rolled faces, in the set's order (a run from low to high)."""
    faces: tuple[Tile, ...]
    """The faces showing on those dice (``J`` for a joker)."""
    tiles: tuple[Tile, ...]
    """What each die stands for: the face itself, or the tile a joker stands for. A joker in a group
    gets a missing colour; any other missing colour would do as well unless the joker is shared."""

    @property
    def points(self) -> int:
        """Rule 1: a set scores the number of dice in it."""
        return len(self.dice)

    @property
    def codes(self) -> tuple[str, ...]:
        """The faces in notation."""
        return tuple(t.code for t in self.faces)

    @property
    def jokers(self) -> tuple[tuple[int, Tile], ...]:
        """``(position in the set, tile it stands for)`` for each joker."""
        return tuple((i, t) for i, (f, t) in enumerate(zip(self.faces, self.tiles)) if f.is_joker)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "dice": list(self.codes),
            "tiles": [t.code for t in self.tiles],
            "jokers": [{"position": i, "stands_for": t.code} for i, t in self.jokers],
            "die_indices": list(self.dice),
            "points": self.points,
        }


@dataclass(frozen=True)
class SharedDie:
    """A die at a crossing: it belongs to one run and one group and counts for both (rule 2)."""

    die: int
    """Index (0-8) into the rolled faces."""
    face: Tile
    tile: Tile
    """What the die stands for (differs from ``face`` only for a joker)."""
    sets: tuple[int, int]
    """Indices into :attr:`DiceArrangement.sets`: the run, then the group."""

    def to_dict(self) -> dict[str, Any]:
        return {"die": self.die, "face": self.face.code, "stands_for": self.tile.code, "sets": list(self.sets)}


@dataclass(frozen=True)
class DiceChain:
    """Sets joined by shared dice (连锁组合 / 連鎖組合, rule 2)."""

    sets: tuple[int, ...]
    """Indices into :attr:`DiceArrangement.sets`, ascending."""
    shared: tuple[SharedDie, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"sets": list(self.sets), "shared": [s.to_dict() for s in self.shared]}


@dataclass(frozen=True)
class DiceArrangement:
    """The dice laid out into sets, and the score they make (docs/rules.md section 8)."""

    faces: tuple[Tile, ...]
    """The 9 faces rolled, in the order given."""
    score: int
    """The turn's score: the bonus if one applies and is higher, else the per-set count."""
    per_set_points: int
    """Rules 1-2: the sum of the set sizes (a shared die counts in both its sets)."""
    sets: tuple[DiceSet, ...]
    chains: tuple[DiceChain, ...]
    unused: tuple[int, ...]
    """Indices of the dice in no set."""
    bonus: str | None
    """The bonus rule that gave the score (``BONUS_*``), or ``None``."""
    breakdown: tuple[str, ...]
    """Sentences explaining the score, one per line."""

    @property
    def unused_faces(self) -> tuple[Tile, ...]:
        return tuple(self.faces[i] for i in self.unused)

    @property
    def used_dice(self) -> frozenset[int]:
        """Indices of the dice in at least one set."""
        return frozenset(d for s in self.sets for d in s.dice)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``score``, ``arrangement`` (the sets), ``chains``, ``unused``, ``bonus``, ..."""
        return {
            "faces": [f.code for f in self.faces],
            "score": self.score,
            "per_set_points": self.per_set_points,
            "arrangement": [s.to_dict() for s in self.sets],
            "chains": [c.to_dict() for c in self.chains],
            "unused": [self.faces[i].code for i in self.unused],
            "unused_indices": list(self.unused),
            "bonus": self.bonus,
            "breakdown": list(self.breakdown),
        }


def parse_faces(faces: str | Sequence[Tile | str]) -> tuple[Tile, ...]:
    """The 9 faces of a roll, from notation (``"R1 R2 J ..."``) or a sequence of tiles / tokens.

    Raises :class:`DiceError` when there are not exactly 9 faces, when a coloured number shows twice
    (each is on one die only) or when more than 2 jokers show; a token that is not a tile raises
    :class:`~referee.tiles.TileError` naming it.
    """
    if isinstance(faces, str):
        tiles = parse_tiles(faces)
    else:
        tiles = [f if isinstance(f, Tile) else parse_tile(f) for f in faces]
    if len(tiles) != DICE:
        raise DiceError(
            _("Rummikub Dice is played with 9 dice: give exactly 9 faces, not {count}.").format(count=len(tiles))
        )
    seen: set[Tile] = set()
    jokers = 0
    for t in tiles:
        if t.is_joker:
            jokers += 1
        elif t in seen:
            raise DiceError(
                _("{tile} shows twice, but each coloured number is on only one die.").format(tile=t.code)
            )
        seen.add(t)
    if jokers > 2:
        raise DiceError(_("{count} jokers show, but the dice carry only 2 jokers.").format(count=jokers))
    return tuple(tiles)
