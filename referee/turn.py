"""A whole turn: the table before and after, and what the player did (docs/rules.md sections 4 and 5).

The referee sees two photos (or two descriptions) of the table. From the difference it works out
which tiles came from the rack and which table tiles disappeared, then checks every rule of a turn:

- at the end of the turn only valid sets, no loose tiles (docs/rules.md section 2);
- every play puts at least one rack tile on the table; a player who can't or won't play draws one
  tile instead, and then the table stays as it was (section 4);
- table tiles never go back to a rack; a freed joker must be used again on the table in the same
  turn (sections 4, 5);
- the initial meld: at least ``rules.opening_minimum`` points from the rack alone, table untouched,
  no joker under variant 003 (section 4);
- no joker taken before the initial meld (section 5);
- variant 004 (``rules.joker_from_table_tile`` False): a joker may only be replaced by a tile from
  the player's rack (section 5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import _, join_sentences, ngettext
from referee.meld import below_minimum, check_opening
from referee.ruleset import RuleSet
from referee.sets import check_set
from referee.table import TableVerdict, check_table, unmatched_sets
from referee.tiles import JOKER, Tile, format_tiles
from referee.verdict import Verdict, Violation, as_sets, as_tiles

__all__ = ["TurnVerdict", "check_turn", "TURN_CODES", "BEFORE_TABLE_CODES"]

_CLASSIC = RuleSet.classic()

TURN_CODES = (
    "table_tile_removed",
    "joker_missing",
    "no_tile_played",
    "drew_but_changed_table",
    "tile_not_on_rack",
    "opening_below_minimum",
    "opening_touched_table",
    "joker_in_opening",
    "joker_taken_before_opening",
    "joker_replaced_from_table",
)
"""Codes :func:`check_turn` adds to those of :func:`referee.table.check_table`."""

BEFORE_TABLE_CODES = frozenset(
    {"table_tile_removed", "joker_missing", "opening_touched_table", "joker_taken_before_opening"}
)
"""Codes whose violation ``sets`` index the table *before* the turn; all others index the table after."""


@dataclass(frozen=True, kw_only=True)
class TurnVerdict(Verdict):
    """Answer about one turn. See :data:`BEFORE_TABLE_CODES` for which table ``sets`` index."""

    laid: tuple[Tile, ...] = ()
    """Tiles that came from the rack: the table after minus the table before (as multisets)."""
    missing: tuple[Tile, ...] = ()
    """Table tiles that are no longer on the table (never allowed)."""
    table: TableVerdict | None = None
    """Verdict on the table after the turn, loose tiles included."""
    drew: bool = False
    """The player drew a tile instead of playing."""
    opened: bool = True
    """The player had made the initial meld before this turn."""
    opening_points: int | None = None
    """Value of the initial meld when this turn was the player's first play, else None."""
    new_sets: tuple[int, ...] = ()
    """Indices (table after) of the sets that were not on the table before, unchanged."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ok, violations, laid, missing, drew, opened, opening_points, new_sets, table."""
        out = super().to_dict()
        out.update(
            laid=[t.code for t in self.laid],
            missing=[t.code for t in self.missing],
            drew=self.drew,
            opened=self.opened,
            opening_points=self.opening_points,
            new_sets=list(self.new_sets),
            table=self.table.to_dict() if self.table is not None else None,
        )
        return out


def check_turn(
    before: Sequence[Sequence[Tile]] | str,
    after: Sequence[Sequence[Tile]] | str,
    rack_before: Sequence[Tile] | str | None = None,
    opened: bool = True,
    rules: RuleSet = _CLASSIC,
    *,
    loose_after: Sequence[Tile] | str = (),
    drew: bool = False,
) -> TurnVerdict:
    """Check one turn from the table before and after it.

    ``rack_before``: the player's rack at the start of the turn, if known (then every laid tile must
    come from it). ``opened``: the player made the initial meld on an earlier turn. ``loose_after``:
    tiles lying outside any set at the end. ``drew``: the player drew a tile instead of playing (a
    legal pass; the table must then be unchanged). Tables may be given in notation.
    """
    table_before = as_sets(before)
    table_after = as_sets(after)
    loose = as_tiles(loose_after)
    table = check_table(table_after, loose, rules)
    violations: list[Violation] = list(table.violations)

    count_before = Counter(t for s in table_before for t in s)
    count_after = Counter(t for s in table_after for t in s) + Counter(loose)
    laid_count = count_after - count_before
    missing_count = count_before - count_after
    laid = _sorted(laid_count.elements())
    missing = _sorted(missing_count.elements())
    changed_before = unmatched_sets(table_before, table_after)
    changed_after = unmatched_sets(table_after, table_before)

    missing_numbered = tuple(t for t in missing if not t.is_joker)
    if missing_numbered:
        # docs/rules.md section 4: tiles on the table never go back to a rack.
        violations.append(
            Violation(
                "table_tile_removed",
                _("{tiles} left the table: tiles on the table never go back to a rack.").format(
                    tiles=format_tiles(missing_numbered)
                ),
                missing_numbered,
                _sets_holding(table_before, missing_numbered),
            )
        )
    missing_jokers = tuple(t for t in missing if t.is_joker)
    if missing_jokers:
        # docs/rules.md section 5: a freed joker must be used in a new set in the same turn (000) and
        # never goes to the rack (001); so at the end it is still on the table.
        violations.append(
            Violation(
                "joker_missing",
                _(
                    "A joker left the table: a joker taken from a set must be used again in a set on the "
                    "table in the same turn; it never goes to a rack."
                ),
                missing_jokers,
                _sets_holding(table_before, missing_jokers),
            )
        )

    if drew:
        # docs/rules.md section 4: a player who draws ends the turn; a drawn tile can't be played now.
        if laid or missing or changed_before or changed_after or loose:
            violations.append(
                Violation(
                    "drew_but_changed_table",
                    _("The player drew a tile, which ends the turn, yet the table changed: it must stay as it was."),
                    # The tiles that came or went; for a pure rearrangement, the rearranged sets' tiles.
                    laid + missing or tuple(t for i in changed_after for t in table_after[i]),
                    tuple(changed_after),
                )
            )
    elif not laid:
        # docs/rules.md section 4: every play puts at least one rack tile on the table (000, 004).
        violations.append(
            Violation(
                "no_tile_played",
                _("No tile from the rack was played: a player who can't or won't play must draw a tile instead."),
            )
        )

    if rack_before is not None and laid:
        not_on_rack = laid_count - Counter(as_tiles(rack_before))
        if not_on_rack:
            tiles = _sorted(not_on_rack.elements())
            violations.append(
                Violation(
                    "tile_not_on_rack",
                    ngettext(
                        "{tiles} came onto the table but was not on the player's rack.",
                        "{tiles} came onto the table but were not on the player's rack.",
                        len(tiles),
                    ).format(tiles=format_tiles(tiles)),
                    tiles,
                    _sets_holding(table_after, tiles, only=changed_after),
                )
            )

    opening_points: int | None = None
    if not opened:
        jokers_taken = [i for i in changed_before if any(t.is_joker for t in table_before[i])]
        if jokers_taken:
            # docs/rules.md section 5: no joker may be taken before the player's initial meld.
            violations.append(
                Violation(
                    "joker_taken_before_opening",
                    _("A joker may not be taken from the table before the player's initial meld."),
                    tuple(t for i in jokers_taken for t in table_before[i] if t.is_joker),
                    tuple(jokers_taken),
                )
            )
        if not drew and (laid or changed_after):
            meld = [table_after[i] for i in changed_after]
            opening = check_opening(meld, rules, table_before=table_before, table_after=table_after)
            # RULES.md section 4: the initial meld counts the player's own tiles only. A meld that
            # took tiles from the table is judged (and its total said) on what came from the rack.
            taken = _taken_from_table(meld, laid_count)
            opening_points = _rack_points(meld, laid_count, rules)
            for v in opening.violations:
                if v.code == "opening_touched_table":
                    # Already indexes the table before; said again as rack / table / why when the
                    # player's sets took table tiles.
                    violations.append(
                        Violation(v.code, _opening_from_table(laid, opening_points, taken, v.sets, rules), v.tiles, v.sets)
                        if taken else v
                    )
                elif v.code == "opening_below_minimum":
                    pass  # judged below on the rack's tiles alone
                elif v.code == "joker_in_opening":
                    # Meld indices -> indices of the table after; invalid sets are already reported.
                    violations.append(
                        Violation(v.code, v.message, v.tiles, tuple(changed_after[i] for i in v.sets))
                    )
            if opening_points < rules.opening_minimum:
                # RULES.md section 4: at least 30 points (or the agreed minimum) from the rack.
                violations.append(below_minimum(opening_points, rules, meld, tuple(changed_after)))
    elif not rules.joker_from_table_tile:
        violations.extend(_jokers_replaced_from_table(table_before, table_after, changed_before, changed_after, laid_count))

    return TurnVerdict(
        violations=tuple(violations),
        laid=laid,
        missing=missing,
        table=table,
        drew=drew,
        opened=opened,
        opening_points=opening_points,
        new_sets=tuple(changed_after),
    )


def _jokers_replaced_from_table(
    before: tuple[tuple[Tile, ...], ...],
    after: tuple[tuple[Tile, ...], ...],
    changed_before: list[int],
    changed_after: list[int],
    laid: Counter[Tile],
) -> list[Violation]:
    """Variant 004 (docs/rules.md section 5): a joker is replaced only by a tile from the player's rack.

    A joker counts as replaced when a changed set of the table after holds every numbered tile of
    a joker's old set, fewer jokers, and a tile the joker stood for (for a group, either missing
    colour). The replacing tile must be among the tiles laid from the rack this turn.
    """
    out: list[Violation] = []
    available = Counter(laid)
    for bi in changed_before:
        old = before[bi]
        jokers = sum(1 for t in old if t.is_joker)
        verdict = check_set(old)
        if not jokers or not verdict.valid:
            continue
        numbered = Counter(t for t in old if not t.is_joker)
        options = {t for reading in verdict.readings for opts in reading.joker_options for t in opts}
        for ai in changed_after:
            new = Counter(after[ai])
            if new[JOKER] >= jokers or numbered - new:
                continue
            replacements = [t for t in (new - numbered).elements() if t in options]
            if not replacements:
                continue
            from_rack = next((t for t in replacements if available[t] > 0), None)
            if from_rack is not None:
                available[from_rack] -= 1
            else:
                out.append(
                    Violation(
                        "joker_replaced_from_table",
                        _(
                            "{tile} replaced a joker but came from another set on the table: under these "
                            "rules the replacing tile must come from the player's rack."
                        ).format(tile=replacements[0].code),
                        (replacements[0],),
                        (ai,),
                    )
                )
            break
    return out


def _taken_from_table(meld: Sequence[Sequence[Tile]], laid: Counter[Tile]) -> tuple[Tile, ...]:
    """Table tiles in the sets that hold rack tiles: what an initial meld took from the table.

    The rest of a broken-up table set (K11 K12 K13 after K10 was taken) is changed but took
    nothing, so only sets with at least one laid tile count.
    """
    left = Counter(laid)
    taken: list[Tile] = []
    for s in meld:
        own = [t for t in s if left[t] > 0]
        if not own:
            continue
        mine = Counter(own)
        for t in s:
            if mine[t] > 0 and left[t] > 0:
                mine[t] -= 1
                left[t] -= 1
            else:
                taken.append(t)
    return _sorted(taken)


def _rack_points(meld: Sequence[Sequence[Tile]], laid: Counter[Tile], rules: RuleSet) -> int:
    """What the rack's tiles are worth in the valid sets of the meld: each its number, a joker the
    tile it stands for (RULES.md sections 1, 4). Table tiles in those sets count nothing."""
    left = Counter(laid)
    points = 0
    for s in meld:
        verdict = check_set(s, rules)
        if not verdict.valid or not verdict.readings:
            continue
        resolved = verdict.readings[0].tiles  # the set with each joker as the tile it stands for
        for tile, value in zip(s, resolved):
            if left[tile] > 0:
                left[tile] -= 1
                points += value.number or 0
    return points


def _opening_from_table(
    laid: Sequence[Tile], points: int, taken: Sequence[Tile], moved: Sequence[int], rules: RuleSet
) -> str:
    """An initial meld that used table tiles, in words: what came from the rack, what was taken
    from the table, and why that breaks the rule (RULES.md section 4)."""
    from_rack = ngettext(
        "From the rack came {tiles} ({points} point).", "From the rack came {tiles} ({points} points).", points
    ).format(tiles=format_tiles(laid) or "-", points=points)
    from_table = ngettext(
        "Taken from the table (set {numbers} before the turn): {tiles}.",
        "Taken from the table (sets {numbers} before the turn): {tiles}.",
        len(moved),
    ).format(tiles=format_tiles(taken), numbers=", ".join(str(i + 1) for i in moved))
    why = _(
        "On the initial meld only tiles from the player's own rack count, at least {minimum} points, and the "
        "table may not be touched."
    ).format(minimum=rules.opening_minimum)
    return join_sentences([from_rack, from_table, why])


def _sorted(tiles: Any) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=lambda t: t.sort_key))


def _sets_holding(
    table: tuple[tuple[Tile, ...], ...], tiles: Sequence[Tile], only: Sequence[int] | None = None
) -> tuple[int, ...]:
    wanted = set(tiles)
    candidates = range(len(table)) if only is None else only
    return tuple(i for i in candidates if wanted.intersection(table[i]))
