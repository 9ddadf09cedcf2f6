"""Input of the best-move solver: tiles and codes made the solver's own, tables read as sets or
as a bare multiset, tile counts checked against the rule set (RULES.md section 1), and the
small index helpers (tile index <-> tile, tallies) the other modules share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Union

from referee.i18n import _
from referee.ruleset import RuleSet
from referee.tiles import ALL_NUMBERED, JOKER, Colour, Tile, parse_table, parse_tile, parse_tiles


_COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)

TILE = [[Tile(col, n) if n else JOKER for n in range(14)] for col in _COLOURS]  # TILE[c][n]


class SolverError(ValueError):
    """Input the solver cannot take: more copies of a tile or more jokers than the rule set has,
    something that is not a tile, an unknown objective. The message names what was wrong."""


TableInput = Union[Sequence[Sequence[Tile]], Sequence[Tile], str]


def coerce_tile(item: Any) -> Tile:
    """``item`` as a Tile: a Tile as it is, a code such as ``R7`` parsed; a clear error otherwise."""
    if isinstance(item, Tile):
        return item
    if isinstance(item, str):
        return parse_tile(item)  # TileError (a ValueError) names the bad token
    raise SolverError(_("{item!r} is not a tile: give Tile values or codes such as 'R7' or 'J'").format(item=item))


def _canonical(tiles: list[Tile]) -> list[Tile]:
    """The same tiles as the solver's own instances (equal values), so that the bookkeeping
    after the solve finds their indices by identity."""
    by_index = BY_INDEX
    return [by_index[x] for x in tile_indices(tiles)]


def read_table(table: TableInput) -> tuple[list[list[Tile]] | None, list[Tile]]:
    """(sets or None for a bare multiset, all table tiles)."""
    if isinstance(table, str):
        sets = [_canonical(s) for s in parse_table(table)]
        return sets, [t for s in sets for t in s]
    items = list(table)
    if not items:
        return [], []
    if all(isinstance(x, (Tile, str)) and not (isinstance(x, str) and len(x.split()) > 1) for x in items):
        tiles = _canonical([coerce_tile(x) for x in items])
        return None, tiles
    sets: list[list[Tile]] = []
    for s in items:
        if isinstance(s, (Tile,)):
            raise SolverError(_("the table mixes sets and loose tiles: give a list of sets or a list of tiles"))
        tiles = parse_tiles(s) if isinstance(s, str) else [x if type(x) is Tile else coerce_tile(x) for x in s]
        if tiles:
            sets.append(_canonical(tiles))
    return sets, [t for s in sets for t in s]


def read_rack(rack: Sequence[Tile] | str) -> list[Tile]:
    """A rack given as tiles or codes, as the solver's own tile objects."""
    if isinstance(rack, str):
        return _canonical(parse_tiles(rack))
    return _canonical([x if type(x) is Tile else coerce_tile(x) for x in rack])


def tile_counts(indices: Iterable[int]) -> list[int]:
    """Copies of each tile by index (0-51 numbered, 52 the joker)."""
    counts = [0] * 53
    for x in indices:
        counts[x] += 1
    return counts


def check_counts(counts: Sequence[int], rules: RuleSet) -> None:
    """More copies of a tile, or more jokers, than the rule set has (RULES.md section 1)."""
    if counts[52] > rules.jokers:
        raise SolverError(
            _("{count} jokers on the table and rack, but the {name} set has only {jokers}").format(
                count=counts[52], name=rules.name, jokers=rules.jokers
            )
        )
    if max(counts[:52]) <= rules.copies:
        return
    for x in range(52):
        if counts[x] > rules.copies:
            raise SolverError(
                _("{tile} appears {count} times on the table and rack, but the {name} set has only {copies} of each tile").format(
                    tile=ALL_NUMBERED[x].code, count=counts[x], name=rules.name, copies=rules.copies
                )
            )


BY_INDEX = [*ALL_NUMBERED, JOKER]  # Tile.index -> tile

_CANON_INDEX = {id(t): i for i, t in enumerate(BY_INDEX)} | {id(t): t.index for row in TILE for t in row}

COLOUR_ID = {id(c): i for i, c in enumerate(_COLOURS)}


def tile_indices(tiles: Iterable[Tile]) -> list[int]:
    """``Tile.index`` of each tile (0-51 numbered, 52 the joker), in order."""
    # Tile hashing is slow (a dataclass of enums); the bookkeeping below works on indices. The
    # solver's own tiles are known by identity; others are worked out from their colour's
    # identity and number.
    canon = _CANON_INDEX
    if not isinstance(tiles, (list, tuple)):
        tiles = list(tiles)
    try:
        return [canon[id(t)] for t in tiles]
    except KeyError:
        pass
    cid = COLOUR_ID
    out = []
    for t in tiles:
        x = canon.get(id(t))
        if x is None:
            colour = t.colour
            x = 52 if colour is None else cid[id(colour)] * 13 + t.number - 1  # type: ignore[operator]
        out.append(x)
    return out


def tile_tally(xs: Sequence[int]) -> dict[int, int]:
    """Copies of each tile index, in order of first appearance (a plain dict: Counter costs
    more on sets this small)."""
    out = dict.fromkeys(xs, 1)
    if len(out) == len(xs):  # (the usual case: no tile twice in one set)
        return out
    out = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


CODE = [t.code for t in BY_INDEX]  # Tile.index -> notation


def tile_codes(xs: Iterable[int]) -> str:
    """Tile indices in notation, sorted: what :func:`format_tiles` writes for those tiles."""
    code = CODE
    return " ".join([code[x] for x in sorted(xs)])
