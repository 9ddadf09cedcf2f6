"""``python -m referee``: readable output, --json, exit codes, bad input."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main, rules_from_options
from referee.ruleset import RuleSetError, TimeoutPenalty

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, "--json", *argv)
    assert code == 0, err
    assert out.count("\n") == 1  # one JSON object on one line
    return json.loads(out)


def test_set_readable_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "set", "R1", "R2", "J")
    assert code == 0 and "valid run, 6 points" in out and "R3" in out
    data = run_json(capsys, "set", "R1", "R2", "J")
    assert {"valid", "kind", "points", "problem"} <= set(data)
    assert (data["valid"], data["kind"], data["points"], data["problem"]) == (True, "run", 6, None)


def test_invalid_set_is_an_answer_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "set", "R12", "R13", "R1")
    assert code == 0 and "not valid" in out and "run_past_13" in out
    data = run_json(capsys, "set", "R12 R13 R1")  # one quoted argument works too
    assert data["valid"] is False and data["code"] == "run_past_13" and data["problem"]


def test_set_shows_other_readings(capsys: pytest.CaptureFixture[str]) -> None:
    _code, out, _ = run(capsys, "set", "J", "J", "R5")
    assert "Other readings" in out and "group" in out and "Read right to left" in out


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "table", "R1 R2 R3 | K5 B5 O5")
    assert code == 0 and "The table is valid: 21 points" in out
    data = run_json(capsys, "table", "R1 R2 R3 | K5 B5", "--loose", "K7")
    assert data["ok"] is False
    assert [v["code"] for v in data["violations"]] == ["too_short", "loose_tile"]


def test_opening_with_rule_changes(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "opening", "K10 B10 O10")
    assert data["ok"] and data["points"] == 30
    data = run_json(capsys, "--set", "opening_minimum=50", "opening", "K10 B10 O10")
    assert [v["code"] for v in data["violations"]] == ["opening_below_minimum"]
    # options may also follow the sub-command
    data = run_json(capsys, "opening", "K10 J O10", "--set", "jokers_in_opening=false")
    assert [v["code"] for v in data["violations"]] == ["joker_in_opening"]
    data = run_json(capsys, "opening", "K10 B10 O10", "--before", "R1 R2 R3 R4", "--after", "R1 R2 R3 | R4 K10 B10 O10")
    assert "opening_touched_table" in [v["code"] for v in data["violations"]]
    code, _out, err = run(capsys, "opening", "K10 B10 O10", "--before", "R1 R2 R3")
    assert code == 2 and "--after" in err


def test_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 R4", "--rack", "R4 K1")
    assert code == 0 and "Legal turn." in out and "R4" in out
    data = run_json(capsys, "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 | K5 B5 O5", "--not-opened")
    assert data["opening_points"] == 15 and [v["code"] for v in data["violations"]] == ["opening_below_minimum"]
    data = run_json(capsys, "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3", "--drew")
    assert data["ok"] and data["drew"]
    data = run_json(
        capsys, "--set", "joker_from_table_tile=false", "turn",
        "--before", "R4 J R6 | R5 K5 B5 O5", "--after", "R4 R5 R6 | K5 B5 O5 | J R7 R8", "--rack", "R7 R8",
    )  # fmt: skip
    assert [v["code"] for v in data["violations"]] == ["joker_replaced_from_table"]


def test_score(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "score", "--winner", "A", "--rack", "B=R1,K13,J", "--rack", "C=O5")
    assert data["scores"] == {"B": -44, "C": -5, "A": 49} and data["zero_sum"]
    data = run_json(capsys, "score", "--stalemate", "--rack", "A=R1", "--rack", "B=K13")
    assert data["stalemate"] and data["scores"] == {"A": 12, "B": -12}
    data = run_json(capsys, "score", "--rack", "A=R1", "--rack", "B=K13")  # no winner: pool empty
    assert data["winner"] == "A"
    code, out, _ = run(capsys, "score", "--winner", "A", "--rack", "A=", "--rack", "B=R5")
    assert code == 0 and "Winner: A" in out
    data = run_json(capsys, "score", "--winner", "A", "--rack", " B = R1, K13 ")  # spaces around the name
    assert data["scores"] == {"B": -14, "A": 14}


def test_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "penalty", "--laid", "R5 R6", "--left-over", "K3")
    assert (data["draw"], data["back_to_rack"], data["to_pool"]) == (3, ["R5", "R6"], ["K3"])
    data = run_json(capsys, "--set", "timeout_penalty=return_to_pool", "penalty", "--laid", "R5")
    assert data["policy"] == "return_to_pool" and data["draw"] == 1
    code, out, _ = run(capsys, "penalty")
    assert code == 0 and "draw one tile" in out


def test_rules(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--rules", "xp", "--set", "opening_minimum=50", "rules")
    assert set(data["presets"]) == {"classic", "xp"}
    assert data["in_force"]["copies"] == 3 and data["in_force"]["opening_minimum"] == 50
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "opening_minimum" in out and "classic" in out


@pytest.mark.parametrize(
    "argv, named",
    [
        (["set", "R1", "X9", "R3"], '"X9"'),
        (["table", "R1 R2 R14"], '"R14"'),
        (["turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 Q4"], '"Q4"'),
        (["score", "--rack", "A"], '"A"'),
        (["score", "--winner", "A", "--rack", "A=R1", "--rack", "B=R2"], "still holds R1"),
        (["--rules", "deluxe", "rules"], '"deluxe"'),
        (["--set", "opening_minimum=lots", "rules"], '"lots"'),
        (["--set", "opening_minimum=2000", "rules"], "opening_minimum"),
        (["--set", "colour=pink", "rules"], '"colour"'),
        (["--set", "nonsense", "rules"], '"nonsense"'),
        (["--set", "timeout_penalty=shout", "rules"], "timeout_penalty"),
        # NAME=VALUE options: no "=" or no name is named in full; a name given twice too
        (["score", "--rack", " =R1"], '" =R1" is not PLAYER=TILES (e.g. B=R1,K13,J)'),
        (["score", "--rack", "A=R1", "--rack", " A =K2"], 'player "A" has two --rack options'),
        (["--set", "=50", "rules"], '"=50" is not FIELD=VALUE (e.g. opening_minimum=50)'),
        (["frobnicate"], "frobnicate"),
        (["turn", "--after", "R1 R2 R3"], "--before"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], named: str) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and named in err and "Traceback" not in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "best-move" in out


def test_python_dash_m_exit_codes() -> None:
    ok = subprocess.run([sys.executable, "-m", "referee", "--json", "set", "K5", "K5", "B5"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["code"] == "duplicate_colour"
    bad = subprocess.run([sys.executable, "-m", "referee", "set", "R1", "Z2"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().count("\n") == 0 and '"Z2"' in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.skipif(importlib.util.find_spec("highspy") is None, reason="highspy is not installed")
def test_best_move_json_is_nothing_but_json_when_highs_runs() -> None:
    """The exact tie-break runs HiGHS, whose banner (highspy 1.16) went to standard output ahead
    of the JSON: a script reading the output could not parse it."""
    args = ["best-move", "--table", "B5 R5 O5 | O3 O4 J", "--rack", "O3 O4 O6 R3", "--objective", "points", "--json"]
    out = subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "HiGHS" not in out.stdout + out.stderr
    assert json.loads(out.stdout)["least_moved"] is True


def test_rules_from_options() -> None:
    rules = rules_from_options("classic", ["timeout_penalty=draw_leftovers", "jokers_in_opening=no", "target_points=500"])
    assert rules.timeout_penalty is TimeoutPenalty.DRAW_LEFTOVERS and not rules.jokers_in_opening
    assert rules.target_points == 500
    with pytest.raises(RuleSetError, match="true or false"):
        rules_from_options("classic", ["jokers_in_opening=maybe"])
    # spaces around the field name and the value do not matter
    assert rules_from_options("classic", [" opening_minimum = 50 "]).opening_minimum == 50


# --- Rummikub Dice and the best move -------------------------------------------------------------


def test_dice(capsys: pytest.CaptureFixture[str]) -> None:
    from referee import dice

    faces = ["R1", "R2", "R3", "K5", "B5", "O5", "J", "B7", "B8"]
    data = run_json(capsys, "dice", *faces)
    assert {"score", "arrangement"} <= set(data)
    assert data["score"] == dice.best_arrangement(faces).to_dict()["score"]
    code, out, _ = run(capsys, "dice", *faces)
    assert code == 0 and out.strip()
    code, _out, err = run(capsys, "dice", "R1", "R2")  # not 9 faces: bad input
    assert code == 2 and err.count("\n") == 1


def test_dice_scores_the_players_own_sets_beside_the_best(capsys: pytest.CaptureFixture[str]) -> None:
    """The rule book's strategy example: a layout worth 7 where a crossing at R7 makes 9."""
    faces = "R3 R4 R5 R6 R7 K7 B7 O7 K1".split()
    data = run_json(capsys, "dice", *faces, "--sets", "R3 R4 R5 | K7 B7 O7 R7")
    assert data["score"] == 7 and data["best"]["score"] == 9
    assert [s["dice"] for s in data["arrangement"]] == [["R3", "R4", "R5"], ["K7", "B7", "O7", "R7"]]
    code, out, _err = run(capsys, "dice", *faces, "--sets", "R3 R4 R5 | K7 B7 O7 R7")
    assert code == 0 and "Your sets score 7; the best arrangement scores 9:" in out
    code, out, _err = run(capsys, "dice", *faces, "--sets", "R3 R4 R5 R6 R7 | K7 B7 O7 R7")
    assert code == 0 and out.strip().endswith("Your sets score 9: no arrangement of this roll scores more.")
    code, _out, err = run(capsys, "dice", *faces, "--sets", "R3 R4 | K7 B7 O7")  # a set of two dice
    assert code == 2 and "R3 R4" in err and err.count("\n") == 1


def test_arrange_and_the_table_rearranged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "arrange", "R3 R1 K5 R2 O5 B5")
    assert code == 0 and "set 1: R1 R2 R3" in out and "set 2: K5 B5 O5" in out
    assert run_json(capsys, "arrange", "R1 R2 K9") == {"arrangeable": False, "sets": []}
    assert run_json(capsys, "arrange", "R1 R2 R3 | R4")["sets"] == [["R1", "R2", "R3", "R4"]]
    code, _out, err = run(capsys, "arrange", "")
    assert code == 2 and "give the tiles" in err
    # table: a table not valid as it lies says whether its tiles can be laid as valid sets
    data = run_json(capsys, "table", "R1 R2 | R3 K5 B5 O5")
    assert data["ok"] is False and data["rearranged"] == [["R1", "R2", "R3"], ["K5", "B5", "O5"]]
    assert run_json(capsys, "table", "R1 R2 R3")["rearranged"] is None
    assert run_json(capsys, "table", "R1 R2 | K9")["rearranged"] == []
    code, out, _err = run(capsys, "table", "R1 R2 | R3 K5 B5 O5")
    assert code == 0 and out.strip().endswith("Rearranged, the same tiles make valid sets: R1 R2 R3 | K5 B5 O5.")


def test_best_move(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "best-move", "--table", "R1 R2 R3", "--rack", "R4 K9 K10 K11")
    assert {"count", "points", "placed", "sets", "steps"} <= set(data)
    assert data["found"] is True and data["count"] >= 1
    code, out, _ = run(capsys, "best-move", "--table", "R1 R2 R3", "--rack", "R4 K9 K10 K11")
    assert code == 0 and out.strip() and out.strip() != "no move"
    # nothing playable: "no move" / count 0 (same meaning as best_move(...) returning None)
    code, out, _ = run(capsys, "best-move", "--table", "", "--rack", "K9")
    assert code == 0 and out.strip() == "no move"
    data = run_json(capsys, "best-move", "--rack", "K9")
    assert data == {"found": False, "count": 0, "points": 0, "placed": [], "sets": [], "steps": []}
    # the exact tie-break is the command's default: the estimate's known miss moves nothing, proven
    if importlib.util.find_spec("highspy") is not None:
        data = run_json(capsys, "best-move", "--table", "B5 R5 O5 | O3 O4 J", "--rack", "O3 O4 O6 R3")
        assert (data["count"], data["moved"], data["least_moved"], data["tiebreak"]) == (1, [], True, "exact")
    quick = run_json(capsys, "best-move", "--table", "B5 R5 O5 | O3 O4 J", "--rack", "O3 O4 O6 R3", "--tiebreak", "estimate")
    assert quick["count"] == 1 and quick["moved"] and not quick["least_moved"] and quick["tiebreak"] == "estimate"
    assert run_json(capsys, "best-move", "--table", "R1 R2 R3", "--rack", "R4 K13", "--objective", "points")["tiebreak"] == "exact"
    code, _out, err = run(capsys, "best-move", "--table", "R1 R2 R3", "--rack", "R4", "--tiebreak", "exact", "--time-limit", "-1")
    assert code == 2 and "time limit" in err
    # a table no arrangement can make valid is bad input, not "no move"
    code, out, err = run(capsys, "best-move", "--table", "R1 R2 R3 | K5 B5", "--rack", "K9", "--json")
    assert code == 2 and not out and "cannot be made valid" in err and "Set 2 (K5 B5)" in err
    # before the initial meld the table can't be used: R4 alone is not 30 points
    data = run_json(capsys, "best-move", "--table", "R1 R2 R3", "--rack", "R4", "--not-opened")
    assert data["count"] == 0


def _piped_into_closed_reader(*args: str) -> tuple[int, str]:
    """Run ``python -m ...`` with its stdout a pipe whose reader has already gone (``| head``
    that stopped reading): exit code and stderr."""
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the program writes: every write meets a broken pipe
    err = process.stderr.read().decode()
    return process.wait(60), err


def test_piping_into_head_ends_quietly() -> None:
    """Issue 15: ``python -m referee ... | head`` ended in a BrokenPipeError traceback."""
    code, err = _piped_into_closed_reader("referee", "--json", "rules")
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 141  # 128 + SIGPIPE, as other Unix tools
