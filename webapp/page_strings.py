"""Every sentence the page itself shows, marked for the catalogs and served translated.

The page (``static/app.js``) holds no English of its own: at start, and again when the player
picks another language with the switch in the header, it fetches ``GET /api/strings`` and puts
each string where the page names its key (``data-i18n="key"`` in ``index.html``, ``t("key")`` in
``app.js``). Sentences the server makes (verdicts, errors, score summaries) come translated in the
JSON answers themselves; both follow the same language (:func:`webapp.middleware.pick_language`).

``{name}`` placeholders are filled by the page (``t("set_n", {n: 3})``), except the colour words of
the notation hint, which the server fills with :func:`referee.i18n.colour_name`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from referee.i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, colour_name, current_language
from webapp.api import tag_routes
from webapp.middleware import LANG_COOKIE, html_lang
from webapp.schemas import StringsOut

__all__ = ["PAGE_STRINGS", "page_strings", "languages", "router"]

PAGE_STRINGS: dict[str, str] = {
    # -- header, tabs, title
    "page_title": N_("Rummikub table assistant"),
    "app_title": N_("Rummikub assistant"),
    # TRANSLATORS: label of the language switch in the page's header.
    "language": N_("Language"),
    # TRANSLATORS: name of the row of tabs at the bottom of the page (read by screen readers).
    "screens": N_("Screens"),
    "tab_table": N_("Table"),
    # TRANSLATORS: tab of the screen that checks a player's turn (a classic-game turn, not Dice).
    "tab_turn": N_("Turns"),
    # TRANSLATORS: tab of the screen that scores the racks at the end of a game.
    "tab_score": N_("Score"),
    # TRANSLATORS: tab of the screen that suggests the best move.
    "tab_move": N_("Move"),
    "tab_dice": N_("Dice"),
    "tab_match": N_("Match"),
    # -- 1. the table
    "table_title": N_("Check the table"),
    "table_hint": N_("Photograph the table: every tile is read, every set checked. Tap a tile to correct it."),
    # TRANSLATORS: {black}, {blue}, {orange}, {red} are the colour words; the letters K, B, O, R
    # and J are the notation and stay as they are.
    "table_typed": N_("Sets in notation (K {black}, B {blue}, O {orange}, R {red}, J joker; | between sets)"),
    "check_table": N_("Check these sets"),
    # TRANSLATORS: label of the field with the tiles that lie on the table outside any set.
    "loose_typed": N_("Loose tiles, outside any set"),
    # -- 2. a turn
    "turn_title": N_("Check a turn"),
    "turn_hint": N_("A photo of the table before the turn and after it (and, if you like, the player's rack before it)."),
    "before": N_("Before"),
    "after": N_("After"),
    "table_before": N_("Table before"),
    "table_after": N_("Table after"),
    "rack_optional": N_("The player's rack before the turn (optional)"),
    "rack": N_("Rack"),
    "opened": N_("The player had already made the initial meld"),
    "check_turn": N_("Check the turn"),
    # -- 3. end of a game
    "score_title": N_("End of the game"),
    "score_hint": N_("Photograph or type each player's rack. The winner's rack is empty; no winner means the pool ran out."),
    "add_player": N_("+ Player"),
    "winner": N_("Winner"),
    "score_go": N_("Score the game"),
    "score_save": N_("Add to the match"),
    # -- 4. best move
    "move_title": N_("Suggest a move"),
    "move_hint": N_("A photo of the table and one of your rack: the best move, step by step."),
    "table": N_("Table"),
    "your_rack": N_("Your rack"),
    "opened_me": N_("I have already made my initial meld"),
    "objective": N_("Aim for"),
    "most_tiles": N_("most tiles"),
    "most_points": N_("most points"),
    "move_go": N_("Find the best move"),
    "fewest_moves": N_("Prove the fewest table tiles moved (up to 5 s more)"),
    "least_proven": N_("No move laying as many tiles moves fewer table tiles."),
    "least_unproven": N_("Not proven in time to move the fewest table tiles: this is the quick estimate."),
    # -- 5. Rummikub Dice
    "dice_title": N_("Rummikub Dice"),
    "dice_hint": N_("Photograph the nine dice or type their faces: the best arrangement and its score."),
    "dice_faces": N_("The nine faces"),
    "dice_go": N_("Best arrangement"),
    "dice_sheet": N_("Dice score sheet"),
    "dice_new": N_("New dice sheet"),
    "players_lines": N_("Players (one per line, 1-8)"),
    "turns_each": N_("Turns each"),
    "start_sheet": N_("Start the sheet"),
    # -- 6. match
    "match_title": N_("Match"),
    "timer_start": N_("Start turn"),
    "timer_next": N_("Next player"),
    "timer_pause": N_("Pause"),
    "time_up": N_("Time is up! What had the player done?"),
    "pen_no_play": N_("Nothing played"),
    "pen_unfinished": N_("In the middle of a move"),
    "match_new": N_("New match"),
    "match_name": N_("Name"),
    # TRANSLATORS: an example name for a match, shown greyed in the empty name field.
    "match_name_example": N_("Friday night"),
    "players_lines_2": N_("Players (one per line, in seating order)"),
    "rounds": N_("Rounds (each round: one game per player)"),
    "rule_set": N_("Rule set"),
    "classic": N_("Classic (106 tiles, 2-4 players)"),
    "xp": N_("XP (160 tiles, 5-6 players)"),
    "opening_min": N_("Initial meld at least"),
    "jokers_opening": N_("Jokers allowed in the initial meld"),
    "joker_table": N_("A table joker may be replaced by a tile from the table"),
    "turn_time": N_("Seconds per turn"),
    "timeout_penalty": N_("Unfinished move when time runs out"),
    "draw_three": N_("Restore the table, draw 3 tiles"),
    "draw_leftovers": N_("Draw 3 plus the tiles left over (strict)"),
    "return_to_pool": N_("Restore the table, no penalty draw"),
    "match_scoring": N_("Match winner"),
    "games_won": N_("Most games won"),
    "target_points": N_("First to a target of points"),
    "target": N_("Target points"),
    "start_match": N_("Start the match"),
    "all_matches": N_("All matches"),
    # -- 8. teach it my tiles (a profile of the player's edition)
    # TRANSLATORS: tab of the screen that teaches the reader the player's own tiles.
    "tab_teach": N_("My tiles"),
    "teach_title": N_("Teach it my tiles"),
    "teach_hint": N_("If your tiles read badly, teach the reader your edition once: lay tiles out in rows, for example "
                     "1 to 13 of each colour, one colour per row, then the two jokers; photograph them from straight "
                     "above, and type the rows below, top to bottom, left to right."),
    # TRANSLATORS: label of the list of taught profiles that photos can be read with.
    "profile_pick": N_("Read photos with"),
    "profile_none": N_("The reader alone"),
    "teach_new": N_("Teach a photo of your tiles"),
    "teach_rows": N_("The tiles row by row, top to bottom (| between rows)"),
    "teach_name": N_("Name of the profile (a name already taught gets this photo added)"),
    # TRANSLATORS: an example name for a profile, shown greyed in the empty name field.
    "teach_name_example": N_("Our tiles"),
    "teach_go": N_("Teach"),
    "teaching": N_("Teaching the reader your tiles… (a few seconds)"),
    "teach_photo_needed": N_("Take or choose the photo of your tiles first."),
    "profiles_title": N_("Taught profiles"),
    "no_profiles": N_("No profile yet."),
    # TRANSLATORS: under a profile's name: {codes} different tiles taught, from {photos} photos, {added} added one by one.
    "profile_line": N_("{codes} tiles taught from {photos} photos, {added} added after corrections"),
    "confirm_delete_profile": N_("Delete this profile for good?"),
    # TRANSLATORS: under a photo's reading; {name} is the profile's name.
    "read_with": N_("Read with your tiles: “{name}”."),
    # TRANSLATORS: button after a correction; {tile} is the tile in notation (R7), {name} the profile's name.
    "add_to_profile": N_("Add this {tile} to my profile “{name}”"),
    # -- photo slots, live camera, tile picker
    # TRANSLATORS: button that opens the phone's camera.
    "take_photo": N_("Photo"),
    # TRANSLATORS: button that picks a photo from the phone's gallery.
    "choose_photo": N_("Choose"),
    "live_camera": N_("Live view"),
    "reading": N_("Reading the tiles…"),
    "close": N_("Close"),
    # TRANSLATORS: the shutter button of the live camera (read by screen readers).
    "capture": N_("Take the picture"),
    "pick_tile": N_("This tile is"),
    "not_a_tile": N_("Not a tile"),
    # -- joining a table served on the network
    "join_title": N_("Join this table"),
    "join_hint": N_("This server lets in only the phones that joined it. Scan the QR code on the computer that "
                    "runs it, or type the code it shows."),
    "join_code": N_("Join code"),
    "join_go": N_("Join"),
    "share_title": N_("A phone at the table: scan to join"),
    # TRANSLATORS: {url} is the server's address and {code} the short join code, both shown as they are.
    "share_line": N_("Scan it with the phone's camera, or open {url} and type the code {code}."),
    "cancel": N_("Cancel"),
    # -- sentences built by app.js
    "live_unavailable": N_("Live camera needs HTTPS or this computer: start the server with "
                           "python app.py --host 0.0.0.0 --https (the camera button works anyway)."),
    "live_failed": N_("The camera could not be opened: {error}"),
    "camera_missing": N_("No camera was found on this device: take a photo with the camera button, or choose one."),
    "camera_denied": N_("The browser did not allow the camera: allow it in the site settings, or use the camera button."),
    # TRANSLATORS: a label before a row of tiles; keep the colon (a full-width one in Chinese and Japanese).
    "loose": N_("Loose tiles:"),
    "rearranged": N_("The same tiles as valid sets:"),
    # TRANSLATORS: a label before a row of tiles.
    "rack_read": N_("Rack:"),
    "rack_points": N_("{points} points on the rack"),
    # TRANSLATORS: heading of the list of tiles the reader is unsure of; {count} is how many are left.
    "doubts_n": N_("Doubts ({count})"),
    # TRANSLATORS: a small tag before a doubt whose tile, read otherwise, would change a set's verdict.
    "doubt_changes": N_("changes the verdict"),
    "doubts_show_all": N_("Show all {count}"),
    # TRANSLATORS: a checkbox beside a table photo: the player says no rack shows in it.
    "no_rack": N_("No rack in this photo"),
    "set_n": N_("Set {n}"),
    "tap_to_fix": N_("Tap a tile on the photo to correct it."),
    "no_tiles": N_("No tiles were found in this photo."),
    # TRANSLATORS: a label before the tiles the player laid this turn.
    "laid": N_("Laid:"),
    # TRANSLATORS: a label before the tiles that were on the table before the turn and are gone after it.
    "missing": N_("Missing from the table:"),
    "opening_points": N_("Initial meld: {points} points from the rack"),
    "steps": N_("Steps"),
    "new_table": N_("Table after the move"),
    "no_match": N_("No match in progress: start one on the Match screen to keep the score sheet."),
    "in_match": N_("Match: {name} — game {game}"),
    "player_n": N_("Player {n}"),
    "player_name": N_("Player's name"),
    "remove_player": N_("Remove this player"),
    "stalemate": N_("Nobody (the pool ran out)"),
    "saved_summary": N_("Saved. {summary}"),
    "game": N_("Game"),
    # TRANSLATORS: after a game's number on the match sheet: "3 · Round 2".
    "round_n": N_("Round {n}"),
    "total": N_("Total"),
    # TRANSLATORS: row of the match sheet: how many games each player won.
    "games_won_short": N_("Won"),
    "collected": N_("Collected"),
    "export_csv": N_("Export CSV"),
    "undo_game": N_("Undo last game"),
    "delete": N_("Delete"),
    "open": N_("Open"),
    "confirm_delete": N_("Delete this sheet for good?"),
    "confirm_undo": N_("Remove the last game from the score sheet?"),
    "add_turn": N_("Score this roll for {player}"),
    # TRANSLATORS: column of the Rummikub Dice score sheet (one of a player's turns).
    "turn_of": N_("Turn"),
    "penalties": N_("Penalties"),
    # TRANSLATORS: a penalty on the match sheet: "Game 3, Ana: Time is up ...".
    "penalty_line": N_("Game {game}, {player}: {note}"),
    # TRANSLATORS: the player whose timer ran out, then the referee's sentence.
    "player_said": N_("{player}: {message}"),
    "typed_only": N_("typed tiles only"),
    "network_error": N_("The server did not answer: is it still running?"),
    "run": N_("run"),
    "group": N_("group"),
    # TRANSLATORS: a label before the dice left out of the arrangement.
    "unused": N_("Not used:"),
    "score_is": N_("Score: {score}"),
    "no_sheet": N_("No dice sheet yet."),
    "players_needed": N_("Type the players, one per line."),
}
"""Key -> English sentence (the msgid). Keys are what the page uses; never rename one lightly."""


def _colour_words() -> dict[str, str]:
    # The hint names the colours by their notation letters (RULES.md section 1); the words are
    # each rule book's own (the fourth colour is printed yellow in 001 and 003).
    return {"black": colour_name("K"), "blue": colour_name("B"), "orange": colour_name("O"), "red": colour_name("R")}


def page_strings() -> dict[str, str]:
    """Every page string in the current language (:func:`referee.i18n.use_language`), with the
    colour words of the notation hint filled in; the other placeholders are left to the page."""
    strings = {key: _(msgid) for key, msgid in PAGE_STRINGS.items()}
    strings["table_typed"] = strings["table_typed"].format(**_colour_words())
    return strings


def languages() -> list[dict[str, str]]:
    """The languages of the switch: code, name in itself, BCP 47 tag; English first."""
    return [{"code": code, "name": LANGUAGE_NAMES[code], "tag": html_lang(code)} for code in LANGUAGES]


router = APIRouter(prefix="/api")


@router.get("/strings", response_model=StringsOut, summary="The page's sentences in one language")
async def strings(
    lang: str | None = Query(None, description="en, zh_Hans, zh_Hant, ja, es or a tag such as zh-TW; without it the "
                                               f"'{LANG_COOKIE}' cookie, then Accept-Language decide."),
) -> dict[str, Any]:
    """The page's own strings translated, the language chosen and the languages there are.

    The choice (``lang``, else the cookie set by the page's switch, else ``Accept-Language``) is
    made for every request by the server's middleware; this route reports it.
    """
    language = current_language()
    return {"language": language, "tag": html_lang(language), "languages": languages(), "strings": page_strings()}


tag_routes(router)
