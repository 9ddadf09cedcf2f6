"""``python -m referee``: the referee from the shell.

Readable output by default, one JSON object with ``--json``. Exit codes: 0 when the question was
answered (an invalid set or an illegal turn is an answer, not an error), 2 for bad input (a
one-line message naming the bad token or field).

Examples::

    python -m referee set R1 R2 J
    python -m referee table "R1 R2 R3 | K5 B5 O5" --loose K7
    python -m referee opening "K10 B10 O10" --rules classic --set opening_minimum=50
    python -m referee turn --before "R1 R2 R3" --after "R1 R2 R3 R4" --rack "R4 K9"
    python -m referee score --winner A --rack B=R1,K13,J --rack C=O5
    python -m referee score --rack A=R1 --rack B=K13        # pool empty: lowest total wins
    python -m referee penalty --laid "R5 R6" --left-over K3
    python -m referee rules --rules xp
    python -m referee dice R1 R2 R3 K5 B5 O5 J B7 B8
    python -m referee dice R3 R4 R5 R6 R7 K7 B7 O7 K1 --sets "R3 R4 R5 | K7 B7 O7 R7"   # your sets, and the best
    python -m referee arrange "R3 R1 K5 R2 O5 B5"      # can these tiles all be laid as valid sets?
    python -m referee best-move --table "R1 R2 R3" --rack "R4 K9 K10 K11"
    python -m referee best-move --table "B5 R5 O5 | O3 O4 J" --rack "O3 O4 O6 R3" --tiebreak estimate
    python -m referee --lang ja set R1 R2 K3           # readable output and messages in Japanese

``--lang`` (en, zh_Hans, zh_Hant, ja, es, or a tag such as zh-TW) picks the language of every
sentence, in the readable output and in the JSON ``message`` fields alike; without it the POSIX
locale decides (``LC_ALL``, ``LC_MESSAGES``, ``LANG``; see referee.i18n.language_from_locale).
Codes, tile notation, numbers and player names never change with the language.

``best-move`` prints "no move" when nothing can be played; with ``--json`` it then prints
``{"found": false, "count": 0, "points": 0, "placed": [], "sets": [], "steps": []}``, which
means the same as ``best_move(...)`` returning None. When a move is found the object is
``Move.to_dict()`` with ``"found": true`` added. A table that no arrangement can make valid, with
or without rack tiles, is bad input (exit 2), not "no move".
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from referee.i18n import LANGUAGES, _, language_from_locale, language_from_tag, ngettext, use_language
from referee.meld import check_opening
from referee.penalties import penalty_for_timeout
from referee.ruleset import PRESETS, RuleSet, RuleSetError
from referee.scoring import score_game
from referee.sets import check_set
from referee.table import check_table, describe_rearrangement, describe_set, describe_table, rearrangement
from referee.tiles import format_tiles, parse_table, parse_tiles
from referee.turn import check_turn
from referee.verdict import Verdict

__all__ = ["main", "build_parser", "rules_from_options", "run_piped"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class BadInput(ValueError):
    """Bad command-line input that argparse itself can't see (a malformed --rack or --set)."""


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (no usage dump) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def _common_options(parser: argparse.ArgumentParser, top: bool) -> None:
    # On the main parser the defaults apply; on sub-parsers SUPPRESS keeps a value given before the
    # sub-command (``referee --json set ...``) from being overwritten by the sub-parser's default.
    default: Any = argparse.SUPPRESS
    parser.add_argument(
        "--json", action="store_true", default=False if top else default, help="print one JSON object"
    )
    parser.add_argument(
        "--rules",
        default="classic" if top else default,
        metavar="PRESET",
        help=f"rule-set preset: {', '.join(PRESETS)} (default classic)",
    )
    parser.add_argument(
        "--set",
        dest="changes",
        action="append",
        default=[] if top else default,
        metavar="FIELD=VALUE",
        help="change one rule-set field, e.g. --set opening_minimum=50 --set jokers_in_opening=false",
    )
    parser.add_argument(
        "--lang",
        default=None if top else default,
        metavar="LANG",
        help=f"language of the sentences: {', '.join(LANGUAGES)} or a tag such as zh-TW (default: the locale)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    parser = _Parser(prog="python -m referee", description="Rummikub referee: sets, turns, scores (docs/rules.md).")
    _common_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common_options(p, top=False)
        return p

    p = add("set", "check one set, tiles in the order they lie")
    p.add_argument("tiles", nargs="+", metavar="TILE", help="tiles in notation, e.g. R1 R2 J")

    p = add("table", "check a whole table")
    p.add_argument("table", metavar="TABLE", help='sets separated by |, e.g. "R1 R2 R3 | K5 B5 O5"')
    p.add_argument("--loose", default="", metavar="TILES", help="tiles lying outside any set")

    p = add("arrange", "can these tiles, all of them, be laid as valid sets? (a table whose sets are unclear)")
    p.add_argument("tiles", metavar="TILES", help='the tiles, e.g. "R1 R2 R3 K5 B5 O5" (| is allowed and ignored)')

    p = add("opening", "check an initial meld (at least 30 points from the rack)")
    p.add_argument("sets", metavar="SETS", help='the sets laid, e.g. "K10 B10 O10 | R1 R2 R3"')
    p.add_argument("--before", metavar="TABLE", help="the table before the meld (must stay untouched)")
    p.add_argument("--after", metavar="TABLE", help="the table after the meld")
    p.add_argument("--rack", metavar="TILES", help="the player's rack (the meld must come from it)")

    p = add("turn", "check a turn from the table before and after")
    p.add_argument("--before", required=True, metavar="TABLE", help="the table at the start of the turn")
    p.add_argument("--after", required=True, metavar="TABLE", help="the table at the end of the turn")
    p.add_argument("--rack", metavar="TILES", help="the player's rack at the start of the turn")
    p.add_argument("--loose-after", default="", metavar="TILES", help="tiles left outside any set")
    p.add_argument("--not-opened", action="store_true", help="this is the player's initial meld")
    p.add_argument("--drew", action="store_true", help="the player drew a tile instead of playing")

    p = add("score", "score a finished game from what is left on the racks")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--winner", metavar="PLAYER", help="the player who emptied the rack")
    who.add_argument(
        "--stalemate", action="store_true", help="the pool ran out and nobody could play (the default with no winner)"
    )
    p.add_argument(
        "--rack",
        dest="racks",
        action="append",
        default=[],
        metavar="PLAYER=TILES",
        help="a player's rack, e.g. B=R1,K13,J (repeat per player; empty: A=)",
    )

    p = add("penalty", "what running out of time costs")
    p.add_argument("--laid", default="", metavar="TILES", help="rack tiles already laid this turn")
    p.add_argument("--left-over", default="", metavar="TILES", help="table tiles that can't be put back")
    p.add_argument("--touched", action="store_true", help="the player had started moving table tiles")

    add("rules", "show the rule-set presets and the rules in force")

    p = add("dice", "best arrangement of 9 Rummikub Dice faces (Rummikub Express)")
    p.add_argument("faces", nargs="+", metavar="FACE", help="the 9 faces, e.g. R1 R2 R3 K5 B5 O5 J B7 B8")
    p.add_argument("--sets", default=None, metavar="SETS",
                   help='score your own arrangement, sets separated by | (e.g. "R3 R4 R5 | K7 B7 O7 R7"; '
                        "a die written in a run and a group is the die they share), beside the best one")

    p = add("best-move", "the best play for a rack on a table")
    p.add_argument("--table", default="", metavar="TABLE", help="the table, sets separated by |")
    p.add_argument("--rack", required=True, metavar="TILES", help="the player's rack")
    p.add_argument("--not-opened", action="store_true", help="the player has not made the initial meld")
    p.add_argument("--objective", choices=("tiles", "points"), default="tiles", help="what to maximise")
    p.add_argument(
        "--tiebreak", choices=("estimate", "exact"), default="exact",
        help="among equally good moves, how to find the one moving fewest table tiles: exact (the default: an "
        "integer programme on HiGHS, up to --time-limit seconds) or estimate (the fast search's own, milliseconds)",
    )
    p.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS", help="how long the exact tie-break may take (default 10)")
    return parser


def rules_from_options(preset: str, changes: Sequence[str]) -> RuleSet:
    """A rule set from ``--rules`` and ``--set field=value`` options. Raises RuleSetError/BadInput."""
    rules = RuleSet.preset(preset)
    fields = [f.name for f in dataclasses.fields(rules)]
    values: dict[str, Any] = {}
    for change in changes:
        name, text = _split_option(
            change, _('"{change}" is not FIELD=VALUE (e.g. opening_minimum=50)').format(change=change)
        )
        if name not in fields:
            raise RuleSetError(
                _('unknown rule-set field "{name}": fields are {fields}').format(name=name, fields=", ".join(fields))
            )
        values[name] = _field_value(name, text.strip(), getattr(rules, name))
    return rules.replace(**values) if values else rules


def _field_value(name: str, text: str, current: Any) -> Any:
    # The current value's type says how to read the text; RuleSet validates the range.
    if isinstance(current, bool):
        lowered = text.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise RuleSetError(_('{name} must be true or false, not "{text}"').format(name=name, text=text))
    if isinstance(current, int):
        try:
            return int(text)
        except ValueError:
            raise RuleSetError(_('{name} must be a whole number, not "{text}"').format(name=name, text=text)) from None
    if isinstance(current, enum.Enum):
        return text  # RuleSet turns the value into the enum or names the allowed values
    return text


def _split_option(option: str, error: str) -> tuple[str, str]:
    # "NAME=VALUE" options (--set, --rack): the name stripped, the value as typed (each caller reads
    # it its own way); ``error`` is the caller's sentence for an option without "=" or a name.
    name, sep, value = option.partition("=")
    name = name.strip()
    if not sep or not name:
        raise BadInput(error)
    return name, value


def _parse_racks(items: Sequence[str]) -> dict[str, Any]:
    racks: dict[str, Any] = {}
    for item in items:
        player, tiles = _split_option(item, _('"{item}" is not PLAYER=TILES (e.g. B=R1,K13,J)').format(item=item))
        if player in racks:
            raise BadInput(_('player "{player}" has two --rack options').format(player=player))
        racks[player] = parse_tiles(tiles)
    return racks


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False))


def _violation_lines(verdict: Verdict) -> list[str]:
    return [f"  - {v.message} [{v.code}]" for v in verdict.violations]


def _cmd_set(args: argparse.Namespace, rules: RuleSet) -> Any:
    tiles = parse_tiles(" ".join(args.tiles))
    verdict = check_set(tiles, rules)
    if args.json:
        return verdict.to_dict()
    lines = [describe_set(verdict, None)]
    if verdict.valid:
        if verdict.jokers:
            lines.append(_("Jokers stand for: {tiles}").format(tiles=format_tiles(verdict.jokers)))
        if verdict.reading is not None and verdict.reading.reversed:
            lines.append(_("Read right to left: {tiles}").format(tiles=format_tiles(reversed(verdict.reading.tiles))))
        if verdict.ambiguous:
            lines.append(_("Other readings:"))
            for reading in verdict.readings[1:]:
                kind = _("group") if reading.kind.value == "group" else _("run")
                lines.append(
                    "  - "
                    + _("{kind} {tiles}, {points} points").format(
                        kind=kind, tiles=format_tiles(reading.tiles), points=reading.points
                    )
                )
    else:
        lines[-1] += f" [{verdict.code}]"
    return "\n".join(lines)


def _cmd_table(args: argparse.Namespace, rules: RuleSet) -> Any:
    verdict = check_table(parse_table(args.table), parse_tiles(args.loose), rules)
    rearranged = rearrangement(verdict, rules)
    if args.json:
        out = verdict.to_dict()
        out["rearranged"] = None if rearranged is None else [[t.code for t in s] for s in rearranged]
        return out
    lines = [describe_table(verdict)] if verdict.sets or verdict.loose else []
    lines.append(_summary(verdict, _("The table is valid: {points} points on the table.").format(points=verdict.points)))
    lines.extend(_violation_lines(verdict))
    if rearranged is not None:
        lines.append(describe_rearrangement(rearranged) or "")
    return "\n".join(lines)


def _cmd_arrange(args: argparse.Namespace, rules: RuleSet) -> Any:
    tiles = parse_tiles(args.tiles.replace("|", " "))
    if not tiles:
        raise BadInput(_("give the tiles to arrange, e.g. \"R1 R2 R3 K5 B5 O5\""))
    from referee.solver import arrange  # lazy: the solver is the heaviest part of the referee

    sets = arrange(tiles, rules)
    if args.json:
        return {"arrangeable": sets is not None, "sets": [[t.code for t in s] for s in sets or []]}
    if sets is None:
        return _("These tiles cannot all be laid as valid sets.")
    lines = [_("These tiles can be laid as valid sets:")]
    lines.extend(_("set {number}: {tiles}").format(number=i + 1, tiles=format_tiles(s)) for i, s in enumerate(sets))
    return "\n".join(lines)


def _summary(verdict: Verdict, ok_text: str) -> str:
    if verdict.ok:
        return ok_text
    n = len(verdict.violations)
    return ngettext("{count} problem:", "{count} problems:", n).format(count=n)


def _cmd_opening(args: argparse.Namespace, rules: RuleSet) -> Any:
    before = parse_table(args.before) if args.before is not None else None
    after = parse_table(args.after) if args.after is not None else None
    if (before is None) != (after is None):
        raise BadInput(_("give both --before and --after, or neither"))
    rack = parse_tiles(args.rack) if args.rack is not None else None
    verdict = check_opening(parse_table(args.sets), rules, before, after, rack)
    if args.json:
        return verdict.to_dict()
    lines = [describe_set(s, i) for i, s in enumerate(verdict.sets)]
    lines.append(
        _summary(
            verdict,
            _("Valid initial meld: {points} points (at least {minimum} needed).").format(
                points=verdict.points, minimum=verdict.minimum
            ),
        )
    )
    lines.extend(_violation_lines(verdict))
    return "\n".join(lines)


def _cmd_turn(args: argparse.Namespace, rules: RuleSet) -> Any:
    verdict = check_turn(
        parse_table(args.before),
        parse_table(args.after),
        parse_tiles(args.rack) if args.rack is not None else None,
        opened=not args.not_opened,
        rules=rules,
        loose_after=parse_tiles(args.loose_after),
        drew=args.drew,
    )
    if args.json:
        return verdict.to_dict()
    lines = []
    if verdict.drew:
        lines.append(_("The player drew a tile."))
    lines.append(_("Laid from the rack: {tiles}").format(tiles=format_tiles(verdict.laid) or "-"))
    if verdict.missing:
        lines.append(_("Gone from the table: {tiles}").format(tiles=format_tiles(verdict.missing)))
    if verdict.opening_points is not None:
        lines.append(
            _("Initial meld: {points} points (at least {minimum} needed).").format(
                points=verdict.opening_points, minimum=rules.opening_minimum
            )
        )
    if verdict.table is not None:
        lines.append(_("Table after the turn:"))
        lines.append(describe_table(verdict.table) or "-")
    lines.append(_summary(verdict, _("Legal turn.")))
    lines.extend(_violation_lines(verdict))
    return "\n".join(lines)


def _cmd_score(args: argparse.Namespace, rules: RuleSet) -> Any:
    racks = _parse_racks(args.racks)
    game = score_game(racks, args.winner, rules)
    if args.json:
        return game.to_dict()
    head = _("Pool empty, nobody can play: the lowest rack total wins.") if game.stalemate else None
    body = game.describe()
    return f"{head}\n{body}" if head else body


def _cmd_penalty(args: argparse.Namespace, rules: RuleSet) -> Any:
    penalty = penalty_for_timeout(parse_tiles(args.laid), parse_tiles(args.left_over), args.touched, rules)
    if args.json:
        return penalty.to_dict()
    return penalty.message


def _cmd_rules(args: argparse.Namespace, rules: RuleSet) -> Any:
    presets = {name: factory().to_dict() for name, factory in PRESETS.items()}
    if args.json:
        return {"presets": presets, "in_force": rules.to_dict()}
    names = list(presets)
    in_force = rules.to_dict()
    header = [_("field"), *names, _("in force")]
    rows = [[f, *(str(presets[n][f]) for n in names), str(in_force[f])] for f in in_force]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    return "\n".join(lines)


def _cmd_dice(args: argparse.Namespace, rules: RuleSet) -> Any:
    faces = parse_tiles(" ".join(args.faces))
    from referee.dice import best_arrangement, format_arrangement, score_sets  # lazy: only this command needs it

    best = best_arrangement(faces)
    if args.sets is None:
        return best.to_dict() if args.json else format_arrangement(best)
    # The player's own arrangement, checked and scored, beside the best one (the rule book's
    # strategy example: a layout worth 7 where 9 was there to take).
    yours = score_sets(faces, args.sets)
    if args.json:
        return {**yours.to_dict(), "best": best.to_dict()}
    if yours.score >= best.score:
        verdict = _("Your sets score {score}: no arrangement of this roll scores more.").format(score=yours.score)
    else:
        verdict = _("Your sets score {score}; the best arrangement scores {best}:").format(score=yours.score, best=best.score)
    lines = [format_arrangement(yours), "", verdict]
    if yours.score < best.score:
        lines.append(format_arrangement(best))
    return "\n".join(lines)


def _cmd_best_move(args: argparse.Namespace, rules: RuleSet) -> Any:
    table = parse_table(args.table)
    rack = parse_tiles(args.rack)
    from referee.solver import best_move  # lazy: the solver is the heaviest part of the referee

    # A person reading the answer gets the proven fewest moves; best_move's own default is the
    # fast estimate (what the benchmark measures).
    move = best_move(table, rack, rules=rules, opened=not args.not_opened, objective=args.objective,
                     tiebreak=args.tiebreak, time_limit=args.time_limit)
    if move is None:
        if args.json:
            return {"found": False, "count": 0, "points": 0, "placed": [], "sets": [], "steps": []}
        return _("no move")
    if args.json:
        return {**move.to_dict(), "found": True}
    return move.describe()


_COMMANDS = {
    "set": _cmd_set,
    "table": _cmd_table,
    "arrange": _cmd_arrange,
    "opening": _cmd_opening,
    "turn": _cmd_turn,
    "score": _cmd_score,
    "penalty": _cmd_penalty,
    "rules": _cmd_rules,
    "dice": _cmd_dice,
    "best-move": _cmd_best_move,
}


def run_piped(main: Callable[[], int]) -> int:
    """Run a command line's ``main`` so that ``... | head`` ends quietly (issue 15).

    When the reader of the pipe exits early, the next write raises ``BrokenPipeError``: stop, and
    exit with 141 (128 + SIGPIPE) as other Unix tools do, instead of a traceback. Python flushes
    stdout once more at exit, so stdout is pointed at ``os.devnull`` first (the recipe of the
    ``signal`` module's documentation, "Note on SIGPIPE").
    """
    try:
        code = main()
        sys.stdout.flush()  # a buffered last write fails here, still inside the handler
        return code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 answered, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): return the code, don't exit
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if args.lang is not None and language_from_tag(args.lang) is None:
        print(
            f"{parser.prog}: error: unknown language {args.lang!r}: choose one of {', '.join(LANGUAGES)}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    with use_language(args.lang or language_from_locale()):
        return _run(parser, args)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    # Runs inside use_language(): every sentence, readable or in the JSON, is in that language.
    try:
        rules = rules_from_options(args.rules, args.changes)
        result = _COMMANDS[args.command](args, rules)
    except ValueError as exc:
        # TileError, RuleSetError, ScoringError, BadInput and the dice/solver input errors are all
        # ValueErrors whose message names the bad token or field.
        print(f"{parser.prog}: " + _("error: {message}").format(message=exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        _print_json(result)
    else:
        print(result)
    return EXIT_OK
