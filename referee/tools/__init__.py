"""Developer tools of the referee, apart from the serving path (nothing in the app imports them):

- ``python -m referee.tools.bench``: the best-move solver against rummikub-solver, both modes;
- ``python -m referee.tools.tiebreak_check``: the solver's tie-break against the exact least.
"""
