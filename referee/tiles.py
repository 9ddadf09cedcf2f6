"""Tiles and the project's notation (docs/rules.md section 1).

Notation: a colour letter and a number, ``K`` black, ``B`` blue, ``O`` orange (yellow in some
editions), ``R`` red, numbers 1-13; ``J`` is a joker. Examples: ``R7``, ``K13``, ``O1``, ``J``.
A table is written as sets separated by ``|``: ``"R1 R2 J | K5 B5 O5"``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from referee.i18n import _

__all__ = [
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
]


class TileError(ValueError):
    """A token that is not a tile in the project's notation. The message names the token."""


class Colour(enum.Enum):
    """The four tile colours, by their notation letter (docs/rules.md section 1)."""

    BLACK = "K"
    BLUE = "B"
    ORANGE = "O"  # printed yellow in some editions (003): same colour in play
    RED = "R"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        """Position in the fixed order K, B, O, R (0-3)."""
        return _COLOUR_ORDER.index(self)


_COLOUR_ORDER = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)
_BY_LETTER = {c.value: c for c in Colour}
# Words people and datasets use for the colours; yellow is orange in play (docs/rules.md section 1).
_COLOUR_WORDS = {
    "black": Colour.BLACK,
    "blue": Colour.BLUE,
    "orange": Colour.ORANGE,
    "yellow": Colour.ORANGE,
    "red": Colour.RED,
}


@dataclass(frozen=True)
class Tile:
    """One tile: a colour and a number 1-13, or a joker (both ``None``).

    ``Tile.parse("R7")`` and ``tile.code`` round-trip; ``repr`` is ``Tile.parse('R7')``.
    """

    colour: Colour | None
    number: int | None

    def __post_init__(self) -> None:
        if (self.colour is None) != (self.number is None):
            raise TileError(f"a tile has both a colour and a number, or neither (joker): {self.colour!r}, {self.number!r}")
        if self.number is not None and not (isinstance(self.number, int) and 1 <= self.number <= 13):
            raise TileError(f"{self.number!r} is not a tile number: numbers run 1-13")

    # Order by sort_key (colour K, B, O, R, then number; jokers last).
    def __lt__(self, other: Tile) -> bool:  # type: ignore[override]
        return self.sort_key < other.sort_key

    def __le__(self, other: Tile) -> bool:  # type: ignore[override]
        return self.sort_key <= other.sort_key

    def __gt__(self, other: Tile) -> bool:  # type: ignore[override]
        return self.sort_key > other.sort_key

    def __ge__(self, other: Tile) -> bool:  # type: ignore[override]
        return self.sort_key >= other.sort_key

    @classmethod
    def parse(cls, token: str) -> Tile:
        """Parse one token in notation (``R7``, ``k13``, ``J``). Raises :class:`TileError`."""
        return parse_tile(token)

    @property
    def is_joker(self) -> bool:
        return self.colour is None

    @property
    def code(self) -> str:
        """The tile in notation: ``R7``, ``J``."""
        if self.colour is None:
            return "J"
        return f"{self.colour.value}{self.number}"

    @property
    def index(self) -> int:
        """Dense index 0-52: colour index * 13 + number - 1 for numbered tiles, 52 for the joker."""
        if self.colour is None:
            return 52
        assert self.number is not None
        return self.colour.index * 13 + self.number - 1

    @classmethod
    def from_index(cls, index: int) -> Tile:
        """Inverse of :attr:`index`."""
        if index == 52:
            return JOKER
        if not 0 <= index < 52:
            raise TileError(f"{index} is not a tile index: indices run 0-52")
        return cls(_COLOUR_ORDER[index // 13], index % 13 + 1)

    @property
    def sort_key(self) -> tuple[int, int]:
        """Colour order K, B, O, R, then number; jokers last."""
        if self.colour is None:
            return (4, 0)
        assert self.number is not None
        return (self.colour.index, self.number)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Tile.parse({self.code!r})"


JOKER = Tile(None, None)
ALL_NUMBERED: tuple[Tile, ...] = tuple(Tile(c, n) for c in _COLOUR_ORDER for n in range(1, 14))


def parse_tile(token: str) -> Tile:
    """Parse one token in notation. Raises :class:`TileError` naming the token.

    Accepts upper or lower case and, for convenience, dataset names such as ``red_7``,
    ``yellow_3`` and ``joker``.
    """
    if not isinstance(token, str):
        raise TileError(_("{token!r} is not a tile: expected text such as 'R7' or 'J'").format(token=token))
    raw = token.strip()
    text = raw.upper()
    if not text:
        raise TileError(_("an empty token is not a tile: write a colour letter K, B, O or R and a number 1-13, or J"))
    if text in ("J", "JOKER"):
        return JOKER
    if "_" in text:  # dataset style: red_7, yellow_3
        word, _sep, num = text.lower().partition("_")
        colour = _COLOUR_WORDS.get(word)
        if colour is None:
            raise TileError(_('"{token}" is not a tile: unknown colour "{word}"').format(token=raw, word=word))
        text = colour.value + num
    letter, digits = text[0], text[1:]
    colour = _BY_LETTER.get(letter)
    if colour is None:
        raise TileError(_('"{token}" is not a tile: the colour letter must be K, B, O or R (or J for a joker)').format(token=raw))
    if not digits.isdigit():
        raise TileError(_('"{token}" is not a tile: a number 1-13 must follow the colour letter').format(token=raw))
    number = int(digits)
    if not 1 <= number <= 13:
        raise TileError(_('"{token}" is not a tile: numbers run 1-13').format(token=raw))
    return Tile(colour, number)


def _split_tokens(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").split() if t]


def parse_tiles(text: str | Iterable[str]) -> list[Tile]:
    """Parse tiles separated by spaces or commas (``"R1 R2 J"``), or an iterable of tokens."""
    tokens = _split_tokens(text) if isinstance(text, str) else list(text)
    return [parse_tile(t) if not isinstance(t, Tile) else t for t in tokens]


def parse_table(text: str | Iterable[str | Iterable[str]]) -> list[list[Tile]]:
    """Parse sets separated by ``|`` (``"R1 R2 R3 | K5 B5 O5"``), or a list of sets.

    Empty sets (``"R1 R2 R3 ||"``) are dropped.
    """
    if isinstance(text, str):
        parts = text.split("|")
        return [tiles for tiles in (parse_tiles(p) for p in parts) if tiles]
    return [tiles for tiles in (parse_tiles(s) for s in text) if tiles]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """``[R1, R2, J]`` -> ``"R1 R2 J"``."""
    return " ".join(t.code for t in tiles)


def format_table(sets: Iterable[Iterable[Tile]]) -> str:
    """``[[R1, R2, R3], [K5, B5, O5]]`` -> ``"R1 R2 R3 | K5 B5 O5"``."""
    return " | ".join(format_tiles(s) for s in sets)
