"""Matching and steps: each new set matched to at most one old set keeping most tiles (greedy,
proven best by duality or matched again by the Hungarian algorithm), the tiles moved, and the
steps a player follows."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from referee.assignment import best_assignment
from referee.i18n import _
from referee.solver.inputs import BY_INDEX, CODE, tile_codes, tile_indices, tile_tally
from referee.solver.values import joker_values
from referee.tiles import Tile


def match_sets(old_tallies: list[dict[int, int]], new_tallies: list[dict[int, int]]) -> dict[int, int]:
    """new index -> old index: the matching of new sets to old ones (each to at most one) that
    keeps most table tiles in their set, a new set keeping what it shares with its old set.
    Sets given as :func:`tile_tally` counts.

    Greedy first (biggest overlap first; ties to the lower old number, then the lower new one),
    then checked (:func:`_untangle`): greedy can keep fewer than the best matching when an old
    set shares tiles with two new sets, one of which also shares with another old set (K3-K8
    and K3-K6 on the table, K3-K6 rebuilt beside K6 K7 K8: greedy gives the new K3-K6 to the
    first old run). On 6 of the 206 benchmark moves it kept 1-2 tiles fewer."""
    where: dict[int, list[tuple[int, int]]] = {}
    for i, tally in enumerate(old_tallies):
        for x, k in tally.items():
            got = where.get(x)
            if got is None:
                where[x] = [(i, k)]
            else:
                got.append((i, k))
    pairs = []
    for j, tally in enumerate(new_tallies):
        shared: dict[int, int] = {}
        for x, k in tally.items():
            got = where.get(x)
            if got is not None:
                for i, ko in got:
                    shared[i] = shared.get(i, 0) + (k if k < ko else ko)
        pairs.extend([(-w, i, j) for i, w in shared.items()])
    pairs.sort()
    used_old: set[int] = set()
    out: dict[int, int] = {}
    for _w, i, j in pairs:
        if i not in used_old and j not in out:
            out[j] = i
            used_old.add(i)
    if len(pairs) > len(out):
        _untangle(pairs, out)
    return out


def _untangle(pairs: list[tuple[int, int, int]], out: dict[int, int]) -> None:
    """For :func:`match_sets`: make the greedy matching ``out`` a best one, in place (``pairs`` as
    (-shared, old, new)). When :func:`_proven` finds it is one already (190 of the 196
    benchmark moves with pairs left unmatched), nothing to do; otherwise greedy keeps fewer
    tiles than it could, and every pair is matched again exactly (:func:`~referee.assignment.best_assignment`)."""
    if _proven(pairs, out):
        return
    olds = sorted({i for _w, i, _j in pairs})
    news = sorted({j for _w, _i, j in pairs})
    weight = {(i, j): -w for w, i, j in pairs}
    rows, cols = (olds, news) if len(olds) <= len(news) else (news, olds)
    flip = rows is news
    table = [[weight.get((c, r) if flip else (r, c), 0) for c in cols] for r in rows]
    out.clear()
    for r, c in enumerate(best_assignment(table)):
        if table[r][c] > 0:
            i, j = (cols[c], rows[r]) if flip else (rows[r], cols[c])
            out[j] = i


def _proven(pairs: list[tuple[int, int, int]], out: dict[int, int]) -> bool:
    """True when the matching ``out`` keeps the most there is over ``pairs`` ((-shared, old,
    new)): by linear programming duality, exactly when each matched pair's weight can be shared
    out between its two sets, t on the old one and w - t on the new one (0 <= t <= w), nothing
    on unmatched sets, so that no unmatched pair is worth more than the shares on its two sets.
    Those conditions are bounds on t and differences between the t of two matched pairs; the
    least t meeting the lower bounds is raised along the differences (longest paths, Bellman
    and Ford) until nothing changes (proven) or a t passes its upper bound or it cycles (not).
    A few passes over the pairs."""
    matched: dict[int, int] = {}  # old set -> weight of its matched pair
    for w, i, j in pairs:
        if out.get(j) == i:
            matched[i] = -w
    t = dict.fromkeys(matched, 0)
    top = dict(matched)
    diffs = []  # (a, b, c): t[a] >= t[b] + c, pairs named by their old set
    for w, i, j in pairs:
        b = out.get(j)
        if b == i:
            continue
        w = -w
        if i not in matched:
            if b is None:
                return False  # (greedy never leaves a pair of two unmatched sets)
            if matched[b] - w < top[b]:
                top[b] = matched[b] - w
        elif b is None:
            if w > t[i]:
                t[i] = w
        else:
            diffs.append((i, b, w - matched[b]))
    if any(t[i] > top[i] for i in t):
        return False
    for _round in range(len(t) + 1):
        changed = False
        for a, b, c in diffs:
            if t[b] + c > t[a]:
                t[a] = t[b] + c
                if t[a] > top[a]:
                    return False
                changed = True
        if not changed:
            return True
    return False


@dataclass
class Outcome:
    """The change from the old table to a new arrangement: new sets (and their numbers), the steps,
    the table tiles moved, the rack tiles placed and the points laid."""

    sets: list[list[Tile]]
    numbers: list[int]
    steps: list[str]
    moved: list[Tile]
    placed: list[Tile]
    points: int


def _flows_counted(
    new_idx: list[list[int]], new_tallies: list[dict[int, int]], remaining_old: list[dict[int, int]],
    match: dict[int, int], numbers: list[int], forced: set[tuple[int, int]],
    flows: dict[tuple[int, int], list[int]], moved: list[int], from_rack: list[tuple[int, int, int]],
) -> None:
    """For :func:`describe_change`, with copies counted (a tile may be twice in one set, and
    rack jokers may be ``forced`` to places): each new set keeps what it shares with its old
    set; its other tiles come from the old sets that have them left, in order, or the rack.
    Fills ``flows``, ``moved``, ``from_rack``."""
    kept_of: list[dict[int, int]] = []
    for j, s in enumerate(new_idx):
        k: dict[int, int] = {}
        i = match.get(j)
        if i is not None:
            rest = remaining_old[i]
            free = tile_tally([x for pos, x in enumerate(s) if (j, pos) not in forced]) if forced else new_tallies[j]
            for x, cnt in free.items():
                have = rest.get(x, 0)
                take = cnt if cnt < have else have
                if take:
                    k[x] = take
                    rest[x] = have - take
        kept_of.append(k)
    sources: dict[int, list[int]] = {}
    for i, rest in enumerate(remaining_old):
        for x, cnt in rest.items():
            if cnt > 0:
                got = sources.get(x)
                if got is None:
                    sources[x] = [i + 1] * cnt
                else:
                    got.extend([i + 1] * cnt)
    for j, s in enumerate(new_idx):
        keep = kept_of[j]
        target = numbers[j]
        for pos, x in enumerate(s):
            free_here = not forced or (j, pos) not in forced
            if free_here and keep.get(x, 0) > 0:
                keep[x] -= 1
                continue
            src = sources.get(x) if free_here else None
            if src:
                flows.setdefault((target, src.pop(0)), []).append(x)
                moved.append(x)
            else:
                flows.setdefault((target, 0), []).append(x)
                from_rack.append((x, j, pos))


_MOST_JOKER_SPLITS = 64
"""Ways of sharing the rack's jokers among joker places worth as much that
:func:`_rack_jokers_placed` compares (past it, the first in the usual order)."""


def _rack_jokers_placed(
    old_tallies: list[dict[int, int]], new_idx: list[list[int]], slots: list[tuple[int, bool, int, int]], extra: int
) -> tuple[dict[int, int], set[tuple[int, int]]]:
    """For :func:`describe_change` with the points objective: the matching of new sets to old
    ones and the rack's joker places ``(set, position)`` that keep most table tiles, the rack's
    ``extra`` jokers on the joker places worth most (``slots``: (value, free, set, position),
    best first). Every place above the last value taken is the rack's; among the places worth
    that value, the ways of sharing the rest out among the sets are compared by the best
    matching of the new sets without the rack's jokers (ties: the first in ``slots`` order)."""
    cut = slots[extra - 1][0]
    above = [(j, pos) for v, _free, j, pos in slots if v > cut]
    tied = [(j, pos) for v, _free, j, pos in slots if v == cut]
    left = extra - len(above)
    per_set: dict[int, list[int]] = {}
    for j, pos in tied:
        per_set.setdefault(j, []).append(pos)
    sets = list(per_set)  # in slots order, so the first split tried is the usual one
    # Splits of the ``left`` jokers over the sets, most to the first sets first; a plain loop
    # over counts (no recursive closure: a solve leaves no reference cycle behind).
    splits: list[list[int]] = []
    for counts in product(*[range(min(left, len(per_set[j])), -1, -1) for j in sets]):
        if sum(counts) == left:
            splits.append(list(counts))
            if len(splits) > _MOST_JOKER_SPLITS:
                splits = splits[:1]
                break
    best: tuple[int, dict[int, int], set[tuple[int, int]]] | None = None
    new_tallies = [tile_tally(s) for s in new_idx]  # once; each split takes its jokers off a copy
    for split in splits:
        forced = set(above)
        for j, n in zip(sets, split):
            forced.update((j, pos) for pos in per_set[j][:n])
        held: dict[int, int] = {}
        for j, _pos in forced:
            held[j] = held.get(j, 0) + 1
        tallies = [dict(t) for t in new_tallies]
        for j, n in held.items():
            tallies[j][52] -= n
            if not tallies[j][52]:
                del tallies[j][52]
        match = match_sets(old_tallies, tallies)
        kept = 0
        for j, i in match.items():
            old = old_tallies[i]
            kept += sum(min(k, old.get(x, 0)) for x, k in tallies[j].items())
        if best is None or kept > best[0]:
            best = (kept, match, forced)
    assert best is not None
    return best[1], best[2]


def describe_change(
    old_sets: list[list[Tile]] | None, table_tiles: list[Tile], new_sets: list[list[Tile]], rack_jokers_high: bool = False
) -> Outcome:
    """Number the new sets, work out which tiles moved and which came from the rack, and say
    it as steps. Jokers are alike: table jokers stay where they were when they can, unless
    ``rack_jokers_high`` (points objective), where the rack's jokers take the places worth most
    (among places worth as much, those that keep most table tiles) and the new sets are matched
    to the old ones without them: a place holding a rack joker keeps no table joker."""
    steps: list[str] = []
    moved: list[int] = []
    new_idx = [tile_indices(s) for s in new_sets]
    if old_sets is not None:
        # Each new set matched to at most one old set, keeping most tiles in place.
        old_tallies = [tile_tally(tile_indices(s)) for s in old_sets]
        new_tallies = [tile_tally(s) for s in new_idx]
        match = match_sets(old_tallies, new_tallies)
    forced: set[tuple[int, int]] = set()  # (set, position) of jokers that come from the rack
    if rack_jokers_high:
        # Places worth as much go to the rack's jokers first in sets whose old set held no joker,
        # so that a table joker stays where it was when the points are the same either way.
        home = {j for j, i in match.items() if 52 in old_tallies[i]} if old_sets is not None else set()
        slots = sorted(
            ((v, j not in home, j, pos) for j, s in enumerate(new_sets)
             for v, pos in zip(joker_values(s), (i for i, t in enumerate(s) if t.colour is None))),
            reverse=True,
        )
        extra = sum(x == 52 for s in new_idx for x in s) - sum(t.colour is None for t in table_tiles)
        forced = {(j, pos) for _v, _free, j, pos in slots[: max(0, extra)]}
        if forced and old_sets is not None:
            # A joker place holding a rack joker keeps no table joker, so the matching is the
            # one of the new sets without the rack's jokers, and among places worth as much the
            # rack's jokers go where that keeps most (B13 J K13 | B13 K13 O13 with B12 K11 J:
            # the rack's joker as K12 and the table's as B11 keeps the table joker's old set
            # with the new B11-B13, 1 tile moved; matched before the rack's joker was taken
            # out, the old set went to K11-K13 and 2 moved).
            match, forced = _rack_jokers_placed(old_tallies, new_idx, slots, extra)
    # (target number, source number or 0 for the rack) -> tile indices
    flows: dict[tuple[int, int], list[int]] = {}
    from_rack: list[tuple[int, int, int]] = []  # (tile, new set, position) for joker values
    if old_sets is None:
        numbers = list(range(1, len(new_sets) + 1))
        left = tile_tally(tile_indices(table_tiles))
        lay = _("lay {tiles} from the table as set {target}")
        for j, (number, s) in enumerate(zip(numbers, new_idx)):
            table_part: list[int] = []
            for pos, x in enumerate(s):
                if left.get(x, 0) > 0 and (not forced or (j, pos) not in forced):
                    left[x] -= 1
                    table_part.append(x)
                else:
                    flows.setdefault((number, 0), []).append(x)
                    from_rack.append((x, j, pos))
            if table_part:
                steps.append(lay.format(tiles=" ".join([CODE[x] for x in table_part]), target=number))
    else:
        next_number = len(old_sets) + 1
        numbers = []
        for j in range(len(new_sets)):
            i = match.get(j)
            if i is not None:
                numbers.append(i + 1)
            else:
                numbers.append(next_number)
                next_number += 1
        # Tiles that stay: shared with the matched old set; the rest of each old set moves.
        remaining_old = [dict(t) for t in old_tallies]
        if forced or not all(len(t) == len(x) for t, x in zip(old_tallies, old_sets)) or not all(
            len(t) == len(x) for t, x in zip(new_tallies, new_idx)
        ):
            _flows_counted(new_idx, new_tallies, remaining_old, match, numbers, forced, flows, moved, from_rack)
        else:
            # No tile twice in one set (the usual case): the same, with sets for counts.
            kept_sets: list[Any] = []
            for j in range(len(new_idx)):
                i = match.get(j)
                if i is None:
                    kept_sets.append(())
                    continue
                rest = remaining_old[i]
                kept = new_tallies[j].keys() & rest.keys()
                for x in kept:
                    del rest[x]
                kept_sets.append(kept)
            sources: dict[int, list[int]] = {}
            for i, rest in enumerate(remaining_old):
                for x in rest:
                    got = sources.get(x)
                    if got is None:
                        sources[x] = [i + 1]
                    else:
                        got.append(i + 1)
            for j, s in enumerate(new_idx):
                kept = kept_sets[j]
                target = numbers[j]
                for pos, x in enumerate(s):
                    if x in kept:
                        continue
                    src = sources.get(x)
                    if src:
                        flows.setdefault((target, src.pop(0)), []).append(x)
                        moved.append(x)
                    else:
                        flows.setdefault((target, 0), []).append(x)
                        from_rack.append((x, j, pos))
        if moved:
            move = _("move {tiles} from set {source} to set {target}")
            for (target, origin), xs in sorted(flows.items()):
                if origin:
                    steps.append(move.format(tiles=tile_codes(xs), source=origin, target=target))
    add = _("add {tiles} from the rack to set {target}")
    for (target, origin), xs in sorted(flows.items()):
        if origin == 0:
            steps.append(add.format(tiles=tile_codes(xs), target=target))
    # Points of what came from the rack; a joker is worth the tile it stands for.
    points = 0
    for x, j, pos in from_rack:
        if x == 52:
            s = new_sets[j]
            jpos = [i for i, u in enumerate(s) if u.colour is None]
            points += joker_values(s)[jpos.index(pos)]
        else:
            points += x % 13 + 1
    order = sorted(range(len(new_sets)), key=numbers.__getitem__)
    by_index = BY_INDEX
    return Outcome(
        [new_sets[j] for j in order],
        [numbers[j] for j in order],
        steps,
        [by_index[x] for x in sorted(moved)],
        [by_index[x] for x in sorted([x for x, _j, _p in from_rack])],
        points,
    )
