"""Routes of the live referee (the "Referee" screen): a phone on a stand sends a frame every half
second, the server follows the game with :class:`vision.follow.Follower` and answers with what
happened since (turns, events); the history of stable states can be stepped through.

- ``POST /api/referee/games`` ``{"names": [...], "rules": "classic"}`` starts a game.
- ``POST /api/referee/games/{id}/frame`` (multipart ``frame``: a JPEG; ``t``: seconds, optional)
  analyses one frame; returns ``{"updates": [...], "state": {...}}``.
- ``POST /api/referee/games/{id}/draw`` ``{"t": seconds}`` (optional): the next player drew a tile
  from a pool the camera does not see (a draw from a pool in view is seen by itself).
- ``GET /api/referee/games/{id}``: the contract's JSON (turns, events, final_table) and the history.
- ``GET /api/referee/games/{id}/photo/{index}``: the photo of a history state.
- ``POST /api/referee/games/{id}/end`` ``{"racks": {"Ann": "R3 K7"}, "winner": "Bob"}``: the
  scores (``referee.score_game``) from the racks, typed or read from rack photos by ``/api/photo``.
- ``GET /api/referee/strings``: the screen's words in the request's language.

Games live in memory (at most :data:`MAX_GAMES`; the oldest is dropped) and their history photos
in a folder next to the score-sheet database, so memory and disk stay bounded.
"""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from referee.i18n import _
from referee.ruleset import RuleSetError
from referee.scoring import ScoringError, score_game
from referee.tiles import TileError
from webapp.runtime import Runtime, get_runtime

__all__ = ["router", "MAX_GAMES"]

router = APIRouter(prefix="/api/referee", tags=["referee"])
MAX_GAMES = 4
"""Games followed at the same time; starting another drops the oldest (its photos too)."""
MAX_FRAME_BYTES = 4 * 1024 * 1024


class GameIn(BaseModel):
    """A game to follow: the players in playing order (the first name plays first) and the rules."""

    names: list[str] = Field(min_length=2, max_length=6)
    rules: str = "classic"


class DrawIn(BaseModel):
    """A draw told by hand: when it happened (seconds since the game started; default now)."""

    t: float | None = None


class EndIn(BaseModel):
    """What is left on each rack (notation), and who emptied the rack (None: the pool ran out)."""

    racks: dict[str, str]
    winner: str | None = None


class _Game:
    def __init__(self, follower: Any, folder: Path) -> None:
        self.follower = follower
        self.folder = folder
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.score: dict[str, Any] | None = None


def _games(request: Request) -> OrderedDict[str, _Game]:
    state = request.app.state
    if not hasattr(state, "referee_games"):
        state.referee_games = OrderedDict()
    return state.referee_games


def _game(request: Request, game_id: str) -> _Game:
    game = _games(request).get(game_id)
    if game is None:
        raise HTTPException(404, _("No followed game {id}: start a new one.").format(id=game_id))
    return game


@router.get("/strings")
def strings() -> dict[str, str]:
    """The Referee screen's words, in the request's language."""
    return {
        "tab": _("Referee"),
        "title": _("Live referee"),
        "hint": _("Put the phone on a stand above the table, rear camera down. It watches the game, checks each "
                  "turn when the table is still, and keeps the history."),
        "players": _("Players in playing order, one per line (the first plays first)"),
        "rules": _("Rules"),
        "classic": _("Classic"),
        "spanish": _("Spanish 1999 (no 3-tile penalty)"),
        "start": _("Start watching"),
        "stop": _("Stop"),
        "drew_button": _("Drew from the pool"),
        "waiting": _("Waiting for the table to be still..."),
        "next": _("Next: {player}"),
        "turn_ok": _("Turn {number}, {player}: fine."),
        "turn_bad": _("Turn {number}, {player}: not allowed."),
        "turn_check": _("Turn {number}, {player}: check by hand."),
        "drew": _("{player} drew a tile."),
        "laid": _("Laid: {tiles}"),
        "moved": _("Moved: {tiles}"),
        "missing": _("Missing: {tiles}"),
        "check": _("Check by hand: {tiles}"),
        "history": _("History"),
        "back": _("Back"),
        "forward": _("Forward"),
        "state_n": _("State {index} of {count}"),
        "end": _("End the game"),
        "racks": _("What is left on each rack: type it, or take a photo of the rack"),
        "rack_photo": _("Rack photo"),
        "match": _("Add the game to a match sheet"),
        "no_match": _("No match sheet"),
        "on_sheet": _("The game is on the sheet of {name}."),
        "winner": _("Who emptied the rack"),
        "nobody": _("Nobody (the pool ran out)"),
        "score": _("Score the game"),
        "no_camera": _("This browser gives no camera here: open the page over HTTPS (python app.py --https)."),
        "frames": _("{count} frames"),
    }


@router.post("/games")
def start_game(body: GameIn, request: Request, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """Start following a game; returns its ``id``."""
    from vision.follow import Follower, FollowSettings, History, rules_named

    names = [n.strip() for n in body.names]
    if not all(names) or len(set(names)) != len(names):
        raise HTTPException(422, _("Player names must be distinct and not empty."))
    try:
        rules = rules_named(body.rules)
    except RuleSetError as exc:
        raise HTTPException(422, str(exc)) from None
    if rt.reader is None:
        raise HTTPException(503, rt.model_problem_text() or _("The tile models are not installed."))
    games = _games(request)
    while len(games) >= MAX_GAMES:
        _old_id, old = games.popitem(last=False)
        shutil.rmtree(old.folder, ignore_errors=True)
    game_id = uuid.uuid4().hex[:12]
    folder = Path(rt.settings.db_path).parent / "referee" / game_id
    settings = FollowSettings()
    follower = Follower(names, rules, settings, rt.reader, History(folder, settings.history_side, settings.max_history))
    games[game_id] = _Game(follower, folder)
    return {"id": game_id, "names": names, "rules": rules.name}


def _feed(game: _Game, data: bytes, t: float | None, max_pixels: int) -> dict[str, Any]:
    # Runs on the worker pool; one frame of a game at a time (the follower keeps state).
    from vision.image import decode_image

    image = decode_image(data, max_bytes=MAX_FRAME_BYTES, max_pixels=max_pixels)
    with game.lock:
        f = game.follower
        when = t if t is not None else time.monotonic() - game.started
        updates = f.feed(image, when)
        return {"updates": updates, "state": _state(f)}


def _state(f: Any) -> dict[str, Any]:
    return {"frames": f.frames, "turns": len(f.turns), "next_player": f.names[f.next_player],
            "watching": f.settled is not None, "history": f.history.count}


@router.post("/games/{game_id}/frame")
async def frame(game_id: str, request: Request, frame: UploadFile = File(...), t: float | None = Form(None),
                rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """Analyse one frame of the game; returns the turns and events it produced and the state."""
    game = _game(request, game_id)
    data = await frame.read(MAX_FRAME_BYTES + 1)
    if len(data) > MAX_FRAME_BYTES:
        raise HTTPException(413, _("A frame may be at most 4 MB: send a smaller JPEG."))
    return await rt.run(_feed, game, data, t, rt.settings.max_pixels)


@router.post("/games/{game_id}/draw")
def told_draw(game_id: str, request: Request, body: DrawIn | None = None) -> dict[str, Any]:
    """The next player drew a tile from a pool off camera; returns the draw turn and the state."""
    game = _game(request, game_id)
    with game.lock:
        f = game.follower
        when = body.t if body is not None and body.t is not None else time.monotonic() - game.started
        try:
            updates = f.drew(when)
        except ValueError:
            raise HTTPException(409, _("The referee has not seen the table at rest yet: tell a draw once it is watching.")) from None
        return {"updates": updates, "state": _state(f)}


@router.get("/games/{game_id}")
def game_state(game_id: str, request: Request) -> dict[str, Any]:
    """The game so far: turns, events, final table, the history of stable states and the score."""
    game = _game(request, game_id)
    with game.lock:
        out = game.follower.result()
        out["history"] = list(game.follower.history.states)
        out["state"] = _state(game.follower)
    out["score"] = game.score
    return out


@router.get("/games/{game_id}/photo/{index}")
def photo(game_id: str, index: int, request: Request) -> FileResponse:
    """The photo of one history state (a downscaled JPEG)."""
    game = _game(request, game_id)
    entry = next((s for s in game.follower.history.states if s["index"] == index), None)
    if entry is None or not entry.get("photo"):
        raise HTTPException(404, _("No photo {index} in this game's history.").format(index=index))
    return FileResponse(game.folder / entry["photo"], media_type="image/jpeg")


@router.post("/games/{game_id}/end")
def end_game(game_id: str, body: EndIn, request: Request) -> dict[str, Any]:
    """End the game: the scores from what is left on the racks (RULES.md section 7)."""
    game = _game(request, game_id)
    names = game.follower.names
    unknown = [p for p in body.racks if p not in names]
    if unknown:
        raise HTTPException(422, _("{player} does not play in this game.").format(player=unknown[0]))
    try:
        score = score_game({p: body.racks.get(p, "") for p in names}, body.winner or None, game.follower.rules)
    except (ScoringError, TileError) as exc:
        raise HTTPException(422, str(exc)) from None
    with game.lock:
        result = game.follower.finish()
    game.score = score.to_dict()
    return {"score": game.score, "describe": score.describe(), "final_table": result["final_table"],
            "turns": len(result["turns"])}
