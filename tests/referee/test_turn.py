"""Whole turns from the table before and after (docs/rules.md sections 4 and 5)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee.ruleset import RuleSet
from referee.tiles import format_table, format_tiles, parse_tiles
from referee.turn import BEFORE_TABLE_CODES, TURN_CODES, check_turn
from tests.referee.tables import full_box, random_valid_sets

CLASSIC = RuleSet.classic()
NO_JOKER = RuleSet.classic(jokers_in_opening=False)  # variant 003
RACK_ONLY = RuleSet.classic(joker_from_table_tile=False)  # variant 004

# (before, after, rack or None, opened, rules, laid)
LEGAL = [
    # add a rack tile to a run
    ("R1 R2 R3", "R1 R2 R3 R4", "R4 K9", True, CLASSIC, "R4"),
    # 000 manipulation examples: extend a run and a group
    ("B4 B5 B6 | K8 O8 R8", "B3 B4 B5 B6 | K8 O8 R8 B8", "B3 B8 K1", True, CLASSIC, "B3 B8"),
    # take the 4th tile of a group for a run
    ("K4 B4 O4 R4", "K4 O4 R4 | B3 B4 B5 B6", "B3 B5 B6", True, CLASSIC, "B3 B5 B6"),
    # split a run and add a tile (000: split a run)
    ("R3 R4 R5 R6 R7 R8 R9", "R3 R4 R5 R6 | R6 R7 R8 R9", "R6", True, CLASSIC, "R6"),
    # joker replaced by the tile it stands for, from the rack, and used again (000, 001 method 1)
    ("K3 B3 J", "K3 B3 O3 | J K8 K9", "O3 K8 K9", True, CLASSIC, "K8 K9 O3"),
    ("K3 B3 J", "K3 B3 R3 | J K8 K9", "R3 K8 K9", True, CLASSIC, "K8 K9 R3"),  # either missing colour
    # joker replaced by a tile taken from another table set (000, 001)
    ("R4 J R6 | R5 K5 B5 O5", "R4 R5 R6 | K5 B5 O5 | J R7 R8", "R7 R8", True, CLASSIC, "R7 R8"),
    # ... or from the rack under variant 004
    ("R4 J R6 | K5 B5 O5", "R4 R5 R6 | K5 B5 O5 | J R7 R8", "R5 R7 R8", True, RACK_ONLY, "R5 R7 R8"),
    # joker freed by rearranging (000, 001 method 4)
    ("K1 K2 J | B1 O1 R1 | B2 O2 R2", "K1 B1 O1 R1 | K2 B2 O2 R2 | J K5 K6", "K5 K6", True, CLASSIC, "K5 K6"),
    # initial meld of exactly 30, table untouched
    ("R1 R2 R3", "R1 R2 R3 | K10 B10 O10", "K10 B10 O10", False, CLASSIC, "B10 K10 O10"),
    ("", "R11 J R13", "R11 R13 J", False, CLASSIC, "R11 R13 J"),  # joker worth 12
    # the photo after shows the same sets in another order and direction
    ("R1 R2 R3 | K5 B5 O5", "O5 B5 K5 R5 | R3 R2 R1", "R5", True, CLASSIC, "R5"),
]


@pytest.mark.parametrize("before, after, rack, opened, rules, laid", LEGAL)
def test_legal_turns(before: str, after: str, rack: str | None, opened: bool, rules: RuleSet, laid: str) -> None:
    verdict = check_turn(before, after, rack, opened, rules)
    assert verdict.ok, [v.message for v in verdict.violations]
    assert format_tiles(verdict.laid) == format_tiles(sorted(parse_tiles(laid)))
    assert verdict.missing == ()


# (before, after, rack, opened, rules, extra keyword arguments, codes, sets of the first new code)
ILLEGAL = [
    # docs/rules.md 4: tiles on the table never go back to a rack
    ("R1 R2 R3 R4", "R1 R2 R3 | K5 B5 O5", None, True, CLASSIC, {}, ["table_tile_removed"], (0,)),
    # docs/rules.md 5: a freed joker must be used again on the table; it never goes to the rack
    ("R1 R2 J | K5 B5 O5", "R1 R2 R3 | K5 B5 O5", "R3", True, CLASSIC, {}, ["joker_missing"], (0,)),
    # docs/rules.md 4: every play puts at least one rack tile on the table
    ("R1 R2 R3 R4 R5 R6", "R1 R2 R3 | R4 R5 R6", None, True, CLASSIC, {}, ["no_tile_played"], ()),
    ("R1 R2 R3", "R1 R2 R3", None, True, CLASSIC, {}, ["no_tile_played"], ()),
    # docs/rules.md 5 (000): freeing a joker still needs a rack tile played in the same turn
    (
        "R4 J R6 | K5 B5 O5 R5 | K9 K10 K11 K12 K13",
        "R4 R5 R6 | K5 B5 O5 | K9 K10 K11 | J K12 K13",
        None, True, CLASSIC, {}, ["no_tile_played"], (),
    ),  # fmt: skip
    # docs/rules.md 4: a player who draws ends the turn: the table stays as it was
    ("R1 R2 R3", "R1 R2 R3 R4", None, True, CLASSIC, {"drew": True}, ["drew_but_changed_table"], (0,)),
    ("R1 R2 R3 R4 R5 R6", "R1 R2 R3 | R4 R5 R6", None, True, CLASSIC, {"drew": True}, ["drew_but_changed_table"], (0, 1)),
    # tiles laid must come from the rack
    ("R1 R2 R3", "R1 R2 R3 R4", "K9", True, CLASSIC, {}, ["tile_not_on_rack"], (0,)),
    # docs/rules.md 2: only valid sets and no loose tiles at the end of the turn
    ("R1 R2 R3", "R1 R2 R3 | K5 B5", None, True, CLASSIC, {}, ["too_short"], (1,)),
    ("R1 R2 R3", "R1 R2 R3 R4", None, True, CLASSIC, {"loose_after": "K9"}, ["loose_tile"], ()),
    # docs/rules.md 4: the initial meld reaches 30 from the rack alone, table untouched
    ("R1 R2 R3", "R1 R2 R3 | K5 B5 O5", None, False, CLASSIC, {}, ["opening_below_minimum"], (1,)),
    ("R1 R2 R3 R4", "R1 R2 R3 | R4 R5 R6 | K10 B10 O10", None, False, CLASSIC, {}, ["opening_touched_table"], (0,)),
    # variant 003: no joker in the initial meld
    ("", "K10 J O10", None, False, NO_JOKER, {}, ["joker_in_opening"], (0,)),
    # docs/rules.md 5: no joker taken before the initial meld
    ("K3 B3 J", "K3 B3 O3 | K10 B10 O10 J", None, False, CLASSIC, {}, ["joker_taken_before_opening"], (0,)),
    # variant 004: the tile replacing a joker comes from the rack, not from the table
    ("R4 J R6 | R5 K5 B5 O5", "R4 R5 R6 | K5 B5 O5 | J R7 R8", "R7 R8", True, RACK_ONLY, {}, ["joker_replaced_from_table"], (0,)),
    ("K3 B3 J | O3 O4 O5 O6", "K3 B3 O3 | O4 O5 O6 | J K8 K9", None, True, RACK_ONLY, {}, ["joker_replaced_from_table"], (0,)),
]


@pytest.mark.parametrize("before, after, rack, opened, rules, kwargs, codes, sets", ILLEGAL)
def test_illegal_turns(
    before: str, after: str, rack: str | None, opened: bool, rules: RuleSet, kwargs: dict, codes: list[str], sets: tuple
) -> None:
    verdict = check_turn(before, after, rack, opened, rules, **kwargs)
    assert not verdict.ok
    for code in codes:
        assert code in verdict.codes, (code, verdict.codes)
    first = next(v for v in verdict.violations if v.code == codes[0])
    assert first.sets == sets
    assert first.message.endswith(".")
    for v in verdict.violations:
        if v.code not in ("no_tile_played",):
            assert v.tiles, v.code


def test_every_turn_code_is_tested() -> None:
    tested = {code for row in ILLEGAL for code in row[6]}
    assert set(TURN_CODES) <= tested


def test_variant_004_is_legal_under_classic_rules() -> None:
    row = ILLEGAL[-2]
    assert check_turn(row[0], row[1], row[2], True, CLASSIC).ok


def test_draw_is_a_legal_pass() -> None:
    verdict = check_turn("R1 R2 R3 | K5 B5 O5", "O5 B5 K5 | R1 R2 R3", drew=True)
    assert verdict.ok and verdict.drew and verdict.laid == ()


def test_draw_before_the_initial_meld() -> None:
    verdict = check_turn("R1 R2 R3", "R1 R2 R3", opened=False, drew=True)
    assert verdict.ok and verdict.opening_points is None


def test_opening_total_reported() -> None:
    verdict = check_turn("R1 R2 R3", "R1 R2 R3 | K8 B8 O8 | R11 R12 R13", "K8 B8 O8 R11 R12 R13", opened=False)
    assert verdict.ok and verdict.opening_points == 24 + 36
    assert verdict.new_sets == (1, 2)
    assert check_turn("R1 R2 R3", "R1 R2 R3 R4", opened=True).opening_points is None


def test_opening_below_minimum_with_higher_minimum() -> None:
    rules = RuleSet.classic(opening_minimum=50)
    assert check_turn("", "K13 B13 O13", opened=False, rules=rules).codes == ("opening_below_minimum",)


def test_before_table_codes_index_the_table_before() -> None:
    verdict = check_turn("K5 B5 O5 | R1 R2 R3 R4", "K5 B5 O5 | R1 R2 R3 | K9 B9 O9")
    removed = next(v for v in verdict.violations if v.code == "table_tile_removed")
    assert "table_tile_removed" in BEFORE_TABLE_CODES and removed.sets == (1,)


def test_to_dict() -> None:
    d = check_turn("R1 R2 R3", "R1 R2 R3 R4 | K5", loose_after="J").to_dict()
    assert d["laid"] == ["K5", "R4", "J"] and d["missing"] == [] and d["ok"] is False
    assert d["table"]["loose"] == ["J"] and d["opened"] is True and d["opening_points"] is None
    json.dumps(d)


# --- seeded invariants --------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [CLASSIC, RuleSet.xp()], ids=["classic", "xp"])
def test_random_legal_turns(rules: RuleSet) -> None:
    """Lay new valid sets from a rack beside a valid table, photos shuffled: always legal, the laid
    tiles are exactly the new sets' tiles, and tiles are conserved."""
    rng = random.Random(7)
    for _ in range(200):
        box = full_box(rules)
        rng.shuffle(box)
        before = random_valid_sets(rng, box, rng.randint(0, 8))
        new = random_valid_sets(rng, box, rng.randint(1, 3))
        if not new:
            continue
        rack = [t for s in new for t in s] + box[: rng.randint(0, 5)]
        after = [list(reversed(s)) if rng.random() < 0.3 else list(s) for s in before + new]
        rng.shuffle(after)
        verdict = check_turn(before, after, rack, True, rules)
        assert verdict.ok, (format_table(before), format_table(after), verdict.codes)
        assert Counter(verdict.laid) == Counter(t for s in new for t in s)
        # conservation: before + laid - missing == after
        total_before = Counter(t for s in before for t in s)
        total_after = Counter(t for s in after for t in s)
        assert total_before + Counter(verdict.laid) - Counter(verdict.missing) == total_after


def test_random_removed_tile_is_always_caught() -> None:
    rng = random.Random(11)
    for _ in range(200):
        box = full_box(CLASSIC)
        rng.shuffle(box)
        before = random_valid_sets(rng, box, rng.randint(1, 8))
        if not before:
            continue
        after = [list(s) for s in before]
        victim = rng.randrange(len(after))
        removed = after[victim].pop(rng.randrange(len(after[victim])))
        # The other copy of the removed tile must not come from the rack, or the tile would only
        # have changed places (two copies look alike).
        box = [t for t in box if t != removed]
        extra = random_valid_sets(rng, box, 1)
        verdict = check_turn(before, after + extra, None, True, CLASSIC)
        expected = "joker_missing" if removed.is_joker else "table_tile_removed"
        assert expected in verdict.codes
        assert removed in verdict.missing


def test_opening_that_took_table_tiles_says_rack_table_and_why() -> None:
    """Issue 15: an initial meld built on a table tile is judged on the rack's tiles alone, and the
    sentence says what came from the rack, what was taken from the table, and why that is illegal
    (it used to say "The table's sets 1 were changed" and count the table tile in the total)."""
    verdict = check_turn("K10 K11 K12 K13", "K11 K12 K13 | K10 B10 O10", opened=False)
    assert verdict.opening_points == 20  # B10 O10; K10 came from the table
    touched = next(v for v in verdict.violations if v.code == "opening_touched_table")
    assert "From the rack came B10 O10 (20 points)." in touched.message
    assert "Taken from the table (set 1 before the turn): K10." in touched.message
    assert "own rack" in touched.message and "sets 1" not in touched.message
    assert "opening_below_minimum" in verdict.codes  # 20 from the rack, 30 needed
    # Enough from the rack, but a table tile used: only the touched-table rule is broken.
    rich = check_turn("R1 R2 R3 R4", "R1 R2 R3 | R4 R5 R6 | K10 B10 O10", opened=False)
    assert rich.opening_points == 41 and rich.codes == ("opening_touched_table",)
