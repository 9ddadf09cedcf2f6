"""Scoring an arrangement under rules 1-6 (docs/rules.md section 8): the sets the search found, or
the sets a player laid (:func:`score_sets`, checked first)."""

from __future__ import annotations

import itertools

from collections.abc import Mapping, Sequence
from typing import Any

from referee.dice.arrangement import DiceArrangement, DiceChain, DiceSet, SharedDie, parse_faces
from referee.dice.rules import (
    BONUS_CHAIN,
    BONUS_ONE_RUN,
    BONUS_THREE_GROUPS,
    BONUS_TWO_RUNS,
    COLOURS,
    DEFAULT_RULES,
    DICE,
    DiceError,
    DiceRules,
)
from referee.dice.text import bonus_sentence, die_label, set_sentence
from referee.i18n import _
from referee.tiles import Colour, Tile, parse_tile, parse_tiles

__all__ = ["joker_colours", "score_arrangement", "score_sets"]


def joker_colours(group_tiles: list[Tile | None], number: int, fixed: Mapping[int, Colour]) -> list[Tile]:
    """Fill the jokers of a group (``None`` entries) with missing colours; ``fixed`` pins some."""
    taken = {t.colour for t in group_tiles if t is not None} | set(fixed.values())
    free = [c for c in COLOURS if c not in taken]
    out: list[Tile] = []
    for pos, t in enumerate(group_tiles):
        if t is not None:
            out.append(t)
        elif pos in fixed:
            out.append(Tile(fixed[pos], number))
        else:
            out.append(Tile(free.pop(0), number))
    return out


def score_arrangement(faces: tuple[Tile, ...], sets: list[DiceSet], rules: DiceRules) -> DiceArrangement:
    """Score laid-out sets (already checked) under rules 1-6 and explain the score."""
    run_of: dict[int, int] = {}
    group_of: dict[int, int] = {}
    for si, s in enumerate(sets):
        target = run_of if s.kind == "run" else group_of
        for d in s.dice:
            target[d] = si
    per_set = sum(s.points for s in sets)
    used = set(run_of) | set(group_of)
    unused = tuple(i for i in range(DICE) if i not in used)

    # Chains: components of the "shares a die" relation with at least two sets.
    parent = list(range(len(sets)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    shared_dice = sorted(d for d in run_of if d in group_of)
    for d in shared_dice:
        a, b = find(run_of[d]), find(group_of[d])
        if a != b:
            parent[a] = b
    components: dict[int, list[int]] = {}
    for si in range(len(sets)):
        components.setdefault(find(si), []).append(si)
    chains = []
    for members in sorted(components.values()):
        if len(members) < 2:
            continue
        member_set = set(members)
        shared = tuple(
            SharedDie(d, faces[d], _tile_in(sets[run_of[d]], d), (run_of[d], group_of[d]))
            for d in shared_dice
            if run_of[d] in member_set
        )
        chains.append(DiceChain(tuple(members), shared))

    runs = [s for s in sets if s.kind == "run"]
    groups = [s for s in sets if s.kind == "group"]
    bonus: str | None = None
    if not unused:
        if len(sets) == 1 and runs:
            bonus = BONUS_ONE_RUN
        elif len(sets) == 2 and len(runs) == 2 and not shared_dice:
            if not rules.two_runs_one_colour or runs[0].tiles[0].colour == runs[1].tiles[0].colour:
                bonus = BONUS_TWO_RUNS
        elif len(sets) == 3 and len(groups) == 3 and not shared_dice:
            bonus = BONUS_THREE_GROUPS
        if bonus is None and len(chains) == 1 and len(chains[0].sets) == len(sets):
            bonus = BONUS_CHAIN
    score = per_set
    bonus_points = rules.bonus_points(bonus) if bonus else 0
    applied = bonus if bonus and bonus_points >= per_set else None
    if applied:
        score = bonus_points

    lines = []
    for si, s in enumerate(sets):
        lines.append(set_sentence(si, s))
    for chain in chains:
        for sd in chain.shared:
            lines.append(
                _("{die} is shared by set {run} and set {group}: it counts for both (2 points).").format(
                    die=die_label(sd.face, sd.tile), run=sd.sets[0] + 1, group=sd.sets[1] + 1
                )
            )
    if unused:
        lines.append(_("Not used: {dice}.").format(dice=" ".join(faces[i].code for i in unused)))
    lines.append(_("Sets: {points} points.").format(points=per_set))
    if bonus:
        name = bonus_sentence(bonus)
        if applied:
            lines.append(
                _("{bonus}: {points} points in place of {count}.").format(
                    bonus=name, points=bonus_points, count=per_set
                )
            )
        else:
            lines.append(
                _("{bonus} would give {points} points, but the sets already count {count}.").format(
                    bonus=name, points=bonus_points, count=per_set
                )
            )
    lines.append(_("Score: {score}.").format(score=score))
    return DiceArrangement(faces, score, per_set, tuple(sets), tuple(chains), unused, applied, tuple(lines))


def _tile_in(s: DiceSet, die: int) -> Tile:
    return s.tiles[s.dice.index(die)]


def _as_run(tiles: Sequence[Tile], dice: Sequence[int]) -> tuple[tuple[int, ...], tuple[Tile, ...]] | None:
    """The dice as a run (low to high, or read high to low) and what each stands for, or ``None``."""
    for order in (list(range(len(dice))), list(range(len(dice)))[::-1]):
        seq = [tiles[i] for i in order]
        coloured = [(k, t) for k, t in enumerate(seq) if not t.is_joker]
        if not coloured or len({t.colour for _k, t in coloured}) != 1:
            return None
        k0, t0 = coloured[0]
        start = t0.number - k0  # type: ignore[operator]
        if start < 1 or start + len(seq) - 1 > 13:
            continue
        if all(t.number == start + k for k, t in coloured):
            colour = t0.colour
            return tuple(dice[i] for i in order), tuple(Tile(colour, start + k) for k in range(len(seq)))
    return None


def _as_group(tiles: Sequence[Tile]) -> int | None:
    """The group's number when the dice make a group, else ``None``."""
    coloured = [t for t in tiles if not t.is_joker]
    if not 3 <= len(tiles) <= 4 or not coloured:
        return None
    if len({t.number for t in coloured}) != 1 or len({t.colour for t in coloured}) != len(coloured):
        return None
    return coloured[0].number


def score_sets(
    faces: str | Sequence[Tile | str],
    sets: str | Sequence[str | Sequence[int | Tile | str]],
    rules: DiceRules | None = None,
) -> DiceArrangement:
    """Score an arrangement the player laid out (rules 1-6), after checking it.

    ``sets``: one notation string with sets separated by ``|`` (``"R3 R4 R5 | R5 K5 B5"``), or a
    list of sets, each a notation string or a sequence of die indices (0-8) or tiles. A coloured die
    is found by its face (each shows once); a die written in two sets is the die they share. Each
    ``J`` token takes the next joker die not yet used, so to share a joker give die indices.
    A run is written low to high (high to low is read as the same run). A set of one number and two
    jokers can be read either way: each such set is read as a run or a group, whichever scores the
    arrangement best (the three-groups or three-runs bonus may hang on it); on a tie, as a run unless
    it shares a die with a run.

    Raises :class:`DiceError` naming the first problem (a die used twice in runs or in groups, a set
    that is neither a run nor a group, a joker whose two sets need different tiles, ...).
    """
    rules = rules or DEFAULT_RULES
    tiles = parse_faces(faces)
    raw_sets: list[Any]
    if isinstance(sets, str):
        raw_sets = [p for p in sets.split("|") if p.strip()]
    else:
        raw_sets = list(sets)
    joker_dice = [i for i, t in enumerate(tiles) if t.is_joker]
    next_joker = 0
    die_lists: list[list[int]] = []
    for raw in raw_sets:
        items: list[Any] = parse_tiles(raw) if isinstance(raw, str) else list(raw)
        dice: list[int] = []
        for item in items:
            if isinstance(item, int) and not isinstance(item, bool):
                if not 0 <= item < DICE:
                    raise DiceError(_("{index} is not a die: dice are numbered 0 to 8.").format(index=item))
                dice.append(item)
                continue
            tile = item if isinstance(item, Tile) else parse_tile(item)
            if tile.is_joker:
                if next_joker >= len(joker_dice):
                    raise DiceError(_("There are more jokers in the sets than on the dice."))
                dice.append(joker_dice[next_joker])
                next_joker += 1
            else:
                if tile not in tiles:
                    raise DiceError(_("{tile} is not among the faces rolled.").format(tile=tile.code))
                dice.append(tiles.index(tile))
        if len(set(dice)) != len(dice):
            raise DiceError(
                _("A set uses the same die twice: {dice}.").format(dice=" ".join(tiles[d].code for d in dice))
            )
        if len(dice) < 3:
            raise DiceError(
                _("A set needs at least 3 dice; {dice} has {count}.").format(
                    dice=" ".join(tiles[d].code for d in dice), count=len(dice)
                )
            )
        die_lists.append(dice)

    # Kinds first (a set that can only be a run or only a group), then the ambiguous ones.
    readings: list[tuple[Any, int | None]] = []
    for dice in die_lists:
        faces_of = [tiles[d] for d in dice]
        readings.append((_as_run(faces_of, dice), _as_group(faces_of)))
    run_dice: dict[int, int] = {}
    kinds: list[str | None] = []
    for si, (run, number) in enumerate(readings):
        if run is None and number is None:
            raise DiceError(
                _("{dice} is neither a run nor a group.").format(dice=" ".join(tiles[d].code for d in die_lists[si]))
            )
        kinds.append("run" if number is None else "group" if run is None else None)
        if kinds[-1] == "run":
            for d in die_lists[si]:
                run_dice[d] = si
    # Both readings possible (one number and two jokers): the default first, then the others.
    either = [si for si, kind in enumerate(kinds) if kind is None]
    default = {si: "group" if any(d in run_dice for d in die_lists[si]) else "run" for si in either}
    best: DiceArrangement | None = None
    first_error: DiceError | None = None
    for flips in itertools.product((False, True), repeat=len(either)):
        chosen = list(kinds)
        for si, flip in zip(either, flips):
            chosen[si] = default[si] if not flip else ("run" if default[si] == "group" else "group")
        try:
            scored = _score_kinds(tiles, die_lists, readings, chosen, rules)
        except DiceError as error:
            first_error = first_error or error
            continue
        if best is None or scored.score > best.score:
            best = scored
    if best is None:
        assert first_error is not None
        raise first_error
    return best


def _score_kinds(
    tiles: list[Tile], die_lists: list[list[int]], readings: list[tuple[Any, int | None]], kinds: list[str],
    rules: DiceRules,
) -> DiceArrangement:
    """:func:`score_sets` with each set's kind decided (``"run"`` or ``"group"``)."""
    built: dict[int, DiceSet] = {}
    in_run: dict[int, int] = {}
    in_group: dict[int, int] = {}
    run_tile: dict[int, Tile] = {}
    for si, kind in enumerate(kinds):
        dice = die_lists[si]
        target = in_run if kind == "run" else in_group
        for d in dice:
            if d in target:
                # One sentence per kind: a plural is not the word plus "s" in every language.
                if kind == "run":
                    problem = _("{die} is in two runs: a die can be shared only by one run and one group.")
                else:
                    problem = _("{die} is in two groups: a die can be shared only by one run and one group.")
                raise DiceError(problem.format(die=tiles[d].code))
            target[d] = si
        if kind == "run":
            ordered, stand = readings[si][0]
            for d, t in zip(ordered, stand):
                run_tile[d] = t
            built[si] = DiceSet("run", ordered, tuple(tiles[d] for d in ordered), stand)
    for si, kind in enumerate(kinds):
        if kind != "group":
            continue
        dice = die_lists[si]
        number = readings[si][1]
        assert number is not None
        coloured = {tiles[x].colour for x in dice if not tiles[x].is_joker}
        fixed: dict[int, Colour] = {}
        for pos, d in enumerate(dice):
            if tiles[d].is_joker and d in run_tile:
                if not rules.joker_at_crossing:
                    raise DiceError(_("Under these rules a joker cannot be shared by two sets."))
                t = run_tile[d]
                if t.number != number or t.colour in coloured or t.colour in fixed.values():
                    raise DiceError(
                        _("The joker stands for {tile} in its run, which does not fit the group of {number}s.").format(
                            tile=t.code, number=number
                        )
                    )
                fixed[pos] = t.colour  # type: ignore[assignment]
        partial: list[Tile | None] = [None if tiles[d].is_joker else tiles[d] for d in dice]
        stand = tuple(joker_colours(partial, number, fixed))
        built[si] = DiceSet("group", tuple(dice), tuple(tiles[d] for d in dice), stand)
    # Keep the player's order of sets.
    position = [built[si] for si in range(len(kinds))]
    return score_arrangement(tiles, position, rules)
