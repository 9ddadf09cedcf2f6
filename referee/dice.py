"""Rummikub Dice (Rummikub Express): scoring a roll of the nine dice, reroll advice and the score
sheet (docs/rules.md section 8; the rule book is seed 002, traditional Chinese).

What the seed says, and how this module reads it
================================================

The game: 9 dice carrying 52 coloured numbers (1-13 in red, yellow, black, blue; yellow is orange
``O`` in the project's notation) and 2 jokers; up to three rolls a turn; the dice kept are arranged
on the board into runs and groups (same definitions as the tiles, docs/rules.md section 2: a group is 3-4
dice of one number, colours all different; a run is 3 or more consecutive numbers of one colour, 1
lowest, no wrap-around). Jokers stand for any number and colour ("百搭牌可以代替任何數字或顏色的牌").

The six scoring rules (評分方式 1-6) and the decisions the seed leaves open:

1. A completed run or group scores the number of dice in it.
2. A chain (連鎖組合) is sets joined by a shared die; the die they share "scores 2".
   *Which sets may share a die.* The seed illustrates a chain as "group, chain, run"
   (群組、連鎖組合、順組) and docs/rules.md describes the shared die as crossing like a plus sign. This
   module therefore lets a die be shared by **one run and one group** (a horizontal and a vertical
   line on the board): a die is in at most one run and at most one group. Two runs or two groups
   never share a die. A run and a group can then share at most one die.
   *How the 2 points arise.* A shared die counts once for each of its two sets, which is rule 1
   applied to both sets; so the per-set count of an arrangement is simply the sum of its set sizes.
   *Jokers at a crossing.* The seed is silent. A die shows one face and stands for one tile, so a
   joker may sit at a crossing when one tile fits both sets: the run fixes its colour and number,
   the group's number must match and its colour must be missing from the group
   (:attr:`DiceRules.joker_at_crossing`, default allowed).
3. All 9 dice in one chain: 15 points.
4. All 9 dice as two runs (二列同色的順組): 20 points. Read as "two runs, each of one colour", the same
   way rule 5 restates the group definition (三列同數字但全都異色的群組); a strict reading where both
   runs must share one colour is :attr:`DiceRules.two_runs_one_colour`.
5. All 9 dice as three groups: 20 points.
6. All 9 dice in one run: 30 points.

*Bonus or total?* The seed states rules 3-6 as the points the player gets (他就可獲得 15 分), so a
bonus is the turn's score and takes the place of the per-set count, not an addition to it. Rules
4-6 always beat their per-set count (9). A 9-dice chain usually counts 10-12 by rules 1-2, but a
dense crossing of runs and groups can count more (a 3 x 3 grid of runs and groups counts 18). The
seed is silent there; this module scores such an arrangement ``max(per-set count, 15)`` so that
completing the chain never costs the player points.

*The strategy example.* The seed's strategy example (策略舉例, pictures H2 and H3) shows one
arrangement scoring 7 and a better one scoring 9, but the pictures are not in the text, so the dice
are unknown. The lesson it teaches - lay a die where it counts for two sets - is what
:func:`best_arrangement` does; the tests use a constructed 7-versus-9 position of that kind.

*The board.* The seed mentions a board (遊戲板) but not its size or cells; arrangements here are
combinatorial (which dice form which sets and which die a run and a group share), laid with runs
across and groups down. Whether a layout fits the physical board is not checked.

*The faces.* Each of the 52 coloured numbers is on exactly one die, so a roll never shows the same
coloured number twice and shows at most 2 jokers; :func:`best_arrangement` rejects such a roll.
The seed does not say which six faces each die carries, so :class:`DiceLayout` is an input the user
supplies (see :func:`reroll_advice`).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.i18n import _
from referee.tiles import ALL_NUMBERED, JOKER, Colour, Tile, parse_tile, parse_tiles

__all__ = [
    "DICE",
    "FACES_PER_DIE",
    "BONUS_CHAIN",
    "BONUS_TWO_RUNS",
    "BONUS_THREE_GROUPS",
    "BONUS_ONE_RUN",
    "DiceError",
    "DiceRules",
    "DiceSet",
    "SharedDie",
    "DiceChain",
    "DiceArrangement",
    "DiceLayout",
    "RerollChoice",
    "DiceSheet",
    "parse_faces",
    "best_arrangement",
    "score_sets",
    "format_arrangement",
    "reroll_advice",
    "EXAMPLE_LAYOUT_PATH",
    "example_layout",
]

DICE = 9
"""Dice in the game (docs/rules.md section 8)."""
FACES_PER_DIE = 6

BONUS_CHAIN = "chain_of_nine"
"""Rule 3: all 9 dice in one chain."""
BONUS_TWO_RUNS = "two_runs"
"""Rule 4: all 9 dice as two runs."""
BONUS_THREE_GROUPS = "three_groups"
"""Rule 5: all 9 dice as three groups."""
BONUS_ONE_RUN = "one_run"
"""Rule 6: all 9 dice in one run."""

EXAMPLE_LAYOUT_PATH = Path(__file__).resolve().parent / "data" / "dice_layout_example.json"
"""An EXAMPLE face layout (not the real dice) for demonstrations and tests."""

_FULL = (1 << DICE) - 1
_COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)  # index order of Colour.index
_BIT = tuple(1 << i for i in range(DICE))
# The most a die can count by rules 1-2 is 2 (one run and one group), so 18 per turn.
_MAX_PER_SET = 2 * DICE


class DiceError(ValueError):
    """Bad Rummikub Dice input: wrong number of faces, an impossible roll, a bad face layout, a bad
    score-sheet entry. The message says what was wrong."""


# --------------------------------------------------------------------------------------------------
# Rules


@dataclass(frozen=True)
class DiceRules:
    """The Rummikub Dice scoring rules in force (docs/rules.md section 8); defaults are seed 002."""

    chain_bonus: int = 15
    """Rule 3: all 9 dice in one chain."""
    two_runs_bonus: int = 20
    """Rule 4: all 9 dice as two runs."""
    three_groups_bonus: int = 20
    """Rule 5: all 9 dice as three groups."""
    one_run_bonus: int = 30
    """Rule 6: all 9 dice in one run (some other editions give 25)."""
    two_runs_one_colour: bool = False
    """Rule 4 read strictly: both runs must be of the same colour (default: each run one colour)."""
    joker_at_crossing: bool = True
    """A joker may be the die a run and a group share (the seed is silent; see the module doc)."""
    turns: int = 6
    """Turns each player plays in a standard game (the players may agree on another number)."""

    def __post_init__(self) -> None:
        for name in ("chain_bonus", "two_runs_bonus", "three_groups_bonus", "one_run_bonus"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1000:
                raise DiceError(
                    _("{field} must be a whole number from 0 to 1000, not {value!r}").format(field=name, value=value)
                )
        for name in ("two_runs_one_colour", "joker_at_crossing"):
            if not isinstance(getattr(self, name), bool):
                raise DiceError(_("{field} must be true or false").format(field=name))
        if not isinstance(self.turns, int) or isinstance(self.turns, bool) or not 1 <= self.turns <= 100:
            raise DiceError(_("turns must be a whole number from 1 to 100, not {value!r}").format(value=self.turns))

    @property
    def max_turn_score(self) -> int:
        """The most one turn can score under these rules."""
        return max(_MAX_PER_SET, self.chain_bonus, self.two_runs_bonus, self.three_groups_bonus, self.one_run_bonus)

    def bonus_points(self, bonus: str) -> int:
        """Points of a bonus rule by name (``BONUS_*``)."""
        return {
            BONUS_CHAIN: self.chain_bonus,
            BONUS_TWO_RUNS: self.two_runs_bonus,
            BONUS_THREE_GROUPS: self.three_groups_bonus,
            BONUS_ONE_RUN: self.one_run_bonus,
        }[bonus]


_DEFAULT_RULES = DiceRules()


# --------------------------------------------------------------------------------------------------
# Result types


@dataclass(frozen=True)
class DiceSet:
    """One completed run or group on the board."""

    kind: str
    """``"run"`` or ``"group"``."""
    dice: tuple[int, ...]
    """Indices (0-8) into the rolled faces, in the set's order (a run from low to high)."""
    faces: tuple[Tile, ...]
    """The faces showing on those dice (``J`` for a joker)."""
    tiles: tuple[Tile, ...]
    """What each die stands for: the face itself, or the tile a joker stands for. A joker in a group
    gets a missing colour; any other missing colour would do as well unless the joker is shared."""

    @property
    def points(self) -> int:
        """Rule 1: a set scores the number of dice in it."""
        return len(self.dice)

    @property
    def codes(self) -> tuple[str, ...]:
        """The faces in notation."""
        return tuple(t.code for t in self.faces)

    @property
    def jokers(self) -> tuple[tuple[int, Tile], ...]:
        """``(position in the set, tile it stands for)`` for each joker."""
        return tuple((i, t) for i, (f, t) in enumerate(zip(self.faces, self.tiles)) if f.is_joker)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "dice": list(self.codes),
            "tiles": [t.code for t in self.tiles],
            "jokers": [{"position": i, "stands_for": t.code} for i, t in self.jokers],
            "die_indices": list(self.dice),
            "points": self.points,
        }


@dataclass(frozen=True)
class SharedDie:
    """A die at a crossing: it belongs to one run and one group and counts for both (rule 2)."""

    die: int
    """Index (0-8) into the rolled faces."""
    face: Tile
    tile: Tile
    """What the die stands for (differs from ``face`` only for a joker)."""
    sets: tuple[int, int]
    """Indices into :attr:`DiceArrangement.sets`: the run, then the group."""

    def to_dict(self) -> dict[str, Any]:
        return {"die": self.die, "face": self.face.code, "stands_for": self.tile.code, "sets": list(self.sets)}


@dataclass(frozen=True)
class DiceChain:
    """Sets joined by shared dice (连锁组合 / 連鎖組合, rule 2)."""

    sets: tuple[int, ...]
    """Indices into :attr:`DiceArrangement.sets`, ascending."""
    shared: tuple[SharedDie, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"sets": list(self.sets), "shared": [s.to_dict() for s in self.shared]}


@dataclass(frozen=True)
class DiceArrangement:
    """The dice laid out into sets, and the score they make (docs/rules.md section 8)."""

    faces: tuple[Tile, ...]
    """The 9 faces rolled, in the order given."""
    score: int
    """The turn's score: the bonus if one applies and is higher, else the per-set count."""
    per_set_points: int
    """Rules 1-2: the sum of the set sizes (a shared die counts in both its sets)."""
    sets: tuple[DiceSet, ...]
    chains: tuple[DiceChain, ...]
    unused: tuple[int, ...]
    """Indices of the dice in no set."""
    bonus: str | None
    """The bonus rule that gave the score (``BONUS_*``), or ``None``."""
    breakdown: tuple[str, ...]
    """Sentences explaining the score, one per line."""

    @property
    def unused_faces(self) -> tuple[Tile, ...]:
        return tuple(self.faces[i] for i in self.unused)

    @property
    def used_dice(self) -> frozenset[int]:
        """Indices of the dice in at least one set."""
        return frozenset(d for s in self.sets for d in s.dice)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``score``, ``arrangement`` (the sets), ``chains``, ``unused``, ``bonus``, ..."""
        return {
            "faces": [f.code for f in self.faces],
            "score": self.score,
            "per_set_points": self.per_set_points,
            "arrangement": [s.to_dict() for s in self.sets],
            "chains": [c.to_dict() for c in self.chains],
            "unused": [self.faces[i].code for i in self.unused],
            "unused_indices": list(self.unused),
            "bonus": self.bonus,
            "breakdown": list(self.breakdown),
        }


# --------------------------------------------------------------------------------------------------
# Input


def parse_faces(faces: str | Sequence[Tile | str]) -> tuple[Tile, ...]:
    """The 9 faces of a roll, from notation (``"R1 R2 J ..."``) or a sequence of tiles / tokens.

    Raises :class:`DiceError` when there are not exactly 9 faces, when a coloured number shows twice
    (each is on one die only) or when more than 2 jokers show; a token that is not a tile raises
    :class:`~referee.tiles.TileError` naming it.
    """
    if isinstance(faces, str):
        tiles = parse_tiles(faces)
    else:
        tiles = [f if isinstance(f, Tile) else parse_tile(f) for f in faces]
    if len(tiles) != DICE:
        raise DiceError(
            _("Rummikub Dice is played with 9 dice: give exactly 9 faces, not {count}.").format(count=len(tiles))
        )
    seen: set[Tile] = set()
    jokers = 0
    for t in tiles:
        if t.is_joker:
            jokers += 1
        elif t in seen:
            raise DiceError(
                _("{tile} shows twice, but each coloured number is on only one die.").format(tile=t.code)
            )
        seen.add(t)
    if jokers > 2:
        raise DiceError(_("{count} jokers show, but the dice carry only 2 jokers.").format(count=jokers))
    return tuple(tiles)


# --------------------------------------------------------------------------------------------------
# Candidate sets and the exhaustive search
#
# A run candidate: (mask, colour index, start number, dice per position, ((joker die, number), ...)).
# A group candidate: (mask, number, coloured dice, joker dice, bit mask of the coloured dice's colours).
# Jokers may also stand in for a coloured die that is present (so that die can go elsewhere): the
# search stays exhaustive over every way of laying the 9 dice.


def _run_candidates(faces: Sequence[Tile], jokers: Sequence[int], stand_in: bool = True) -> list[tuple]:
    nj = len(jokers)
    out: list[tuple] = []
    for ci, colour in enumerate(_COLOURS):
        present = {t.number: i for i, t in enumerate(faces) if t.colour is colour}
        if not present:
            continue  # at most 2 jokers, and a run needs 3 dice
        for start in range(1, 12):
            for end in range(start + 2, min(13, start + DICE - 1) + 1):
                numbers = range(start, end + 1)
                missing = [n for n in numbers if n not in present]
                if len(missing) > nj:
                    break  # a longer run only misses more
                optional = [n for n in numbers if n in present]
                for extra_k in range(nj - len(missing) + 1 if stand_in else 1):
                    for extra in itertools.combinations(optional, extra_k):
                        positions = sorted(missing + list(extra))
                        for chosen in itertools.permutations(jokers, len(positions)):
                            by_number = dict(zip(positions, chosen))
                            dice = tuple(by_number[n] if n in by_number else present[n] for n in numbers)
                            mask = 0
                            for d in dice:
                                mask |= _BIT[d]
                            out.append((mask, ci, start, dice, tuple(zip(chosen, positions))))
    return out


def _group_candidates(faces: Sequence[Tile], jokers: Sequence[int]) -> list[tuple]:
    nj = len(jokers)
    out: list[tuple] = []
    for number in range(1, 14):
        present = [(t.colour.index, i) for i, t in enumerate(faces) if t.number == number and t.colour is not None]
        for size in range(len(present) + 1):
            for sub in itertools.combinations(present, size):
                for k in range(nj + 1):
                    if not 3 <= size + k <= 4:
                        continue
                    for chosen in itertools.combinations(jokers, k):
                        mask = cmask = 0
                        for ci, d in sub:
                            mask |= _BIT[d]
                            cmask |= 1 << ci
                        for d in chosen:
                            mask |= _BIT[d]
                        out.append((mask, number, tuple(d for _c, d in sub), chosen, cmask))
    return out


def _packings(masks: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Every choice of pairwise disjoint candidates (including none): ``(union mask, indices)``."""
    out: list[tuple[int, tuple[int, ...]]] = [(0, ())]

    def extend(cands: list[tuple[int, int]], used: int, chosen: tuple[int, ...]) -> None:
        # `cands` holds only the candidates after the last one chosen that still fit, so each
        # level filters a shrinking list (9 dice allow at most 3 sets on a side).
        for k, (i, m) in enumerate(cands):
            picked = chosen + (i,)
            now = used | m
            out.append((now, picked))
            rest = [c for c in cands[k + 1:] if not c[1] & now]
            if rest:
                extend(rest, now, picked)

    extend(list(enumerate(masks)), 0, ())
    return out


@dataclass
class _Search:
    """The candidates and packings of one roll, and the best pair of packings found."""

    faces: tuple[Tile, ...]
    rules: DiceRules
    jokers: tuple[int, ...]
    runs: list[tuple]
    groups: list[tuple]
    score: int = 0
    key: tuple[int, ...] = (0,)
    run_pack: tuple[int, ...] = ()
    group_pack: tuple[int, ...] = ()
    bonus: str | None = None

    def offer(self, score: int, key: tuple[int, ...], run_pack: tuple[int, ...], group_pack: tuple[int, ...],
              bonus: str | None) -> None:
        if (score,) + key > (self.score,) + self.key:
            self.score, self.key, self.run_pack, self.group_pack, self.bonus = score, key, run_pack, group_pack, bonus


def _run_signature(runs: list[tuple], pack: tuple[int, ...], jokers: tuple[int, ...]) -> tuple:
    """Per joker die: ``None`` or ``(colour index, number)`` it stands for in a run of the packing."""
    meaning: dict[int, tuple[int, int]] = {}
    for i in pack:
        run = runs[i]
        for d, n in run[4]:
            meaning[d] = (run[1], n)
    return tuple(meaning.get(j) for j in jokers)


def _group_signature(groups: list[tuple], pack: tuple[int, ...], jokers: tuple[int, ...]) -> tuple:
    """Per joker die: ``None`` or ``(position in the packing, number, colours taken)`` of its group."""
    meaning: dict[int, tuple[int, int, int]] = {}
    for pos, i in enumerate(pack):
        group = groups[i]
        for d in group[3]:
            meaning[d] = (pos, group[1], group[4])
    return tuple(meaning.get(j) for j in jokers)


def _compatible(run_sig: tuple, group_sig: tuple, rules: DiceRules) -> bool:
    """Can every joker in both a run and a group stand for one tile that fits both (module doc, rule 2)?"""
    shared: list[tuple[int, int]] = []  # (group position, colour index) of each shared joker
    for r, g in zip(run_sig, group_sig):
        if r is None or g is None:
            continue
        if not rules.joker_at_crossing:
            return False
        ci, n = r
        pos, number, cmask = g
        if n != number or cmask >> ci & 1:
            return False
        shared.append((pos, ci))
    # Two shared jokers in one group need two different colours.
    return len(shared) < 2 or shared[0] != shared[1]


def _connected(runs: list[tuple], groups: list[tuple], run_pack: tuple[int, ...],
               group_pack: tuple[int, ...]) -> bool:
    """Do the sets form one chain (joined through dice that are in a run and a group)?"""
    n_runs = len(run_pack)
    total = n_runs + len(group_pack)
    if n_runs == 0 or total < 2:
        return False
    parent = list(range(total))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    run_of = {}
    for pos, i in enumerate(run_pack):
        for d in runs[i][3]:
            run_of[d] = pos
    components = total
    for gpos, i in enumerate(group_pack):
        mask = groups[i][0]
        for d in range(DICE):
            if mask >> d & 1 and d in run_of:
                a, b = find(run_of[d]), find(n_runs + gpos)
                if a != b:
                    parent[a] = b
                    components -= 1
    return components == 1


def _search(faces: tuple[Tile, ...], rules: DiceRules, stand_in: bool = True) -> _Search:
    """Exhaustive search over every pair (disjoint runs, disjoint groups) of the 9 dice.

    ``stand_in=False`` leaves out runs where a joker stands for a coloured number that was rolled
    too (so that die can go elsewhere); reroll advice uses that faster search (see there).
    """
    jokers = tuple(i for i, t in enumerate(faces) if t.is_joker)
    runs = _run_candidates(faces, jokers, stand_in)
    groups = _group_candidates(faces, jokers)
    state = _Search(faces, rules, jokers, runs, groups)
    run_packs = _packings([r[0] for r in runs])
    group_packs = _packings([g[0] for g in groups])

    # Rules 1-2: the per-set count is (dice in runs) + (dice in groups), and the two sides only
    # interact through jokers at crossings. So keep, per joker signature, the best run packing
    # (most dice, then fewest runs), and pair it with every group packing.
    best_by_sig: dict[tuple, tuple[int, int, int, tuple[int, ...]]] = {}
    for mask, pack in run_packs:
        sig = _run_signature(runs, pack, jokers)
        entry = (mask.bit_count(), -len(pack), mask, pack)
        old = best_by_sig.get(sig)
        if old is None or entry[:2] > old[:2]:
            best_by_sig[sig] = entry
    # Most dice first. For each subset of joker dice, the best run packing that leaves them free
    # fits any group packing using only those jokers; only packings giving those jokers a meaning
    # and counting more dice need the joker check.
    sig_entries = sorted(best_by_sig.items(), key=lambda kv: kv[1][:2], reverse=True)
    top_runs = sig_entries[0][1][0]
    free_best: dict[tuple[int, ...], tuple] = {}
    for size in range(len(jokers) + 1):
        for subset in itertools.combinations(range(len(jokers)), size):
            free_best[subset] = next(e for sig, e in sig_entries if all(sig[k] is None for k in subset))
    for gmask, gpack in group_packs:
        gcount = gmask.bit_count()
        if gcount + top_runs < state.score:
            continue
        gsig = _group_signature(groups, gpack, jokers)
        uses = tuple(k for k, g in enumerate(gsig) if g is not None)
        rcount, neg_runs, rmask, rpack = free_best[uses]
        # Ties: more dice used, then fewer sets (a plainer layout).
        state.offer(rcount + gcount, ((rmask | gmask).bit_count(), neg_runs - len(gpack)), rpack, gpack, None)
        if not uses:
            continue
        floor = rcount
        for rsig, (rcount, neg_runs, rmask, rpack) in sig_entries:
            if rcount <= floor:
                break
            if all(rsig[k] is None for k in uses) or not _compatible(rsig, gsig, rules):
                continue
            state.offer(rcount + gcount, ((rmask | gmask).bit_count(), neg_runs - len(gpack)), rpack, gpack, None)
            floor = rcount

    # Rule 6: all 9 in one run; rule 4: all 9 as two runs.
    for mask, pack in run_packs:
        if mask != _FULL:
            continue
        if len(pack) == 1:
            state.offer(rules.one_run_bonus, (DICE, 1), pack, (), BONUS_ONE_RUN)
        elif len(pack) == 2:
            if rules.two_runs_one_colour and runs[pack[0]][1] != runs[pack[1]][1]:
                continue
            state.offer(rules.two_runs_bonus, (DICE, 0), pack, (), BONUS_TWO_RUNS)
    # Rule 5: all 9 as three groups.
    for mask, pack in group_packs:
        if mask == _FULL and len(pack) == 3:
            state.offer(rules.three_groups_bonus, (DICE, 0), (), pack, BONUS_THREE_GROUPS)

    # Rule 3: all 9 dice in one chain scores max(per-set count, bonus); only worth the search when
    # the bonus beats everything found so far (the per-set count of any chain is already covered).
    if rules.chain_bonus > state.score:
        by_mask: dict[int, list[tuple[int, ...]]] = {}
        for mask, pack in run_packs:
            if pack:
                by_mask.setdefault(mask, []).append(pack)
        for gmask, gpack in group_packs:
            if not gpack:
                continue
            need = _FULL & ~gmask
            gsig = _group_signature(groups, gpack, jokers)
            group_masks = [groups[i][0] for i in gpack]
            for rmask, packs in by_mask.items():
                # Cheap tests first: the runs cover what the groups leave, every group crosses a run.
                if rmask & need != need or not all(m & rmask for m in group_masks):
                    continue
                for rpack in packs:
                    if not all(runs[i][0] & gmask for i in rpack):
                        continue  # a run crossing no group is not in the chain
                    if not _compatible(_run_signature(runs, rpack, jokers), gsig, rules):
                        continue
                    if _connected(runs, groups, rpack, gpack):
                        per_set = rmask.bit_count() + gmask.bit_count()
                        state.offer(max(rules.chain_bonus, per_set), (DICE, -(len(rpack) + len(gpack))),
                                    rpack, gpack, BONUS_CHAIN if rules.chain_bonus >= per_set else None)
    return state


# --------------------------------------------------------------------------------------------------
# Building and scoring a concrete arrangement


def _joker_colours(group_tiles: list[Tile | None], number: int, fixed: Mapping[int, Colour]) -> list[Tile]:
    """Fill the jokers of a group (``None`` entries) with missing colours; ``fixed`` pins some."""
    taken = {t.colour for t in group_tiles if t is not None} | set(fixed.values())
    free = [c for c in _COLOURS if c not in taken]
    out: list[Tile] = []
    for pos, t in enumerate(group_tiles):
        if t is not None:
            out.append(t)
        elif pos in fixed:
            out.append(Tile(fixed[pos], number))
        else:
            out.append(Tile(free.pop(0), number))
    return out


def _arrangement(faces: tuple[Tile, ...], sets: list[DiceSet], rules: DiceRules) -> DiceArrangement:
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
        lines.append(_set_sentence(si, s))
    for chain in chains:
        for sd in chain.shared:
            lines.append(
                _("{die} is shared by set {run} and set {group}: it counts for both (2 points).").format(
                    die=_die_label(sd.face, sd.tile), run=sd.sets[0] + 1, group=sd.sets[1] + 1
                )
            )
    if unused:
        lines.append(_("Not used: {dice}.").format(dice=" ".join(faces[i].code for i in unused)))
    lines.append(_("Sets: {points} points.").format(points=per_set))
    if bonus:
        name = _bonus_sentence(bonus)
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


def _die_label(face: Tile, tile: Tile) -> str:
    return face.code if face == tile else f"{face.code}={tile.code}"


def _set_sentence(index: int, s: DiceSet) -> str:
    # Whole sentences with their punctuation inside _(): Chinese and Japanese end with 。 and use
    # full-width brackets, so nothing is glued on outside the translation. The jokers stay in
    # notation ("J=B6").
    dice = " ".join(s.codes)
    values = {"n": index + 1, "dice": dice, "points": s.points}
    if s.jokers:
        values["jokers"] = ", ".join(f"J={t.code}" for _pos, t in s.jokers)
        if s.kind == "run":
            return _("Set {n}, run {dice}: {points} points ({jokers}).").format(**values)
        return _("Set {n}, group {dice}: {points} points ({jokers}).").format(**values)
    if s.kind == "run":
        return _("Set {n}, run {dice}: {points} points.").format(**values)
    return _("Set {n}, group {dice}: {points} points.").format(**values)


def _bonus_sentence(bonus: str) -> str:
    return {
        BONUS_CHAIN: _("All 9 dice in one chain"),
        BONUS_TWO_RUNS: _("All 9 dice in two runs"),
        BONUS_THREE_GROUPS: _("All 9 dice in three groups"),
        BONUS_ONE_RUN: _("All 9 dice in one run"),
    }[bonus]


def _sets_from_search(state: _Search) -> list[DiceSet]:
    faces, runs, groups = state.faces, state.runs, state.groups
    sets: list[DiceSet] = []
    shared_colour: dict[int, Colour] = {}  # joker die -> colour its run gives it
    for i in sorted(state.run_pack, key=lambda i: (runs[i][1], runs[i][2])):
        _mask, ci, start, dice, _jokers = runs[i]
        tiles = tuple(Tile(_COLOURS[ci], start + k) for k in range(len(dice)))
        for d in dice:
            if faces[d].is_joker:
                shared_colour[d] = _COLOURS[ci]
        sets.append(DiceSet("run", dice, tuple(faces[d] for d in dice), tiles))
    for i in sorted(state.group_pack, key=lambda i: (groups[i][1], groups[i][0])):
        _mask, number, coloured, joker_dice, _cmask = groups[i]
        ordered = sorted(coloured, key=lambda d: faces[d].colour.index) + list(joker_dice)  # type: ignore[union-attr]
        partial: list[Tile | None] = [None if faces[d].is_joker else faces[d] for d in ordered]
        fixed = {pos: shared_colour[d] for pos, d in enumerate(ordered) if faces[d].is_joker and d in shared_colour}
        tiles = tuple(_joker_colours(partial, number, fixed))
        sets.append(DiceSet("group", tuple(ordered), tuple(faces[d] for d in ordered), tiles))
    return sets


def best_arrangement(faces: str | Sequence[Tile | str], rules: DiceRules | None = None) -> DiceArrangement:
    """The highest-scoring arrangement of a roll of the 9 dice (docs/rules.md section 8).

    ``faces``: the 9 faces showing, as tiles, tokens or one notation string (``"R3 R4 R5 ..."``).
    The search is exhaustive: every way of laying disjoint runs and disjoint groups, each die in at
    most one run and one group, jokers standing for any tile (see the module doc for how chains and
    bonuses are read). Ties prefer more dice used, then fewer sets.

    Raises :class:`DiceError` when not exactly 9 faces are given or the roll is impossible, and
    :class:`~referee.tiles.TileError` for a token that is not a tile.
    """
    rules = rules or _DEFAULT_RULES
    tiles = parse_faces(faces)
    state = _search(tiles, rules)
    arrangement = _arrangement(tiles, _sets_from_search(state), rules)
    # The builder scores the sets on its own; the two must agree (a cheap guard against drift).
    if arrangement.score != state.score:  # pragma: no cover - would be a bug in this module
        raise AssertionError(f"dice search scored {state.score}, arrangement scores {arrangement.score}")
    return arrangement


@lru_cache(maxsize=65536)
def _best_cached(key: tuple[int, ...], rules: DiceRules) -> tuple[int, tuple[int, ...]]:
    """Score of a roll given as sorted tile indices, and the tile indices its best arrangement uses."""
    faces = tuple(Tile.from_index(i) for i in key)
    # Without joker stand-ins: same scores as the full search on every roll tried (tests compare a
    # seeded sample), several times faster on rolls with two jokers.
    state = _search(faces, rules, stand_in=False)
    used = 0
    for i in state.run_pack:
        used |= state.runs[i][0]
    for i in state.group_pack:
        used |= state.groups[i][0]
    return state.score, tuple(key[d] for d in range(DICE) if used >> d & 1)


# --------------------------------------------------------------------------------------------------
# Scoring the player's own layout


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
    jokers that could be read either way is taken as a run unless it shares a die with a run.

    Raises :class:`DiceError` naming the first problem (a die used twice in runs or in groups, a set
    that is neither a run nor a group, a joker whose two sets need different tiles, ...).
    """
    rules = rules or _DEFAULT_RULES
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
    for si, kind in enumerate(kinds):
        if kind is None:  # both readings possible (one number and two jokers)
            kinds[si] = "group" if any(d in run_dice for d in die_lists[si]) else "run"

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
        stand = tuple(_joker_colours(partial, number, fixed))
        built[si] = DiceSet("group", tuple(dice), tuple(tiles[d] for d in dice), stand)
    # Keep the player's order of sets.
    position = [built[si] for si in range(len(kinds))]
    return _arrangement(tiles, position, rules)


# --------------------------------------------------------------------------------------------------
# Text


def format_arrangement(arr: DiceArrangement) -> str:
    """The arrangement in readable text: score, set by set, chain by chain, unused dice, bonus."""
    lines = [_("Roll: {faces}").format(faces=" ".join(f.code for f in arr.faces))]
    if arr.bonus:
        lines.append(
            _("Score: {score} ({bonus}).").format(score=arr.score, bonus=_bonus_sentence(arr.bonus))
        )
    else:
        lines.append(_("Score: {score}.").format(score=arr.score))
    if not arr.sets:
        lines.append(_("No run or group can be made from these dice."))
    for si, s in enumerate(arr.sets):
        lines.append("  " + _set_sentence(si, s))
    for ci, chain in enumerate(arr.chains):
        sets = ", ".join(str(i + 1) for i in chain.sets)
        shared = ", ".join(_die_label(sd.face, sd.tile) for sd in chain.shared)
        lines.append(
            "  " + _("Chain {n}: sets {sets}, joined by {dice} (each counts twice).").format(
                n=ci + 1, sets=sets, dice=shared
            )
        )
    if arr.unused:
        lines.append("  " + _("Not used: {dice}.").format(dice=" ".join(f.code for f in arr.unused_faces)))
    if arr.bonus:
        lines.append(
            "  " + _("{bonus}: {points} points in place of {count}.").format(
                bonus=_bonus_sentence(arr.bonus), points=arr.score, count=arr.per_set_points
            )
        )
    else:
        lines.append("  " + _("Sets: {points} points.").format(points=arr.per_set_points))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Face layout of the dice


@dataclass(frozen=True)
class DiceLayout:
    """Which six faces each of the 9 dice carries.

    The seed (002) says only that the dice carry the 52 coloured numbers and 2 jokers; it does not
    say which faces share a die, so the layout is an input. It is validated: 9 dice x 6 faces, each
    coloured number exactly once, 2 jokers. ``example`` marks a made-up layout (such as
    :data:`EXAMPLE_LAYOUT_PATH`) that is not the real dice.
    """

    dice: tuple[tuple[Tile, ...], ...]
    label: str = ""
    example: bool = False

    def __post_init__(self) -> None:
        if len(self.dice) != DICE:
            raise DiceError(_("A dice layout has 9 dice, not {count}.").format(count=len(self.dice)))
        where: dict[Tile, int] = {}
        jokers = 0
        for n, die in enumerate(self.dice):
            if len(die) != FACES_PER_DIE:
                raise DiceError(
                    _("Die {n} of the layout has {count} faces; each die has 6.").format(n=n + 1, count=len(die))
                )
            for face in die:
                if not isinstance(face, Tile):
                    raise DiceError(_("Die {n} of the layout has a face that is not a tile.").format(n=n + 1))
                if face.is_joker:
                    jokers += 1
                elif face in where:
                    raise DiceError(
                        _("{tile} is on die {a} and on die {b}; each coloured number is on one die only.").format(
                            tile=face.code, a=where[face] + 1, b=n + 1
                        )
                    )
                else:
                    where[face] = n
        if jokers != 2:
            raise DiceError(_("A dice layout has 2 jokers, not {count}.").format(count=jokers))
        missing = [t.code for t in ALL_NUMBERED if t not in where]
        if missing:  # pragma: no cover - 52 distinct faces of 54 with 2 jokers cannot miss one
            raise DiceError(_("The layout lacks {tiles}.").format(tiles=" ".join(missing)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DiceLayout:
        """From ``{"dice": [["R1", "K5", ...], ...], "label": "...", "example": false}``."""
        if not isinstance(data, Mapping) or "dice" not in data:
            raise DiceError(_('A dice layout is an object with a "dice" list of 9 lists of 6 faces.'))
        raw = data["dice"]
        if not isinstance(raw, list) or not all(isinstance(d, list) for d in raw):
            raise DiceError(_('A dice layout is an object with a "dice" list of 9 lists of 6 faces.'))
        dice = tuple(tuple(parse_tile(f) for f in die) for die in raw)
        return cls(dice, str(data.get("label", "")), bool(data.get("example", False)))

    @classmethod
    def from_json(cls, path: str | Path) -> DiceLayout:
        """Load a layout from a JSON file (see :meth:`from_dict`)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise DiceError(_("Cannot read the dice layout {path}: {error}").format(path=path, error=exc)) from exc
        except json.JSONDecodeError as exc:
            raise DiceError(
                _("The dice layout {path} is not valid JSON: {error}").format(path=path, error=exc)
            ) from exc
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "example": self.example, "dice": [[f.code for f in die] for die in self.dice]}

    def die_of(self, face: Tile) -> int:
        """The die (0-8) carrying a coloured face. Raises :class:`DiceError` for a joker."""
        for n, die in enumerate(self.dice):
            if face in die:
                if face.is_joker and sum(JOKER in d for d in self.dice) > 1:
                    raise DiceError(_("Both jokers' dice can show J; a joker does not name its die."))
                return n
        raise DiceError(_("{tile} is on no die of the layout.").format(tile=face.code))  # pragma: no cover

    def assign(self, faces: Sequence[Tile]) -> tuple[int, ...]:
        """Which die shows each of 9 faces. Raises :class:`DiceError` when the roll is impossible
        (two faces of one die, or a joker on a die without a joker face)."""
        faces = parse_faces(faces)
        die_of_face = [-1] * DICE
        taken: dict[int, int] = {}
        for i, f in enumerate(faces):
            if f.is_joker:
                continue
            d = next(n for n, die in enumerate(self.dice) if f in die)
            if d in taken:
                raise DiceError(
                    _("{a} and {b} are faces of the same die; they cannot show together.").format(
                        a=faces[taken[d]].code, b=f.code
                    )
                )
            taken[d] = i
            die_of_face[i] = d
        free = [n for n in range(DICE) if n not in taken]
        joker_faces = [i for i, f in enumerate(faces) if f.is_joker]
        for i, d in zip(joker_faces, free):
            if JOKER not in self.dice[d]:
                raise DiceError(
                    _("A joker shows, but the die left for it (die {n}) has no joker face.").format(n=d + 1)
                )
            die_of_face[i] = d
        return tuple(die_of_face)


def example_layout() -> DiceLayout:
    """The EXAMPLE layout shipped with the package (made up; not the real dice)."""
    return DiceLayout.from_json(EXAMPLE_LAYOUT_PATH)


# --------------------------------------------------------------------------------------------------
# Reroll advice


@dataclass(frozen=True)
class RerollChoice:
    """One choice of dice to roll again, and the final score it leads to on average."""

    keep: tuple[Tile, ...]
    reroll: tuple[Tile, ...]
    expected_score: float
    exact: bool
    """True when every outcome was enumerated (no sampling)."""
    samples: int
    """Outcomes averaged (all of them when ``exact``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "keep": [t.code for t in self.keep],
            "reroll": [t.code for t in self.reroll],
            "expected_score": round(self.expected_score, 3),
            "exact": self.exact,
            "samples": self.samples,
        }


_SCREEN_SETS = 16
"""Reroll advice screens the keep-choices built from at most this many candidate sets ..."""
_SCREEN_PAIRS = 12
"""... and from at most this many near-sets (pairs), which bounds its running time."""


def _near_pairs(faces: Sequence[Tile]) -> list[int]:
    """Masks of two dice that one more die could turn into a set (two thirds of a run or group),
    most promising first: neighbours in a colour (two dice complete them), then same number or a
    gap of one, then pairs with a joker."""
    ranked = []
    for a, b in itertools.combinations(range(DICE), 2):
        x, y = faces[a], faces[b]
        if x.is_joker or y.is_joker:
            rank = 2
        elif x.colour == y.colour and abs(x.number - y.number) == 1:  # type: ignore[operator]
            rank = 0
        elif x.number == y.number or (x.colour == y.colour and abs(x.number - y.number) == 2):  # type: ignore[operator]
            rank = 1
        else:
            continue
        ranked.append((rank, a, b))
    ranked.sort()
    return [_BIT[a] | _BIT[b] for _rank, a, b in ranked]


def reroll_advice(
    kept: Sequence[Tile | str] | str,
    rolls_left: int,
    layout: DiceLayout | None,
    rules: DiceRules | None = None,
    *,
    samples: int = 96,
    max_choices: int = 6,
    seed: int = 0,
) -> list[RerollChoice]:
    """Which dice to roll again: the sensible choices, best first, each with its expected final score.

    ``kept``: the 9 faces showing now (dice laid on the board and dice just rolled; after the second
    roll kept dice may be put back, docs/rules.md section 8, so any dice may be rolled again).
    ``rolls_left``: rolls still allowed this turn (0-2). ``layout``: the faces of each die; the seed
    does not give it, so without one this raises :class:`DiceError`.

    Method (bounded, deterministic for a given ``seed``):

    * Choices considered: stop (roll nothing), roll all 9, roll the dice outside the best
      arrangement, keep the dice of each possible set, and keep two dice that one more die would
      complete, each also with the best arrangement's dice. They are screened with a few samples
      and the best ``max_choices`` are measured with ``samples`` outcomes.
    * The outcomes of a reroll are enumerated exactly when there are at most ``samples`` of them
      (6 to the power of the dice rolled), else drawn at random with ``random.Random(seed)``.
    * After the next roll, when a roll is still left, play continues with the rule "keep the best
      arrangement, roll the unused dice" (one sampled path per outcome). That is a real strategy,
      so with two rolls left the value is a slight underestimate of optimal play.
    * Outcomes are scored by the search without joker stand-ins (a joker standing for a number that
      was also rolled); it gave the same score as :func:`best_arrangement` on 12,000 random rolls
      with one or two jokers, and the tests keep comparing a seeded sample.

    Cost (2 cores, example layout, defaults): about 0.1-0.3 s with one roll left and 0.4-0.8 s
    with two, up to about 1.5 s for rolls showing both jokers; results are cached per roll.
    """
    rules = rules or _DEFAULT_RULES
    faces = parse_faces(kept)
    if layout is None:
        raise DiceError(
            _(
                "The face layout of the dice is unknown: the rule book does not say which faces each die "
                "carries. Supply a DiceLayout (a JSON file of 9 dice with 6 faces each) to get reroll advice."
            )
        )
    if not isinstance(rolls_left, int) or isinstance(rolls_left, bool) or not 0 <= rolls_left <= 2:
        raise DiceError(_("A turn has three rolls, so 0, 1 or 2 rolls can be left, not {n}.").format(n=rolls_left))
    if samples < 1 or max_choices < 1:
        raise DiceError(_("samples and max_choices must be at least 1."))
    die_of = layout.assign(faces)
    key = tuple(sorted(f.index for f in faces))
    now, used_indices = _best_cached(key, rules)
    stop = RerollChoice(faces, (), float(now), True, 1)
    if rolls_left == 0:
        return [stop]

    # The dice of the best arrangement, as a mask over positions in `faces`.
    best_mask = _mask_of(faces, used_indices)
    state = _search(faces, rules)
    keep_masks: dict[int, None] = {best_mask: None, 0: None}
    # Bounded screening: the largest distinct candidate sets and the closest near-sets only.
    set_masks = sorted({c[0] for c in state.runs + state.groups}, key=lambda m: (-m.bit_count(), m))
    for mask in set_masks[:_SCREEN_SETS]:
        keep_masks[mask] = None
        keep_masks[mask | best_mask] = None
    for pair in _near_pairs(faces)[:_SCREEN_PAIRS]:
        keep_masks[pair | best_mask] = None
        keep_masks[pair] = None
    keep_masks.pop(_FULL, None)  # that is "stop", valued exactly above

    rng = random.Random(seed)
    screen = max(1, min(samples, 12))
    screened = []
    for mask in keep_masks:
        value, _exact, _n = _expected(faces, die_of, mask, rolls_left, layout, rules, screen, rng)
        screened.append((value, mask))
    screened.sort(key=lambda vm: (-vm[0], -vm[1].bit_count(), vm[1]))
    choices = [stop]
    for _value, mask in screened[:max_choices]:
        rng = random.Random(seed * 1_000_003 + mask)  # each choice its own reproducible stream
        value, exact, n = _expected(faces, die_of, mask, rolls_left, layout, rules, samples, rng)
        keep = tuple(faces[i] for i in range(DICE) if mask >> i & 1)
        reroll = tuple(faces[i] for i in range(DICE) if not mask >> i & 1)
        choices.append(RerollChoice(keep, reroll, value, exact, n))
    choices.sort(key=lambda c: (-c.expected_score, len(c.reroll)))
    return choices


def _mask_of(faces: Sequence[Tile], indices: Sequence[int]) -> int:
    """Positions in ``faces`` of the tiles with these indices (jokers matched one by one)."""
    mask = 0
    remaining = list(indices)
    for i, f in enumerate(faces):
        if f.index in remaining:
            remaining.remove(f.index)
            mask |= _BIT[i]
    return mask


def _expected(
    faces: Sequence[Tile],
    die_of: Sequence[int],
    keep_mask: int,
    rolls_left: int,
    layout: DiceLayout,
    rules: DiceRules,
    samples: int,
    rng: random.Random,
) -> tuple[float, bool, int]:
    """Average final score when the dice outside ``keep_mask`` are rolled again (see reroll_advice)."""
    positions = [i for i in range(DICE) if not keep_mask >> i & 1]
    if not positions:
        return float(_best_cached(tuple(sorted(f.index for f in faces)), rules)[0]), True, 1
    options = [layout.dice[die_of[i]] for i in positions]
    count = FACES_PER_DIE ** len(positions)
    if count <= samples:
        outcomes: Iterable[tuple[Tile, ...]] = itertools.product(*options)
        n, exact = count, True
    else:
        outcomes = (tuple(rng.choice(o) for o in options) for _ in range(samples))
        n, exact = samples, False
    base = list(faces)
    total = 0
    for outcome in outcomes:
        rolled = base[:]
        for i, f in zip(positions, outcome):
            rolled[i] = f
        score, used = _best_cached(tuple(sorted(f.index for f in rolled)), rules)
        if rolls_left >= 2:
            score = _greedy_finish(rolled, die_of, used, rolls_left - 1, layout, rules, rng)
            exact = False if len(used) < DICE else exact
        total += score
    return total / n, exact, n


def _greedy_finish(
    faces: list[Tile],
    die_of: Sequence[int],
    used: Sequence[int],
    rolls_left: int,
    layout: DiceLayout,
    rules: DiceRules,
    rng: random.Random,
) -> int:
    """One sampled path of "keep the best arrangement, roll the rest" for the remaining rolls."""
    score = _best_cached(tuple(sorted(f.index for f in faces)), rules)[0]
    for _ in range(rolls_left):
        keep = _mask_of(faces, used)
        if keep == _FULL:
            break
        for i in range(DICE):
            if not keep >> i & 1:
                faces[i] = rng.choice(layout.dice[die_of[i]])
        score, used = _best_cached(tuple(sorted(f.index for f in faces)), rules)
    return score


# --------------------------------------------------------------------------------------------------
# Score sheet


class DiceSheet:
    """A Rummikub Dice score sheet (docs/rules.md section 8): 1-8 players, ``turns`` turns each
    (standard game 6), per-turn scores and running totals; the highest total after the last turn
    wins (several names on a tie).
    """

    def __init__(self, players: Sequence[str], turns: int | None = None, rules: DiceRules | None = None) -> None:
        self.rules = rules or _DEFAULT_RULES
        self.turns = self.rules.turns if turns is None else turns
        if not isinstance(self.turns, int) or isinstance(self.turns, bool) or not 1 <= self.turns <= 100:
            raise DiceError(_("turns must be a whole number from 1 to 100, not {value!r}").format(value=self.turns))
        if isinstance(players, str):
            raise DiceError(_("Give the players as a list of names."))
        names = [p.strip() if isinstance(p, str) else p for p in players]
        if not 1 <= len(names) <= 8:
            raise DiceError(_("Rummikub Dice is for 1 to 8 players, not {count}.").format(count=len(names)))
        for name in names:
            if not isinstance(name, str) or not name:
                raise DiceError(_("A player's name must be non-empty text, not {name!r}.").format(name=name))
        if len(set(names)) != len(names):
            raise DiceError(_("Each player needs a different name."))
        self.players: tuple[str, ...] = tuple(names)
        self._scores: dict[str, list[int]] = {p: [] for p in self.players}

    def _player(self, player: str) -> str:
        name = player.strip() if isinstance(player, str) else player
        if name not in self._scores:
            raise DiceError(
                _("{player} is not on this score sheet (players: {players}).").format(
                    player=player, players=", ".join(self.players)
                )
            )
        return name

    def record(self, player: str, score: int | DiceArrangement) -> int:
        """Write a player's next turn (a score or a scored arrangement); returns the turn number (1-based)."""
        name = self._player(player)
        points = score.score if isinstance(score, DiceArrangement) else score
        if not isinstance(points, int) or isinstance(points, bool):
            raise DiceError(_("A turn's score is a whole number, not {value!r}.").format(value=points))
        if not 0 <= points <= self.rules.max_turn_score:
            raise DiceError(
                _("A turn scores from 0 to {most} points, not {value}.").format(
                    most=self.rules.max_turn_score, value=points
                )
            )
        row = self._scores[name]
        if len(row) >= self.turns:
            raise DiceError(
                _("{player} has already played all {turns} turns.").format(player=name, turns=self.turns)
            )
        row.append(points)
        return len(row)

    def scores(self, player: str) -> tuple[int, ...]:
        """The player's turn scores so far."""
        return tuple(self._scores[self._player(player)])

    def running_totals(self, player: str) -> tuple[int, ...]:
        """The running total after each of the player's turns (the shaded column of the sheet)."""
        return tuple(itertools.accumulate(self._scores[self._player(player)]))

    def total(self, player: str) -> int:
        return sum(self._scores[self._player(player)])

    def totals(self) -> dict[str, int]:
        return {p: sum(s) for p, s in self._scores.items()}

    @property
    def is_complete(self) -> bool:
        """Has every player played every turn?"""
        return all(len(s) == self.turns for s in self._scores.values())

    def leaders(self) -> tuple[str, ...]:
        """The players with the highest total so far."""
        totals = self.totals()
        best = max(totals.values())
        return tuple(p for p in self.players if totals[p] == best)

    def winners(self) -> tuple[str, ...]:
        """The winner(s) once the game is over (highest total after the last turn); empty before."""
        return self.leaders() if self.is_complete else ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "turns": self.turns,
            "scores": {p: list(s) for p, s in self._scores.items()},
            "totals": self.totals(),
            "complete": self.is_complete,
            "winners": list(self.winners()),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], rules: DiceRules | None = None) -> DiceSheet:
        """Rebuild a sheet from :meth:`to_dict` (derived keys are recomputed, not trusted)."""
        if not isinstance(data, Mapping) or "players" not in data:
            raise DiceError(_('A dice score sheet needs a "players" list.'))
        sheet = cls(data["players"], data.get("turns"), rules)
        scores = data.get("scores", {})
        if not isinstance(scores, Mapping):
            raise DiceError(_('"scores" must map each player to a list of turn scores.'))
        for player, row in scores.items():
            if not isinstance(row, list):
                raise DiceError(_('"scores" must map each player to a list of turn scores.'))
            for points in row:
                sheet.record(player, points)
        return sheet

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DiceSheet):
            return NotImplemented
        return (self.players, self.turns, self._scores) == (other.players, other.turns, other._scores)

    def __repr__(self) -> str:
        return f"DiceSheet(players={list(self.players)!r}, turns={self.turns}, totals={self.totals()!r})"
