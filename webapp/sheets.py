"""JSON routes for the score sheets: matches (games, penalties, standings) and Rummikub Dice sheets.

The store keeps the rows; the referee's :class:`~referee.scoring.MatchSheet` and
:class:`~referee.dice.DiceSheet` are rebuilt from them on every request and decide the scores,
the standings and when a match is over. A new game is scored by the referee first and written by
the store in one transaction, with the game number the sheet expected, so a double submit can't
write the same game twice.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from referee.dice import DiceSheet, best_arrangement
from referee.i18n import _, join_sentences
from referee.penalties import penalty_for_timeout
from referee.ruleset import MatchScoring, RuleSet
from referee.scoring import GameScore, MatchSheet, ScoringError
from referee.tiles import format_tiles
from webapp.api import ERRORS, arrangement_out, rules_from, score_out, tag_routes
from webapp.runtime import Runtime, get_runtime
from webapp.schemas import (
    DeletedOut,
    DiceSheetIn,
    DiceSheetListOut,
    DiceSheetOut,
    DiceTurnIn,
    ErrorOut,
    GameAddedOut,
    GameIn,
    LoggedPenaltyOut,
    MatchIn,
    MatchListOut,
    MatchOut,
    PenaltyIn,
)
from webapp.store import DiceSheetRecord, MatchRecord

__all__ = ["router", "match_sheet", "match_out", "match_csv", "dice_out", "dice_csv", "score_out"]

router = APIRouter(prefix="/api")
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such match or sheet."},
    409: {"model": ErrorOut, "description": "The write conflicts with the sheet (e.g. a game sent twice)."},
    **ERRORS,
}


# -- matches --------------------------------------------------------------------------------------------


def match_sheet(record: MatchRecord) -> MatchSheet:
    """The referee's sheet for a stored match."""
    games = [
        GameScore(
            scores=dict(g.scores),
            winners=tuple(g.winners),
            stalemate=g.ending == "stalemate",
            rack_totals=dict(g.rack_points),
        )
        for g in record.games
    ]
    return MatchSheet(players=tuple(record.players), rules=RuleSet.from_dict(record.rules), rounds=record.rounds,
                      games=games)


def match_out(record: MatchRecord) -> dict[str, Any]:
    """A stored match with the referee's standings, as :class:`~webapp.schemas.MatchOut`."""
    sheet = match_sheet(record)
    per_round = sheet.games_per_round
    totals, won, collected = sheet.totals(), sheet.games_won(), sheet.collected()
    finished = sheet.finished
    n_games = len(record.games)
    if finished:
        if sheet.winner:
            summary = _("The match is over: {player} wins.").format(player=sheet.winner)
        else:
            summary = _("The match is over: a tie between {players}.").format(players=", ".join(sheet.leaders()))
    elif not record.games:
        summary = _("Round 1, game 1: nothing played yet.")
    else:
        round_no, game_no = divmod(n_games, per_round)
        summary = _("Round {round}, game {game} next.").format(round=round_no + 1, game=game_no + 1)
        if sheet.leader:
            summary = join_sentences([summary, _("{player} leads.").format(player=sheet.leader)])
    return {
        "id": record.id,
        "name": record.name,
        "players": record.players,
        "rounds": record.rounds,
        "rules": sheet.rules.to_dict(),
        "games": [
            {
                "number": g.number,
                "round": (g.number - 1) // per_round + 1,
                "winners": g.winners,
                "ending": g.ending,
                "racks": g.racks,
                "rack_points": g.rack_points,
                "scores": g.scores,
                "created_at": g.created_at,
            }
            for g in record.games
        ],
        "penalties": [p.__dict__ for p in record.penalties],
        "standings": [
            {"player": p, "total": totals[p], "games_won": won[p], "collected": collected[p]}
            for p in sheet.standings()
        ],
        "next_game": None if finished else n_games + 1,
        "next_round": None if finished else n_games // per_round + 1,
        "finished": finished,
        "leader": sheet.leader,
        "winner": sheet.winner,
        "summary": summary,
        "created_at": record.created_at,
    }


@router.post("/matches", response_model=MatchOut, status_code=201, responses=NOT_FOUND, summary="Start a match")
async def create_match(body: MatchIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    rules = rules_from(body.rules)
    players = [p.strip() for p in body.players]
    MatchSheet(players=tuple(players), rules=rules, rounds=body.rounds)  # the referee's checks first
    if not rules.min_players <= len(players) <= rules.max_players:
        raise ScoringError(
            _("The {name} rules are for {low} to {high} players, not {count}.").format(
                name=rules.name, low=rules.min_players, high=rules.max_players, count=len(players))
        )
    match_id = rt.store.create_match(body.name or _("Match"), players, rules.to_dict(), body.rounds)
    return match_out(rt.store.get_match(match_id))


@router.get("/matches", response_model=MatchListOut, summary="Every match, newest first")
async def list_matches(rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    return {"matches": [match_out(m) for m in rt.store.list_matches()]}


@router.get("/matches/{match_id}", response_model=MatchOut, responses=NOT_FOUND, summary="A match's score sheet")
async def get_match(match_id: int, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    return match_out(rt.store.get_match(match_id))


@router.delete("/matches/{match_id}", response_model=DeletedOut, responses=NOT_FOUND, summary="Delete a match")
async def delete_match(match_id: int, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    rt.store.delete_match(match_id)
    return {"deleted": True, "detail": _("Match {id} deleted.").format(id=match_id)}


@router.post("/matches/{match_id}/games", response_model=GameAddedOut, status_code=201, responses=NOT_FOUND,
             summary="Score a game and add it to the sheet")
async def add_game(match_id: int, body: GameIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """Score the racks (RULES.md section 7) and write the game; refused once the match is over."""
    record = rt.store.get_match(match_id)
    sheet = match_sheet(record)
    racks = {p.strip(): r for p, r in body.racks.items()}
    winner = body.winner.strip() if body.winner else None
    if winner is not None:
        racks.setdefault(winner, "")
    unknown = sorted(set(racks) - set(record.players))
    if unknown:
        raise ScoringError(_('"{player}" is not a player of this match.').format(player=unknown[0]))
    missing = [p for p in record.players if p not in racks]
    if missing:
        raise ScoringError(_("Give the rack of every player: {players} missing.").format(players=", ".join(missing)))
    game = sheet.score_game({p: racks[p] for p in record.players}, winner)  # raises if the match is over
    assert game.rack_totals is not None and game.racks is not None
    rt.store.add_game(
        match_id,
        winners=list(game.winners),
        ending="stalemate" if game.stalemate else "rummikub",
        racks={p: format_tiles(game.racks[p]) for p in record.players},
        rack_points=game.rack_totals,
        scores=game.scores,
        expected_number=body.expected_number or len(record.games) + 1,
    )
    return {"game": score_out(game), "match": match_out(rt.store.get_match(match_id))}


@router.delete("/matches/{match_id}/games/last", response_model=MatchOut, responses=NOT_FOUND,
               summary="Undo the last game")
async def undo_game(match_id: int, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    rt.store.delete_last_game(match_id)
    return match_out(rt.store.get_match(match_id))


@router.post("/matches/{match_id}/penalties", response_model=LoggedPenaltyOut, status_code=201, responses=NOT_FOUND,
             summary="The timer ran out: the rule set's penalty, logged on the sheet")
async def add_penalty(match_id: int, body: PenaltyIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    record = rt.store.get_match(match_id)
    if not body.player:
        raise ScoringError(_("Say which player ran out of time."))
    rules = RuleSet.from_dict(record.rules)
    penalty = penalty_for_timeout(body.laid, body.left_over, body.touched_table, rules)
    logged = rt.store.add_penalty(match_id, len(record.games) + 1, body.player.strip(), penalty.code, penalty.draw,
                                  penalty.message)
    return {"penalty": penalty.to_dict(), "logged": logged.__dict__}


def match_csv(record: MatchRecord) -> str:
    """The score sheet as CSV: one row per game, then totals and games won (and penalties)."""
    sheet = match_sheet(record)
    per_round = sheet.games_per_round
    out = io.StringIO()
    writer = csv.writer(out)
    players = record.players
    writer.writerow([_("Game"), _("Round"), _("Winner"), _("Ending"), *players,
                     *[_("{player} rack").format(player=p) for p in players]])
    for g in record.games:
        writer.writerow([g.number, (g.number - 1) // per_round + 1, " & ".join(g.winners),
                         _("stalemate") if g.ending == "stalemate" else _("Rummikub"),
                         *[g.scores[p] for p in players], *[g.racks[p] for p in players]])
    totals, won = sheet.totals(), sheet.games_won()
    writer.writerow([_("Total"), "", "", "", *[totals[p] for p in players]])
    writer.writerow([_("Games won"), "", "", "", *[won[p] for p in players]])
    if sheet.rules.match_scoring is MatchScoring.TARGET_POINTS:
        collected = sheet.collected()
        writer.writerow([_("Collected"), "", "", "", *[collected[p] for p in players]])
    if record.penalties:
        writer.writerow([])
        writer.writerow([_("Penalty in game"), _("Player"), _("Tiles drawn"), _("What happened")])
        for p in record.penalties:
            writer.writerow([p.game_number, p.player, p.tiles, p.note])
    return out.getvalue()


def _csv_response(text: str, filename: str) -> Response:
    # A byte-order mark so spreadsheet programs read the names' accents and CJK correctly.
    return Response("\ufeff" + text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@router.get("/matches/{match_id}/export.csv", responses={200: {"content": {"text/csv": {}}}, **NOT_FOUND},
            response_class=Response, summary="The score sheet as CSV")
async def export_match(match_id: int, rt: Runtime = Depends(get_runtime)) -> Response:
    return _csv_response(match_csv(rt.store.get_match(match_id)), f"rummikub-match-{match_id}.csv")


# -- Rummikub Dice sheets -----------------------------------------------------------------------------------


def dice_sheet(record: DiceSheetRecord) -> DiceSheet:
    """The referee's dice sheet for a stored one."""
    sheet = DiceSheet(record.players, turns=record.turns)
    for entry in record.entries:
        sheet.record(entry.player, entry.score)
    return sheet


def dice_out(record: DiceSheetRecord) -> dict[str, Any]:
    """A stored dice sheet with totals, as :class:`~webapp.schemas.DiceSheetOut`."""
    sheet = dice_sheet(record)
    data = sheet.to_dict()
    played = {p: len(sheet.scores(p)) for p in record.players}
    # Play goes round the table: the next player is the first (in seat order) with fewest turns.
    next_player = None if sheet.is_complete else min(record.players, key=lambda p: played[p])
    if sheet.is_complete:
        summary = _("Game over: {players} wins with {points} points.").format(
            players=" & ".join(data["winners"]), points=max(data["totals"].values()))
    else:
        summary = _("{player}'s turn {turn} of {turns}.").format(player=next_player, turn=played[next_player] + 1,
                                                                  turns=record.turns)
    return {
        "id": record.id,
        "name": record.name,
        "players": record.players,
        "turns": record.turns,
        "entries": [e.__dict__ for e in record.entries],
        "totals": data["totals"],
        "next_player": next_player,
        "complete": sheet.is_complete,
        "leaders": list(sheet.leaders()),
        "winners": data["winners"],
        "summary": summary,
        "created_at": record.created_at,
    }


@router.post("/dice/sheets", response_model=DiceSheetOut, status_code=201, responses=NOT_FOUND,
             summary="Start a Rummikub Dice score sheet")
async def create_dice_sheet(body: DiceSheetIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    DiceSheet(body.players, turns=body.turns)  # the referee's checks first
    sheet_id = rt.store.create_dice_sheet(body.name or _("Rummikub Dice"), body.players, body.turns)
    return dice_out(rt.store.get_dice_sheet(sheet_id))


@router.get("/dice/sheets", response_model=DiceSheetListOut, summary="Every dice sheet, newest first")
async def list_dice_sheets(rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    return {"sheets": [dice_out(s) for s in rt.store.list_dice_sheets()]}


@router.get("/dice/sheets/{sheet_id}", response_model=DiceSheetOut, responses=NOT_FOUND, summary="A dice sheet")
async def get_dice_sheet(sheet_id: int, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    return dice_out(rt.store.get_dice_sheet(sheet_id))


@router.delete("/dice/sheets/{sheet_id}", response_model=DeletedOut, responses=NOT_FOUND, summary="Delete a dice sheet")
async def delete_dice_sheet(sheet_id: int, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    rt.store.delete_dice_sheet(sheet_id)
    return {"deleted": True, "detail": _("Dice sheet {id} deleted.").format(id=sheet_id)}


@router.post("/dice/sheets/{sheet_id}/turns", response_model=DiceSheetOut, status_code=201, responses=NOT_FOUND,
             summary="Score a roll (best arrangement) and add it to the sheet")
async def add_dice_turn(sheet_id: int, body: DiceTurnIn, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    record = rt.store.get_dice_sheet(sheet_id)
    best = await rt.run(best_arrangement, body.faces)
    dice_sheet(record).record(body.player.strip(), best)  # the referee's checks (player, turns left)
    rt.store.add_dice_turn(sheet_id, body.player.strip(), " ".join(f.code for f in best.faces), best.score,
                           arrangement_out(best))
    return dice_out(rt.store.get_dice_sheet(sheet_id))


def dice_csv(record: DiceSheetRecord) -> str:
    """The dice sheet as CSV: one row per turn number, a score column per player, then totals."""
    sheet = dice_sheet(record)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_("Turn"), *record.players])
    for turn in range(record.turns):
        row: list[Any] = [turn + 1]
        for p in record.players:
            scores = sheet.scores(p)
            row.append(scores[turn] if turn < len(scores) else "")
        writer.writerow(row)
    totals = sheet.totals()
    writer.writerow([_("Total"), *[totals[p] for p in record.players]])
    return out.getvalue()


@router.get("/dice/sheets/{sheet_id}/export.csv", responses={200: {"content": {"text/csv": {}}}, **NOT_FOUND},
            response_class=Response, summary="The dice sheet as CSV")
async def export_dice(sheet_id: int, rt: Runtime = Depends(get_runtime)) -> Response:
    return _csv_response(dice_csv(rt.store.get_dice_sheet(sheet_id)), f"rummikub-dice-{sheet_id}.csv")


tag_routes(router)
