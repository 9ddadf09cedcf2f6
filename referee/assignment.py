"""Best assignment of rows to columns (the Hungarian algorithm), pure Python.

One implementation for the whole project: the solver matches new sets to old ones with it
(most tiles kept, integer weights) and the dice reader matches dice to faces (least
``-log`` probability, float costs). Stdlib only, so the referee can use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import neg

__all__ = ["best_assignment"]

_INF = math.inf


def best_assignment(weights: Sequence[Sequence[float]], *, maximize: bool = True) -> list[int]:
    """Column of each row in an assignment of every row to a distinct column that has the most
    total weight (``maximize=True``) or the least (``maximize=False``).

    ``weights`` is a rectangular matrix (a sequence of rows, e.g. lists or tuples; a numpy
    array's ``.tolist()``) with at least one row and no more rows than columns; entries are
    finite ints or floats. Integer matrices are solved exactly in integer arithmetic (no float
    rounding, however large the numbers). Among equally good assignments the result is
    deterministic: the same input always gives the same answer.

    The Hungarian algorithm with potentials (shortest augmenting paths), O(rows^2 x columns):
    a few dozen sets, or nine dice against 54 faces, take well under a millisecond.

    Raises ValueError when the matrix is empty, ragged, has more rows than columns, or holds a
    NaN or an infinity.
    """
    rows = weights if isinstance(weights, list) else list(weights)
    n = len(rows)
    if n == 0:
        raise ValueError("best_assignment needs at least one row, got an empty matrix")
    m = len(rows[0])
    if n > 1 and len(set(map(len, rows))) != 1:
        r = next(r for r, row in enumerate(rows) if len(row) != m)
        raise ValueError(f"best_assignment needs a rectangular matrix: row 0 has {m} entries, "
                         f"row {r} has {len(rows[r])}")
    if n > m:
        raise ValueError(f"best_assignment needs no more rows than columns, got {n} rows and {m} columns "
                         "(pass the transpose)")
    # One C-speed sum finds a NaN or an infinity (they would turn the potentials into NaN and the
    # answer into nonsense); only then are the entries searched for the culprit.
    try:
        total = sum(map(sum, rows))
    except TypeError as exc:
        raise TypeError(f"best_assignment needs numbers, the matrix holds something else: {exc}") from None
    except OverflowError:  # an int beyond float range added to a float: look at the entries
        total = math.nan
    if not isinstance(total, int) and not math.isfinite(total):
        for r, row in enumerate(rows):
            for x in row:
                if x != x or x == _INF or x == -_INF:  # (isfinite would overflow on huge ints)
                    raise ValueError(f"best_assignment needs finite weights, row {r} holds {x!r}")
        # Otherwise finite floats only overflowed when added up: nothing wrong with them.
    if n == 1:
        # One row (common in the solver): its best entry, the first of equals as below.
        only = rows[0]
        return [only.index(max(only) if maximize else min(only))]
    # Costs to minimise (negating is exact for ints and floats alike), shifted to the 1-based
    # columns of the algorithm below so that its inner loop indexes them directly.
    cost = [[0, *map(neg, row)] for row in rows] if maximize else [[0, *row] for row in rows]

    # 1-based potentials as in the textbook version; column 0 is the virtual start column.
    # u and v only ever change by a delta that is a difference of entries, so integer input
    # keeps them integers (_INF is only a sentinel and never reaches them).
    u: list[float] = [0] * (n + 1)
    v: list[float] = [0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row (1-based) holding column j, 0 for none
    way = [0] * (m + 1)
    columns = range(1, m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv: list[float] = [_INF] * (m + 1)
        used = [False] * (m + 1)
        seen: list[int] = []  # the used columns, in the order they were reached
        delta: float = 0
        while True:
            used[j0] = True
            seen.append(j0)
            i0 = p[j0]
            costs = cost[i0 - 1]
            ui = u[i0]
            least, j1 = _INF, 0
            for j in columns:
                if not used[j]:
                    # The textbook lowers minv of every free column by the last step's delta in
                    # a second pass; doing it here is the same arithmetic with one pass fewer.
                    mj = minv[j] - delta
                    cur = costs[j] - ui - v[j]
                    if cur < mj:
                        mj = cur
                        way[j] = j0
                    minv[j] = mj
                    if mj < least:
                        least, j1 = mj, j
            delta = least
            for j in seen:
                u[p[j]] += delta
                v[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    chosen = [0] * n
    for j in columns:
        if p[j]:
            chosen[p[j] - 1] = j - 1
    return chosen
