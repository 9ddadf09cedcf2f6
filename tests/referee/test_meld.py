"""The initial meld (docs/rules.md section 4)."""

from __future__ import annotations

import pytest

from referee.meld import OPENING_CODES, check_opening
from referee.ruleset import RuleSet

CLASSIC = RuleSet.classic()
NO_JOKER = RuleSet.classic(jokers_in_opening=False)  # variant 003
FIFTY = RuleSet.classic(opening_minimum=50)


@pytest.mark.parametrize(
    "sets, rules, points, codes",
    [
        ("K10 B10 O10", CLASSIC, 30, []),  # exactly 30 is enough
        ("R9 R10 R11", CLASSIC, 30, []),
        ("R1 R2 R3 | K8 B8 O8", CLASSIC, 30, []),  # several sets add up
        ("K9 B9 O9", CLASSIC, 27, ["opening_below_minimum"]),
        ("K10 J O10", CLASSIC, 30, []),  # a joker is worth the tile it stands for (000, 001, 004)
        ("J R12 R13", CLASSIC, 36, []),
        ("K10 J O10", NO_JOKER, 30, ["joker_in_opening"]),  # variant 003
        ("K10 B10 O10 | R1 R2 J", NO_JOKER, 36, ["joker_in_opening"]),
        ("K10 B10 O10", FIFTY, 30, ["opening_below_minimum"]),  # agreed higher minimum
        ("K13 B13 O13 R13", FIFTY, 52, []),
        # invalid sets don't count and are reported
        ("K10 B10 O10 | R1 R2", CLASSIC, 30, ["too_short"]),
        ("R11 R12 R13 R1", CLASSIC, 0, ["run_past_13", "opening_below_minimum"]),
        ("", CLASSIC, 0, ["opening_below_minimum"]),
    ],
)
def test_opening_totals(sets: str, rules: RuleSet, points: int, codes: list[str]) -> None:
    verdict = check_opening(sets, rules)
    assert verdict.points == points
    assert list(verdict.codes) == codes
    assert verdict.reached is (points >= rules.opening_minimum)
    assert verdict.minimum == rules.opening_minimum


def test_opening_only_from_the_rack() -> None:
    verdict = check_opening("K10 B10 O10", rack="K10 B10 R3")
    assert verdict.codes == ("tile_not_on_rack",)
    assert [t.code for t in verdict.violations[0].tiles] == ["O10"]
    assert check_opening("K10 B10 O10", rack="O10 K10 B10 R3").ok


@pytest.mark.parametrize(
    "before, meld, after, codes",
    [
        ("R1 R2 R3", "K10 B10 O10", "R1 R2 R3 | K10 B10 O10", []),
        ("R1 R2 R3", "K10 B10 O10", "K10 B10 O10 | R3 R2 R1", []),  # same set read the other way
        # table tiles may not be used or moved on the initial meld (000, 001, 003, 004)
        ("R1 R2 R3 R4", "K10 B10 O10", "R1 R2 R3 | K10 B10 O10 | R4 R5 R6", ["opening_touched_table"]),
        ("K9 B9 O9 R9", "K10 K11 K12", "B9 O9 R9 | K9 K10 K11 K12", ["opening_touched_table"]),
        # the table after holds a set that is neither an old set nor the meld
        ("R1 R2 R3", "K10 B10 O10", "R1 R2 R3 | K10 B10 O10 | B1 B2 B3", ["opening_touched_table"]),
    ],
)
def test_opening_leaves_table_untouched(before: str, meld: str, after: str, codes: list[str]) -> None:
    verdict = check_opening(meld, CLASSIC, table_before=before, table_after=after)
    assert [c for c in verdict.codes if c != "opening_below_minimum"] == codes


def test_touched_sets_indexed_in_table_before() -> None:
    verdict = check_opening("K10 K11 K12", table_before="R1 R2 R3 | K9 B9 O9 R9", table_after="R1 R2 R3 | B9 O9 R9 | K9 K10 K11 K12")
    touched = [v for v in verdict.violations if v.code == "opening_touched_table"]
    assert touched[0].sets == (1,)


def test_codes_documented_and_to_dict() -> None:
    seen = set(check_opening("K10 J", NO_JOKER, rack="K10").codes)
    seen |= set(check_opening("K10 B10 O10", table_before="R1 R2 R3 R4", table_after="R1 R2 R3 | K10 B10 O10").codes)
    assert set(OPENING_CODES) <= seen
    d = check_opening("K10 J O10").to_dict()
    assert d["ok"] and d["points"] == 30 and d["minimum"] == 30 and d["reached"]
    assert d["sets"][0]["jokers"] == ["B10"]
