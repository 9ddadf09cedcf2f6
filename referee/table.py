"""The whole table: every set valid, no loose tile, no more tiles than the game has.

docs/rules.md section 2: at the end of every turn the table holds only valid sets and no loose tiles.
docs/rules.md section 1: a classic game has 2 copies of each numbered tile and 2 jokers (XP: 3 and 4),
so a reading with more is impossible (usually a misread tile).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import _, ngettext
from referee.ruleset import RuleSet
from referee.sets import SetVerdict, check_sets
from referee.tiles import JOKER, Tile, format_tiles
from referee.verdict import Verdict, Violation, as_sets, as_tiles

__all__ = [
    "TableVerdict", "check_table", "count_violations", "describe_table", "describe_set", "rearrangement",
    "describe_rearrangement", "set_key", "unmatched_sets", "TABLE_CODES",
]

_CLASSIC = RuleSet.classic()

TABLE_CODES = ("loose_tile", "too_many_copies", "too_many_jokers")
"""Codes :func:`check_table` adds to the set codes of :data:`referee.sets.SET_CODES`."""


@dataclass(frozen=True, kw_only=True)
class TableVerdict(Verdict):
    """Answer about a table. Violation ``sets`` index ``sets`` (0-based)."""

    sets: tuple[SetVerdict, ...] = ()
    """One verdict per set, in the order given."""
    loose: tuple[Tile, ...] = ()
    """Tiles lying on the table outside any set."""

    @property
    def points(self) -> int:
        """Value of the valid sets on the table (jokers worth the tile they stand for)."""
        return sum(s.points for s in self.sets if s.valid)

    @property
    def tile_count(self) -> int:
        """Tiles on the table, loose ones included."""
        return sum(len(s.tiles) for s in self.sets) + len(self.loose)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ok, violations, sets (see SetVerdict.to_dict), loose, points."""
        out = super().to_dict()
        out["sets"] = [s.to_dict() for s in self.sets]
        out["loose"] = [t.code for t in self.loose]
        out["points"] = self.points
        return out


def check_table(
    sets: Sequence[Sequence[Tile]] | str,
    loose: Sequence[Tile] | str = (),
    rules: RuleSet = _CLASSIC,
) -> TableVerdict:
    """Check a table: every invalid set, every loose tile, and tile counts beyond the rule set.

    ``sets`` may be a table in notation (``"R1 R2 R3 | K5 B5 O5"``); ``loose`` holds tiles lying
    outside any set. The answer lists every problem found; it never raises for a broken rule.
    """
    table = as_sets(sets)
    loose_tiles = as_tiles(loose)
    verdicts, violations = check_sets(table, rules)
    for tile in loose_tiles:
        # docs/rules.md section 2: no loose tiles at the end of a turn.
        violations.append(
            Violation(
                "loose_tile",
                _("{tile} lies on its own: every tile on the table must belong to a valid set.").format(tile=tile.code),
                (tile,),
            )
        )
    violations.extend(count_violations(table, loose_tiles, rules))
    return TableVerdict(violations=tuple(violations), sets=verdicts, loose=loose_tiles)


def count_violations(
    sets: Iterable[Sequence[Tile]], loose: Iterable[Tile] = (), rules: RuleSet = _CLASSIC
) -> list[Violation]:
    """Tiles seen more often than the game holds them (docs/rules.md section 1: ``rules.copies`` of each
    numbered tile, ``rules.jokers`` jokers). ``sets`` of each violation lists the sets holding it."""
    counts: Counter[Tile] = Counter()
    where: dict[Tile, list[int]] = {}
    table = [tuple(s) for s in sets]
    for i, s in enumerate(table):
        for t in s:
            counts[t] += 1
            if i not in where.setdefault(t, []):
                where[t].append(i)
    for t in loose:
        counts[t] += 1
    out: list[Violation] = []
    for tile in sorted(counts, key=lambda t: t.sort_key):
        seen = counts[tile]
        if tile == JOKER:
            if seen > rules.jokers:
                message = ngettext(
                    "{seen} jokers on the table, but the game has only {allowed} joker.",
                    "{seen} jokers on the table, but the game has only {allowed} jokers.",
                    rules.jokers,
                ).format(seen=seen, allowed=rules.jokers)
                out.append(Violation("too_many_jokers", message, (tile,) * seen, tuple(where.get(tile, ()))))
        elif seen > rules.copies:
            message = ngettext(
                "{tile} appears {seen} times, but the game has only {allowed} copy of each tile.",
                "{tile} appears {seen} times, but the game has only {allowed} copies of each tile.",
                rules.copies,
            ).format(tile=tile.code, seen=seen, allowed=rules.copies)
            out.append(Violation("too_many_copies", message, (tile,) * seen, tuple(where.get(tile, ()))))
    return out


def describe_table(verdict: TableVerdict) -> str:
    """Several lines for a person: each set with its kind and value, then the problems."""
    lines = []
    for i, s in enumerate(verdict.sets):
        lines.append(describe_set(s, i))
    if verdict.loose:
        lines.append(_("Loose: {tiles}").format(tiles=format_tiles(verdict.loose)))
    return "\n".join(lines)


def describe_set(s: SetVerdict, index: int | None = 0) -> str:
    """One line for a person: ``"2. K5 B5 O5: valid group, 15 points"`` (``index`` is 0-based;
    None leaves the number out)."""
    tiles = format_tiles(s.tiles) or "-"
    if s.valid:
        assert s.kind is not None
        kind = _("group") if s.kind.value == "group" else _("run")
        line = _("{tiles}: valid {kind}, {points} points").format(tiles=tiles, kind=kind, points=s.points)
    else:
        line = _("{tiles}: not valid - {problem}").format(tiles=tiles, problem=s.problem)
    return line if index is None else f"{index + 1}. {line}"


def set_key(tiles: Iterable[Tile]) -> tuple[tuple[int, int], ...]:
    """A set's identity regardless of tile order: the same run read right to left, or a group
    photographed in another order, is the same set on the table."""
    return tuple(sorted(t.sort_key for t in tiles))


def unmatched_sets(
    sets: Sequence[Sequence[Tile]], others: Iterable[Sequence[Tile]]
) -> list[int]:
    """Indices of ``sets`` that have no equal set (see :func:`set_key`) in ``others``, each set of
    ``others`` matching at most once."""
    available = Counter(set_key(s) for s in others)
    out = []
    for i, s in enumerate(sets):
        key = set_key(s)
        if available[key] > 0:
            available[key] -= 1
        else:
            out.append(i)
    return out


def rearrangement(verdict: TableVerdict, rules: RuleSet = _CLASSIC) -> list[list[Tile]] | None:
    """For a table not valid as it lies (a set broken, or loose tiles): can the same tiles, all of
    them, be laid as valid sets? One such arrangement (the solver's :func:`~referee.solver.arrange`),
    or ``[]`` when there is none. That tells a photo whose set boundaries came out wrong, or a
    table a player can still put right, from tiles missing, extra or misread. None when the
    question does not arise: the table is valid, or it holds more copies of a tile than the game
    has (reported already)."""
    if verdict.ok or any(v.code in ("too_many_copies", "too_many_jokers") for v in verdict.violations):
        return None
    from referee.solver import arrange  # the solver is imported only when it is needed

    tiles = [t for s in verdict.sets for t in s.tiles] + list(verdict.loose)
    return arrange(tiles, rules) or []


def describe_rearrangement(sets: list[list[Tile]] | None, listed: bool = True) -> str | None:
    """:func:`rearrangement` in one sentence, or None when it does not arise; ``listed=False``
    leaves the sets out (a page that shows them as pictures)."""
    if sets is None:
        return None
    if not sets:
        return _("Even rearranged, these tiles do not all make valid sets: a tile is missing, extra or misread.")
    if not listed:
        return _("Rearranged, the same tiles make valid sets.")
    return _("Rearranged, the same tiles make valid sets: {sets}.").format(sets=" | ".join(format_tiles(s) for s in sets))
