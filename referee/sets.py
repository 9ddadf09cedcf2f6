"""Sets (melds): groups and runs, with jokers (docs/rules.md section 2).

:func:`check_set` says whether a sequence of tiles, in the order they lie, is a valid group or
run, what it is worth and what each joker stands for; when it is not valid it says why, with a
stable ``code`` and a sentence a player understands. It is called in tight loops (the vision
decoder tries many readings of a photo), so answers are cached by the tuple of tiles.

Rules applied (docs/rules.md section 2, seeds 000, 001, 003, 004):

- group: 3 or 4 tiles of one number, all colours different;
- run: 3 or more tiles of one colour with consecutive numbers, laid low to high; 1 is always the
  lowest number and never follows 13, so a run has at most 13 tiles;
- a run read right to left is the same run (a photo may be upside down), but a run whose numbers
  are out of order is not a run;
- a joker stands for any tile; its value follows from its position in a run or from the group's
  number; one numbered tile with jokers may be read several ways; only jokers is not a set.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from referee.i18n import _, current_language
from referee.ruleset import RuleSet
from referee.tiles import Colour, Tile, TileError, format_tiles, parse_tile
from referee.verdict import Violation

__all__ = ["SetKind", "SetReading", "SetVerdict", "check_set", "check_sets", "SET_CODES", "MAX_RUN"]

MAX_RUN = 13
"""Longest run: 1 to 13 (docs/rules.md section 2)."""
MAX_GROUP = 4
"""Largest group: one tile of each of the four colours (docs/rules.md section 2)."""
MIN_SET = 3
"""Smallest set, group or run (docs/rules.md section 2)."""

_COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)  # notation order K, B, O, R
_CLASSIC = RuleSet.classic()

SET_CODES = (
    "too_short",
    "only_jokers",
    "duplicate_colour",
    "too_long_group",
    "duplicate_number",
    "duplicate_tile",
    "too_long_run",
    "run_past_13",
    "run_before_1",
    "out_of_order",
    "not_consecutive",
    "mixed_colours_and_numbers",
)
"""Every code :func:`check_set` can give an invalid set (stable; tests cover each one)."""


class SetKind(enum.Enum):
    """The two kinds of set (docs/rules.md section 2)."""

    GROUP = "group"
    RUN = "run"


@dataclass(frozen=True)
class SetReading:
    """One way to read a valid set: its kind and what each joker stands for."""

    kind: SetKind
    tiles: tuple[Tile, ...]
    """The set in the given order with every joker replaced by the tile it stands for."""
    jokers: tuple[Tile, ...]
    """What each joker stands for, jokers taken in the given order."""
    joker_options: tuple[tuple[Tile, ...], ...]
    """For each joker, every tile that could take its place: the one tile of its run position, or
    any missing colour of a group (docs/rules.md section 5: either missing colour may replace it)."""
    points: int
    """Value of the set: jokers count as the tile they stand for (docs/rules.md section 1)."""
    reversed: bool = False
    """True for a run read right to left (a photo taken upside down)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: kind, tiles, jokers, joker_options (codes), points, reversed."""
        return {
            "kind": self.kind.value,
            "tiles": [t.code for t in self.tiles],
            "jokers": [t.code for t in self.jokers],
            "joker_options": [[t.code for t in options] for options in self.joker_options],
            "points": self.points,
            "reversed": self.reversed,
        }


@dataclass(frozen=True)
class SetVerdict:
    """The referee's answer about one set.

    For a valid set the *chosen* reading is the one worth most points (what a player would
    announce, e.g. for the initial meld); on a tie the left-to-right run comes first, then the
    right-to-left run, then the group. ``readings`` lists every valid reading (one for most sets,
    several for e.g. one numbered tile and two jokers); it is empty for an invalid set.
    """

    tiles: tuple[Tile, ...]
    """The tiles as given."""
    kind: SetKind | None
    """Kind of the chosen reading; None when invalid."""
    valid: bool
    points: int
    """Value of the chosen reading; for an invalid set the face values, jokers counting 0."""
    jokers: tuple[Tile, ...]
    """What each joker stands for in the chosen reading (empty when invalid)."""
    readings: tuple[SetReading, ...]
    """Every valid reading, the chosen one first."""
    code: str | None
    """Stable violation code (one of :data:`SET_CODES`) when invalid, else None."""
    problem: str | None
    """Why the set is invalid, as a sentence a player understands; None when valid."""

    @property
    def ambiguous(self) -> bool:
        """True when the set can be read more than one way (different kinds or values)."""
        return len(self.readings) > 1

    @property
    def reading(self) -> SetReading | None:
        """The chosen reading, None when invalid."""
        return self.readings[0] if self.readings else None

    def violation(self, index: int) -> Violation | None:
        """This set's problem as a :class:`Violation` about set ``index`` (0-based), or None."""
        if self.valid:
            return None
        assert self.code is not None and self.problem is not None
        message = _("Set {number} ({tiles}): {problem}").format(
            number=index + 1, tiles=format_tiles(self.tiles) or "-", problem=self.problem
        )
        return Violation(self.code, message, self.tiles, (index,))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: valid, kind (value or None), points, problem, code, tiles, jokers, readings."""
        return {
            "tiles": [t.code for t in self.tiles],
            "valid": self.valid,
            "kind": self.kind.value if self.kind is not None else None,
            "points": self.points,
            "jokers": [t.code for t in self.jokers],
            "code": self.code,
            "problem": self.problem,
            "readings": [r.to_dict() for r in self.readings],
        }


def check_set(tiles: Sequence[Tile], rules: RuleSet = _CLASSIC) -> SetVerdict:
    """Check one set, tiles in the order they lie (docs/rules.md section 2).

    ``tiles`` may also hold notation tokens (``"R7"``). No rule-set variant changes what a set is
    (docs/rules.md section 2 names none); ``rules`` is accepted so that every check takes the rule set
    the same way. Answers are cached by the tuple of tiles and the current language.
    """
    key = tiles if type(tiles) is tuple else tuple(tiles)
    return _check_cached(key, current_language())


def check_sets(
    sets: Sequence[Sequence[Tile]], rules: RuleSet = _CLASSIC
) -> tuple[tuple[SetVerdict, ...], list[Violation]]:
    """Check several sets: one verdict per set, in order, and one violation per invalid set
    (:meth:`SetVerdict.violation`, indexed by the set's position in ``sets``).

    The list is fresh, so a caller such as a table or meld check can append its own problems.
    """
    verdicts = tuple(check_set(s, rules) for s in sets)
    violations = [problem for i, v in enumerate(verdicts) if (problem := v.violation(i)) is not None]
    return verdicts, violations


@lru_cache(maxsize=1 << 16)
def _check_cached(key: tuple[Any, ...], language: str) -> SetVerdict:
    # ``language`` is part of the key only because ``problem`` is translated text.
    tiles = tuple(_coerce(t) for t in key)
    return _check(tiles)


def _coerce(tile: Any) -> Tile:
    if isinstance(tile, Tile):
        return tile
    if isinstance(tile, str):
        return parse_tile(tile)
    raise TileError(f"{tile!r} is not a tile: expected a Tile or notation such as 'R7' or 'J'")


def _check(tiles: tuple[Tile, ...]) -> SetVerdict:
    readings = _readings(tiles)
    if readings:
        best = max(readings, key=lambda r: r.points)  # max keeps the first of equals: see SetVerdict
        ordered = (best,) + tuple(r for r in readings if r is not best)
        return SetVerdict(tiles, best.kind, True, best.points, best.jokers, ordered, None, None)
    code, problem = _diagnose(tiles)
    face = sum(t.number or 0 for t in tiles)
    return SetVerdict(tiles, None, False, face, (), (), code, problem)


def _readings(tiles: tuple[Tile, ...]) -> tuple[SetReading, ...]:
    """Every valid reading: left-to-right run, right-to-left run, group; duplicates dropped."""
    n = len(tiles)
    numbered = [t for t in tiles if t.colour is not None]
    if n < MIN_SET or not numbered:  # too short, or only jokers (docs/rules.md section 2)
        return ()
    out: list[SetReading] = []
    colours = {t.colour for t in numbered}
    numbers = {t.number for t in numbered}
    if len(colours) == 1 and len(numbers) == len(numbered) and n <= MAX_RUN:
        colour = numbered[0].colour
        assert colour is not None
        for reverse in (False, True):
            start = _run_start(tiles, reverse)
            if start is not None and start >= 1 and start + n - 1 <= MAX_RUN:
                out.append(_run_reading(tiles, colour, start, reverse))
    if len(numbers) == 1 and len(colours) == len(numbered) and n <= MAX_GROUP:
        out.append(_group_reading(tiles, numbered[0].number or 0, colours))
    unique: list[SetReading] = []
    seen: set[tuple[Any, ...]] = set()
    for reading in out:
        # A run such as "J R5 J" reads the same both ways: one reading, not two.
        key = (reading.kind, tuple(sorted(t.sort_key for t in reading.tiles)))
        if key not in seen:
            seen.add(key)
            unique.append(reading)
    return tuple(unique)


def _run_start(tiles: tuple[Tile, ...], reverse: bool) -> int | None:
    """The number of the first tile if the numbered tiles sit at consecutive positions, else None.

    Read right to left when ``reverse``. Jokers take their number from their position (docs/rules.md
    section 2), so every numbered tile must equal start + its position.
    """
    n = len(tiles)
    start: int | None = None
    for i, t in enumerate(tiles):
        if t.number is None:
            continue
        pos = n - 1 - i if reverse else i
        s = t.number - pos
        if start is None:
            start = s
        elif s != start:
            return None
    return start


def _run_reading(tiles: tuple[Tile, ...], colour: Colour, start: int, reverse: bool) -> SetReading:
    n = len(tiles)
    resolved: list[Tile] = []
    jokers: list[Tile] = []
    for i, t in enumerate(tiles):
        if t.colour is None:
            pos = n - 1 - i if reverse else i
            t = Tile(colour, start + pos)
            jokers.append(t)
        resolved.append(t)
    points = sum(range(start, start + n))
    return SetReading(SetKind.RUN, tuple(resolved), tuple(jokers), tuple((j,) for j in jokers), points, reverse)


def _group_reading(tiles: tuple[Tile, ...], number: int, colours: set[Colour | None]) -> SetReading:
    # A joker in a group may be any missing colour (docs/rules.md section 5); we name the missing
    # colours in notation order K, B, O, R and list all of them as options.
    missing = [c for c in _COLOURS if c not in colours]
    options = tuple(Tile(c, number) for c in missing)
    resolved: list[Tile] = []
    jokers: list[Tile] = []
    for t in tiles:
        if t.colour is None:
            t = options[len(jokers)]
            jokers.append(t)
        resolved.append(t)
    return SetReading(
        SetKind.GROUP, tuple(resolved), tuple(jokers), tuple(options for _j in jokers), number * len(tiles)
    )


def _diagnose(tiles: tuple[Tile, ...]) -> tuple[str, str]:
    """Code and sentence for a set with no valid reading, most specific reason first."""
    n = len(tiles)
    numbered = [t for t in tiles if t.colour is not None]
    if n < MIN_SET:
        return "too_short", _("A set needs at least 3 tiles; this one has {count}.").format(count=n)
    if not numbered:
        return "only_jokers", _("A set of only jokers is not a set: it needs at least one numbered tile.")
    colours = [t.colour for t in numbered]
    numbers = [t.number for t in numbered]
    same_number = len(set(numbers)) == 1
    same_colour = len(set(colours)) == 1
    if len(numbered) > 1 and same_number and same_colour:
        tile = numbered[0].code
        return "duplicate_tile", _("The same tile ({tile}) appears twice: a set never holds a tile twice.").format(
            tile=tile
        )
    if same_number and not same_colour:
        if len(set(colours)) < len(colours):
            dup = _first_duplicate(numbered, lambda t: t.colour)
            return "duplicate_colour", _(
                "A group needs a different colour on every tile, but {tiles} share a colour."
            ).format(tiles=format_tiles(dup))
        return "too_long_group", _("A group has at most 4 tiles, one of each colour; this one has {count}.").format(
            count=n
        )
    if same_colour:
        return _diagnose_run(tiles, numbered)
    return "mixed_colours_and_numbers", _(
        "This is neither a group (one number, all colours different) nor a run (one colour, "
        "consecutive numbers)."
    )


def _diagnose_run(tiles: tuple[Tile, ...], numbered: list[Tile]) -> tuple[str, str]:
    n = len(tiles)
    numbers = [t.number or 0 for t in numbered]
    if len(set(numbers)) < len(numbers):
        dup = _first_duplicate(numbered, lambda t: t.number)
        return "duplicate_number", _("A run can't hold the same number twice ({tiles}).").format(
            tiles=format_tiles(dup)
        )
    if n > MAX_RUN:
        return "too_long_run", _("A run has at most 13 tiles, 1 to 13; this one has {count}.").format(count=n)
    for reverse in (False, True):
        start = _run_start(tiles, reverse)
        if start is None:
            continue
        # Consistent order, but the jokers would push the run out of 1-13.
        if start < 1:
            return "run_before_1", _("A run can't go below 1: 1 is always the lowest number.")
        return "run_past_13", _("A run can't go past 13: 1 is always the lowest number and never follows 13.")
    if _wraps(tiles, False) or _wraps(tiles, True):
        return "run_past_13", _("A run can't go past 13: 1 is always the lowest number and never follows 13.")
    if max(numbers) - min(numbers) + 1 <= n:
        # The numbers would make a run in another order: out of order is not a run (docs/rules.md 2).
        return "out_of_order", _("The numbers of this run are out of order: a run goes from low to high.")
    return "not_consecutive", _("The numbers of this run are not consecutive ({tiles}).").format(
        tiles=format_tiles(sorted(numbered))
    )


def _wraps(tiles: tuple[Tile, ...], reverse: bool) -> bool:
    """True if the tiles would be consecutive counting on from 13 to 1 (12-13-1: forbidden)."""
    n = len(tiles)
    offsets = {(t.number - (n - 1 - i if reverse else i)) % 13 for i, t in enumerate(tiles) if t.number is not None}
    return len(offsets) == 1


def _first_duplicate(tiles: list[Tile], key: Any) -> list[Tile]:
    seen: dict[Any, Tile] = {}
    for t in tiles:
        k = key(t)
        if k in seen:
            return [seen[k], t]
        seen[k] = t
    return []  # pragma: no cover - only called when a duplicate exists
