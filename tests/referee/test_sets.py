"""Sets: groups, runs and jokers (docs/rules.md section 2)."""

from __future__ import annotations

import gettext
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import i18n
from referee.ruleset import RuleSet
from referee.sets import SET_CODES, SetKind, check_set, check_sets
from referee.tiles import JOKER, Colour, Tile, TileError, format_tiles, parse_table, parse_tiles

COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)


def check(text: str):
    return check_set(parse_tiles(text))


@pytest.mark.parametrize(
    "tiles, kind, points, jokers",
    [
        # groups: 3 or 4 tiles of one number, all colours different (000, 001, 003, 004)
        ("K5 B5 O5", "group", 15, ""),
        ("K5 B5 O5 R5", "group", 20, ""),
        ("R13 K13 B13", "group", 39, ""),
        ("K5 B5 J", "group", 15, "O5"),  # joker worth the group's number
        ("J K7 B7 O7", "group", 28, "R7"),
        # runs: 3+ of one colour, consecutive (000, 001)
        ("R1 R2 R3", "run", 6, ""),
        ("B11 B12 B13", "run", 36, ""),
        ("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13", "run", 91, ""),  # the longest run
        ("R1 R2 J", "run", 6, "R3"),  # joker value from its position
        ("R1 J R3", "run", 6, "R2"),
        ("J R12 R13", "run", 36, "R11"),
        ("O4 J J O7", "run", 22, "O5 O6"),
        # read right to left (photo upside down): the same run
        ("R3 R2 R1", "run", 6, ""),
        ("R13 R12 J", "run", 36, "R11"),
        ("B9 J B7", "run", 24, "B8"),
    ],
)
def test_valid_sets(tiles: str, kind: str, points: int, jokers: str) -> None:
    v = check(tiles)
    assert v.valid and v.code is None and v.problem is None
    assert v.kind is SetKind(kind)
    assert v.points == points
    assert format_tiles(v.jokers) == jokers


INVALID = [
    ("", "too_short"),
    ("R1", "too_short"),
    ("R1 R2", "too_short"),  # 3 tiles at least (000, 001)
    ("K5 B5", "too_short"),
    ("J J", "too_short"),
    ("J J J", "only_jokers"),  # a set of only jokers is not a set
    ("J J J J", "only_jokers"),
    ("K5 K5 B5", "duplicate_colour"),  # group colours all different
    ("K5 B5 O5 K5", "duplicate_colour"),
    ("K5 B5 O5 R5 J", "too_long_group"),  # at most 4 in a group
    ("R5 R5 R6", "duplicate_number"),
    ("R5 R6 R6 R7", "duplicate_number"),
    ("R5 R5 J", "duplicate_tile"),
    ("R5 R5 R5", "duplicate_tile"),
    ("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 J", "too_long_run"),  # at most 13
    ("R12 R13 R1", "run_past_13"),  # no 12-13-1 (000, 001)
    ("R13 R1 R2", "run_past_13"),
    ("R1 R13 R12", "run_past_13"),  # reversed wrap is still a wrap
    ("R12 R13 J", "run_past_13"),  # joker would be 14: position fixes its value
    ("J R1 R2", "run_before_1"),  # joker would be 0: 1 is always the lowest
    ("J J R1 J J J", "run_before_1"),
    ("R3 R5 R4", "out_of_order"),  # out of order is not a run (docs/rules.md 2)
    ("R1 R3 R2 R4", "out_of_order"),
    ("R3 J R4", "out_of_order"),
    ("R1 R2 R4", "not_consecutive"),
    ("R1 J R5", "not_consecutive"),
    ("R5 B6 K7", "mixed_colours_and_numbers"),
    ("R5 B5 B6", "mixed_colours_and_numbers"),
    ("K5 B5 O6 J", "mixed_colours_and_numbers"),
]


@pytest.mark.parametrize("tiles, code", INVALID)
def test_invalid_sets(tiles: str, code: str) -> None:
    v = check(tiles)
    assert not v.valid
    assert v.code == code
    assert v.kind is None and v.readings == () and v.jokers == ()
    assert v.problem and v.problem.endswith(".")


def test_every_set_code_is_tested() -> None:
    assert {code for _tiles, code in INVALID} == set(SET_CODES)


@pytest.mark.parametrize(
    "table, invalid",
    [
        ("", ""),
        ("R1 R2 R3 | K5 B5 O5", ""),
        ("R1 R2 | K5 B5 O5 | R12 R13 R1", "0 2"),
        ("J J J", "0"),
    ],
)
def test_check_sets_one_violation_per_invalid_set(table: str, invalid: str) -> None:
    sets = parse_table(table)
    verdicts, violations = check_sets(sets)
    assert verdicts == tuple(check_set(s) for s in sets)
    assert [v.sets for v in violations] == [(int(i),) for i in invalid.split()]
    assert violations == [verdicts[int(i)].violation(int(i)) for i in invalid.split()]
    # A fresh list each time: callers append their own problems to it.
    assert check_sets(sets)[1] is not violations


def test_invalid_points_are_face_values_jokers_zero() -> None:
    assert check("R1 R2 R4").points == 7
    assert check("R12 R13 J").points == 25
    assert check("J J J").points == 0


def test_ambiguous_one_tile_two_jokers() -> None:
    # docs/rules.md 2: one numbered tile and two jokers may be read either way (group or run, and a run
    # in either direction). The chosen reading is the one worth most.
    v = check("J J R5")
    kinds = sorted((r.kind.value, r.points, format_tiles(r.jokers)) for r in v.readings)
    assert kinds == [("group", 15, "K5 B5"), ("run", 12, "R3 R4"), ("run", 18, "R7 R6")]
    assert v.ambiguous
    assert v.points == 18 and v.kind is SetKind.RUN and v.reading is not None and v.reading.reversed
    # "J R5 J" reads the same both ways: one run reading, plus the group.
    v = check("J R5 J")
    assert sorted(r.kind.value for r in v.readings) == ["group", "run"]
    assert v.kind is SetKind.RUN and v.points == 15  # tie: the run comes first


def test_unambiguous_set_has_one_reading() -> None:
    v = check("R1 R2 R3")
    assert len(v.readings) == 1 and not v.ambiguous
    assert v.readings[0].tiles == tuple(parse_tiles("R1 R2 R3"))


def test_group_joker_may_be_either_missing_colour() -> None:
    # docs/rules.md 5: in a group of 3 with a joker either missing colour may replace it.
    v = check("K5 B5 J")
    assert v.readings[0].joker_options == (tuple(parse_tiles("O5 R5")),)


def test_to_dict_keys_and_json() -> None:
    import json

    d = check("R1 R2 J").to_dict()
    assert {"valid", "kind", "points", "problem", "code", "tiles", "jokers", "readings"} <= set(d)
    assert d["tiles"] == ["R1", "R2", "J"] and d["jokers"] == ["R3"] and d["kind"] == "run"
    bad = check("R1 R2").to_dict()
    assert bad["valid"] is False and bad["kind"] is None and bad["code"] == "too_short"
    json.dumps(d), json.dumps(bad)


def test_tiles_kept_as_given() -> None:
    tiles = parse_tiles("R3 R2 R1")
    assert check_set(tiles).tiles == tuple(tiles)


def test_tokens_accepted_and_bad_token_raises() -> None:
    assert check_set(["R1", "R2", "J"]).valid
    with pytest.raises(TileError, match="X9"):
        check_set(["R1", "X9", "R3"])
    with pytest.raises(TileError, match="7"):
        check_set([7, 8, 9])  # type: ignore[list-item]


def test_cached_by_tuple() -> None:
    a = check_set(parse_tiles("K5 B5 O5"))
    b = check_set(tuple(parse_tiles("K5 B5 O5")))
    assert a is b


def test_problem_follows_language(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cache is keyed by language too, so an answer cached in English can't serve another
    # language. A fake catalogue marks translated text.
    class Marked(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return "JA:" + message

    english = check("R1 R2").problem
    monkeypatch.setattr(i18n, "_translations", lambda language: Marked() if language == "ja" else gettext.NullTranslations())
    with i18n.use_language("ja"):
        assert check("R1 R2").problem == "JA:A set needs at least 3 tiles; this one has 2."
    assert check("R1 R2").problem == english


def test_rule_set_does_not_change_sets() -> None:
    assert check_set(parse_tiles("R1 R2 J"), RuleSet.xp()).points == 6


def test_fast_enough_for_the_decoder() -> None:
    # The vision decoder calls check_set in tight loops: cached calls must be cheap.
    import time

    sets = [tuple(parse_tiles(s)) for s in ("R1 R2 R3", "K5 B5 O5 J", "J J R5", "R12 R13 R1")]
    for s in sets:
        check_set(s)
    start = time.perf_counter()
    for _ in range(5000):
        for s in sets:
            check_set(s)
    per_call = (time.perf_counter() - start) / 20000
    assert per_call < 50e-6, f"{per_call * 1e6:.1f} us per cached call"


# --- invariants over generated sets -------------------------------------------------------------


@st.composite
def runs(draw: st.DrawFn) -> list[Tile]:
    colour = draw(st.sampled_from(COLOURS))
    length = draw(st.integers(3, 13))
    start = draw(st.integers(1, 14 - length))
    tiles = [Tile(colour, n) for n in range(start, start + length)]
    jokers = draw(st.sets(st.integers(0, length - 1), max_size=min(2, length - 1)))
    return [JOKER if i in jokers else t for i, t in enumerate(tiles)]


@st.composite
def groups(draw: st.DrawFn) -> list[Tile]:
    number = draw(st.integers(1, 13))
    colours = draw(st.permutations(COLOURS))
    size = draw(st.integers(3, 4))
    tiles = [Tile(c, number) for c in colours[:size]]
    jokers = draw(st.sets(st.integers(0, size - 1), max_size=2))
    return [JOKER if i in jokers else t for i, t in enumerate(tiles)]


@settings(max_examples=300, deadline=None)
@given(runs())
def test_every_run_is_valid_both_ways(run: list[Tile]) -> None:
    forward = check_set(run)
    assert forward.valid and SetKind.RUN in {r.kind for r in forward.readings}
    backward = check_set(list(reversed(run)))
    assert backward.valid
    # Both directions hold the same multiset of tiles among their readings.
    assert {tuple(sorted(r.tiles)) for r in forward.readings if r.kind is SetKind.RUN} == {
        tuple(sorted(r.tiles)) for r in backward.readings if r.kind is SetKind.RUN
    }


@settings(max_examples=300, deadline=None)
@given(runs())
def test_run_reading_is_consecutive_and_points_add_up(run: list[Tile]) -> None:
    v = check_set(run)
    for reading in v.readings:
        assert sum(t.number or 0 for t in reading.tiles) == reading.points
        assert not any(t.is_joker for t in reading.tiles)
        if reading.kind is SetKind.RUN:
            numbers = [t.number for t in reading.tiles]
            if reading.reversed:
                numbers.reverse()
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # type: ignore[operator]


@settings(max_examples=200, deadline=None)
@given(groups())
def test_every_group_is_valid(group: list[Tile]) -> None:
    v = check_set(group)
    assert v.valid
    number = next(t.number for t in group if not t.is_joker)
    assert any(r.kind is SetKind.GROUP and r.points == number * len(group) for r in v.readings)


def test_shuffled_runs_are_invalid() -> None:
    # Seeded: a run of 3+ numbered tiles in an order that is neither increasing nor decreasing is
    # never valid (docs/rules.md 2: out of order is not a run).
    rng = random.Random(1234)
    for _ in range(300):
        colour = rng.choice(COLOURS)
        length = rng.randint(3, 13)
        start = rng.randint(1, 14 - length)
        tiles = [Tile(colour, n) for n in range(start, start + length)]
        shuffled = tiles[:]
        while shuffled in (tiles, tiles[::-1]):
            rng.shuffle(shuffled)
        v = check_set(shuffled)
        # A rotation such as 12 13 1 2 ... is reported as going past 13; anything else as out of order.
        assert not v.valid and v.code in ("out_of_order", "run_past_13"), format_tiles(shuffled)
