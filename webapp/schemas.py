"""Pydantic models for every request and response of the JSON API (they make the OpenAPI at /docs).

Tiles travel in the project's notation (``"R7"``, ``"J"``, RULES.md section 1); a set is a string
of tiles (``"R1 R2 R3"``) and a table is a list of sets or one string with ``|`` between sets.
Response models mirror the referee's and the reader's ``to_dict()`` output; they allow extra keys
so that a field the referee adds later reaches the page instead of breaking the server.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# -- shared ------------------------------------------------------------------------------------------


class Out(BaseModel):
    """Base of response models: unknown keys from the referee pass through."""

    model_config = ConfigDict(extra="allow")


class In(BaseModel):
    """Base of request models: unknown keys are refused with a message naming them."""

    model_config = ConfigDict(extra="forbid")


class ErrorOut(BaseModel):
    """Every error: one sentence saying what was wrong and what to do."""

    detail: str = Field(examples=["The photo is empty (0 bytes): take or choose the photo again."])


# Size caps: a whole XP game is 160 tiles (about 700 characters in notation); anything far larger
# is not a Rummikub table, and must not cost the solver or the referee real time.
Tiles = Annotated[str, StringConstraints(max_length=1000)]
"""Tiles in notation: ``"R1 R2 J"``."""
Table = Annotated[str, StringConstraints(max_length=2000)] | Annotated[list[Tiles], Field(max_length=160)]
"""A table: ``"R1 R2 R3 | K5 B5 O5"`` or ``["R1 R2 R3", "K5 B5 O5"]``."""
Name = Annotated[str, StringConstraints(max_length=40)]


class RulesIn(In):
    """The rule set in force: a preset and the variants that change it (RULES.md)."""

    name: Literal["classic", "xp"] = "classic"
    opening_minimum: int | None = Field(None, description="Points the initial meld must reach (30; some play 50).")
    jokers_in_opening: bool | None = Field(None, description="False: variant with no joker in the initial meld (003).")
    joker_from_table_tile: bool | None = Field(
        None, description="False: a table joker may only be replaced by a tile from the rack (004)."
    )
    timeout_penalty: Literal["draw_three", "return_to_pool", "draw_leftovers"] | None = None
    timeout_draw: int | None = None
    turn_seconds: int | None = Field(None, description="Time per turn in seconds (60 in every rule book).")
    match_scoring: Literal["games_won", "target_points"] | None = None
    target_points: int | None = None
    joker_rack_penalty: int | None = None

    def fields(self) -> dict[str, Any]:
        """The fields that were given, as ``RuleSet.from_dict`` takes them."""
        return self.model_dump(exclude_none=True)


class ViolationOut(Out):
    """One broken rule: a stable code, a sentence, the tiles and (0-based) sets concerned."""

    code: str
    message: str
    tiles: list[str] = []
    sets: list[int] = []


class SetReadingOut(Out):
    """One way to read a valid set."""

    kind: str
    tiles: list[str]
    jokers: list[str] = []
    points: int


class SetOut(Out):
    """The referee's answer about one set."""

    tiles: list[str]
    valid: bool
    kind: str | None = None
    points: int = 0
    jokers: list[str] = []
    code: str | None = None
    problem: str | None = None
    readings: list[SetReadingOut] = []
    summary: str = Field("", description="The verdict in words, e.g. 'run, 24 points'.")


class TableVerdictOut(Out):
    """The referee's answer about a whole table."""

    ok: bool
    violations: list[ViolationOut]
    sets: list[SetOut]
    loose: list[str] = []
    points: int = 0
    rearranged: list[list[str]] | None = Field(
        None, description="For a table not valid as it lies: the same tiles laid as valid sets, [] if they cannot "
        "be (a tile missing, extra or misread); null when the table is valid or has more copies than the game.")
    summary: str = Field("", description="The verdict in one sentence.")


class RuleSetOut(Out):
    """A complete rule set (every field of ``referee.ruleset.RuleSet``)."""

    name: str
    copies: int
    jokers: int
    opening_minimum: int
    jokers_in_opening: bool
    joker_from_table_tile: bool
    timeout_penalty: str
    timeout_draw: int
    turn_seconds: int
    match_scoring: str
    target_points: int
    joker_rack_penalty: int


class RulesCatalogOut(BaseModel):
    """The presets a match can start from."""

    presets: dict[str, RuleSetOut]


class HealthOut(BaseModel):
    """Is the server ready, and what can it do."""

    ok: bool
    version: str
    models_loaded: bool
    model_problem: str | None = None
    dice_photos: bool
    https: bool
    max_upload_mb: int
    access: Literal["open", "local", "joined", "guest"] = Field(
        "open", description="This browser: open (no join code on this server), local (the computer that runs "
        "it), joined (a phone that showed the join code) or guest (may not read or write: it must join).")
    join_required: bool = Field(False, description="The server is served on the network and asks phones to join.")


class LanguageOut(BaseModel):
    """One language of the page's switch."""

    code: str = Field(description="The code the API and the cookie use: en, zh_Hans, zh_Hant, ja, es.")
    name: str = Field(description="The language's name in itself (日本語, Español), as the switch shows it.")
    tag: str = Field(description="BCP 47 tag for <html lang> and Content-Language (zh-Hant).")


class StringsOut(BaseModel):
    """The page's own sentences in one language, and the languages there are."""

    language: str = Field(description="The language chosen for this request (a code of `languages`).")
    tag: str = Field(description="Its BCP 47 tag.")
    languages: list[LanguageOut]
    strings: dict[str, str] = Field(description="Key -> sentence; `{name}` placeholders are filled by the page.")


# -- photos and readings -------------------------------------------------------------------------


class ImageSizeOut(BaseModel):
    """Size of the upright photo in pixels."""

    width: int
    height: int


class TileOut(Out):
    """One tile found in a photo."""

    tile: str = Field(description='Code in notation, or "?" for an unreadable tile.')
    box: list[float] = Field(description="x1, y1, x2, y2 in pixels of the upright photo.")
    confidence: float = 1.0
    set: int | None = Field(None, description="Index into sets, or null for a loose or rack tile.")


class DoubtOut(Out):
    """Something the reader is unsure of, said as a sentence. Listed with those that change a
    verdict first."""

    message: str = ""
    index: int | None = Field(None, description="Index into tiles of the tile in doubt.")
    number: int | None = Field(None, description='The "Tile N" of the sentence (index + 1), drawn on the photo.')
    changes_verdict: bool = Field(False, description="Reading the tile as one of its alternatives would change "
                                  "its set's verdict (or the table's, for an unreadable tile or a count).")


class ReadingOut(Out):
    """A photo read: tiles with boxes, the sets as they lie, loose and rack tiles, doubts, and the
    referee's verdict on the table."""

    image: ImageSizeOut
    mode: Literal["table", "rack", "flat"] = "table"
    tiles: list[TileOut]
    sets: list[dict[str, Any]]
    loose: list[int] = Field([], description="Indices into tiles of tiles outside any set.")
    rack: list[int] = Field([], description="Indices into tiles of rack tiles.")
    rack_points: int = 0
    doubts: list[DoubtOut] = []
    timing_ms: dict[str, float] = {}
    verdict: TableVerdictOut
    table: list[str] = Field([], description="The sets in notation, ready for the other checks.")
    rack_tiles: str = Field("", description="The rack tiles in notation, in reading order (tiers top first, "
                                            "left to right; tiles cut by the photo's edge left out).")
    rack_note: str | None = Field(None, description="Why tiles were taken as a rack (the player said so, or the "
                                                    "rack shows in the photo), as a sentence; null without a rack.")
    glare: float = Field(0.0, description="Share of the photo's pixels clipped white when it was read as an "
                                          "overexposed photo, else 0 (send it back with a correction: the note stays).")
    photo_note: str | None = Field(None, description="Advice when the photo itself made reading hard (glare that "
                                                     "blew out part of it), as a sentence; null for a fair photo.")
    loose_tiles: str = Field("", description="The loose tiles in notation (unreadable ones left out), for the "
                             "typed checks' loose fields.")
    profile: str | None = Field(None, description="The taught profile the photo was read with (null: none).")


class JoinIn(In):
    """The join code a phone types (or the long one from the QR code)."""

    code: str = Field(max_length=100, examples=["ABC-234"])


class JoinOut(Out):
    """This browser may now read and write."""

    joined: bool


class ShareOut(Out):
    """What a phone needs to join: the address with the long code, its QR code, the short code."""

    url: str | None = Field(None, description="The address with the long join code (null: not served on the network).")
    urls: list[str] = Field([], description="Every address of this server on the network, without a code.")
    code: str | None = Field(None, description="The short join code to type, e.g. ABC-234.")
    svg: str | None = Field(None, description="The QR code of url, as inline SVG.")


class CorrectedTileIn(In):
    """A tile as the player confirmed it."""

    box: list[float] = Field(min_length=4, max_length=4, description="x1, y1, x2, y2 pixels.")
    tile: Annotated[str, StringConstraints(max_length=8)] = Field(
        description='Code in notation; "" or "-" removes a box that is not a tile.'
    )
    up: list[float] | None = Field(None, min_length=2, max_length=2,
                                   description="The tile's up vector from the reading, if it had one.")
    rack: bool = Field(False, description="The tile stood on a rack in the reading (a rack seen in the photo "
                                          "stays one when tiles are corrected).")


class CorrectionIn(In):
    """A reading with some tiles corrected by hand: the sets and verdict are rebuilt."""

    image: ImageSizeOut
    tiles: list[CorrectedTileIn] = Field(max_length=400)
    mode: Literal["table", "rack", "flat"] = "table"
    rules: RulesIn = RulesIn()
    glare: float = Field(0.0, ge=0.0, le=1.0, description="The reading's glare share: a photo read as overexposed "
                                                         "keeps its note after the correction.")


# -- referee checks ----------------------------------------------------------------------------------


class TableCheckIn(In):
    """A table typed in notation."""

    table: Table = Field(examples=["R1 R2 R3 | K5 B5 O5"])
    loose: Tiles = ""
    rules: RulesIn = RulesIn()


class OpeningIn(In):
    """An initial meld typed in notation."""

    sets: Table
    rules: RulesIn = RulesIn()


class OpeningOut(Out):
    """The referee's answer about an initial meld."""

    ok: bool
    violations: list[ViolationOut]
    points: int
    minimum: int
    reached: bool
    sets: list[SetOut] = []
    summary: str = ""


class TurnIn(In):
    """A turn: the table before and after, optionally the player's rack before it."""

    before: Table
    after: Table
    rack_before: Tiles | None = None
    loose_before: Tiles = Field("", description="Tiles lying outside any set at the start of the turn. A tile "
                                "loose in both photos is left out of the check (and the summary says so).")
    loose_after: Tiles = Field("", description="Tiles lying outside any set at the end of the turn.")
    opened: bool = Field(True, description="The player made the initial meld on an earlier turn.")
    drew: bool = False
    rules: RulesIn = RulesIn()


class TurnOut(Out):
    """The referee's verdict on a turn."""

    ok: bool
    violations: list[ViolationOut]
    laid: list[str]
    missing: list[str] = []
    drew: bool = False
    opened: bool = True
    opening_points: int | None = None
    new_sets: list[int] = []
    table: TableVerdictOut | None = None
    left_out: list[str] = Field([], description="Tiles loose both before and after the turn, left out of the check.")
    summary: str = ""


class TurnPhotosOut(BaseModel):
    """A turn checked from photos: what was read in each photo, then the verdict."""

    before: ReadingOut
    after: ReadingOut
    rack: ReadingOut | None = None
    verdict: TurnOut


class ScoreIn(In):
    """The racks at the end of a game; ``winner`` null means a stalemate (the pool ran out)."""

    racks: dict[Name, Tiles] = Field(
        max_length=8, examples=[{"Ana": "", "Ben": "R1 R1 K11 J", "Chen": "B4 B5 O7 K2 R8"}]
    )
    winner: Name | None = None
    rules: RulesIn = RulesIn()


class ScoreOut(Out):
    """The game's scores (zero-sum, RULES.md section 7)."""

    scores: dict[str, int]
    winners: list[str]
    winner: str | None = Field(description="The single winner; null when several tie for the lowest rack.")
    stalemate: bool
    rack_totals: dict[str, int] | None = None
    racks: dict[str, list[str]] | None = None
    zero_sum: bool = True
    summary: str = ""


class SuggestIn(In):
    """The table and the player's rack: what is the best move?"""

    table: Table
    rack: Tiles
    opened: bool = True
    objective: Literal["tiles", "points"] = Field(
        "tiles", description="Lay as many tiles as possible, or as many points as possible."
    )
    tiebreak: Literal["estimate", "exact"] = Field(
        "exact", description="Among equally good moves, find the one moving fewest table tiles exactly (an "
        "integer programme, up to 5 s; the default) or on the fast search's estimate (milliseconds)."
    )
    rules: RulesIn = RulesIn()


class SuggestOut(Out):
    """The best move: what to lay, the table after, and steps a person can carry out."""

    found: bool = Field(description="False when nothing can be played: draw a tile.")
    count: int = 0
    points: int = 0
    placed: list[str] = Field([], description="Rack tiles laid.")
    sets: list[list[str]] = Field([], description="The whole table after the move.")
    steps: list[str] = Field([], description="What to do by hand, one sentence each.")
    moved: list[str] = []
    set_numbers: list[int] = []
    objective: str = "tiles"
    opening: bool = False
    least_moved: bool = Field(False, description="True when no move laying as many tiles moves fewer table tiles "
                              "(proven by the exact tie-break, or nothing moves).")
    summary: str = ""


class DiceIn(In):
    """The nine dice of a Rummikub Dice roll, in notation (``"R1 R2 R3 K4 ..."``, ``J`` a joker)."""

    faces: Annotated[str, StringConstraints(max_length=200)] = Field(examples=["R1 R2 R3 K5 B5 O5 J K9 B12"])


class DiceSetOut(Out):
    """One run or group of dice."""

    kind: str
    dice: list[str]
    tiles: list[str]
    points: int


class DiceOut(Out):
    """The best arrangement of the nine dice and its score (RULES.md section 8)."""

    faces: list[str]
    score: int
    per_set_points: int = 0
    arrangement: list[DiceSetOut]
    chains: list[dict[str, Any]] = []
    unused: list[str] = []
    bonus: str | None = None
    breakdown: list[str] = []
    summary: str = ""


class DieFaceOut(Out):
    """One die's top face read from the photo."""

    tile: str = Field(description='The face in notation, "?" when unreadable.')
    box: list[float]
    confidence: float = 1.0


class DiceReadOut(BaseModel):
    """The faces read from a photo of the dice and, with exactly nine, their best arrangement."""

    image: ImageSizeOut
    faces: str = Field(description="The faces in notation, in reading order, ready to correct.")
    dice: list[DieFaceOut]
    ok: bool = Field(description="Exactly nine dice were read.")
    message: str | None = Field(None, description="Why the roll can't be scored yet (e.g. 8 dice found).")
    doubts: list[DoubtOut] = []
    best: DiceOut | None = None


# -- score sheets ---------------------------------------------------------------------------------------


class MatchIn(In):
    """A new match."""

    name: str = Field("", max_length=80)
    players: list[Name] = Field(min_length=1, max_length=8)
    rounds: int = Field(1, ge=1, le=20)
    rules: RulesIn = RulesIn()


class GameIn(In):
    """A finished game: each player's rack (in notation) and the winner, or null for a stalemate."""

    racks: dict[Name, Tiles] = Field(max_length=8)
    winner: Name | None = None
    expected_number: int | None = Field(
        None, description="The game number the page thinks it is writing; a repeated submit is refused."
    )


class PenaltyIn(In):
    """Time ran out: what had the player done? (RULES.md section 6)"""

    player: Name | None = Field(None, description="The player, to log the penalty on a match sheet.")
    laid: Tiles = Field("", description="Rack tiles the player had already put on the table this turn.")
    left_over: Tiles = Field("", description="Table tiles that can no longer be put back where they were.")
    touched_table: bool = Field(False, description="The player had started moving table tiles.")
    rules: RulesIn = RulesIn()


class PenaltyVerdictOut(Out):
    """What the player must do now."""

    code: str
    draw: int
    back_to_rack: list[str] = []
    to_pool: list[str] = []
    table_restored: bool
    policy: str | None = None
    message: str


class PenaltyOut(BaseModel):
    """A penalty logged on a match sheet."""

    id: int
    game_number: int
    player: str
    kind: str
    tiles: int
    note: str
    created_at: str


class LoggedPenaltyOut(BaseModel):
    """The penalty the referee gave, and the line written on the match sheet."""

    penalty: PenaltyVerdictOut
    logged: PenaltyOut


class GameOut(BaseModel):
    """A game on the score sheet."""

    number: int
    round: int
    winners: list[str]
    ending: Literal["rummikub", "stalemate"]
    racks: dict[str, str]
    rack_points: dict[str, int]
    scores: dict[str, int]
    created_at: str


class StandingOut(BaseModel):
    """One player's line in the match standings, best first."""

    player: str
    total: int
    games_won: int
    collected: int = Field(description="Points collected (target-points variant 004).")


class MatchOut(BaseModel):
    """A match with its score sheet."""

    id: int
    name: str
    players: list[str]
    rounds: int
    rules: RuleSetOut
    games: list[GameOut]
    penalties: list[PenaltyOut]
    standings: list[StandingOut]
    next_game: int | None = Field(description="Number of the next game, null when the match is over.")
    next_round: int | None
    finished: bool
    leader: str | None = Field(description="Who leads now (null on a full tie or before any game).")
    winner: str | None = Field(description="The match winner once the match is over.")
    summary: str
    created_at: str


class GameAddedOut(BaseModel):
    """The game just written, and the match after it."""

    game: ScoreOut
    match: MatchOut


class MatchListOut(BaseModel):
    """Every match, newest first."""

    matches: list[MatchOut]


class DiceSheetIn(In):
    """A new Rummikub Dice score sheet (1-8 players, 6 turns each in the standard game)."""

    name: str = Field("", max_length=80)
    players: list[Name] = Field(min_length=1, max_length=8)
    turns: int = Field(6, ge=1, le=30)


class DiceTurnIn(In):
    """A dice turn to score: the player and the nine faces (the best arrangement is scored)."""

    player: Name
    faces: Annotated[str, StringConstraints(max_length=200)] = Field(examples=["R1 R2 R3 K5 B5 O5 J K9 B12"])


class DiceEntryOut(BaseModel):
    """One scored dice turn."""

    player: str
    turn: int
    faces: str
    score: int
    arrangement: dict[str, Any] = {}
    created_at: str


class DiceSheetOut(BaseModel):
    """A dice score sheet with totals."""

    id: int
    name: str
    players: list[str]
    turns: int
    entries: list[DiceEntryOut]
    totals: dict[str, int]
    next_player: str | None = Field(description="Whose turn it is (fewest turns played), null when complete.")
    complete: bool
    leaders: list[str]
    winners: list[str]
    summary: str
    created_at: str


class DiceSheetListOut(BaseModel):
    """Every dice sheet, newest first."""

    sheets: list[DiceSheetOut]


class DeletedOut(BaseModel):
    """Confirmation of a deletion."""

    deleted: bool = True
    detail: str = ""


# -- taught tile profiles (issue 14) --------------------------------------------------------------


class ProfileOut(Out):
    """A taught profile: the reader adapted to one player's tile edition."""

    name: str
    taught: list[str] = Field(description="The tile codes taught, at least one example each.")
    examples: int = Field(description="Prototypes kept (a few views of each taught tile).")
    photos: int = Field(description="Teaching photos that went in.")
    added_tiles: int = Field(0, description="Tiles added one at a time after a correction.")
    check: dict[str, Any] = Field({}, description="The held-back check of the last teaching photo: reader_alone, "
                                  "with_profile (fractions read right), check_crops.")
    created_at: str
    updated_at: str


class ProfileListOut(BaseModel):
    """Every taught profile, by name."""

    profiles: list[ProfileOut]


class TeachResultOut(Out):
    """What teaching one photo did (``vision.teach.TeachResult``)."""

    tiles: int = Field(description="Tiles taught from this photo.")
    rows: int
    reader_alone: float = Field(description="Held-back crops of this photo read right by the reader alone (0-1).")
    with_profile: float = Field(description="... and with the profile (never less: else it is refused).")
    weight: float
    examples: int
    codes: int = Field(description="Distinct tile codes taught so far.")
    seconds: float = Field(description="Time the teaching took on the server.")


class ProfileTaughtOut(BaseModel):
    """A photo taught into a profile: the profile after it, and the figures of this photo."""

    profile: ProfileOut
    result: TeachResultOut
    added: bool = Field(description="True when the photo was added to an existing profile, false for a new one.")
    summary: str


class TileAddedOut(Out):
    """One corrected tile added to a profile, with its check (``vision.teach_tile.TileAdded``)."""

    profile: ProfileOut
    tile: str
    held_back: int = Field(description="Held-back crops of the tiles taught before, checked.")
    before: float = Field(description="Of those, the fraction read right with the profile as it was.")
    after: float = Field(description="... and with this tile added (never less: else it is refused).")
    tile_before: float = Field(description="Views of this tile read as its code with the profile as it was.")
    tile_after: float = Field(description="... and with this tile added.")
    examples: int
    seconds: float
    summary: str
