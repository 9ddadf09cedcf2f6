"""webapp.store: score sheets survive restarts, and every write is all-or-nothing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from webapp import store as store_module
from webapp.store import NotFoundError, Store, StoreError, default_db_path

PLAYERS = ["Ana", "Ben", "Chen", "Dara"]
# docs/rules.md section 7, 000/001 worked example: game 1 of players A-D scores (+24, -5, -16, -3).
GAME_ONE = dict(
    winners=["Ana"],
    ending="rummikub",
    racks={"Ana": "", "Ben": "K5", "Chen": "R7 B9", "Dara": "O3"},
    rack_points={"Ana": 0, "Ben": 5, "Chen": 16, "Dara": 3},
    scores={"Ana": 24, "Ben": -5, "Chen": -16, "Dara": -3},
)


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "sheets.db")


def _counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("games", "game_scores", "dice_turns")}
    finally:
        conn.close()


def test_match_round_trip_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sheets.db"
    first = Store(path)
    match_id = first.create_match("Friday", PLAYERS, {"name": "classic"}, rounds=2)
    game = first.add_game(match_id, **GAME_ONE)
    assert game.number == 1
    again = Store(path)  # a restarted server opens the same file
    match = again.get_match(match_id)
    assert match.players == PLAYERS and match.rounds == 2 and match.rules == {"name": "classic"}
    assert [g.scores for g in match.games] == [GAME_ONE["scores"]]
    assert match.games[0].racks["Chen"] == "R7 B9"


def test_exception_inside_add_game_leaves_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    match_id = store.create_match("m", PLAYERS, {}, 1)
    calls = {"n": 0}
    real = store_module._insert_score

    def failing(*args: object) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the game row and two score rows are written by now
            raise RuntimeError("simulated crash mid-write")
        real(*args)

    monkeypatch.setattr(store_module, "_insert_score", failing)
    with pytest.raises(RuntimeError):
        store.add_game(match_id, **GAME_ONE)
    assert calls["n"] == 3
    assert _counts(store.path) == {"games": 0, "game_scores": 0, "dice_turns": 0}
    monkeypatch.setattr(store_module, "_insert_score", real)
    assert store.add_game(match_id, **GAME_ONE).number == 1  # the sheet is still usable


def test_process_killed_mid_write_leaves_nothing(tmp_path: Path) -> None:
    """A real crash: the process dies (os._exit) with the transaction open; the file stays whole."""
    path = tmp_path / "sheets.db"
    match_id = Store(path).create_match("m", PLAYERS, {}, 1)
    root = Path(__file__).resolve().parents[2]
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(root)!r})
        from webapp import store as s
        real = s._insert_score
        calls = []
        def dying(*args):
            calls.append(1)
            real(*args)
            if len(calls) == 2:
                os._exit(9)  # no rollback, no cleanup: like a power cut or kill -9
        s._insert_score = dying
        s.Store({str(path)!r}).add_game({match_id}, **{GAME_ONE!r})
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == 9, result.stderr.decode()
    assert _counts(path) == {"games": 0, "game_scores": 0, "dice_turns": 0}
    assert Store(path).add_game(match_id, **GAME_ONE).number == 1


def test_add_game_validates_players(store: Store) -> None:
    match_id = store.create_match("m", PLAYERS, {}, 1)
    bad = dict(GAME_ONE, scores={"Ana": 1, "Ben": -1})
    with pytest.raises(StoreError, match="exactly the match's players"):
        store.add_game(match_id, **bad)
    with pytest.raises(StoreError, match="not a player"):
        store.add_game(match_id, **dict(GAME_ONE, winners=["Zoe"]))
    with pytest.raises(NotFoundError):
        store.add_game(999, **GAME_ONE)
    assert _counts(store.path)["games"] == 0


def test_expected_number_refuses_a_double_submit(store: Store) -> None:
    match_id = store.create_match("m", PLAYERS, {}, 1)
    store.add_game(match_id, expected_number=1, **GAME_ONE)
    with pytest.raises(StoreError, match="already on the score sheet"):
        store.add_game(match_id, expected_number=1, **GAME_ONE)
    assert len(store.get_match(match_id).games) == 1


def test_undo_last_game_and_penalties(store: Store) -> None:
    match_id = store.create_match("m", PLAYERS, {}, 1)
    store.add_game(match_id, **GAME_ONE)
    store.add_game(match_id, **GAME_ONE)
    assert store.delete_last_game(match_id) == 2
    store.add_penalty(match_id, 2, "Ben", "timeout_draw", 3, "Time ran out")
    match = store.get_match(match_id)
    assert [g.number for g in match.games] == [1]
    assert [(p.player, p.tiles) for p in match.penalties] == [("Ben", 3)]
    store.delete_match(match_id)
    with pytest.raises(NotFoundError):
        store.get_match(match_id)
    assert _counts(store.path)["game_scores"] == 0  # cascade


@pytest.mark.parametrize(
    ("players", "words"),
    [(["Ana", "ana"], "same name"), (["Ana", " "], "needs a name"), ([f"P{i}" for i in range(9)], "1 to 8 players")],
)
def test_player_lists_are_checked(store: Store, players: list[str], words: str) -> None:
    with pytest.raises(StoreError, match=words):
        store.create_match("m", players, {}, 1)


def test_dice_sheet_turn_limit(store: Store) -> None:
    sheet_id = store.create_dice_sheet("dice", ["Ana", "Ben"], turns=2)
    for _ in range(2):
        store.add_dice_turn(sheet_id, "Ana", "R1 R2 R3 K4 K5 K6 B7 B8 B9", 9, {"sets": []})
    with pytest.raises(StoreError, match="all 2 turns"):
        store.add_dice_turn(sheet_id, "Ana", "R1 R2 R3 K4 K5 K6 B7 B8 B9", 9, {})
    sheet = store.get_dice_sheet(sheet_id)
    assert [(e.player, e.turn, e.score) for e in sheet.entries] == [("Ana", 1, 9), ("Ana", 2, 9)]


def test_missing_sheets_are_named(store: Store) -> None:
    # Every way of reaching a sheet that is not there says which one, in the same sentence.
    with pytest.raises(NotFoundError, match=r"^There is no dice sheet 999\.$"):
        store.get_dice_sheet(999)
    with pytest.raises(NotFoundError, match=r"^There is no dice sheet 999\.$"):
        store.add_dice_turn(999, "Ana", "J J J J J J J J J", 0, {})
    with pytest.raises(NotFoundError, match=r"^There is no dice sheet 999\.$"):
        store.delete_dice_sheet(999)
    with pytest.raises(NotFoundError, match=r"^There is no match 999\.$"):
        store.get_match(999)
    with pytest.raises(NotFoundError, match=r"^There is no match 999\.$"):
        store.add_penalty(999, 1, "Ana", "timeout_draw", 1, "Time ran out")
    assert _counts(store.path)["dice_turns"] == 0


def test_concurrent_writers_all_land(store: Store) -> None:
    sheet_id = store.create_dice_sheet("dice", [f"P{i}" for i in range(8)], turns=6)
    errors: list[BaseException] = []

    def play(player: str) -> None:
        try:
            for _ in range(6):
                Store(store.path).add_dice_turn(sheet_id, player, "J J J J J J J J J", 0, {})
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(f"P{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    entries = store.get_dice_sheet(sheet_id).entries
    assert len(entries) == 48
    assert sorted({(e.player, e.turn) for e in entries}) == sorted((f"P{i}", t) for i in range(8) for t in range(1, 7))


def test_default_path_honours_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RUMMIKUB_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"
    monkeypatch.delenv("RUMMIKUB_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "rummikub-assistant" / "rummikub.db"
