"""referee.assignment.best_assignment: the one Hungarian assignment of the project (the solver's
set matching, the dice reader's faces), checked against brute force over every assignment."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

import pytest

from referee.assignment import best_assignment


def _total(weights: Sequence[Sequence[float]], cols: Sequence[int]) -> float:
    return sum(weights[r][c] for r, c in enumerate(cols))


def _brute_best(weights: Sequence[Sequence[float]], maximize: bool) -> float:
    """Best total over every way to give each row its own column."""
    totals = (_total(weights, cols) for cols in itertools.permutations(range(len(weights[0])), len(weights)))
    return max(totals) if maximize else min(totals)


def _check(weights: Sequence[Sequence[float]], maximize: bool) -> list[int]:
    cols = best_assignment(weights, maximize=maximize)
    assert len(cols) == len(weights)
    assert len(set(cols)) == len(cols), f"a column used twice: {cols}"
    assert all(0 <= c < len(weights[0]) for c in cols)
    return cols


@pytest.mark.parametrize(
    ("weights", "maximize", "expected"),
    [
        ([[7]], True, [0]),
        ([[1, 2], [3, 4]], False, [0, 1]),  # 1 + 4 = 5 = 2 + 3: the first of equals
        ([[4, 1], [1, 4]], True, [0, 1]),
        ([[4, 1], [1, 4]], False, [1, 0]),
        ([[3, 5, 5]], True, [1]),  # one row: its best entry, the first of equals
        ([[2, 1, 1]], False, [1]),
        ([[5, 9, 1], [10, 3, 2]], True, [1, 0]),
        ([[5, 9, 1], [10, 3, 2]], False, [2, 1]),
        # Greedy would take the 9 and be left with 0; the best keeps 8 + 8.
        ([[9, 8], [8, 0]], True, [1, 0]),
        # The solver's weights: tiles a new set keeps of each old set (zeros where none).
        ([[3, 0, 0, 1], [0, 2, 2, 0], [0, 3, 0, 0]], True, [0, 2, 1]),
    ],
)
def test_known_answers(weights: list[list[int]], maximize: bool, expected: list[int]) -> None:
    assert best_assignment(weights, maximize=maximize) == expected


@pytest.mark.parametrize(
    ("weights", "maximize", "expected"),
    [
        ([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], True, [0, 1, 2]),
        ([[1, 1, 0], [1, 1, 0]], True, [0, 1]),
        ([[1, 1, 0], [1, 1, 0]], False, [2, 0]),
        ([[2, 2, 2], [2, 2, 2], [1, 1, 1]], True, [0, 1, 2]),
        ([[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]], True, [2, 0, 1]),
        ([[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]], False, [0, 1, 2]),
    ],
)
def test_ties_are_broken_as_before(weights: list[list[int]], maximize: bool, expected: list[int]) -> None:
    """Among equally good assignments, the one the solver's own copy of the algorithm chose
    or the dice reader's numpy copy before both moved here (checked against them): the solver's matching
    of new sets to old ones, and so its steps, must not change."""
    assert best_assignment(weights, maximize=maximize) == expected


@pytest.mark.parametrize("maximize", [True, False], ids=["max", "min"])
@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (2, 2), (2, 5), (3, 3), (3, 6), (4, 4), (4, 7), (5, 5), (5, 6)])
def test_matches_brute_force(shape: tuple[int, int], kind: str, maximize: bool) -> None:
    n, m = shape
    rng = random.Random(f"{shape} {kind} {maximize}")
    for _trial in range(25):
        if kind == "int":
            # Few distinct values, so that ties (several best assignments) are common.
            weights: list[list[float]] = [[rng.randint(-3, 6) for _ in range(m)] for _ in range(n)]
        else:
            weights = [[rng.uniform(-10.0, 10.0) for _ in range(m)] for _ in range(n)]
        cols = _check(weights, maximize)
        best = _brute_best(weights, maximize)
        if kind == "int":
            assert _total(weights, cols) == best, weights
        else:
            assert math.isclose(_total(weights, cols), best, rel_tol=1e-12, abs_tol=1e-12), weights


def test_ints_are_exact_beyond_float_precision() -> None:
    """2**60 + small differences: floats would lose the small parts (and the old sentinel of
    2**30 was far below such weights); ints must come out exactly best."""
    rng = random.Random(7)
    big = 2**60
    for _trial in range(30):
        weights = [[big * rng.randint(1, 3) + rng.randint(0, 9) for _ in range(5)] for _ in range(4)]
        for maximize in (True, False):
            cols = _check(weights, maximize)
            assert _total(weights, cols) == _brute_best(weights, maximize), weights
    assert float(big + 1) == float(big)  # (what floats would make of it)


def test_dice_costs_with_clipped_probabilities() -> None:
    """The dice reader's costs: -log of probabilities clipped at 1e-12 (about 27.6) beside
    costs near zero, minimised; two dice that read the same face best must not share it."""
    floor = -math.log(1e-12)
    probs = [
        [0.90, 0.05, 0.05, 1e-15],
        [0.80, 0.15, 0.05, 0.0],
        [1e-13, 1e-13, 0.60, 0.40],
    ]
    cost = [[-math.log(min(max(p, 1e-12), 1.0)) for p in row] for row in probs]
    assert max(map(max, cost)) == pytest.approx(floor)
    cols = _check(cost, maximize=False)
    assert cols == [0, 1, 2]
    assert _total(cost, cols) == pytest.approx(_brute_best(cost, maximize=False))


def test_accepts_tuples_and_leaves_the_input_alone() -> None:
    weights = ((1, 5, 3), (4, 2, 6))
    assert best_assignment(weights) == [1, 2]
    listed = [list(row) for row in weights]
    assert best_assignment(listed, maximize=False) == [0, 1]
    assert listed == [[1, 5, 3], [4, 2, 6]]


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([], "empty matrix"),
        ([[]], "no more rows than columns"),
        ([[1, 2], [3]], "row 0 has 2 entries, row 1 has 1"),
        ([[1, 2, 3], [4, 5, 6], [7, 8]], "row 2 has 2"),
        ([[1], [2]], "2 rows and 1 columns"),
        ([[1.0, math.nan]], "finite"),
        ([[1.0, 2.0], [math.inf, 0.0]], "row 1 holds inf"),
        ([[-math.inf, 0.0]], "finite"),
    ],
)
def test_bad_matrices_are_refused(weights: list[list[float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        best_assignment(weights)


def test_entries_that_are_not_numbers_are_refused() -> None:
    with pytest.raises(TypeError, match="needs numbers"):
        best_assignment([[1, "2"]])  # type: ignore[list-item]


def test_huge_finite_floats_are_not_mistaken_for_infinities() -> None:
    # Their sum overflows to inf, which only prompts a look at the entries: all finite.
    assert best_assignment([[1.7e308, 1.7e308, 0.0]], maximize=False) == [2]
    assert best_assignment([[1.7e308, 0.0, 1.7e308]]) == [0]


@pytest.mark.parametrize("maximize", [True, False], ids=["max", "min"])
@pytest.mark.parametrize(("n", "m", "kind"), [(12, 12, "int"), (20, 30, "int"), (9, 54, "float"), (30, 40, "float")])
def test_agrees_with_scipy_on_bigger_matrices(n: int, m: int, kind: str, maximize: bool) -> None:
    optimize = pytest.importorskip("scipy.optimize", reason="the cross-check needs SciPy (pip install .[dev])")
    rng = random.Random(f"{n}x{m} {kind} {maximize}")
    for _trial in range(5):
        if kind == "int":
            weights: list[list[float]] = [[rng.randint(0, 20) for _ in range(m)] for _ in range(n)]
        else:
            weights = [[-math.log(max(rng.random() ** 4, 1e-12)) for _ in range(m)] for _ in range(n)]
        cols = _check(weights, maximize)
        rows_ref, cols_ref = optimize.linear_sum_assignment(weights, maximize=maximize)
        ref = sum(weights[r][c] for r, c in zip(rows_ref.tolist(), cols_ref.tolist()))
        if kind == "int":
            assert _total(weights, cols) == ref
        else:
            assert _total(weights, cols) == pytest.approx(ref, rel=1e-12)
