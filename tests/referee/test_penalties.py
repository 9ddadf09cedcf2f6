"""Time limit and penalties (docs/rules.md section 6)."""

from __future__ import annotations

import json

import pytest

from referee.penalties import PENALTY_CODES, penalty_for_timeout
from referee.ruleset import RuleSet, TimeoutPenalty
from referee.tiles import format_tiles

CLASSIC = RuleSet.classic()


@pytest.mark.parametrize("policy", list(TimeoutPenalty))
def test_no_play_draws_one(policy: TimeoutPenalty) -> None:
    # Out of time without having played: draw one tile, the turn ends (000, 001), whatever the policy.
    p = penalty_for_timeout(rules=CLASSIC.replace(timeout_penalty=policy))
    assert p.code == "timeout_no_play"
    assert (p.draw, p.back_to_rack, p.to_pool, p.table_restored) == (1, (), (), False)


@pytest.mark.parametrize(
    "policy, laid, left_over, draw, to_pool",
    [
        # 000, 001, 003: table restored, tiles back to the rack, draw 3; 001: forgotten tiles to the pool
        (TimeoutPenalty.DRAW_THREE, "R5 R6", "", 3, ""),
        (TimeoutPenalty.DRAW_THREE, "R5 R6", "K3 B3", 3, "K3 B3"),
        # 001 strict tournament rule: also draw as many as were left over
        (TimeoutPenalty.DRAW_LEFTOVERS, "R5 R6", "K3 B3", 5, "K3 B3"),
        (TimeoutPenalty.DRAW_LEFTOVERS, "R5", "", 3, ""),
        # 004: no 3-tile penalty; leftovers to the bottom of the pool; nothing laid, so draw 1
        (TimeoutPenalty.RETURN_TO_POOL, "R5 R6", "K3", 1, "K3"),
    ],
)
def test_unfinished_manipulation(policy: TimeoutPenalty, laid: str, left_over: str, draw: int, to_pool: str) -> None:
    p = penalty_for_timeout(laid, left_over, rules=CLASSIC.replace(timeout_penalty=policy))
    assert p.code == "unfinished_manipulation" and p.policy is policy
    assert p.draw == draw
    assert format_tiles(p.back_to_rack) == laid
    assert format_tiles(p.to_pool) == to_pool
    assert p.table_restored


def test_touched_table_without_laying_is_a_manipulation() -> None:
    p = penalty_for_timeout(touched_table=True)
    assert p.code == "unfinished_manipulation" and p.draw == 3 and p.back_to_rack == ()


def test_timeout_draw_field() -> None:
    assert penalty_for_timeout("R5", rules=CLASSIC.replace(timeout_draw=2)).draw == 2


def test_message_and_to_dict() -> None:
    p = penalty_for_timeout("R5 R6", "K3")
    assert "R5 R6" in p.message and "K3" in p.message and "3 tiles" in p.message
    d = p.to_dict()
    assert d == {
        "code": "unfinished_manipulation",
        "draw": 3,
        "back_to_rack": ["R5", "R6"],
        "to_pool": ["K3"],
        "table_restored": True,
        "policy": "draw_three",
        "message": p.message,
    }
    json.dumps(d)
    assert {penalty_for_timeout().code, p.code} == set(PENALTY_CODES)


def test_one_minute_per_turn() -> None:
    # docs/rules.md 6: one minute per turn in every rule book (000, 001, 003, 004).
    assert RuleSet.classic().turn_seconds == 60 and RuleSet.xp().turn_seconds == 60


@pytest.mark.parametrize("language", ["en", "es", "zh_Hans", "zh_Hant", "ja"])
def test_message_sentences_are_joined_as_the_language_writes(language: str) -> None:
    """Issue 8: five whole sentences (restore, take back, to the pool, draw, the turn ends), with
    one space between them in English and Spanish and none in Chinese and Japanese."""
    from referee.i18n import use_language

    with use_language(language):
        p = penalty_for_timeout("R5 R6", "K3", True)
    if language in ("en", "es"):
        assert p.message.count(". ") == 4 and p.message.endswith(".")
    else:
        assert p.message.count("。") == 5 and p.message.endswith("。") and "。 " not in p.message
    assert "R5 R6" in p.message and "K3" in p.message  # tile codes stay as they are
