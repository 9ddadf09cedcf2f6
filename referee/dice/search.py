"""The best arrangement of a roll: an exhaustive search over every way of laying the nine dice."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from referee.dice.arrangement import DiceArrangement, DiceSet, parse_faces
from referee.dice.rules import (
    ALL_DICE,
    BIT,
    BONUS_CHAIN,
    BONUS_ONE_RUN,
    BONUS_THREE_GROUPS,
    BONUS_TWO_RUNS,
    COLOURS,
    DEFAULT_RULES,
    DICE,
    DiceRules,
)
from referee.dice.scoring import joker_colours, score_arrangement
from referee.tiles import Colour, Tile

__all__ = ["SearchState", "search", "best_arrangement"]


# A run candidate: (mask, colour index, start number, dice per position, ((joker die, number), ...)).
# A group candidate: (mask, number, coloured dice, joker dice, bit mask of the coloured dice's colours).
# Jokers may also stand in for a coloured die that is present (so that die can go elsewhere): the
# search stays exhaustive over every way of laying the 9 dice.


def _run_candidates(faces: Sequence[Tile], jokers: Sequence[int]) -> list[tuple]:
    nj = len(jokers)
    out: list[tuple] = []
    for ci, colour in enumerate(COLOURS):
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
                for extra_k in range(nj - len(missing) + 1):
                    for extra in itertools.combinations(optional, extra_k):
                        positions = sorted(missing + list(extra))
                        for chosen in itertools.permutations(jokers, len(positions)):
                            by_number = dict(zip(positions, chosen))
                            dice = tuple(by_number[n] if n in by_number else present[n] for n in numbers)
                            mask = 0
                            for d in dice:
                                mask |= BIT[d]
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
                            mask |= BIT[d]
                            cmask |= 1 << ci
                        for d in chosen:
                            mask |= BIT[d]
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
class SearchState:
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


def search(faces: tuple[Tile, ...], rules: DiceRules) -> SearchState:
    """Exhaustive search over every pair (disjoint runs, disjoint groups) of the 9 dice."""
    jokers = tuple(i for i, t in enumerate(faces) if t.is_joker)
    runs = _run_candidates(faces, jokers)
    groups = _group_candidates(faces, jokers)
    state = SearchState(faces, rules, jokers, runs, groups)
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
        if mask != ALL_DICE:
            continue
        if len(pack) == 1:
            state.offer(rules.one_run_bonus, (DICE, 1), pack, (), BONUS_ONE_RUN)
        elif len(pack) == 2:
            if rules.two_runs_one_colour and runs[pack[0]][1] != runs[pack[1]][1]:
                continue
            state.offer(rules.two_runs_bonus, (DICE, 0), pack, (), BONUS_TWO_RUNS)
    # Rule 5: all 9 as three groups.
    for mask, pack in group_packs:
        if mask == ALL_DICE and len(pack) == 3:
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
            need = ALL_DICE & ~gmask
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


def _sets_from_search(state: SearchState) -> list[DiceSet]:
    faces, runs, groups = state.faces, state.runs, state.groups
    sets: list[DiceSet] = []
    shared_colour: dict[int, Colour] = {}  # joker die -> colour its run gives it
    for i in sorted(state.run_pack, key=lambda i: (runs[i][1], runs[i][2])):
        _mask, ci, start, dice, _jokers = runs[i]
        tiles = tuple(Tile(COLOURS[ci], start + k) for k in range(len(dice)))
        for d in dice:
            if faces[d].is_joker:
                shared_colour[d] = COLOURS[ci]
        sets.append(DiceSet("run", dice, tuple(faces[d] for d in dice), tiles))
    for i in sorted(state.group_pack, key=lambda i: (groups[i][1], groups[i][0])):
        _mask, number, coloured, joker_dice, _cmask = groups[i]
        ordered = sorted(coloured, key=lambda d: faces[d].colour.index) + list(joker_dice)  # type: ignore[union-attr]
        partial: list[Tile | None] = [None if faces[d].is_joker else faces[d] for d in ordered]
        fixed = {pos: shared_colour[d] for pos, d in enumerate(ordered) if faces[d].is_joker and d in shared_colour}
        tiles = tuple(joker_colours(partial, number, fixed))
        sets.append(DiceSet("group", tuple(ordered), tuple(faces[d] for d in ordered), tiles))
    return sets


def best_arrangement(faces: str | Sequence[Tile | str], rules: DiceRules | None = None) -> DiceArrangement:
    """The highest-scoring arrangement of a roll of the 9 dice (docs/rules.md section 8).

    ``faces``: the 9 faces showing, as tiles, tokens or one notation string (``"R3 R4 R5 ..."``).
    The search is exhaustive: every way of laying disjoint runs and disjoint groups, each die in at
    most one run and one group, jokers standing for any tile (docs/rules.md section 8 says how chains and
    bonuses are read). Ties prefer more dice used, then fewer sets.

    Raises :class:`DiceError` when not exactly 9 faces are given or the roll is impossible, and
    :class:`~referee.tiles.TileError` for a token that is not a tile.
    """
    rules = rules or DEFAULT_RULES
    tiles = parse_faces(faces)
    state = search(tiles, rules)
    arrangement = score_arrangement(tiles, _sets_from_search(state), rules)
    # The builder scores the sets on its own; the two must agree (a cheap guard against drift).
    if arrangement.score != state.score:  # pragma: no cover - would be a bug in this module
        raise AssertionError(f"dice search scored {state.score}, arrangement scores {arrangement.score}")
    return arrangement
