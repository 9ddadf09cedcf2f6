"""The initial meld, "breaking the ice" (docs/rules.md section 4).

A player's first play is one or more valid sets worth together at least ``rules.opening_minimum``
(30) points, made only of tiles from the player's own rack; table tiles may not be used or moved
on that turn (000, 001, 003, 004). A joker in the meld is worth the tile it stands for (000, 001,
004). Variant 003 (``rules.jokers_in_opening`` False): no joker in the initial meld.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import _, ngettext
from referee.ruleset import RuleSet
from referee.sets import SetVerdict, check_sets
from referee.table import unmatched_sets
from referee.tiles import Tile, format_tiles
from referee.verdict import Verdict, Violation, as_sets, as_tiles

__all__ = ["OpeningVerdict", "check_opening", "OPENING_CODES"]

_CLASSIC = RuleSet.classic()

OPENING_CODES = ("opening_below_minimum", "joker_in_opening", "opening_touched_table", "tile_not_on_rack")
"""Codes :func:`check_opening` adds to the set codes of invalid sets."""


@dataclass(frozen=True, kw_only=True)
class OpeningVerdict(Verdict):
    """Answer about an initial meld.

    Violation ``sets`` index the meld's sets, except ``opening_touched_table`` whose indices are
    those of ``table_before`` (the sets that were moved or used).
    """

    sets: tuple[SetVerdict, ...] = ()
    """One verdict per set of the meld."""
    points: int = 0
    """Value of the meld's valid sets; jokers count as the tile they stand for (docs/rules.md 4)."""
    minimum: int = 30
    """The rule set's ``opening_minimum``."""

    @property
    def reached(self) -> bool:
        """True when the valid sets reach the minimum (other rules may still be broken)."""
        return self.points >= self.minimum

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ok, violations, points, minimum, reached, sets."""
        out = super().to_dict()
        out.update(points=self.points, minimum=self.minimum, reached=self.reached)
        out["sets"] = [s.to_dict() for s in self.sets]
        return out


def check_opening(
    sets: Sequence[Sequence[Tile]] | str,
    rules: RuleSet = _CLASSIC,
    table_before: Sequence[Sequence[Tile]] | str | None = None,
    table_after: Sequence[Sequence[Tile]] | str | None = None,
    rack: Sequence[Tile] | str | None = None,
) -> OpeningVerdict:
    """Check an initial meld (docs/rules.md section 4).

    ``sets`` are the sets the player lays. With ``table_before`` and ``table_after`` the table is
    checked too: every set there before must still be there, untouched, and the table after must
    be exactly the old sets plus the meld. With ``rack``, every tile of the meld must come from it.
    Only valid sets count towards the total; invalid ones are reported as violations.
    """
    meld = as_sets(sets)
    verdicts, violations = check_sets(meld, rules)
    points = sum(v.points for v in verdicts if v.valid)

    if points < rules.opening_minimum:
        # docs/rules.md section 4: the initial meld is worth at least 30 points (or the agreed minimum).
        violations.append(below_minimum(points, rules, meld, tuple(range(len(meld)))))

    if not rules.jokers_in_opening:
        # Variant 003: no joker in the initial meld.
        with_joker = tuple(i for i, s in enumerate(meld) if any(t.is_joker for t in s))
        if with_joker:
            jokers = tuple(t for i in with_joker for t in meld[i] if t.is_joker)
            violations.append(
                Violation(
                    "joker_in_opening",
                    _("Under these rules the initial meld may not contain a joker."),
                    jokers,
                    with_joker,
                )
            )

    if rack is not None:
        # docs/rules.md section 4: the meld is made only of tiles from the player's own rack.
        not_on_rack = Counter(t for s in meld for t in s) - Counter(as_tiles(rack))
        if not_on_rack:
            tiles = tuple(sorted(not_on_rack.elements(), key=lambda t: t.sort_key))
            violations.append(
                Violation(
                    "tile_not_on_rack",
                    _("{tiles} not on the player's rack: the initial meld uses only the player's own tiles.").format(
                        tiles=format_tiles(tiles)
                    ),
                    tiles,
                    tuple(i for i, s in enumerate(meld) if any(t in not_on_rack for t in s)),
                )
            )

    if table_before is not None and table_after is not None:
        violations.extend(_touched_table(meld, as_sets(table_before), as_sets(table_after)))

    return OpeningVerdict(violations=tuple(violations), sets=verdicts, points=points, minimum=rules.opening_minimum)


def below_minimum(points: int, rules: RuleSet, meld: Sequence[Sequence[Tile]], sets: tuple[int, ...]) -> Violation:
    """The ``opening_below_minimum`` violation of a meld worth ``points``, naming every tile of
    ``meld`` and the set indices ``sets``; shared with :mod:`referee.turn`, which counts the rack's
    tiles only and indexes the table after."""
    return Violation(
        "opening_below_minimum",
        _("The initial meld is worth {points} points; it must be worth at least {minimum}.").format(
            points=points, minimum=rules.opening_minimum
        ),
        tuple(t for s in meld for t in s),
        sets,
    )


def _touched_table(
    meld: tuple[tuple[Tile, ...], ...],
    before: tuple[tuple[Tile, ...], ...],
    after: tuple[tuple[Tile, ...], ...],
) -> list[Violation]:
    """docs/rules.md section 4: on the initial-meld turn table tiles may not be used or moved."""
    out: list[Violation] = []
    moved = unmatched_sets(before, after)
    if moved:
        tiles = tuple(t for i in moved for t in before[i])
        out.append(
            Violation(
                "opening_touched_table",
                ngettext(
                    "Set {numbers} of the table was changed; on the initial meld the table may not be "
                    "touched: only the player's own tiles may be laid.",
                    "Sets {numbers} of the table were changed; on the initial meld the table may not be "
                    "touched: only the player's own tiles may be laid.",
                    len(moved),
                ).format(numbers=", ".join(str(i + 1) for i in moved)),
                tiles,
                tuple(moved),
            )
        )
    # Sets on the table after the turn that are neither old sets nor the meld: the table was
    # rearranged, or the meld is not what was laid.
    extra = unmatched_sets(after, before + meld)
    if extra and not moved:
        tiles = tuple(t for i in extra for t in after[i])
        out.append(
            Violation(
                "opening_touched_table",
                _("The table holds sets that are not the initial meld: {tiles}.").format(
                    tiles=" | ".join(format_tiles(after[i]) for i in extra)
                ),
                tiles,
                (),
            )
        )
    return out
