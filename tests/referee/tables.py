"""Seeded random tables for invariant tests (shared by the referee tests)."""

from __future__ import annotations

import random

from referee.ruleset import RuleSet
from referee.sets import check_set
from referee.tiles import JOKER, Colour, Tile

COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)


def full_box(rules: RuleSet) -> list[Tile]:
    """Every tile of the game under ``rules``."""
    return [Tile(c, n) for c in COLOURS for n in range(1, 14) for _ in range(rules.copies)] + [JOKER] * rules.jokers


def random_valid_table(rng: random.Random, rules: RuleSet) -> list[list[Tile]]:
    """Valid sets drawn from one box of tiles, so copies and jokers stay within the rule set."""
    return random_valid_sets(rng, full_box(rules), rng.randint(0, 12))


def random_valid_sets(rng: random.Random, box: list[Tile], count: int) -> list[list[Tile]]:
    """Up to ``count`` valid sets taken out of ``box`` (which loses those tiles); a joker fills in
    for a tile the box has run out of."""
    table: list[list[Tile]] = []
    for _ in range(count):
        if rng.random() < 0.5:
            colour = rng.choice(COLOURS)
            length = rng.randint(3, 6)
            start = rng.randint(1, 14 - length)
            wanted = [Tile(colour, n) for n in range(start, start + length)]
        else:
            number = rng.randint(1, 13)
            wanted = [Tile(c, number) for c in rng.sample(COLOURS, rng.randint(3, 4))]
        chosen = []
        for t in wanted:
            if t in box:
                box.remove(t)
                chosen.append(t)
            elif JOKER in box:
                box.remove(JOKER)
                chosen.append(JOKER)
            else:
                break
        else:
            if sum(not t.is_joker for t in chosen) and check_set(chosen).valid:
                table.append(chosen)
                continue
        box.extend(chosen)  # could not complete this set: put its tiles back
    return table


def is_set_multiset(tiles: list[Tile] | tuple[Tile, ...]) -> bool:
    """docs/rules.md section 2, on a multiset, written apart from the referee as a brute-force check:
    a group (3-4, one number, distinct colours) or a run (3-13, one colour, distinct numbers that
    fit 1-13 with the jokers filling gaps and ends)."""
    numbered = [t for t in tiles if not t.is_joker]
    if len(tiles) < 3 or not numbered:
        return False
    numbers = [t.number for t in numbered]
    colours = [t.colour for t in numbered]
    if len(set(numbers)) == 1 and len(set(colours)) == len(colours) and len(tiles) <= 4:
        return True
    if len(set(colours)) == 1 and len(set(numbers)) == len(numbers) and len(tiles) <= 13:
        return max(numbers) - min(numbers) + 1 <= len(tiles)  # type: ignore[operator]
    return False
