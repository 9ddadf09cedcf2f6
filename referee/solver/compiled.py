"""Which depth-first search loops (and joker needs' passes) run: the compiled ones (``_search0``,
C, built by ``pip install`` where a C compiler is there) or their pure-Python twins in
:mod:`referee.solver.search0`.

The extension is optional: without a compiler, or when it is missing, the twins run and give
the same answers (the tests compare them). It is not used, with a warning, when it may not be
what its sources say: built from a C file whose digest of the twins (``TWIN_SHA256``) is not
``search0.py``'s as it is now (the twins were edited and the C file not, or not rebuilt),
written for other constants than :mod:`.state`'s and :mod:`.options`' (``CONSTANTS``: key
layout, score packing, joker needs), or older than its C file (the C file was edited and not
rebuilt: run ``pip install -e .`` again). Setting the environment variable
``RUMMIKUB_SOLVER_PURE=1`` runs the twins whatever is built.

``WHICH`` says which run and why; :func:`twin_digest` gives the digest to write into
``_search0.c`` after changing the twins.

The exact tie-break's Gomory cut has a compiled twin too (``_cuts0.c``, of
``referee.solver.least._gmi_cut``), guarded the same way by ``CUTS_VERSION`` and its C file's
date: ``GMI_CUT`` (None: the twin runs) and ``CUTS_WHICH``.
"""

from __future__ import annotations

import os
import platform
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.solver.search0 import need_tables, search0, search_jokers

try:  # (CPython's own SHA-256: hashlib's OpenSSL module takes 2-3 ms to import; 3.12 calls it _sha2)
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:
    from hashlib import sha256

_HERE = Path(__file__).resolve().parent

TWIN = _HERE / "search0.py"
"""The pure-Python twin, whose digest the extension must carry."""

C_SOURCE = _HERE / "_search0.c"
"""The extension's source (absent from an installed wheel: then only the digest is checked)."""


def twin_digest() -> str:
    """SHA-256 of the twin's source as it is now (bytes as stored, hex)."""
    return sha256(TWIN.read_bytes()).hexdigest()


def constants() -> dict[str, Any]:
    """The constants of :mod:`.state` and :mod:`.options` the compiled loops must agree with
    (their key layout, score packing, joker needs), as the extension lists them."""
    from referee.solver.options import IDLE_NEED, NEED_INF
    from referee.solver.state import CB, G0_SHIFT, JS_SHIFT, KEEP_MASK, LEAN_JG, MAXG_SHIFT, P_SHIFT, PEND_SHIFT, S_SHIFT, VJS_CLEAR

    return {
        "CB": CB, "G0_SHIFT": G0_SHIFT, "P_SHIFT": P_SHIFT, "JS_SHIFT": JS_SHIFT, "PEND_SHIFT": PEND_SHIFT,
        "MAXG_SHIFT": MAXG_SHIFT, "S_SHIFT": S_SHIFT, "NEED_INF": NEED_INF, "GROUP_SCRATCH": len(LEAN_JG),
        "KEEP_MASK": KEEP_MASK, "VJS_CLEAR": VJS_CLEAR, "IDLE_NEED": IDLE_NEED,
    }


def _load() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any], str]:
    """The functions to use (the joker-free loop, the loop with jokers, the joker needs' passes)
    and a line saying which and why."""
    if os.environ.get("RUMMIKUB_SOLVER_PURE", "") not in ("", "0"):
        return search0, search_jokers, need_tables, "pure Python (RUMMIKUB_SOLVER_PURE is set)"
    try:
        from referee.solver import _search0  # type: ignore[attr-defined]
    except ImportError:
        return search0, search_jokers, need_tables, "pure Python (the compiled loop is not built)"
    built = getattr(_search0, "TWIN_SHA256", "")
    if built != twin_digest():
        warnings.warn(
            "referee.solver._search0 was built for another version of search0.py: using the pure-Python "
            "loop (rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=2,
        )
        return search0, search_jokers, need_tables, "pure Python (the compiled loop is stale: its twin's digest differs)"
    if getattr(_search0, "CONSTANTS", None) != constants():
        warnings.warn(
            "referee.solver._search0 was written for other key layouts or constants than referee.solver.state's: "
            "using the pure-Python loop (change _search0.c to match, then `pip install -e .`)", RuntimeWarning, stacklevel=2,
        )
        return search0, search_jokers, need_tables, "pure Python (the compiled loop's constants differ)"
    try:
        stale = C_SOURCE.stat().st_mtime > Path(_search0.__file__).stat().st_mtime
    except OSError:
        stale = False  # (no C source beside it: an installed wheel)
    if stale:
        warnings.warn(
            "referee.solver._search0 is older than _search0.c: using the pure-Python loop "
            "(rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=2,
        )
        return search0, search_jokers, need_tables, "pure Python (the compiled loop is older than its C source)"
    return _search0.search0, _search0.search_jokers, _search0.need_tables, f"compiled ({Path(_search0.__file__).name})"


SEARCH0, SEARCH_JOKERS, NEED_TABLES, WHICH = _load()
"""The loops :meth:`DepthFirst.search` calls (joker-free, with jokers), the joker needs' passes
:meth:`Bounds.joker_needs` calls, and which they are."""

CUTS_VERSION = 2
"""The version of ``referee.solver.least._gmi_cut`` (one Gomory cut of the exact tie-break) the
compiled twin ``_cuts0.c`` must carry: raise it in both when the cut changes."""

CUTS_SOURCE = _HERE / "_cuts0.c"
"""The compiled cut's source (absent from an installed wheel)."""


def _load_cuts() -> tuple[Callable[..., Any] | None, str]:
    """The compiled Gomory cut (``_cuts0.gmi_cut``) or None (the twin ``least._gmi_cut`` runs:
    RUMMIKUB_SOLVER_PURE set, not built, another version, or older than its C file), and a line
    saying which and why."""
    if os.environ.get("RUMMIKUB_SOLVER_PURE", "") not in ("", "0"):
        return None, "pure Python (RUMMIKUB_SOLVER_PURE is set)"
    try:
        from referee.solver import _cuts0  # type: ignore[attr-defined]
    except ImportError:
        return None, "pure Python (the compiled cut is not built)"
    if getattr(_cuts0, "CUTS_VERSION", None) != CUTS_VERSION:
        warnings.warn(
            "referee.solver._cuts0 was built for another version of least._gmi_cut: using the pure-Python cut "
            "(rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=2,
        )
        return None, "pure Python (the compiled cut is another version)"
    try:
        stale = CUTS_SOURCE.stat().st_mtime > Path(_cuts0.__file__).stat().st_mtime
    except OSError:
        stale = False
    if stale:
        warnings.warn(
            "referee.solver._cuts0 is older than _cuts0.c: using the pure-Python cut (rebuild with `pip install -e .`)",
            RuntimeWarning, stacklevel=2,
        )
        return None, "pure Python (the compiled cut is older than its C source)"
    return _cuts0.gmi_cut, f"compiled ({Path(_cuts0.__file__).name})"


GMI_CUT, CUTS_WHICH = _load_cuts()
"""The compiled Gomory cut :func:`referee.solver.least._gomory_cuts` uses (None: the twin), and
which and why."""


TABLEAU_MACHINES = ("x86_64", "amd64")
"""Machines where ``_cuts0.tableau_row`` gives highspy's ``getReducedRow`` bit for bit: HiGHS 1.16
fuses that row's multiply-adds on arm64 (``mul_add_c``), not on x86_64, and the C row never does."""


def _load_tableau() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """``_cuts0.colwise`` and ``_cuts0.tableau_row`` (the tableau row from the basis-inverse row,
    as highspy's ``getReducedRow`` computes it) where the compiled cut is used on a machine of
    ``TABLEAU_MACHINES``, else None (highspy's rows: elsewhere the bits, so the cuts and searches,
    could differ from highspy's, though every cut stays valid)."""
    if GMI_CUT is None or platform.machine().lower() not in TABLEAU_MACHINES:
        return None
    from referee.solver import _cuts0  # type: ignore[attr-defined]

    return _cuts0.colwise, _cuts0.tableau_row


TABLEAU_ROW = _load_tableau()
"""What :func:`referee.solver.least._gomory_cuts` computes the tableau rows with (None: highspy's
``getReducedRow``)."""

