"""JSON routes for photos and the referee: thin wrappers over ``vision`` and ``referee``.

Each route turns its request model into referee types, calls one referee or vision function, and
returns that function's ``to_dict()`` plus a sentence in words. Photo work runs on the runtime's
worker pool (:meth:`webapp.runtime.Runtime.run`), never on the event loop.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Literal

import numpy as np
from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import Response

from referee.i18n import _, current_language, join_sentences, ngettext
from referee.meld import check_opening
from referee.dice import best_arrangement
from referee.penalties import penalty_for_timeout
from referee.ruleset import PRESETS, RuleSet
from referee.scoring import GameScore, score_game
from referee.sets import SetKind, SetVerdict, check_set
from referee.table import TableVerdict, check_table, describe_rearrangement, rearrangement
from referee.tiles import Tile, TileError, format_tiles, parse_table, parse_tile, parse_tiles
from referee.turn import check_turn
from vision.image import FileTooLargeError, decode_image
from webapp.runtime import Runtime, get_runtime
from webapp.schemas import (
    CorrectionIn,
    DiceIn,
    DiceOut,
    DiceReadOut,
    ErrorOut,
    HealthOut,
    OpeningIn,
    OpeningOut,
    PenaltyIn,
    PenaltyVerdictOut,
    ReadingOut,
    RulesCatalogOut,
    RulesIn,
    RuleSetOut,
    ScoreIn,
    ScoreOut,
    SuggestIn,
    SuggestOut,
    Table,
    TableCheckIn,
    TableVerdictOut,
    TurnIn,
    TurnOut,
    TurnPhotosOut,
)

__all__ = ["router", "tag_routes", "rules_from", "sets_from", "table_out", "read_upload", "score_out", "dice_result",
           "arrangement_out"]

router = APIRouter(prefix="/api")

ERRORS: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorOut, "description": "Bad input: the sentence says what was wrong."},
}
PHOTO_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorOut, "description": "The photo is too large (bytes or pixels)."},
    415: {"model": ErrorOut, "description": "The file is not a photo the server reads."},
    422: {"model": ErrorOut, "description": "The photo is damaged, or another field is wrong."},
    503: {"model": ErrorOut, "description": "The tile models are not installed."},
}

Mode = Literal["table", "rack"]

TAGS = (  # groups in /docs, by path prefix (first match wins)
    ("/api/photo", "photos"),
    ("/api/turn/check-photos", "photos"),
    ("/api/dice/sheets", "score sheets"),
    ("/api/dice", "Rummikub Dice"),
    ("/api/matches", "score sheets"),
    ("/api/profiles", "photos"),
    ("/api/health", "server"),
    ("/api/join", "server"),
    ("/api/rules", "server"),
    ("/api/strings", "server"),
    ("/api/", "referee"),
)


def tag_routes(api_router: APIRouter) -> APIRouter:
    """Give every route of the router its group in the OpenAPI docs (see :data:`TAGS`)."""
    for route in api_router.routes:
        path = getattr(route, "path", "")
        if hasattr(route, "tags") and not route.tags:
            route.tags = [next(tag for prefix, tag in TAGS if path.startswith(prefix))]
    return api_router


# -- conversions --------------------------------------------------------------------------------------


def rules_from(rules: RulesIn | None) -> RuleSet:
    """The RuleSet a request asks for (RuleSetError, a ValueError, becomes a 422)."""
    return RuleSet.from_dict(rules.fields()) if rules is not None else RuleSet.classic()


def sets_from(table: Table) -> list[list[Tile]]:
    """A table in notation (one string with ``|``, or one string per set) as lists of tiles."""
    if isinstance(table, str):
        return parse_table(table)
    return [parse_tiles(s) for s in table if s.strip()]


def table_summary(verdict: TableVerdict) -> str:
    """The verdict on a table in one sentence."""
    n = len(verdict.sets)
    valid = sum(1 for s in verdict.sets if s.valid)
    if n == 0 and not verdict.loose:
        return _("No sets on the table.")
    if verdict.ok:
        return ngettext(
            "The set is valid ({points} points).", "All {count} sets are valid ({points} points).", n
        ).format(count=n, points=verdict.points)
    parts = [_("{valid} of {count} sets are valid.").format(valid=valid, count=n)] if n else []
    if verdict.loose:
        parts.append(ngettext("{count} loose tile.", "{count} loose tiles.", len(verdict.loose)).format(
            count=len(verdict.loose)))
    others = [v for v in verdict.violations if v.code in ("too_many_copies", "too_many_jokers")]
    parts.extend(v.message for v in others)
    return join_sentences(parts)


def set_summary(verdict: SetVerdict) -> str:
    """One set's verdict in words, without repeating its tiles: "valid run, 24 points"."""
    if not verdict.valid:
        return verdict.problem or ""
    if verdict.kind is SetKind.RUN:
        return _("valid run, {points} points").format(points=verdict.points)
    return _("valid group, {points} points").format(points=verdict.points)


def table_out(verdict: TableVerdict, rules: RuleSet) -> dict[str, Any]:
    """``TableVerdict.to_dict()`` with each set's verdict in words, a summary, and for a table not
    valid as it lies, whether its tiles can be laid as valid sets (``rearranged``, see
    :func:`referee.table.rearrangement`)."""
    out = verdict.to_dict()
    for s, d in zip(verdict.sets, out["sets"]):
        d["summary"] = set_summary(s)
    rearranged = rearrangement(verdict, rules)
    out["rearranged"] = None if rearranged is None else [[t.code for t in s] for s in rearranged]
    out["summary"] = join_sentences([table_summary(verdict), describe_rearrangement(rearranged, listed=False) or ""])
    return out


def _tile_or_none(code: str) -> Tile | None:
    try:
        return parse_tile(code)
    except TileError:
        return None  # "?" - an unreadable tile


def reading_out(reading: dict[str, Any], rules: RuleSet, mode: str) -> dict[str, Any]:
    """A reader's ``to_dict()`` plus the referee's verdict on the sets, and notation strings.

    Unreadable tiles ("?") are left out of the referee's check (it can't judge them; the reading
    lists them as doubts), so a set with one shows up as too short or broken until corrected.
    """
    tiles = reading.get("tiles", [])
    sets: list[list[Tile]] = []
    for s in reading.get("sets", []):
        sets.append([t for t in (_tile_or_none(c) for c in s.get("tiles", [])) if t is not None])
    loose = [t for t in (_tile_or_none(tiles[i]["tile"]) for i in reading.get("loose", [])) if t is not None]
    rack = [t for t in (_tile_or_none(tiles[i]["tile"]) for i in reading.get("rack", [])) if t is not None]
    verdict = check_table(sets, loose, rules)
    out = dict(reading)
    out["mode"] = mode
    out["verdict"] = table_out(verdict, rules)
    out["table"] = [format_tiles(s) for s in sets]
    out["rack_tiles"] = format_tiles(rack)
    out["loose_tiles"] = format_tiles(loose)
    doubts = [dict(d) if isinstance(d, dict) else {"message": str(d)} for d in reading.get("doubts", [])]
    out["doubts"] = ranked_doubts(doubts, reading, rules)
    return out


# Within the doubts that change a verdict (and within those that don't), the likelier misreadings
# first: a tile nobody could read, a count the game can't have, a reading the rules chose.
_REASON_RANK = {"unreadable": 0, "too_many_copies": 1, "changed_for_set": 2, "changed_for_count": 3,
                "changed_for_orientation": 4, "uncertain": 5}


def _changes_verdict(doubt: dict[str, Any], reading: dict[str, Any], rules: RuleSet) -> bool:
    """Would the tile read as one of its alternatives turn its set's verdict (valid <-> not)?"""
    reason = doubt.get("reason")
    if reason in ("unreadable", "too_many_copies"):
        return True  # the table's verdict already depends on it (a set left out, a count broken)
    index = doubt.get("index")
    tiles = reading.get("tiles", [])
    if not isinstance(index, int) or not 0 <= index < len(tiles):
        return False
    set_no = tiles[index].get("set")
    if set_no is None:
        return False  # a loose or rack tile: the sets' verdicts do not depend on it
    members = reading["sets"][set_no].get("indices") or []
    own = tiles[index]["tile"]
    current = check_set([t for t in (_tile_or_none(tiles[i]["tile"]) for i in members) if t is not None], rules).valid
    for alternative in doubt.get("alternatives") or []:
        code = alternative.get("tile") if isinstance(alternative, dict) else None
        if not code or code == own or _tile_or_none(code) is None:
            continue
        swapped = [_tile_or_none(code if i == index else tiles[i]["tile"]) for i in members]
        if check_set([t for t in swapped if t is not None], rules).valid != current:
            return True
    return False


def ranked_doubts(doubts: list[dict[str, Any]], reading: dict[str, Any], rules: RuleSet) -> list[dict[str, Any]]:
    """The reader's doubts, those that change a verdict first, each with ``number`` (the "Tile N"
    of its sentence, drawn on the photo) and ``changes_verdict``."""
    for d in doubts:
        d["changes_verdict"] = _changes_verdict(d, reading, rules)
        if isinstance(d.get("index"), int):
            d["number"] = d["index"] + 1
    return sorted(doubts, key=lambda d: (not d["changes_verdict"], _REASON_RANK.get(d.get("reason", ""), 9)))


# -- health and rules -------------------------------------------------------------------------------


@router.get("/health", response_model=HealthOut, summary="Is the server ready")
async def health(request: Request, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    from webapp import __version__
    from webapp.access import access_of

    return {
        "ok": True,
        "version": __version__,
        "models_loaded": rt.reader is not None,
        "model_problem": rt.model_problem_text(),
        "dice_photos": rt.dice_reader is not None,
        "https": rt.settings.https,
        "max_upload_mb": rt.settings.max_upload_bytes // (1024 * 1024),
        "access": access_of(request),
        "join_required": rt.settings.join is not None,
    }


@router.get("/rules", response_model=RulesCatalogOut, summary="Rule-set presets")
async def rules_catalog() -> dict[str, Any]:
    return {"presets": {name: factory().to_dict() for name, factory in PRESETS.items()}}


@router.post("/rules/resolve", response_model=RuleSetOut, responses=ERRORS, summary="A preset with variants, checked")
async def resolve_rules(rules: RulesIn) -> dict[str, Any]:
    return rules_from(rules).to_dict()


# -- photos -------------------------------------------------------------------------------------------


async def read_upload(upload: UploadFile, max_bytes: int) -> bytes:
    """The upload's bytes, refusing more than ``max_bytes`` without reading further."""
    data = await upload.read(max_bytes + 1)
    if len(data) > max_bytes:
        # decode_image words the message (size and limit); it only needs the length to exceed.
        raise FileTooLargeError(
            _("The photo is larger than {limit} MB: take it at the camera's normal size.").format(
                limit=f"{max_bytes / (1024 * 1024):.0f}"
            )
        )
    return data


def require_reader(rt: Runtime) -> Any:
    """The loaded tile models, or a 503 saying how to install them."""
    if rt.reader is None:
        raise HTTPException(
            503,
            rt.model_problem_text()
            or _("The tile models are not installed, so photos can't be read: type the tiles instead."),
        )
    return rt.reader


PROFILE_FIELD = "Optional: the name of a taught profile (POST /api/profiles) to read this edition's tiles with."


def _read_photo(rt: Runtime, reader: Any, data: bytes, rules: RuleSet, mode: str,
                profile: str | None = None) -> dict[str, Any]:
    # Runs on the worker pool: decoding a 12-MP JPEG and the networks are the heavy part.
    reader = rt.reader_with(reader, profile)
    image = decode_image(data, max_bytes=rt.settings.max_upload_bytes, max_pixels=rt.settings.max_pixels)
    reading = reader.read_table(image, rules, mode)
    out = reading_out(reading.to_dict(), rules, mode)
    out["profile"] = profile.strip() if profile and profile.strip() else None
    return out


async def _photo(rt: Runtime, upload: UploadFile, rules: RuleSet, mode: str, profile: str | None = None) -> dict[str, Any]:
    reader = require_reader(rt)
    data = await read_upload(upload, rt.settings.max_upload_bytes)
    return await rt.run(_read_photo, rt, reader, data, rules, mode, profile)


def _preset_rules(preset: str, rules_json: str | None) -> RuleSet:
    if rules_json:
        return rules_from(RulesIn.model_validate_json(rules_json))
    return RuleSet.preset(preset)


@router.post("/photo/read", response_model=ReadingOut, responses=PHOTO_ERRORS, summary="Read a table or rack photo")
async def read_photo(
    photo: UploadFile = File(description="JPEG, PNG, HEIC or WebP photo (EXIF orientation is applied)."),
    mode: Mode = Form("table", description='"table" for the table, "rack" for one player\'s rack.'),
    preset: Literal["classic", "xp"] = Form("classic", description="Tile set (2 or 3 copies of each tile)."),
    profile: str | None = Form(None, max_length=100, description=PROFILE_FIELD),
    no_rack: bool = Form(False, description="The player says there is no rack in this table photo (by default "
                                             "tiles are taken as a rack only where one shows; rack_note says why)."),
    rt: Runtime = Depends(get_runtime),
) -> dict[str, Any]:
    """Every tile's code and box, the sets as they lie with the referee's verdict, loose and rack
    tiles, and the reader's doubts."""
    return await _photo(rt, photo, RuleSet.preset(preset), _reading_mode(mode, no_rack), profile)


def _reading_mode(mode: str, no_rack: bool) -> str:
    """The reader's mode: "flat" when the player says a table photo shows no rack."""
    if not no_rack:
        return mode
    if mode == "rack":
        raise ValueError(_("A rack photo cannot also have no rack: choose one."))
    return "flat"


@router.post(
    "/photo/overlay",
    responses={200: {"content": {"image/jpeg": {}}, "description": "The photo with the reading drawn on it."},
               **PHOTO_ERRORS},
    response_class=Response,
    summary="The photo with every tile's code drawn on it",
)
async def photo_overlay(
    photo: UploadFile = File(),
    mode: Mode = Form("table"),
    preset: Literal["classic", "xp"] = Form("classic"),
    profile: str | None = Form(None, max_length=100, description=PROFILE_FIELD),
    no_rack: bool = Form(False),
    rt: Runtime = Depends(get_runtime),
) -> Response:
    mode = _reading_mode(mode, no_rack)
    reader = require_reader(rt)
    data = await read_upload(photo, rt.settings.max_upload_bytes)

    def draw() -> bytes:
        reading_reader = rt.reader_with(reader, profile)
        image = decode_image(data, max_bytes=rt.settings.max_upload_bytes, max_pixels=rt.settings.max_pixels)
        import cv2

        from vision.overlay import draw_overlay

        reading = reading_reader.read_table(image, RuleSet.preset(preset), mode)
        ok, buf = cv2.imencode(".jpg", draw_overlay(image, reading), [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        return buf.tobytes()

    return Response(await rt.run(draw), media_type="image/jpeg")


def _corrected_reading(body: CorrectionIn) -> dict[str, Any]:
    from vision.decode import build_reading
    from vision.detections import N_CODES, TileDetections

    rules = rules_from(body.rules)
    kept = [t for t in body.tiles if t.tile.strip() not in ("", "-")]
    boxes = np.array([t.box for t in kept], dtype=np.float32).reshape(-1, 4)
    probs = np.zeros((len(kept), N_CODES), dtype=np.float32)
    for i, t in enumerate(kept):
        code = t.tile.strip()
        if code != "?":  # a tile still unread stays unread (zero probabilities)
            probs[i, parse_tile(code).index] = 1.0
    w, h = body.image.width, body.image.height
    if (boxes[:, [0, 2]] > w + 1).any() or (boxes[:, [1, 3]] > h + 1).any() or (boxes < -1).any():
        raise ValueError(_("A tile's box lies outside the {width} x {height} photo.").format(width=w, height=h))
    up = np.array([t.up if t.up is not None else (np.nan, np.nan) for t in kept], dtype=np.float32).reshape(-1, 2)
    det = TileDetections(boxes, np.ones(len(kept), dtype=np.float32), probs, up)
    # Without the photo no rack can be seen anew: the tiles that stood on one keep standing there.
    rack_tiles = [i for i, t in enumerate(kept) if t.rack] if body.mode == "table" else None
    reading = build_reading((w, h), det, rules, body.mode, rack_tiles=rack_tiles)
    if body.glare:  # the photo is not sent again: what it showed of its exposure comes back with the tiles
        reading = dataclasses.replace(reading, glare=body.glare)
    return reading_out(reading.to_dict(), rules, body.mode)


@router.post("/photo/correct", response_model=ReadingOut, responses=ERRORS, summary="Correct misread tiles")
async def correct_reading(body: CorrectionIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """Rebuild the sets and the verdict from tiles the player corrected by hand (boxes kept)."""
    return await rt.run(_corrected_reading, body)


# -- referee checks -----------------------------------------------------------------------------------


@router.post("/table/check", response_model=TableVerdictOut, responses=ERRORS, summary="Check a typed table")
async def table_check(body: TableCheckIn) -> dict[str, Any]:
    """Every set's verdict and value, loose tiles, and tile counts beyond the rule set."""
    rules = rules_from(body.rules)
    return table_out(check_table(sets_from(body.table), parse_tiles(body.loose), rules), rules)


@router.post("/opening/check", response_model=OpeningOut, responses=ERRORS, summary="Check an initial meld")
async def opening_check(body: OpeningIn) -> dict[str, Any]:
    verdict = check_opening(sets_from(body.sets), rules_from(body.rules))
    out = verdict.to_dict()
    for s, d in zip(verdict.sets, out["sets"]):
        d["summary"] = set_summary(s)
    if verdict.ok:
        out["summary"] = _("Valid initial meld: {points} points (at least {minimum} needed).").format(
            points=verdict.points, minimum=verdict.minimum)
    elif not verdict.reached:
        out["summary"] = _("Not enough for the initial meld: {points} points of the {minimum} needed.").format(
            points=verdict.points, minimum=verdict.minimum)
    else:
        out["summary"] = join_sentences(v.message for v in verdict.violations)
    return out


def turn_result(body: TurnIn) -> dict[str, Any]:
    """Check a turn and say the verdict in words: the one path of every turn check (typed on the
    page, the notation a photo filled in, ``/api/turn/check-photos``), so all give one answer.

    A tile loose at both the start and the end of the turn was not laid this turn (a set the
    layout could not join, or a tile left over from an earlier turn): it is left out of the check,
    and the summary says so. A tile loose only at the start was on the table all the same: it
    counts as one more (last) set of the table before, so it can't vanish, nor pass for a tile laid
    from the rack when it joins a set.
    """
    rules = rules_from(body.rules)
    loose_before = Counter(parse_tiles(body.loose_before))
    loose_after = Counter(parse_tiles(body.loose_after))
    both = loose_before & loose_after
    before = sets_from(body.before)
    if loose_before - both:
        before.append(sorted((loose_before - both).elements(), key=lambda t: t.sort_key))
    verdict = check_turn(
        before,
        sets_from(body.after),
        parse_tiles(body.rack_before) if body.rack_before is not None and body.rack_before.strip() else None,
        body.opened,
        rules,
        loose_after=sorted((loose_after - both).elements(), key=lambda t: t.sort_key),
        drew=body.drew,
    )
    out = verdict.to_dict()
    if out.get("table") is not None and verdict.table is not None:
        out["table"] = table_out(verdict.table, rules)
    laid = format_tiles(verdict.laid)
    if verdict.ok:
        if verdict.drew or not verdict.laid:
            summary = _("Legal turn: the player drew a tile.")
        elif verdict.opening_points is not None:
            summary = _("Legal initial meld: {tiles} laid, {points} points.").format(
                tiles=laid, points=verdict.opening_points)
        else:
            summary = _("Legal turn: {tiles} laid.").format(tiles=laid)
        sentences = [summary]
    else:
        sentences = [_("Not a legal turn."), *(v.message for v in verdict.violations)]
    left_out = sum(both.values())
    if left_out:
        sentences.append(ngettext(
            "{count} tile lies loose in both photos and was left out of the check.",
            "{count} tiles lie loose in both photos and were left out of the check.", left_out,
        ).format(count=left_out))
    out["summary"] = join_sentences(sentences)
    out["left_out"] = [t.code for t in sorted(both.elements(), key=lambda t: t.sort_key)]
    return out


@router.post("/turn/check", response_model=TurnOut, responses=ERRORS, summary="Check a typed turn")
async def turn_check(body: TurnIn) -> dict[str, Any]:
    """The referee's verdict on a turn, what the player laid, and the initial-meld total."""
    return turn_result(body)


@router.post("/turn/check-photos", response_model=TurnPhotosOut, responses=PHOTO_ERRORS,
             summary="Check a turn from photos")
async def turn_check_photos(
    before: UploadFile = File(description="The table at the start of the turn."),
    after: UploadFile = File(description="The table at the end of the turn."),
    rack: UploadFile | None = File(None, description="Optional: the player's rack at the start of the turn."),
    opened: bool = Form(True, description="The player made the initial meld on an earlier turn."),
    rules: str | None = Form(None, description="Optional rule set as JSON (see RulesIn)."),
    profile: str | None = Form(None, max_length=100, description=PROFILE_FIELD),
    rt: Runtime = Depends(get_runtime),
) -> dict[str, Any]:
    """Read both photos (and the rack), then check the turn as :func:`turn_check` does."""
    rule_set = _preset_rules("classic", rules)
    rules_in = RulesIn.model_validate_json(rules) if rules else RulesIn()
    read_before = await _photo(rt, before, rule_set, "table", profile)
    read_after = await _photo(rt, after, rule_set, "table", profile)
    read_rack = await _photo(rt, rack, rule_set, "rack", profile) if rack is not None and rack.filename else None
    # The same request the page sends from the notation the photos filled in (one path).
    body = TurnIn(
        before=read_before["table"],
        after=read_after["table"],
        rack_before=read_rack["rack_tiles"] if read_rack else None,
        loose_before=read_before["loose_tiles"],
        loose_after=read_after["loose_tiles"],
        opened=opened,
        rules=rules_in,
    )
    verdict = turn_result(body)
    return {"before": read_before, "after": read_after, "rack": read_rack, "verdict": verdict}


@router.post("/penalty", response_model=PenaltyVerdictOut, responses=ERRORS, summary="What running out of time costs")
async def penalty(body: PenaltyIn) -> dict[str, Any]:
    """The rule set's penalty when the turn timer runs out (RULES.md section 6)."""
    return penalty_for_timeout(body.laid, body.left_over, body.touched_table, rules_from(body.rules)).to_dict()


# -- end of a game -------------------------------------------------------------------------------------


# Between the short lines of a score ("Ana: rack 0, score +87"), on one line: each language's
# own separator (a Japanese line already uses 、 inside).
_LINE_SEPARATORS = {"zh_Hans": "；", "zh_Hant": "；", "ja": "／"}


def score_out(game: GameScore) -> dict[str, Any]:
    """``GameScore.to_dict()`` with the result in words."""
    out = game.to_dict()
    out["summary"] = _LINE_SEPARATORS.get(current_language(), "; ").join(game.describe().splitlines())
    return out


@router.post("/score", response_model=ScoreOut, responses=ERRORS, summary="Score the racks at the end of a game")
async def score(body: ScoreIn) -> dict[str, Any]:
    """Each player's score from the tiles left on the racks; ``winner`` null for a stalemate."""
    racks = {p.strip(): r for p, r in body.racks.items()}
    return score_out(score_game(racks, body.winner.strip() if body.winner else None, rules_from(body.rules)))


# -- Rummikub Dice -----------------------------------------------------------------------------------------


def arrangement_out(best: Any) -> dict[str, Any]:
    """``DiceArrangement.to_dict()`` for the page: the dice not used travel in ``unused`` (the page
    draws them as dice), so the breakdown's "Not used: ..." sentence is left out (it was printed twice)."""
    out = best.to_dict()
    if out["unused"]:
        said = _("Not used: {dice}.").format(dice=" ".join(out["unused"]))
        out["breakdown"] = [line for line in out["breakdown"] if line != said]
    return out


def dice_result(faces: str) -> dict[str, Any]:
    """The best arrangement of nine dice faces, with the score in words."""
    best = best_arrangement(faces)
    out = arrangement_out(best)
    out["summary"] = ngettext("Best score: {score} point.", "Best score: {score} points.", best.score).format(
        score=best.score)
    return out


@router.post("/dice/best", response_model=DiceOut, responses=ERRORS, summary="Best arrangement of nine dice")
async def dice_best(body: DiceIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """The highest-scoring arrangement of the nine faces (RULES.md section 8)."""
    return await rt.run(dice_result, body.faces)


@router.post("/dice/read", response_model=DiceReadOut,
             responses={**PHOTO_ERRORS, 501: {"model": ErrorOut, "description": "Dice photos can't be read here."}},
             summary="Read a photo of the nine dice")
async def dice_read(photo: UploadFile = File(), rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """The top face of every die and, when there are nine, the best arrangement and its score."""
    if rt.dice_reader is None:
        raise HTTPException(501, rt.dice_problem_text() or _("Reading dice from a photo is not available on this server: "
                                                      "type the nine faces instead."))
    data = await read_upload(photo, rt.settings.max_upload_bytes)

    def read() -> dict[str, Any]:
        image = decode_image(data, max_bytes=rt.settings.max_upload_bytes, max_pixels=rt.settings.max_pixels)
        reading = rt.dice_reader.read_dice(image).to_dict()  # type: ignore[union-attr]
        faces = " ".join(f["tile"] for f in reading["faces"])
        doubts = [d if isinstance(d, dict) else {"message": str(d)} for d in reading.get("doubts", [])]
        best = None
        if reading.get("ok") and "?" not in faces.split():
            best = dice_result(faces)
        return {"image": reading["image"], "faces": faces, "dice": reading["faces"], "ok": bool(reading.get("ok")),
                "message": reading.get("message"), "doubts": doubts, "best": best}

    return await rt.run(read)


# -- best move ---------------------------------------------------------------------------------------------


EXACT_TIEBREAK_SECONDS = 5.0
"""Most time the exact tie-break may take for one suggestion; past it the page shows the quick
estimate's move and says it is not proven. Measured on the benchmark positions: every small, mid
and mid_r24 one under 0.6 s, the slowest full table 3.4 s."""


def suggestion(body: SuggestIn) -> dict[str, Any]:
    """The solver's best move in words (runs on the worker pool: the search is CPU work)."""
    from referee.solver import best_move  # heavy; imported on first use, as the referee CLI does

    move = best_move(sets_from(body.table), parse_tiles(body.rack), rules=rules_from(body.rules),
                     opened=body.opened, objective=body.objective, tiebreak=body.tiebreak, time_limit=EXACT_TIEBREAK_SECONDS)
    if move is None:
        return {"found": False, "summary": _("No move: nothing from the rack can be laid. Draw a tile.")}
    out = move.to_dict()
    out["found"] = True
    out["summary"] = ngettext("Lay {count} tile ({points} points): {tiles}.", "Lay {count} tiles ({points} points): "
                              "{tiles}.", move.count).format(count=move.count, points=move.points,
                                                             tiles=format_tiles(move.placed))
    return out


@router.post("/suggest", response_model=SuggestOut, responses=ERRORS, summary="The best move for a rack")
async def suggest(body: SuggestIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """The move laying the most tiles (or points), with steps a person can carry out."""
    return await rt.run(suggestion, body)


tag_routes(router)
