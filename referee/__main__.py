"""``python -m referee``: see :mod:`referee.cli`."""

from referee.cli import main, run_piped

raise SystemExit(run_piped(main))
