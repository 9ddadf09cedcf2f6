"""Points of sets as the referee reads them: the value each joker stands for, a run's
bounds, a set's value (RULES.md section 1)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.tiles import Tile


def run_bounds(tiles: Sequence[Tile]) -> tuple[int, int] | None:
    """(lo, hi) of a run as laid low to high, or None if the set is not such a run."""
    numbered = [(i, t) for i, t in enumerate(tiles) if t.colour is not None]
    if not numbered or len({t.colour for _i, t in numbered}) != 1:
        return None
    i0, t0 = numbered[0]
    lo = t0.number - i0  # type: ignore[operator]
    if any(t.number != lo + i for i, t in numbered):
        return None
    if len(numbered) == 1 and len(tiles) < 4 and len({t.colour for t in tiles}) > 1:
        return None
    return lo, lo + len(tiles) - 1


def joker_values(tiles: Sequence[Tile]) -> list[int]:
    """What each joker of a valid set stands for (its number), in order of appearance. A set
    that reads both as a run and as a group (one numbered tile and jokers) takes the reading
    worth more, as the referee announces it (RULES.md section 2; referee.sets)."""
    numbered = [t for t in tiles if t.colour is not None]
    if not numbered:
        return []
    run = None
    first = next(i for i, t in enumerate(tiles) if t.colour is not None)
    lo = numbered[0].number - first  # type: ignore[operator]
    if (
        len({t.colour for t in numbered}) == 1
        and all(t.number == lo + i for i, t in enumerate(tiles) if t.colour is not None)
        and 1 <= lo
        and lo + len(tiles) - 1 <= 13
    ):
        run = [lo + i for i, t in enumerate(tiles) if t.is_joker]
    group = None
    if len({t.number for t in numbered}) == 1 and len({t.colour for t in numbered}) == len(numbered) and len(tiles) <= 4:
        group = [numbered[0].number for t in tiles if t.is_joker]
    if run is None or (group is not None and sum(group) > sum(run)):  # type: ignore[arg-type]
        return group or []  # type: ignore[return-value]
    return run


def set_value(tiles: Sequence[Tile]) -> int:
    """Points of a valid set: its numbers plus what its jokers stand for (:func:`joker_values`)."""
    return sum(t.number for t in tiles if t.number is not None) + sum(joker_values(tiles))
