"""``python -m referee``: see :mod:`referee.cli`."""

from referee.cli import main

raise SystemExit(main())
