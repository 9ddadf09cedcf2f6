"""End of a game, score sheet and match winner (docs/rules.md section 7)."""

from __future__ import annotations

import json
import random

import pytest

from referee.ruleset import MatchScoring, RuleSet
from referee.scoring import GameScore, MatchSheet, ScoringError, rack_value, score_game
from tests.referee.tables import full_box

CLASSIC = RuleSet.classic()
TARGET = RuleSet.classic(match_scoring=MatchScoring.TARGET_POINTS)

# 000/001 worked sheet: four players, four games (one round).
SHEET_ROWS = [(24, -5, -16, -3), (-6, -11, 22, -5), (-32, -13, -2, 47), (-10, -25, 41, -6)]


def test_worked_example_003() -> None:
    # Losers hold {1,1,11,J}=43, {4,5,7,2,8}=26, {5,13}=18 -> -43, -26, -18, winner +87.
    racks = {"W": "", "A": "R1 K1 B11 J", "B": "K4 B5 O7 R2 K8", "C": "O5 B13"}
    game = score_game(racks, "W")
    assert game.rack_totals == {"W": 0, "A": 43, "B": 26, "C": 18}
    assert game.scores == {"W": 87, "A": -43, "B": -26, "C": -18}
    assert game.winner == "W" and not game.stalemate and game.zero_sum


def test_worked_sheet_000_001() -> None:
    sheet = MatchSheet(("A", "B", "C", "D"), rounds=1)
    for row in SHEET_ROWS:
        game = sheet.add_scores(dict(zip("ABCD", row)))
        assert sum(game.scores.values()) == 0  # each row sums to 0
    assert sheet.totals() == {"A": -24, "B": -54, "C": 45, "D": 33}
    assert sheet.games_won() == {"A": 1, "B": 0, "C": 2, "D": 1}
    assert sheet.finished and sheet.winner == "C"
    assert len(sheet.round_games()) == 1 and sheet.games_per_round == 4


def test_joker_counts_30_on_the_rack() -> None:
    assert rack_value("J") == 30
    assert rack_value("J R5", RuleSet.classic(joker_rack_penalty=25)) == 30
    assert score_game({"A": "", "B": "J"}, "A").scores == {"A": 30, "B": -30}


def test_winner_may_be_left_out_of_racks() -> None:
    game = score_game({"B": "R1 K13", "C": "O5"}, "A")
    assert game.scores == {"B": -14, "C": -5, "A": 19}


def test_pool_empty_lowest_total_wins() -> None:
    # 000, 001, 004: lowest total wins; losers pay (own - winner's); winner gets the sum.
    game = score_game({"A": "R1 R2", "B": "K13", "C": "B5 J"}, None)
    assert game.stalemate and game.winner == "A"
    assert game.rack_totals == {"A": 3, "B": 13, "C": 35}
    assert game.scores == {"A": 10 + 32, "B": -10, "C": -32}


def test_pool_empty_tie_for_lowest_is_a_joint_win() -> None:
    # Not in any rule book: documented choice in referee.scoring. Joint winners share the sum;
    # the remainder goes one point each in seat order.
    game = score_game({"A": "R3", "B": "K1 K2", "C": "B13", "D": "O9"}, None)
    assert game.winners == ("A", "B") and game.winner is None
    assert game.scores == {"A": 8, "B": 8, "C": -10, "D": -6}
    odd = score_game({"A": "R3", "B": "K3", "C": "B4"}, None)
    assert odd.scores == {"A": 1, "B": 0, "C": -1} and odd.zero_sum
    everyone = score_game({"A": "R3", "B": "K3"}, None)
    assert everyone.scores == {"A": 0, "B": 0} and everyone.winners == ("A", "B")


@pytest.mark.parametrize(
    "racks, winner, message",
    [
        ({"A": "R1", "B": "K1"}, "A", "still holds R1"),
        ({"A": ""}, "A", "two players"),
    ],
)
def test_bad_games(racks: dict, winner: str, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        score_game(racks, winner)


def test_sheet_rejects_bad_rows() -> None:
    sheet = MatchSheet(("A", "B"))
    with pytest.raises(ScoringError, match="add up to 1"):
        sheet.add_scores({"A": 5, "B": -4})
    with pytest.raises(ScoringError, match="players"):
        sheet.add_scores({"A": 5, "C": -5})
    with pytest.raises(ScoringError, match="say who won"):
        sheet.add_scores({"A": 0, "B": 0})
    with pytest.raises(ScoringError, match="two players"):
        MatchSheet(("A",))
    with pytest.raises(ScoringError, match="differ"):
        MatchSheet(("A", "A"))
    with pytest.raises(ScoringError, match="rounds"):
        MatchSheet(("A", "B"), rounds=0)


def test_rounds_have_as_many_games_as_players() -> None:
    sheet = MatchSheet(("A", "B", "C"), rounds=2)
    for i in range(6):
        assert not sheet.finished
        winner = "ABC"[i % 3]
        sheet.score_game({p: ("" if p == winner else "R5") for p in "ABC"}, winner)
    assert [len(r) for r in sheet.round_games()] == [3, 3]
    assert sheet.finished
    with pytest.raises(ScoringError, match="over"):
        sheet.score_game({"A": "", "B": "R1", "C": "R1"}, "A")


def test_games_won_tie_broken_by_total_score() -> None:
    # 000/001: most games won; a tie is broken by the higher total score.
    sheet = MatchSheet(("A", "B"), rounds=1)
    sheet.score_game({"A": "", "B": "R5"}, "A")  # A +5
    sheet.score_game({"A": "K13", "B": ""}, "B")  # B +13
    assert sheet.games_won() == {"A": 1, "B": 1}
    assert sheet.winner == "B" and sheet.standings() == ["B", "A"]


def test_full_tie_has_no_winner() -> None:
    sheet = MatchSheet(("A", "B"), rounds=1)
    sheet.score_game({"A": "", "B": "R5"}, "A")
    sheet.score_game({"A": "K5", "B": ""}, "B")
    assert sheet.finished and sheet.winner is None and sheet.leaders() == ("A", "B")


def test_open_match_has_a_leader_but_no_winner() -> None:
    sheet = MatchSheet(("A", "B"))
    assert sheet.leader is None
    sheet.score_game({"A": "", "B": "R5"}, "A")
    assert sheet.leader == "A" and sheet.winner is None and not sheet.finished


def test_target_points_variant_004() -> None:
    # The winner of each game collects the opponents' rack points; first to the target wins.
    sheet = MatchSheet(("A", "B", "C"), rules=TARGET.replace(target_points=100))
    sheet.score_game({"A": "", "B": "R13 K13 B13", "C": "O1"}, "A")  # A collects 40
    sheet.score_game({"A": "J J", "B": "", "C": "K10"}, "B")  # B collects 70
    assert sheet.collected() == {"A": 40, "B": 70, "C": 0}
    assert not sheet.finished and sheet.leader == "B"
    sheet.score_game({"A": "", "B": "J J", "C": "R1"}, "A")  # A collects 61 -> 101
    assert sheet.finished and sheet.winner == "A"
    # Collected points are not the signed totals (A lost 60 in game 2).
    assert sheet.totals()["A"] == 40 - 60 + 61
    with pytest.raises(ScoringError, match="over"):
        sheet.score_game({"A": "", "B": "R1", "C": "R1"}, "A")


def test_target_default_is_1000() -> None:
    sheet = MatchSheet(("A", "B"), rules=TARGET)
    for _ in range(33):
        sheet.score_game({"A": "", "B": "J"}, "A")  # 30 a game
    assert not sheet.finished
    sheet.score_game({"A": "", "B": "J J"}, "A")  # 990 + 60
    assert sheet.finished and sheet.winner == "A"


def test_sheet_round_trip() -> None:
    sheet = MatchSheet(("A", "B", "C", "D"), rules=RuleSet.classic(opening_minimum=50), rounds=2)
    for row in SHEET_ROWS:
        sheet.add_scores(dict(zip("ABCD", row)))
    sheet.score_game({"A": "R1 J", "B": "", "C": "K13", "D": "O2 O3"}, "B")
    sheet.score_game({"A": "R1", "B": "R1", "C": "K13", "D": "O2 O3"}, None)
    data = json.loads(json.dumps(sheet.to_dict()))
    again = MatchSheet.from_dict(data)
    assert again.to_dict() == sheet.to_dict()
    assert again.rules.opening_minimum == 50 and again.games[4].racks == sheet.games[4].racks
    assert again.games[5].winners == ("A", "B")
    assert GameScore.from_dict(sheet.games[0].to_dict()) == sheet.games[0]


def test_from_dict_rejects_garbage() -> None:
    with pytest.raises(ScoringError):
        MatchSheet.from_dict({"games": []})
    with pytest.raises(ScoringError):
        GameScore.from_dict({"scores": {"A": "x"}, "winners": ["A"]})


def test_describe() -> None:
    text = score_game({"A": "", "B": "R5"}, "A").describe()
    assert "B: rack 5, score -5" in text and "Winner: A" in text


@pytest.mark.parametrize("rules", [CLASSIC, RuleSet.xp()], ids=["classic", "xp"])
def test_random_games_sum_to_zero(rules: RuleSet) -> None:
    rng = random.Random(99)
    for _ in range(300):
        box = full_box(rules)
        rng.shuffle(box)
        players = [f"P{i}" for i in range(rng.randint(2, 6))]
        racks = {p: [box.pop() for _ in range(rng.randint(0, 14))] for p in players}
        winner = rng.choice([None, *players])
        if winner is not None:
            racks[winner] = []
        game = score_game(racks, winner, rules)
        assert game.zero_sum and sum(game.scores.values()) == 0
        assert all(game.scores[p] <= 0 for p in players if p not in game.winners)
        assert all(game.scores[w] >= 0 for w in game.winners)
        # the winner of a pool-empty game holds the lowest total
        assert all(game.rack_totals[w] == min(game.rack_totals.values()) for w in game.winners)  # type: ignore[index]
