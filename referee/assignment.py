"""Best assignment of rows to columns (the Hungarian algorithm), pure Python.

One implementation for the whole project: the solver matches new sets to old ones with it
(most tiles kept, integer weights) and the dice reader matches dice to faces (least
``-log`` probability, float costs). Stdlib only, so the referee can use it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["best_assignment"]

_INF = float("inf")


def best_assignment(weights: Sequence[Sequence[float]], *, maximize: bool = True) -> list[int]:
    """Column of each row in an assignment of every row to a distinct column that has the most
    total weight (``maximize=True``) or the least (``maximize=False``).

    ``weights`` is a rectangular matrix (a sequence of rows, e.g. lists or tuples; a numpy
    array's ``.tolist()``) with at least one row and no more rows than columns; entries are
    finite ints or floats. Integer matrices are solved exactly in integer arithmetic (no float
    rounding, however large the numbers). Among equally good assignments the result is
    deterministic: the same input always gives the same answer.

    The Hungarian algorithm with potentials (shortest augmenting paths), O(rows^2 x columns):
    a few dozen sets or nine dice against 55 faces take well under a millisecond.

    Raises ValueError when the matrix is empty, ragged, has more rows than columns, or holds a
    NaN or an infinity.
    """
    # Work on costs to minimise; negating ints stays exact. Copying also accepts any sequence
    # of rows (tuples, generators of rows are materialised) and makes the checks cheap.
    cost = [[-x for x in row] for row in weights] if maximize else [list(row) for row in weights]
    n = len(cost)
    if n == 0:
        raise ValueError("best_assignment needs at least one row, got an empty matrix")
    m = len(cost[0])
    for r, row in enumerate(cost):
        if len(row) != m:
            raise ValueError(f"best_assignment needs a rectangular matrix: row 0 has {m} entries, "
                             f"row {r} has {len(row)}")
        for x in row:
            # x != x is NaN; infinite costs would make every augmenting path equally "short".
            if x != x or x == _INF or x == -_INF:
                raise ValueError(f"best_assignment needs finite weights, row {r} holds {x!r}")
    if n > m:
        raise ValueError(f"best_assignment needs no more rows than columns, got {n} rows and {m} columns "
                         "(pass the transpose)")

    # 1-based potentials as in the textbook version; column 0 is the virtual start column.
    # u and v only ever change by a delta that is a difference of entries, so integer input
    # keeps them integers (_INF is only a sentinel and never reaches them).
    u = [0] * (n + 1)
    v = [0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row (1-based) holding column j, 0 for none
    way = [0] * (m + 1)
    columns = range(1, m + 1)
    for row in range(1, n + 1):
        p[0] = row
        j0 = 0
        minv = [_INF] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            costs = cost[i0 - 1]
            ui = u[i0]
            delta, j1 = _INF, 0
            for j in columns:
                if not used[j]:
                    cur = costs[j - 1] - ui - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
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
