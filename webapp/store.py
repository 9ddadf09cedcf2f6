"""The score sheets on disk: one SQLite file, every write one transaction.

A match (players, rule set, rounds), its games (who won, the racks, each player's score), the
penalties logged by the turn timer, Rummikub Dice sheets and the taught tile profiles live here, so a restarted server or a
closed browser loses nothing. Every write runs inside :meth:`Store.transaction` (``BEGIN
IMMEDIATE`` ... ``COMMIT``): a crash or an exception half-way leaves the file as it was before.

The store keeps plain data (names, notation strings, integers); the referee computes scores before
they are written, and reads the rules back with ``RuleSet.from_dict``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.i18n import _

__all__ = ["Store", "StoreError", "NotFoundError", "MatchRecord", "GameRecord", "PenaltyRecord",
           "DiceSheetRecord", "DiceTurnRecord", "ProfileRecord", "default_db_path", "clean_profile_name",
           "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players TEXT NOT NULL,            -- JSON list of names, in seating order
    rules TEXT NOT NULL,              -- JSON of RuleSet.to_dict()
    rounds INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,          -- 1, 2, ... within the match
    winners TEXT NOT NULL,            -- JSON list: one winner, or joint winners of a stalemate
    ending TEXT NOT NULL,             -- "rummikub" (a rack emptied) or "stalemate" (pool empty, lowest rack)
    created_at TEXT NOT NULL,
    UNIQUE (match_id, number)
);
CREATE TABLE IF NOT EXISTS game_scores (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    player TEXT NOT NULL,
    rack TEXT NOT NULL,               -- tiles left on the rack, in notation
    rack_points INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS penalties (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    game_number INTEGER NOT NULL,
    player TEXT NOT NULL,
    kind TEXT NOT NULL,
    tiles INTEGER NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dice_sheets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players TEXT NOT NULL,            -- JSON list of names
    turns INTEGER NOT NULL,           -- turns per player (6 in the standard game)
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dice_turns (
    id INTEGER PRIMARY KEY,
    sheet_id INTEGER NOT NULL REFERENCES dice_sheets(id) ON DELETE CASCADE,
    player TEXT NOT NULL,
    turn INTEGER NOT NULL,
    faces TEXT NOT NULL,              -- the nine faces in notation
    score INTEGER NOT NULL,
    arrangement TEXT NOT NULL,        -- JSON of the arrangement shown to the player
    created_at TEXT NOT NULL,
    UNIQUE (sheet_id, player, turn)
);
CREATE TABLE IF NOT EXISTS profiles (
    name TEXT PRIMARY KEY COLLATE NOCASE,  -- "Grandma's tiles"; one profile per name, any case
    meta TEXT NOT NULL,               -- JSON: the profile.json of vision.profile (codes, photos, check, reader)
    prototypes BLOB NOT NULL,         -- np.save bytes: code column, then the reader's features
    held_back BLOB NOT NULL,          -- np.savez bytes: the held-back check crops (features, probs, codes)
    revision INTEGER NOT NULL,        -- 1, 2, ...: one more per write (teaching takes seconds: no lost update)
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_match ON games (match_id, number);
CREATE INDEX IF NOT EXISTS dice_turns_by_sheet ON dice_turns (sheet_id, turn);
"""


class StoreError(ValueError):
    """A write the store refuses (unknown player, duplicate turn ...); the message says why."""


class NotFoundError(StoreError):
    """No match, game or sheet with that id."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a match."""

    id: int
    number: int
    winners: list[str]
    """The winner, or the joint winners of a stalemate tied for the lowest rack."""
    ending: str
    racks: dict[str, str]
    """Player -> tiles left on the rack, in notation ("" for the winner who went out)."""
    rack_points: dict[str, int]
    scores: dict[str, int]
    created_at: str


@dataclass(frozen=True)
class PenaltyRecord:
    """A penalty the turn timer (or a player) logged."""

    id: int
    game_number: int
    player: str
    kind: str
    tiles: int
    note: str
    created_at: str


@dataclass(frozen=True)
class MatchRecord:
    """A match and everything written for it so far."""

    id: int
    name: str
    players: list[str]
    rules: dict[str, Any]
    rounds: int
    created_at: str
    games: list[GameRecord] = field(default_factory=list)
    penalties: list[PenaltyRecord] = field(default_factory=list)


@dataclass(frozen=True)
class DiceTurnRecord:
    """One scored turn of Rummikub Dice."""

    id: int
    player: str
    turn: int
    faces: str
    score: int
    arrangement: dict[str, Any]
    created_at: str


@dataclass(frozen=True)
class DiceSheetRecord:
    """A Rummikub Dice score sheet (RULES.md section 8)."""

    id: int
    name: str
    players: list[str]
    turns: int
    created_at: str
    entries: list[DiceTurnRecord] = field(default_factory=list)


@dataclass(frozen=True)
class ProfileRecord:
    """A taught tile profile as the store keeps it (``vision.profile.profile_from_bytes`` reads it)."""

    name: str
    meta: dict[str, Any]
    """The profile's ``profile.json``: taught codes, examples, photos, the held-back check, the reader."""
    revision: int
    """How many writes it has had; a write names the revision it started from."""
    created_at: str
    updated_at: str
    prototypes: bytes = b""
    """``np.save`` bytes of the prototypes (empty in a listing)."""
    held_back: bytes = b""
    """``np.savez`` bytes of the held-back check crops (empty in a listing)."""


PROFILE_NAME_MAX = 40


def clean_profile_name(name: str) -> str:
    """The name stripped, or :class:`StoreError` saying what is wrong with it."""
    cleaned = " ".join(str(name).split())
    if not cleaned:
        raise StoreError(_("Give the profile a name, e.g. the name of your tile set."))
    if len(cleaned) > PROFILE_NAME_MAX:
        raise StoreError(_("A profile's name is at most {n} characters.").format(n=PROFILE_NAME_MAX))
    if any(ord(c) < 32 or c in "/\\" for c in cleaned):
        raise StoreError(_("A profile's name can't hold / or \\ or control characters."))
    return cleaned


def default_db_path() -> Path:
    """``$RUMMIKUB_DB`` if set, else ``rummikub.db`` in the user's data folder (XDG on Linux)."""
    env = os.environ.get("RUMMIKUB_DB")
    if env:
        return Path(env).expanduser()
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA", Path.home()))
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "rummikub-assistant" / "rummikub.db"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """The SQLite file behind the score sheets. Safe to share between threads.

    Each call opens its own short-lived connection (SQLite connections must not cross threads,
    and the server answers requests from a thread pool); WAL mode lets readers run beside a writer.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # serialises writers inside this process; SQLite locks across processes
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    # -- connections and transactions -------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; transaction() says BEGIN/COMMIT itself.
        conn = sqlite3.connect(self.path, timeout=15, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=FULL")  # a committed game survives a power cut
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write: ``BEGIN IMMEDIATE`` on entry, ``COMMIT`` on success, else ``ROLLBACK``."""
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            finally:
                conn.close()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            conn.execute("BEGIN")  # one consistent snapshot for a multi-table read
            yield conn
            conn.execute("COMMIT")
        finally:
            conn.close()

    # -- matches ------------------------------------------------------------------------------------

    def create_match(self, name: str, players: Sequence[str], rules: Mapping[str, Any], rounds: int) -> int:
        """Start a match; returns its id. Player names must be distinct and non-empty."""
        names = _clean_players(players)
        if rounds < 1:
            raise StoreError(_("A match has at least one round."))
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO matches (name, players, rules, rounds, created_at) VALUES (?, ?, ?, ?, ?)",
                (name.strip() or "Match", json.dumps(names), json.dumps(dict(rules)), rounds, _now()),
            )
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def list_matches(self) -> list[MatchRecord]:
        """Every match, newest first, with its games (penalties included)."""
        with self._reading() as conn:
            ids = [row["id"] for row in conn.execute("SELECT id FROM matches ORDER BY id DESC")]
            return [self._match(conn, i) for i in ids]

    def get_match(self, match_id: int) -> MatchRecord:
        """The match with its games and penalties. Raises :class:`NotFoundError`."""
        with self._reading() as conn:
            return self._match(conn, match_id)

    def delete_match(self, match_id: int) -> None:
        """Remove a match and everything written for it."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM matches WHERE id = ?", (match_id,)).rowcount == 0:
                raise NotFoundError(_("There is no match {id}.").format(id=match_id))

    def add_game(
        self,
        match_id: int,
        winners: Sequence[str],
        ending: str,
        racks: Mapping[str, str],
        rack_points: Mapping[str, int],
        scores: Mapping[str, int],
        expected_number: int | None = None,
    ) -> GameRecord:
        """Write one finished game: the game row and one score row per player, in one transaction.

        ``expected_number`` guards against the same game sent twice (a double tap, a retried
        request): the write is refused unless it would be that game number.
        """
        if ending not in ("rummikub", "stalemate"):
            raise StoreError(_('A game ends with "rummikub" or "stalemate", not "{ending}".').format(ending=ending))
        with self.transaction() as conn:
            match = self._match_row(conn, match_id)
            players = json.loads(match["players"])
            for name_of, given in ((_("racks"), racks), (_("rack points"), rack_points), (_("scores"), scores)):
                if sorted(given) != sorted(players):
                    raise StoreError(
                        _("The {what} must name exactly the match's players: {players}.").format(
                            what=name_of, players=", ".join(players)
                        )
                    )
            for winner in winners:
                if winner not in players:
                    raise StoreError(_('"{player}" is not a player of this match.').format(player=winner))
            if not winners:
                raise StoreError(_("A game needs a winner."))
            number = conn.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM games WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            if expected_number is not None and expected_number != number:
                raise StoreError(
                    _("Game {number} is already on the score sheet; the next game is {next}.").format(
                        number=expected_number, next=number
                    )
                )
            created = _now()
            cur = conn.execute(
                "INSERT INTO games (match_id, number, winners, ending, created_at) VALUES (?, ?, ?, ?, ?)",
                (match_id, number, json.dumps(list(winners)), ending, created),
            )
            game_id = int(cur.lastrowid)  # type: ignore[arg-type]
            for seat, player in enumerate(players):
                _insert_score(conn, game_id, seat, player, racks[player], int(rack_points[player]), int(scores[player]))
            return GameRecord(
                game_id, number, list(winners), ending, dict(racks), dict(rack_points), dict(scores), created
            )

    def delete_last_game(self, match_id: int) -> int:
        """Undo the last game written (a wrong entry); returns its number."""
        with self.transaction() as conn:
            self._match_row(conn, match_id)
            row = conn.execute(
                "SELECT id, number FROM games WHERE match_id = ? ORDER BY number DESC LIMIT 1", (match_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(_("This match has no game to undo."))
            conn.execute("DELETE FROM games WHERE id = ?", (row["id"],))
            return int(row["number"])

    def add_penalty(
        self, match_id: int, game_number: int, player: str, kind: str, tiles: int, note: str
    ) -> PenaltyRecord:
        """Log a penalty (e.g. the timer ran out during a manipulation)."""
        with self.transaction() as conn:
            match = self._match_row(conn, match_id)
            if player not in json.loads(match["players"]):
                raise StoreError(_('"{player}" is not a player of this match.').format(player=player))
            created = _now()
            cur = conn.execute(
                "INSERT INTO penalties (match_id, game_number, player, kind, tiles, note, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (match_id, game_number, player, kind, tiles, note, created),
            )
            penalty_id = int(cur.lastrowid)  # type: ignore[arg-type]
            return PenaltyRecord(penalty_id, game_number, player, kind, tiles, note, created)

    def _match_row(self, conn: sqlite3.Connection, match_id: int) -> sqlite3.Row:
        row = conn.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise NotFoundError(_("There is no match {id}.").format(id=match_id))
        return row

    def _match(self, conn: sqlite3.Connection, match_id: int) -> MatchRecord:
        row = self._match_row(conn, match_id)
        games: list[GameRecord] = []
        for g in conn.execute("SELECT * FROM games WHERE match_id = ? ORDER BY number", (match_id,)).fetchall():
            rows = conn.execute("SELECT * FROM game_scores WHERE game_id = ? ORDER BY seat", (g["id"],)).fetchall()
            games.append(
                GameRecord(
                    id=g["id"],
                    number=g["number"],
                    winners=json.loads(g["winners"]),
                    ending=g["ending"],
                    racks={r["player"]: r["rack"] for r in rows},
                    rack_points={r["player"]: r["rack_points"] for r in rows},
                    scores={r["player"]: r["score"] for r in rows},
                    created_at=g["created_at"],
                )
            )
        penalties = [
            PenaltyRecord(p["id"], p["game_number"], p["player"], p["kind"], p["tiles"], p["note"], p["created_at"])
            for p in conn.execute("SELECT * FROM penalties WHERE match_id = ? ORDER BY id", (match_id,))
        ]
        return MatchRecord(
            id=row["id"],
            name=row["name"],
            players=json.loads(row["players"]),
            rules=json.loads(row["rules"]),
            rounds=row["rounds"],
            created_at=row["created_at"],
            games=games,
            penalties=penalties,
        )

    # -- Rummikub Dice ------------------------------------------------------------------------------

    def create_dice_sheet(self, name: str, players: Sequence[str], turns: int = 6) -> int:
        """Start a dice score sheet (1-8 players, RULES.md section 8); returns its id."""
        names = _clean_players(players, low=1, high=8)
        if not 1 <= turns <= 30:
            raise StoreError(_("Turns per player must be from 1 to 30."))
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO dice_sheets (name, players, turns, created_at) VALUES (?, ?, ?, ?)",
                (name.strip() or "Rummikub Dice", json.dumps(names), turns, _now()),
            )
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def get_dice_sheet(self, sheet_id: int) -> DiceSheetRecord:
        """The sheet with every scored turn. Raises :class:`NotFoundError`."""
        with self._reading() as conn:
            return self._dice_sheet(conn, sheet_id)

    def list_dice_sheets(self) -> list[DiceSheetRecord]:
        """Every dice sheet, newest first."""
        with self._reading() as conn:
            ids = [row["id"] for row in conn.execute("SELECT id FROM dice_sheets ORDER BY id DESC")]
            return [self._dice_sheet(conn, i) for i in ids]

    def delete_dice_sheet(self, sheet_id: int) -> None:
        """Remove a dice sheet and its turns."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM dice_sheets WHERE id = ?", (sheet_id,)).rowcount == 0:
                raise NotFoundError(_("There is no dice sheet {id}.").format(id=sheet_id))

    def add_dice_turn(
        self, sheet_id: int, player: str, faces: str, score: int, arrangement: Mapping[str, Any]
    ) -> DiceTurnRecord:
        """Write the player's next turn; refused once they have played all their turns."""
        with self.transaction() as conn:
            sheet = self._dice_sheet_row(conn, sheet_id)
            if player not in json.loads(sheet["players"]):
                raise StoreError(_('"{player}" is not a player on this dice sheet.').format(player=player))
            turn = conn.execute(
                "SELECT COUNT(*) + 1 FROM dice_turns WHERE sheet_id = ? AND player = ?", (sheet_id, player)
            ).fetchone()[0]
            if turn > sheet["turns"]:
                raise StoreError(
                    _('"{player}" has already played all {turns} turns.').format(player=player, turns=sheet["turns"])
                )
            created = _now()
            cur = conn.execute(
                "INSERT INTO dice_turns (sheet_id, player, turn, faces, score, arrangement, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sheet_id, player, turn, faces, score, json.dumps(dict(arrangement)), created),
            )
            turn_id = int(cur.lastrowid)  # type: ignore[arg-type]
            return DiceTurnRecord(turn_id, player, turn, faces, score, dict(arrangement), created)

    def _dice_sheet_row(self, conn: sqlite3.Connection, sheet_id: int) -> sqlite3.Row:
        row = conn.execute("SELECT * FROM dice_sheets WHERE id = ?", (sheet_id,)).fetchone()
        if row is None:
            raise NotFoundError(_("There is no dice sheet {id}.").format(id=sheet_id))
        return row

    def _dice_sheet(self, conn: sqlite3.Connection, sheet_id: int) -> DiceSheetRecord:
        row = self._dice_sheet_row(conn, sheet_id)
        entries = [
            DiceTurnRecord(t["id"], t["player"], t["turn"], t["faces"], t["score"], json.loads(t["arrangement"]),
                           t["created_at"])
            for t in conn.execute("SELECT * FROM dice_turns WHERE sheet_id = ? ORDER BY id", (sheet_id,))
        ]
        return DiceSheetRecord(row["id"], row["name"], json.loads(row["players"]), row["turns"], row["created_at"],
                               entries)


    # -- taught tile profiles ------------------------------------------------------------------------

    def list_profiles(self) -> list[ProfileRecord]:
        """Every taught profile by name (without their prototypes)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT name, meta, revision, created_at, updated_at FROM profiles ORDER BY name").fetchall()
        return [ProfileRecord(r["name"], json.loads(r["meta"]), r["revision"], r["created_at"], r["updated_at"]) for r in rows]

    def get_profile(self, name: str) -> ProfileRecord:
        """The profile with its prototypes and held-back crops. Raises :class:`NotFoundError`."""
        with self._reading() as conn:
            row = conn.execute("SELECT * FROM profiles WHERE name = ?", (" ".join(str(name).split()),)).fetchone()
        if row is None:
            raise NotFoundError(_('There is no profile "{name}".').format(name=name))
        return ProfileRecord(row["name"], json.loads(row["meta"]), row["revision"], row["created_at"], row["updated_at"],
                             bytes(row["prototypes"]), bytes(row["held_back"]))

    def save_profile(self, name: str, meta: Mapping[str, Any], prototypes: bytes, held_back: bytes,
                     expected_revision: int | None) -> ProfileRecord:
        """Write a profile in one transaction: a new one (``expected_revision`` None) or the next
        revision of the one read before teaching. Refused (nothing written) when a profile of that
        name already exists, or when it changed meanwhile (another phone taught it too)."""
        clean = clean_profile_name(name)
        if not prototypes:
            raise StoreError(_("A profile needs taught tiles."))
        now = _now()
        with self.transaction() as conn:
            row = conn.execute("SELECT name, revision, created_at FROM profiles WHERE name = ?", (clean,)).fetchone()
            if expected_revision is None:
                if row is not None:
                    raise StoreError(_('A profile "{name}" exists already: add this photo to it, or choose another '
                                       "name.").format(name=row["name"]))
                conn.execute("INSERT INTO profiles (name, meta, prototypes, held_back, revision, created_at, updated_at)"
                             " VALUES (?, ?, ?, ?, 1, ?, ?)", (clean, json.dumps(dict(meta)), prototypes, held_back, now, now))
                return ProfileRecord(clean, dict(meta), 1, now, now, prototypes, held_back)
            if row is None:
                raise NotFoundError(_('There is no profile "{name}".').format(name=clean))
            if row["revision"] != expected_revision:
                raise StoreError(_('The profile "{name}" changed while this photo was taught (another phone?): '
                                   "nothing was written; try again.").format(name=row["name"]))
            conn.execute("UPDATE profiles SET meta = ?, prototypes = ?, held_back = ?, revision = ?, updated_at = ?"
                         " WHERE name = ?", (json.dumps(dict(meta)), prototypes, held_back, expected_revision + 1, now,
                                            row["name"]))
            return ProfileRecord(row["name"], dict(meta), expected_revision + 1, row["created_at"], now, prototypes,
                                 held_back)

    def delete_profile(self, name: str) -> None:
        """Remove a taught profile."""
        with self.transaction() as conn:
            if conn.execute("DELETE FROM profiles WHERE name = ?", (" ".join(str(name).split()),)).rowcount == 0:
                raise NotFoundError(_('There is no profile "{name}".').format(name=name))


def _insert_score(
    conn: sqlite3.Connection, game_id: int, seat: int, player: str, rack: str, rack_points: int, score: int
) -> None:
    # A function of its own so the crash tests can make the second row fail.
    conn.execute(
        "INSERT INTO game_scores (game_id, seat, player, rack, rack_points, score) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, seat, player, rack, rack_points, score),
    )


def _clean_players(players: Sequence[str], low: int = 1, high: int = 8) -> list[str]:
    names = [str(p).strip() for p in players]
    if any(not n for n in names):
        raise StoreError(_("Every player needs a name."))
    if len({n.casefold() for n in names}) != len(names):
        raise StoreError(_("Two players have the same name: give each a different one."))
    if not low <= len(names) <= high:
        raise StoreError(_("A sheet has {low} to {high} players, not {n}.").format(low=low, high=high, n=len(names)))
    if any(len(n) > 40 for n in names):
        raise StoreError(_("A player's name is at most 40 characters."))
    return names
