"""The whole table: valid sets only, no loose tiles, no more tiles than the game has."""

from __future__ import annotations

import json
import random

import pytest

from referee.ruleset import RuleSet
from referee.sets import check_set
from referee.table import TABLE_CODES, check_table, describe_rearrangement, describe_table, rearrangement, set_key, unmatched_sets
from referee.tiles import JOKER, format_table, parse_table, parse_tiles
from tests.referee.tables import random_valid_table


@pytest.mark.parametrize(
    "table, loose, codes, sets",
    [
        ("R1 R2 R3 | K5 B5 O5", "", [], []),
        ("", "", [], []),
        ("R1 R2 R3 | K5 B5", "", ["too_short"], [[1]]),
        ("R1 R2 R4 | K5 K5 B5 | O1 O2 O3", "", ["not_consecutive", "duplicate_colour"], [[0], [1]]),
        ("R1 R2 R3", "K7", ["loose_tile"], [[]]),  # docs/rules.md 2: no loose tiles
        ("R1 R2 R3", "K7 J", ["loose_tile", "loose_tile"], [[], []]),
        # docs/rules.md 1: 2 copies of each numbered tile in a classic game
        ("R1 R2 R3 | R1 R2 R3 | R1 K1 B1", "", ["too_many_copies"], [[0, 1, 2]]),
        # ... and 2 jokers
        ("R1 R2 J | K5 B5 J | O7 J O9", "", ["too_many_jokers"], [[0, 1, 2]]),
        ("R1 R2 R3 | R1 R2 R3", "R1", ["loose_tile", "too_many_copies"], [[], [0, 1]]),
    ],
)
def test_tables(table: str, loose: str, codes: list[str], sets: list[list[int]]) -> None:
    verdict = check_table(table, loose)
    assert list(verdict.codes) == codes
    assert [list(v.sets) for v in verdict.violations] == sets
    assert verdict.ok is (not codes)
    for v in verdict.violations:
        assert v.message and v.tiles


def test_xp_set_allows_three_copies_and_four_jokers() -> None:
    table = "R1 R2 R3 | R1 R2 R3 | R1 K1 B1 | J J K9 | J B4 J"
    assert check_table(table, rules=RuleSet.classic()).codes == ("too_many_copies", "too_many_jokers")
    assert check_table(table, rules=RuleSet.xp()).ok
    assert check_table(table + " | R1 R2 R3", rules=RuleSet.xp()).codes == ("too_many_copies",)


def test_copies_count_loose_tiles() -> None:
    verdict = check_table("J K5 B5 | O1 O2 J", "J")
    assert "too_many_jokers" in verdict.codes
    assert verdict.violations[-1].tiles == (JOKER,) * 3


def test_every_table_code_is_tested() -> None:
    seen = set()
    for table, loose in [("R1 R2 R3", "K7"), ("R1 R2 R3 | R1 R2 R3 | R1 K1 B1", ""), ("J J K1 | J B1 O1", "")]:
        seen.update(check_table(table, loose).codes)
    assert set(TABLE_CODES) <= seen


def test_points_and_to_dict() -> None:
    verdict = check_table("R1 R2 J | K5 B5 O5 | R9 R11", "K7")
    assert verdict.points == 6 + 15  # only valid sets count
    assert verdict.tile_count == 9
    d = verdict.to_dict()
    assert d["ok"] is False and d["loose"] == ["K7"] and d["points"] == 21
    assert [s["valid"] for s in d["sets"]] == [True, True, False]
    assert {v["code"] for v in d["violations"]} == {"too_short", "loose_tile"}
    json.dumps(d)


def test_accepts_lists_and_keeps_empty_sets() -> None:
    verdict = check_table([parse_tiles("R1 R2 R3"), []])
    assert verdict.codes == ("too_short",) and verdict.violations[0].sets == (1,)


def test_describe_table() -> None:
    text = describe_table(check_table("R1 R2 R3 | K5 B5", "J"))
    assert "1. R1 R2 R3: valid run, 6 points" in text
    assert "2. K5 B5: not valid" in text and "Loose: J" in text


def test_set_key_ignores_order() -> None:
    assert set_key(parse_tiles("R3 R2 R1")) == set_key(parse_tiles("R1 R2 R3"))
    assert unmatched_sets(parse_table("R1 R2 R3 | K5 B5 O5"), parse_table("O5 B5 K5 | R1 R2 R3 R4")) == [0]


@pytest.mark.parametrize("rules", [RuleSet.classic(), RuleSet.xp()], ids=["classic", "xp"])
def test_tables_of_valid_sets_always_check_valid(rules: RuleSet) -> None:
    rng = random.Random(2024)
    for _ in range(300):
        table = random_valid_table(rng, rules)
        verdict = check_table(table, rules=rules)
        assert verdict.ok, (format_table(table), verdict.codes)
        # round-trip through notation gives the same answer
        assert check_table(format_table(table), rules=rules).ok


# ------------------------------------------------------------------------------------------
# Can the same tiles be laid as valid sets? (a photo whose set boundaries came out wrong)


@pytest.mark.parametrize(
    ("table", "loose", "expected"),
    [
        ("R1 R2 R3 | K5 B5 O5", "", None),  # valid as it lies: the question does not arise
        ("R1 R2 | R3 K5 B5 O5", "", "R1 R2 R3 | K5 B5 O5"),  # boundaries in the wrong place
        ("R1 R2 R3", "R4", "R1 R2 R3 R4"),  # a loose tile that fits
        ("R1 R2 | K9", "", ""),  # no arrangement at all: [] (a tile missing, extra or misread)
        ("R1 R2 R3 | R1 R2 R3 | R1", "", None),  # three R1: reported as too many copies already
        ("R11 J | R13 K13 B13", "R12", "R11 R12 R13 | K13 B13 J"),  # the joker moves to the group
    ],
)
def test_rearrangement(table: str, loose: str, expected: str | None) -> None:
    verdict = check_table(table, loose)
    got = rearrangement(verdict)
    if expected is None:
        assert got is None and describe_rearrangement(got) is None
        return
    assert got is not None
    tiles = [t for s in verdict.sets for t in s.tiles] + list(verdict.loose)
    if not expected:
        assert got == [] and "missing, extra or misread" in (describe_rearrangement(got) or "")
        return
    assert sorted(t for s in got for t in s) == sorted(tiles)
    assert all(check_set(s).valid for s in got)
    assert "Rearranged" in (describe_rearrangement(got) or "")
