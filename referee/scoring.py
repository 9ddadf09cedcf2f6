"""End of a game, the score sheet and the match winner (docs/rules.md section 7).

Game scores (000, 001, 003, 004):

- normal end: a player empties the rack. Every other player's rack total (a joker counts
  ``rules.joker_rack_penalty``, 30) is their negative score; the winner scores the sum;
- pool empty and nobody can play: the lowest rack total wins; each loser scores minus (own total -
  winner's total); the winner scores the sum of those.

Every game sums to zero; the sheet checks it, as the rule book suggests (000: "you can use this to
check for mistakes").

**Ties for the lowest total** (pool empty) are not covered by any rule book (000, 001 and 004 all
speak of "the player" with the lowest total). Our choice: every player tied for lowest is a joint
winner. Losers pay as usual (own total - lowest); the joint winners share the sum equally; when it
does not divide, the remaining points go one each to the joint winners in the order the players
were given (seat order), so the game still sums to zero in whole points. Each joint winner counts
the game as won.

Match (000, 001): rounds of as many games as there are players; the match goes to the most games
won, a tie broken by the higher total score. Variant 004 (``MatchScoring.TARGET_POINTS``): the
winner of each game collects the opponents' rack points (their positive game score) and the first
to reach ``rules.target_points`` (1000) wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.i18n import _
from referee.ruleset import MatchScoring, RuleSet
from referee.tiles import Tile, format_tiles, parse_tiles
from referee.verdict import as_tiles

__all__ = ["ScoringError", "GameScore", "MatchSheet", "score_game", "rack_value"]

_CLASSIC = RuleSet.classic()


class ScoringError(ValueError):
    """Scores that can't be entered: unknown player, a winner still holding tiles, a game that does
    not sum to zero, a game after the match is over. The message says which."""


def rack_value(tiles: Iterable[Tile] | str, rules: RuleSet = _CLASSIC) -> int:
    """Points left on a rack: the numbers, a joker ``rules.joker_rack_penalty`` (docs/rules.md 1, 7)."""
    return sum(rules.joker_rack_penalty if t.is_joker else t.number or 0 for t in as_tiles(tiles))


@dataclass(frozen=True)
class GameScore:
    """The result of one game: one row of the score sheet."""

    scores: dict[str, int]
    """Score of each player for this game, in seat order; sums to zero."""
    winners: tuple[str, ...]
    """The winner, or the joint winners of a pool-empty game tied for the lowest total."""
    stalemate: bool = False
    """True when the pool ran out and nobody could play (lowest rack total wins)."""
    rack_totals: dict[str, int] | None = None
    """What was left on each rack, when known (None for a row typed in from a paper sheet)."""
    racks: dict[str, tuple[Tile, ...]] | None = None
    """The tiles left on each rack, when known."""

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.scores)

    @property
    def winner(self) -> str | None:
        """The single winner; None when several players are joint winners."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def zero_sum(self) -> bool:
        """True when the scores add up to zero, as every game must (docs/rules.md section 7)."""
        return sum(self.scores.values()) == 0

    @property
    def collected(self) -> dict[str, int]:
        """Points each player collects under variant 004: the winner's positive score, others 0."""
        return {p: max(s, 0) for p, s in self.scores.items()}

    def describe(self) -> str:
        """A few lines for a person: each player's rack total and score, then the winner."""
        lines = []
        for player, score in self.scores.items():
            if self.rack_totals is not None:
                lines.append(
                    _("{player}: rack {total}, score {score:+d}").format(
                        player=player, total=self.rack_totals[player], score=score
                    )
                )
            else:
                lines.append(_("{player}: score {score:+d}").format(player=player, score=score))
        if len(self.winners) == 1:
            lines.append(_("Winner: {player}").format(player=self.winners[0]))
        else:
            lines.append(_("Joint winners: {players}").format(players=", ".join(self.winners)))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: scores, winners, winner, stalemate, rack_totals, racks (tile codes), zero_sum."""
        return {
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "winner": self.winner,
            "stalemate": self.stalemate,
            "rack_totals": dict(self.rack_totals) if self.rack_totals is not None else None,
            "racks": {p: [t.code for t in r] for p, r in self.racks.items()} if self.racks is not None else None,
            "zero_sum": self.zero_sum,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameScore:
        """Inverse of :meth:`to_dict` (derived keys ``winner`` and ``zero_sum`` are ignored)."""
        try:
            racks = data.get("racks")
            totals = data.get("rack_totals")
            return cls(
                scores={str(p): int(s) for p, s in data["scores"].items()},
                winners=tuple(str(p) for p in data["winners"]),
                stalemate=bool(data.get("stalemate", False)),
                rack_totals={str(p): int(t) for p, t in totals.items()} if totals is not None else None,
                racks={str(p): tuple(parse_tiles(r)) for p, r in racks.items()} if racks is not None else None,
            )
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ScoringError(f"not a game score: {exc!s}") from None

    @classmethod
    def from_scores(cls, scores: Mapping[str, int], winners: Sequence[str] | None = None) -> GameScore:
        """A row typed in from a paper sheet: scores only. Winners default to the players with a
        positive score; pass them when nobody has one (e.g. an all-tied pool-empty game)."""
        row = {str(p): int(s) for p, s in scores.items()}
        if winners is None:
            winners = [p for p, s in row.items() if s > 0]
            if not winners:
                raise ScoringError(_("nobody has a positive score: say who won the game"))
        unknown = [w for w in winners if w not in row]
        if unknown:
            raise ScoringError(_('"{player}" won but has no score in this game').format(player=unknown[0]))
        return cls(scores=row, winners=tuple(winners))


def score_game(
    racks: Mapping[str, Sequence[Tile] | str],
    winner: str | None,
    rules: RuleSet = _CLASSIC,
) -> GameScore:
    """Score one game from what is left on each rack (docs/rules.md section 7).

    ``winner``: the player who emptied the rack (normal end; their rack may be left out of
    ``racks`` or given empty); None when the pool ran out and nobody could play: then the lowest
    rack total wins (see the module docstring for ties). Raises :class:`ScoringError` for a winner
    who still holds tiles or fewer than two players.
    """
    hands = {str(p): as_tiles(r) for p, r in racks.items()}
    if winner is not None and winner not in hands:
        hands[winner] = ()
    if len(hands) < 2:
        raise ScoringError(_("a game needs at least two players"))
    totals = {p: rack_value(r, rules) for p, r in hands.items()}
    if winner is not None:
        if hands[winner]:
            raise ScoringError(
                _("{player} won by emptying the rack, but {player}'s rack still holds {tiles}").format(
                    player=winner, tiles=format_tiles(hands[winner])
                )
            )
        # Normal end: losers score minus their rack total; the winner the sum (docs/rules.md 7).
        scores = {p: -totals[p] for p in hands if p != winner}
        scores[winner] = sum(totals[p] for p in hands if p != winner)
        scores = {p: scores[p] for p in hands}  # seat order
        return GameScore(scores, (winner,), False, totals, hands)
    # Pool empty, nobody can play: lowest total wins; losers pay the difference (docs/rules.md 7).
    lowest = min(totals.values())
    winners = tuple(p for p in hands if totals[p] == lowest)
    scores = {p: -(totals[p] - lowest) for p in hands}
    pot = -sum(scores.values())
    share, extra = divmod(pot, len(winners))
    for i, p in enumerate(winners):  # joint winners share; remainder in seat order (module doc)
        scores[p] = share + (1 if i < extra else 0)
    return GameScore(scores, winners, True, totals, hands)


@dataclass
class MatchSheet:
    """The score sheet of a match: players, rule set, the games played.

    ``rounds`` is the agreed number of rounds (000/001: each round has as many games as there are
    players); None leaves the match open (then only ``leader`` says who is ahead). Under
    ``MatchScoring.TARGET_POINTS`` the match ends when a player reaches ``rules.target_points``.
    """

    players: tuple[str, ...]
    rules: RuleSet = field(default_factory=RuleSet.classic)
    rounds: int | None = None
    games: list[GameScore] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.players = tuple(str(p) for p in self.players)
        if len(self.players) < 2:
            raise ScoringError(_("a match needs at least two players"))
        if len(set(self.players)) != len(self.players):
            raise ScoringError(_("player names must differ: {players}").format(players=", ".join(self.players)))
        if self.rounds is not None and (isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1):
            raise ScoringError(_("rounds must be a whole number of at least 1, not {value!r}").format(value=self.rounds))
        games, self.games = list(self.games), []
        for game in games:
            self.add_game(game)

    @property
    def games_per_round(self) -> int:
        """000/001: as many games per round as players (2 players: 2 games, ... 4: 4)."""
        return len(self.players)

    def add_game(self, game: GameScore) -> GameScore:
        """Add a played game. Raises :class:`ScoringError` if its players differ from the sheet's,
        it does not sum to zero, or the match is already over."""
        if set(game.scores) != set(self.players):
            raise ScoringError(
                _("the game's players ({players}) are not the sheet's ({sheet})").format(
                    players=", ".join(game.scores), sheet=", ".join(self.players)
                )
            )
        if not game.zero_sum:
            raise ScoringError(
                _("the game's scores add up to {total}, not 0: check the sums").format(total=sum(game.scores.values()))
            )
        if self.finished:
            raise ScoringError(_("the match is over: start a new sheet"))
        self.games.append(game)
        return game

    def add_scores(self, scores: Mapping[str, int], winners: Sequence[str] | None = None) -> GameScore:
        """Add a row typed in from a paper sheet (see :meth:`GameScore.from_scores`)."""
        return self.add_game(GameScore.from_scores(scores, winners))

    def score_game(self, racks: Mapping[str, Sequence[Tile] | str], winner: str | None) -> GameScore:
        """Score a game from the racks under the sheet's rules (:func:`score_game`) and add it."""
        return self.add_game(score_game(racks, winner, self.rules))

    def round_games(self) -> list[list[GameScore]]:
        """The games grouped by round (the last round may be incomplete)."""
        n = self.games_per_round
        return [self.games[i : i + n] for i in range(0, len(self.games), n)]

    def totals(self) -> dict[str, int]:
        """Each player's total score over all games."""
        return {p: sum(g.scores[p] for g in self.games) for p in self.players}

    def games_won(self) -> dict[str, int]:
        """Games each player won (joint winners each count the game)."""
        return {p: sum(1 for g in self.games if p in g.winners) for p in self.players}

    def collected(self) -> dict[str, int]:
        """Variant 004: points each player collected (winners' positive game scores)."""
        return {p: sum(g.collected[p] for g in self.games) for p in self.players}

    def _target_reached(self) -> tuple[int, list[str]] | None:
        """The first game after which someone reached the target, and who, or None."""
        running = dict.fromkeys(self.players, 0)
        for i, game in enumerate(self.games):
            for p, points in game.collected.items():
                running[p] += points
            reached = [p for p in self.players if running[p] >= self.rules.target_points]
            if reached:
                best = max(running[p] for p in reached)
                return i, [p for p in reached if running[p] == best]
        return None

    @property
    def finished(self) -> bool:
        """True once the agreed rounds are played, or (variant 004) someone reached the target."""
        if self.rules.match_scoring is MatchScoring.TARGET_POINTS:
            return self._target_reached() is not None
        return self.rounds is not None and len(self.games) >= self.rounds * self.games_per_round

    def standings(self) -> list[str]:
        """Players best first under the sheet's match scoring (docs/rules.md section 7)."""
        if self.rules.match_scoring is MatchScoring.TARGET_POINTS:
            collected = self.collected()
            return sorted(self.players, key=lambda p: -collected[p])
        won, totals = self.games_won(), self.totals()
        # 000/001: most games won; a tie is broken by the higher total score.
        return sorted(self.players, key=lambda p: (-won[p], -totals[p]))

    def leaders(self) -> tuple[str, ...]:
        """Players sharing first place now (more than one only on a full tie)."""
        if not self.games:
            return self.players
        if self.rules.match_scoring is MatchScoring.TARGET_POINTS:
            reached = self._target_reached()
            if reached is not None:
                return tuple(reached[1])
            collected = self.collected()
            top = max(collected.values())
            return tuple(p for p in self.players if collected[p] == top)
        won, totals = self.games_won(), self.totals()
        best = max((won[p], totals[p]) for p in self.players)
        return tuple(p for p in self.players if (won[p], totals[p]) == best)

    @property
    def leader(self) -> str | None:
        """The player ahead now, None on a full tie or before any game."""
        leaders = self.leaders()
        return leaders[0] if self.games and len(leaders) == 1 else None

    @property
    def winner(self) -> str | None:
        """The match winner once the match is finished; None before, or on a tie that neither
        games won nor total score breaks (no rule book breaks it further)."""
        return self.leader if self.finished else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready. ``players``, ``rules``, ``rounds`` and ``games`` round-trip through
        :meth:`from_dict`; ``totals``, ``games_won``, ``collected``, ``finished``, ``leader`` and
        ``winner`` are derived, for display."""
        return {
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "rounds": self.rounds,
            "games": [g.to_dict() for g in self.games],
            "totals": self.totals(),
            "games_won": self.games_won(),
            "collected": self.collected(),
            "finished": self.finished,
            "leader": self.leader,
            "winner": self.winner,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchSheet:
        """Inverse of :meth:`to_dict`. Raises :class:`ScoringError` (or RuleSetError for the rules)."""
        try:
            players = tuple(data["players"])
            rules = RuleSet.from_dict(data.get("rules") or {})
            games = [GameScore.from_dict(g) for g in data.get("games", [])]
            rounds = data.get("rounds")
        except (KeyError, TypeError) as exc:
            raise ScoringError(f"not a match sheet: {exc!s}") from None
        return cls(players=players, rules=rules, rounds=rounds, games=games)
